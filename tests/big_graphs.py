"""Graphs of any size without running torch: for the layout limits and the layout worker.

- :func:`chain_graph`: one leaf and a long chain of ops (every edge spans one row: the
  cheap shape for Graphviz);
- :func:`loop_graph`: an RNN unrolled, two leaves used in every iteration (long edges
  across every row below: the shape that makes Graphviz slow);
- :class:`DotOnly` makes the layout worker use Graphviz for any graph (a slow layout);
- :func:`result_with` wraps a graph in a :class:`RunResult` whose numbers the other panels
  show (a leaf ``w`` with its gradient).
"""

from __future__ import annotations

from collections.abc import Callable

from gui.model.drawing.layout import GraphLayout
from gui.model.drawing.layout_process import LayoutProcess, never
from gui.model.result import Graph, GraphEdge, GraphNode, RunResult, TensorData

OPS = ("MulBackward0", "AddBackward0", "TanhBackward0")


def vector(*values: float) -> TensorData:
    return TensorData((len(values),), "float32", list(values))


def chain_graph(ops: int, key: str | None = None) -> Graph:
    """A leaf, ``ops`` function nodes in a chain and the output: ``ops + 2`` boxes."""
    nodes = [GraphNode("leaf", "AccumulateGrad", "w", "leaf", var="w", value=vector(1.0, 2.0))]
    edges = []
    previous = "leaf"
    for i in range(ops):
        name = OPS[i % len(OPS)]
        node_key = f"{i}:{name}"
        nodes.append(GraphNode(node_key, name, name, "function", value=vector(0.5, -0.5)))
        edges.append(GraphEdge(previous, node_key, "data", 0))
        previous = node_key
    nodes.append(GraphNode("output", "output", "loss", "output", value=vector(1.5, 0.5)))
    edges.append(GraphEdge(previous, "output", "output"))
    return Graph(tuple(nodes), tuple(edges), previous, key or f"chain-{ops}")


def loop_graph(iterations: int, key: str | None = None) -> Graph:
    """``h = tanh(w * h + b)`` unrolled ``iterations`` times: ``3 * iterations + 3`` boxes,
    with ``w`` and ``b`` feeding every iteration."""
    nodes = [
        GraphNode("w", "AccumulateGrad", "w", "leaf", var="w", value=vector(0.5, -0.3, 0.2)),
        GraphNode("b", "AccumulateGrad", "b", "leaf", var="b", value=vector(0.1, 0.1, 0.1)),
    ]
    edges = []
    previous: str | None = None
    for i in range(iterations):
        mul, add, tanh = (f"{3 * i + j}:{name}" for j, name in enumerate(OPS))
        for node_key, name in ((mul, OPS[0]), (add, OPS[1]), (tanh, OPS[2])):
            nodes.append(GraphNode(node_key, name, name, "function", value=vector(0.1, 0.2, 0.3)))
        edges.append(GraphEdge("w", mul, "data", 0))
        if previous is not None:
            edges.append(GraphEdge(previous, mul, "data", 1))
        edges += [GraphEdge(mul, add, "data", 0), GraphEdge("b", add, "data", 1)]
        edges.append(GraphEdge(add, tanh, "data", 0))
        previous = tanh
    assert previous is not None
    nodes.append(GraphNode("output", "output", "h", "output", value=vector(0.1, 0.2, 0.3)))
    edges.append(GraphEdge(previous, "output", "output"))
    return Graph(tuple(nodes), tuple(edges), previous, key or f"loop-{iterations}")


def running_total_graph(iterations: int) -> Graph:
    """:func:`loop_graph` with ``loss = loss + (h * h).sum()`` in every iteration: a
    running total beside the hidden state, as RNN tutorials sum their loss."""
    loop = loop_graph(iterations)
    nodes = [n for n in loop.nodes if n.kind != "output"]
    edges = [e for e in loop.edges if e.kind != "output"]
    total: str | None = None
    for i in range(iterations):
        tanh = f"{3 * i + 2}:{OPS[2]}"
        square, term, added = (
            f"t{i}:{name}" for name in ("MulBackward0", "SumBackward0", "AddBackward0")
        )
        for node_key in (square, term) + ((added,) if total is not None else ()):
            name = node_key.partition(":")[2]
            nodes.append(GraphNode(node_key, name, name, "function", value=vector(0.1)))
        edges += [GraphEdge(tanh, square, "data", 0), GraphEdge(tanh, square, "data", 1)]
        edges.append(GraphEdge(square, term, "data", 0))
        if total is None:
            total = term
            continue
        edges += [GraphEdge(total, added, "data", 0), GraphEdge(term, added, "data", 1)]
        total = added
    assert total is not None
    nodes.append(GraphNode("output", "output", "loss", "output", value=vector(1.0)))
    edges.append(GraphEdge(total, "output", "output"))
    return Graph(tuple(nodes), tuple(edges), total, f"total-{iterations}")


def result_with(graph: Graph | None) -> RunResult:
    """A finished run whose output has ``graph``, with one leaf ``w`` and its gradient."""
    from gui.model.result import TensorInfo

    w = vector(1.0, 2.0)
    info = TensorInfo("w", w, True, True, None, vector(3.0, 4.0), False, 1)
    return RunResult(
        tensors={"w": info},
        leaves=("w",),
        output=None,
        output_value=vector(1.5, 0.5),
        output_grad_fn="TanhBackward0",
        graph=graph,
        steps=(),
        printed=(),
        error=None,
        warnings=(),
        seed=0,
    )


class DotOnly:
    """A layout worker that always uses Graphviz's ``dot``, however big the graph: tests
    keep the real worker busy for seconds with it (``loop_graph(40)``: ~6 s), as every big
    graph did before the app had a layout of its own for them."""

    def __init__(self, process: LayoutProcess) -> None:
        self.process = process

    def layout(
        self, graph: Graph, show_saved: bool, cancelled: Callable[[], bool] = never
    ) -> GraphLayout:
        return self.process.layout(graph, show_saved, cancelled, use_dot=True)

    def interrupt(self) -> None:
        self.process.interrupt()


class InProcessWorker:
    """A layout worker stand-in: lays out in this process, and counts the requests."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def layout(
        self, graph: Graph, show_saved: bool, cancelled: Callable[[], bool] = never
    ) -> GraphLayout:
        from gui.model.drawing.layout import layout_graph

        self.asked.append(graph.structure_key)
        return layout_graph(graph, show_saved)

    def interrupt(self) -> None:
        pass
