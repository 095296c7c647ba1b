"""Round 17's red team, the window side: a graph from a program that the panel draws,
scrolls and ticks.

1. Many edges between few boxes: ``torch.cat([x * w] * 3000)`` is eleven nodes and 3,004
   edges, all between the same two boxes (the layout worker lays them out in ~2 s). The
   graph was not compact (1,500 boxes is the limit), so the window placed a label for
   every edge once they could be read, each looking at every line and label around its
   spots: every other edge. The first paint after the first tick froze the window for
   137 s. Now (a) a graph with more than ``COMPACT_EDGE_LIMIT`` edges is drawn compact,
   as one with many boxes is (title-only boxes, no edge labels; ``layout.is_compact``),
   and (b) placing a structure's labels looks at most ``MAX_LOOKED_AT`` things near their
   spots in all, the rest taking their first spot (``label_placement``): just under the
   limit, 2,990 such edges took 138 s to the first picture of a tick, now seconds.
2. (Held) A forged layout from a compromised layout worker whose boxes name nodes the
   graph has not, whose edge numbers run past the graph's edges, whose edges have no
   points or whose arrowheads have no edge: the panel draws what both know, selects and
   steps through it.
3. (Held) A selection or a step-through's highlight on a big (compact) graph's box or
   edge not made yet: it is made highlighted when it comes into view; a search finds a
   box not made yet and brings it into view.
"""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
import torch
from pytestqt.qtbot import QtBot

from gui.model.drawing.layout import COMPACT_EDGE_LIMIT, GraphLayout, NodeBox
from gui.model.session import Session
from gui.widgets import label_placement
from gui.widgets.graph_panel import GraphPanel
from tests.fixtures import show_panel


def parallel_edges(count: int) -> str:
    return (
        "x = torch.ones(1, requires_grad=True)\n"
        "w = torch.tensor(2.0, requires_grad=True)\n"
        f"y = torch.cat([x * w] * {count})\n"
        "out = (y * y).sum()\n"
        "out.backward()\n"
    )


def plain_grads(count: int, w0: float) -> tuple[list[float], list[float]]:
    x = torch.ones(1, requires_grad=True)
    w = torch.tensor(w0, requires_grad=True)
    y = torch.cat([x * w] * count)
    (y * y).sum().backward()
    assert x.grad is not None and w.grad is not None
    return x.grad.tolist(), [w.grad.item()]


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> GraphPanel:
    return show_panel(qtbot, GraphPanel(session), 900, 600)


def test_a_graph_of_many_edges_between_few_boxes_is_drawn_compact(
    qtbot: QtBot, panel: GraphPanel, session: Session
) -> None:
    session.set_code(parallel_edges(3000))
    graph = session.snapshot.graph
    assert graph is not None and len(graph.nodes) < 20 and len(graph.edges) > COMPACT_EDGE_LIMIT
    items = panel.items
    assert items is not None and items.layout.compact and not items.labels_unplaced
    started = time.monotonic()
    session.set_input("w", 0, 3.0)
    qtbot.wait(1)
    panel.view().grab()
    assert time.monotonic() - started < 10.0  # (was 137 s)
    leaf = session.snapshot.leaf_grads
    got_x, got_w = leaf["x"], leaf["w"]
    assert got_x is not None and got_w is not None
    want_x, want_w = plain_grads(3000, 3.0)
    assert got_x.values == pytest.approx(want_x, rel=1e-6)
    assert [got_w.values] == pytest.approx(want_w, rel=1e-6)


def test_placing_the_labels_of_crowded_edges_looks_at_a_bounded_amount(
    qtbot: QtBot, panel: GraphPanel, session: Session
) -> None:
    """Just under the edge limit: drawn with numbers and labels, placed within the budget
    (the first label of each edge looked at every edge placed before it: ~130 s)."""
    count = COMPACT_EDGE_LIMIT - 10
    session.set_code(parallel_edges(count))
    items = panel.items
    assert items is not None and not items.layout.compact
    started = time.monotonic()
    session.set_input("w", 0, 3.0)
    qtbot.wait(1)
    panel.view().grab()
    assert time.monotonic() - started < 30.0
    placer = items._placer
    assert placer is not None and not placer.unplaced and not items.labels_unplaced
    looked_at = placer._placed.looked_at + placer._obstacles.looked_at
    # The budget, and what the label that passed it looked at (every thing around it).
    assert looked_at <= label_placement.MAX_LOOKED_AT + 14 * 4 * len(items.edges)
    got_w = session.snapshot.leaf_grads["w"]
    assert got_w is not None and [got_w.values] == pytest.approx(plain_grads(count, 3.0)[1])


def test_a_forged_layout_draws_what_it_and_the_graph_both_know(
    panel: GraphPanel, session: Session
) -> None:
    session.set_code(parallel_edges(2))
    snapshot = session.snapshot
    real, graph = snapshot.layout, snapshot.drawn_graph
    assert real is not None and graph is not None
    keys = [node.key for node in graph.nodes if node.key in real.nodes]
    boxes = {key: box for key, box in real.nodes.items() if key != keys[0]}
    boxes["no such node"] = NodeBox(5.0, 5.0, 20.0, 10.0)
    edges = dict(real.edges)
    edges[0] = ()
    edges[len(graph.edges) + 5] = ((0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0))
    arrows = {**real.arrows, 10**9: (1.0, 1.0)}
    forged = GraphLayout(boxes, edges, real.width, real.height, arrows, real.compact)
    panel.render(replace(snapshot, layout=forged))
    items = panel.items
    assert items is not None and items.layout is forged
    assert keys[0] not in items.nodes and "no such node" not in items.nodes
    assert 0 not in items.edges and len(graph.edges) + 5 not in items.edges
    assert len(items.nodes) == len(keys) - 1
    for key in keys[1:]:
        items.select(key)
        item = panel.node_item(key)
        assert item is not None and item.highlighted
    panel.view().grab()
