"""Median time to lay out and to render as SVG synthetic autograd graphs of growing size.

Run: ``.venv/bin/python benchmarks/layout_speed.py [sizes...]`` (default 20 200 1000).
The graphs look like a small network unrolled: chains of ops over a few leaves, with saved
tensors and constants hanging off the function nodes, and a gradient on every edge.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

from gui.model.drawing.layout import layout_graph
from gui.model.drawing.svg import render_svg
from gui.model.result import (
    Graph,
    GraphEdge,
    GraphNode,
    NodeFlow,
    SavedValue,
    StepRecord,
    TensorData,
)

OPS = ("MulBackward0", "AddBackward0", "PowBackward0", "TanhBackward0", "SumBackward0")


def _vector(i: int) -> TensorData:
    return TensorData((3,), "float32", [0.5 * i - 1.0, 1.25, -0.75 * (i % 5)])


def synthetic(n_nodes: int) -> tuple[Graph, StepRecord, dict[str, TensorData | None]]:
    """A graph of about ``n_nodes`` nodes, a backward step over it and the leaves' grads."""
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    flows: dict[str, NodeFlow] = {}
    grads: dict[str, TensorData | None] = {}
    previous: str | None = None
    i = 0
    while len(nodes) < n_nodes - 1:
        key = f"{i}:{OPS[i % len(OPS)]}"
        saved = (SavedValue("self", tensor=_vector(i)),) if i % 3 == 0 else ()
        nodes.append(
            GraphNode(
                key, OPS[i % len(OPS)], OPS[i % len(OPS)], "function", value=_vector(i), saved=saved
            )
        )
        if saved:
            nodes.append(
                GraphNode(
                    f"{key}/saved:self", "saved", "self", "saved", value=saved[0].tensor, owner=key
                )
            )
        if previous is not None:
            edges.append(GraphEdge(key, previous, "data", 0))
        if i % 4 == 0:
            leaf = f"{i}:leaf"
            grads[f"w{i}"] = _vector(i + 1)
            nodes.append(
                GraphNode(leaf, "AccumulateGrad", f"w{i}", "leaf", var=f"w{i}", value=_vector(i))
            )
            edges.append(GraphEdge(leaf, key, "data", 1))
        elif i % 4 == 2:
            nodes.append(
                GraphNode(
                    f"{key}/const:1",
                    "constant",
                    "constant",
                    "constant",
                    value=TensorData((), "float32", 2.0),
                    owner=key,
                )
            )
            edges.append(GraphEdge(f"{key}/const:1", key, "constant", 1))
        flows[key] = NodeFlow((_vector(i),), (_vector(i + 2), _vector(i + 3)), i)
        previous = key
        i += 1
    root = nodes[0].key
    nodes.append(GraphNode("output", "output", "loss", "output", value=_vector(0)))
    edges.append(GraphEdge(root, "output", "output"))
    graph = Graph(tuple(nodes), tuple(edges), root, f"synthetic-{n_nodes}")
    step = StepRecord(0, "session", None, "loss", None, False, False, False, {}, grads, flows)
    return graph, step, grads


def _median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(sizes: list[int]) -> None:
    print(f"{'nodes':>6} {'edges':>6} {'layout ms':>10} {'svg ms':>10} {'svg KiB':>8}")
    for size in sizes:
        graph, step, grads = synthetic(size)
        repeats = 5 if size <= 1000 else 1
        t_layout = _median_seconds(partial(layout_graph, graph), repeats)
        t_svg = _median_seconds(partial(render_svg, graph, step, grads), repeats)
        kib = len(render_svg(graph, step, grads).encode()) / 1024
        print(
            f"{len(graph.nodes):>6} {len(graph.edges):>6} {t_layout * 1e3:>10.1f} "
            f"{t_svg * 1e3:>10.1f} {kib:>8.0f}"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [20, 200, 1000])
