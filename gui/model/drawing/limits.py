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
row they cross, and that, not the box count, is what explodes. So ``dot`` lays a graph out
only while both numbers stay under its limits (:data:`DOT_MAX_BOXES` boxes and
:data:`DOT_MAX_ROWS_CROSSED` rows crossed by edges in all), which keeps it well under a
second here (0.1-0.3 s for the biggest graphs it still places); :func:`dot_is_quick`. The
rows are estimated the way ``dot`` ranks a graph: every box one row below its lowest
input, a leaf right above its first use.

Bigger graphs are placed by the app's own layered layout (:mod:`.fast_layout`), whose cost
grows with boxes and edges only (rows crossed by long edges cost nothing there). Measured
here (``benchmarks/big_layout.py``, layout in the worker's code, no window):

===============================  ======  ============  ==========  ===========
program                          boxes   rows crossed  ``dot``     fast layout
===============================  ======  ============  ==========  ===========
chain of 2,000 ops               2,002   0             0.9 s       0.1 s
chain of 5,000 ops               5,002   0             2.4 s       0.25-0.45 s
RNN of 200 steps                 603     119,400       > 5 min     0.04-0.07 s
RNN of 2,000 steps               6,003   11,994,000    (never)     0.35-0.7 s
===============================  ======  ============  ==========  ===========

Past :data:`MAX_LAYOUT_BOXES` boxes the app says so instead of drawing (:func:`too_big`):
building the window's items for that many boxes, not the layout, is then what takes
seconds. The window shows the numbers of a graph it does not draw in every other panel; the
SVG export and the graph panel say why the picture is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from gui.model.result import Explanation, Graph

# Graphviz's dot places graphs within both of these (see the module docs).
DOT_MAX_BOXES = 500
DOT_MAX_ROWS_CROSSED = 1000
# The app's own layout places graphs up to this many boxes; past it, no picture. An RNN
# of 4,000 steps (12,000 boxes) took 3.2 s in the worker on a busy machine, near its
# 5 s time limit (layout_process.LAYOUT_TIME_LIMIT_SECONDS).
MAX_LAYOUT_BOXES = 10_000
# ...and up to this many edges: a 10,000-box graph has some 15,000. A program's
# ``torch.cat([x * w] * 30000)`` is two boxes and 30,000 edges between them, whose
# strokes, all in view, each tick would refresh (red team, round 17).
MAX_LAYOUT_EDGES = 2 * MAX_LAYOUT_BOXES
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


def dot_is_quick(size: LayoutSize) -> bool:
    """Whether Graphviz's ``dot`` places a graph of ``size`` well within a second (else the
    app's own layout, :mod:`.fast_layout`, does)."""
    return size.boxes <= DOT_MAX_BOXES and size.rows_crossed <= DOT_MAX_ROWS_CROSSED


def quick_for_dot(graph: Graph, show_saved: bool) -> bool:
    """``dot_is_quick(layout_size(graph, show_saved))``, without counting rows for a graph
    past :data:`DOT_MAX_BOXES` boxes: that count was most of the time a 5,000-function
    graph took to be sent to the layout worker (60 ms), and placed there."""
    if len(drawn_keys(graph, show_saved)) > DOT_MAX_BOXES:
        return False
    return dot_is_quick(layout_size(graph, show_saved))


def too_big(graph: Graph, show_saved: bool) -> Explanation | None:
    """Why ``graph`` is not drawn, in plain words, or ``None`` when it is small enough."""
    keys = drawn_keys(graph, show_saved)
    boxes = len(keys)
    if boxes > MAX_LAYOUT_BOXES:
        said = f"{boxes:,} boxes: more than the {MAX_LAYOUT_BOXES:,}"
    else:
        edges = sum(e.source in keys and e.target in keys for e in graph.edges)
        if edges <= MAX_LAYOUT_EDGES:
            return None
        said = f"{edges:,} edges: more than the {MAX_LAYOUT_EDGES:,}"
    return Explanation(
        kind=GRAPH_TOO_BIG,
        message=f"The graph has {said} the app draws, so it is not drawn.",
        explanation="Drawing a graph this big would keep you waiting, so the app skips the "
        "picture. Every number in the other panels is still right.",
        fix="To see the graph, make it smaller: fewer loop iterations (e.g. `range(5)`) or "
        "fewer layers.",
        severity="warning",
    )
