"""How big a graph the app lays out: past these limits it says so instead of drawing.

Graphviz's ``dot`` gets slow much faster than graphs grow, and not with the number of boxes
alone. Measured here (2 cores, busy; ``benchmarks/layout_limits.py``, two runs):

===============================  ======  ============  =============
program                          boxes   rows crossed  ``dot``
===============================  ======  ============  =============
100-layer MLP (saved hidden)     303     0             130-180 ms
100-layer MLP (saved shown)      602     0             105-170 ms
loop of 12, shared ``w, b``      111     682           120-165 ms
loop of 14, shared ``w, b``      129     936           210-300 ms
RNN of 20 steps                  65      1,140         170-350 ms
loop of 18, shared ``w, b``      165     1,564         0.45-0.75 s
RNN of 30 steps                  95      2,610         1.0-2.3 s
RNN of 40 steps                  125     4,680         3.3-7.2 s
RNN of 80 steps (saved shown)    484     18,960        259 s
===============================  ======  ============  =============

A tensor used in every iteration of a loop (the weights of an RNN) sits above the first
use and sends an edge down past every later row; ``dot`` orders those edges through every
row they cross, and that, not the box count, is what explodes. So a graph is drawn when
both numbers stay under their limit (:data:`MAX_LAYOUT_BOXES` boxes and
:data:`MAX_ROWS_CROSSED` rows crossed by edges in all), which keeps ``dot`` well under a
second here (0.1-0.3 s for the biggest graphs it still draws). The rows are estimated the
way ``dot`` ranks a graph: every box one row below its lowest input, a leaf right above
its first use.

The window shows the numbers of a graph it does not draw in every other panel; the SVG
export and the graph panel say why the picture is missing (:func:`too_big`).
"""

from __future__ import annotations

from dataclasses import dataclass

from gui.model.result import Explanation, Graph

MAX_LAYOUT_BOXES = 500
MAX_ROWS_CROSSED = 1000
GRAPH_TOO_BIG = "graph-too-big"


@dataclass(frozen=True)
class LayoutSize:
    """What makes a layout slow: how many boxes, and how many rows edges cross in all."""

    boxes: int
    rows_crossed: int


def drawn_keys(graph: Graph, show_saved: bool) -> set[str]:
    """The nodes a layout places (saved tensors only when they are shown)."""
    return {n.key for n in graph.nodes if show_saved or n.kind != "saved"}


def layout_size(graph: Graph, show_saved: bool) -> LayoutSize:
    """The boxes of ``graph`` as drawn, and the rows its edges skip (see the module docs).

    A saved tensor or constant sits on its owner's row, so it counts as its owner. Rows are
    the longest path from the inputs; a node without inputs (a leaf, a constant) is moved
    down to right above its first user, as ``dot`` does to shorten edges. Linear in the
    size of the graph.
    """
    keys = drawn_keys(graph, show_saved)
    owner = {n.key: n.owner for n in graph.nodes if n.key in keys and n.owner in keys}

    def row_of(key: str) -> str:
        return owner.get(key, key)

    edges = []
    for e in graph.edges:
        if e.source in keys and e.target in keys:
            source, target = row_of(e.source), row_of(e.target)
            if source != target:
                edges.append((source, target))
    members = {row_of(k) for k in keys}
    users: dict[str, list[str]] = {k: [] for k in members}
    inputs = dict.fromkeys(members, 0)
    for source, target in edges:
        users[source].append(target)
        inputs[target] += 1
    row = dict.fromkeys(members, 0)
    order = [k for k in members if inputs[k] == 0]
    starts = list(order)
    for key in order:  # Kahn's topological order; grows while it is walked
        for user in users[key]:
            row[user] = max(row[user], row[key] + 1)
            inputs[user] -= 1
            if inputs[user] == 0:
                order.append(user)
    for key in starts:
        if users[key]:
            row[key] = min(row[user] for user in users[key]) - 1
    crossed = sum(max(row[t] - row[s] - 1, 0) for s, t in edges)
    return LayoutSize(boxes=len(keys), rows_crossed=crossed)


def too_big(graph: Graph, show_saved: bool) -> Explanation | None:
    """Why ``graph`` is not drawn, in plain words, or ``None`` when it is small enough."""
    size = layout_size(graph, show_saved)
    if size.boxes > MAX_LAYOUT_BOXES:
        message = (
            f"The graph has {size.boxes:,} boxes: more than the {MAX_LAYOUT_BOXES:,} "
            "the app draws, so it is not drawn."
        )
    elif size.rows_crossed > MAX_ROWS_CROSSED:
        message = (
            f"The graph has {size.boxes:,} boxes, but tensors reused all the way down (like "
            f"the weights in a loop) draw long edges across {size.rows_crossed:,} rows in "
            f"all; the app draws up to {MAX_ROWS_CROSSED:,}, so it is not drawn."
        )
    else:
        return None
    return Explanation(
        kind=GRAPH_TOO_BIG,
        message=message,
        explanation="Laying out a graph this big takes Graphviz seconds to minutes, so the "
        "app skips the picture rather than keep you waiting. Every number in the other "
        "panels is still right.",
        fix="To see the graph, make it smaller: fewer loop iterations (e.g. `range(5)`) or "
        "fewer layers.",
        severity="warning",
    )
