"""A big graph's tick: boxes and edges on screen make their numbers at once, the others
from the tick's shared feed when read or painted, and all show what the shared helpers say."""

from __future__ import annotations

import pytest
import torch
from PySide6.QtWidgets import QGraphicsScene
from pytestqt.qtbot import QtBot

from gui.model.drawing.layout import COMPACT_NODE_LIMIT, node_lines
from gui.model.drawing.paint import box_fill, edge_stroke, gradients
from gui.model.session import Session, Snapshot
from gui.widgets.edge_item import edge_area
from gui.widgets.graph_items import GraphItems
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.scene_style import overlaps
from gui.widgets.tick_feed import AreaIndex
from tests.fixtures import show_panel

# ~2,000 boxes (each round: sin, mul, add, their constants and saved tensors): past the
# compact limit, so the graph is drawn with title-only boxes and no edge labels.
ROUNDS = 340
BIG_CHAIN = (
    "x = torch.tensor([0.5, -0.25], requires_grad=True)\n"
    "y = x\n"
    f"for i in range({ROUNDS}):\n"
    "    y = torch.sin(y) * 1.01 + 0.1\n"
    "out = y.sum()\n"
)


def plain_torch_grad(x0: float) -> list[float]:
    """``x.grad`` of the chain, computed by torch the ordinary way."""
    x = torch.tensor([x0, -0.25], requires_grad=True)
    y = x
    for _ in range(ROUNDS):
        y = torch.sin(y) * 1.01 + 0.1
    y.sum().backward()
    assert x.grad is not None
    return x.grad.tolist()


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> GraphPanel:
    return show_panel(qtbot, GraphPanel(session), 900, 600)


def assert_boxes_and_strokes_show(panel: GraphPanel, snapshot: Snapshot) -> None:
    """Every box's text and fill and every data edge's stroke are the helpers' own."""
    graph, step = snapshot.graph, snapshot.graph_step
    assert graph is not None and panel.items is not None
    grads = gradients(graph, step, snapshot.leaf_grads, snapshot.shown_step, snapshot.locked_scale)
    compact = panel.items.layout.compact
    for node in graph.nodes:
        item = panel.node_item(node.key)
        if item is None:
            continue  # a saved tensor, hidden
        flow = step.flows.get(node.key) if step is not None else None
        grad = grads.nodes[node.key]
        assert item.lines == node_lines(node, flow, grad, compact)
        assert item.fill == box_fill(node, grad, grads.scale)
    for i, edge_item in panel.items.edges.items():
        if edge_item.link:
            continue
        color, width = edge_stroke(grads.edges[i], grads.scale)
        assert (edge_item.pen().color().name(), edge_item.width) == (
            color,
            round(width * 20) / 20,
        )


def test_a_big_graphs_tick_makes_only_the_boxes_on_screen_and_the_rest_when_read(
    panel: GraphPanel, session: Session
) -> None:
    session.set_code(BIG_CHAIN)
    first = session.snapshot
    assert first.graph is not None and len(first.graph.nodes) > COMPACT_NODE_LIMIT
    items = panel.items
    assert items is not None and items.layout.compact
    # Only the items the first view shows are made (its first rows): the others are made
    # when they come into view or are read.
    scene = panel.view().scene()
    made = len(scene.items())
    assert 0 < items.nodes.built_count() < len(items.nodes) // 10
    assert 0 < items.edges.built_count() < len(items.edges) // 10
    assert made == items.nodes.built_count() + items.edges.built_count() + len(items.links)
    session.set_input("x", 0, 0.75)
    snapshot = session.snapshot
    leaf = snapshot.leaf_grads["x"]
    assert leaf is not None and leaf.values == pytest.approx(plain_torch_grad(0.75), rel=1e-5)
    on_screen = panel.view().visible_area()
    boxes = list(items.nodes.values())
    shown = [item for item in boxes if overlaps(item.area, on_screen)]
    waiting = [item for item in boxes if item.pending]
    assert shown and not any(item.pending for item in shown)
    # The tick touched the boxes on screen; the thousands below hold the feed.
    assert len(waiting) == len(boxes) - len(shown) > len(boxes) // 2
    assert items.pending_count() > len(waiting)  # their edges too
    # Read, each makes this tick's numbers, as if the tick had made them all: the edges
    # are made here, after the tick, and take its feed.
    assert items.edges.built_count() < len(items.edges) // 10
    assert_boxes_and_strokes_show(panel, snapshot)
    assert items.pending_count() == 0
    # The bounds, from the layout's areas before any item was made, are what Qt finds
    # asking each item now that all are made.
    assert len(scene.items()) == len(items.nodes) + len(items.edges) + len(items.links)
    scene_bounds = scene.itemsBoundingRect().getCoords()
    assert items.bounds.getCoords() == pytest.approx(scene_bounds, abs=1e-6)


def test_a_feed_left_unread_gives_way_to_the_next_tick(
    qtbot: QtBot, panel: GraphPanel, session: Session
) -> None:
    session.set_code(BIG_CHAIN)
    for value in (0.75, -1.5, 0.3):
        session.set_input("x", 0, value)
    snapshot = session.snapshot
    # Scrolled to the bottom: the boxes there are made before they are painted.
    view = panel.view()
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())
    assert panel.items is not None
    bottom = [
        item
        for item in panel.items.nodes.values()
        if overlaps(item.area, view.visible_area()) and item.pending
    ]
    assert bottom
    qtbot.waitUntil(lambda: not any(item.pending for item in bottom))
    assert_boxes_and_strokes_show(panel, snapshot)


def test_items_built_for_a_structure_answer_a_graph_without_one_of_their_nodes(
    qtbot: QtBot, session: Session
) -> None:
    """A box whose node the tick's graph lacks keeps what it shows (nothing to make)."""
    session.set_code(BIG_CHAIN.replace(f"range({ROUNDS})", "range(3)"))
    snapshot = session.snapshot
    graph, layout = snapshot.graph, snapshot.layout
    assert graph is not None and layout is not None and snapshot.paint is not None
    scene = QGraphicsScene()
    items = GraphItems(scene, graph, layout)
    items.update(graph, snapshot.graph_step, snapshot.paint)
    before = {key: (item.lines, item.fill) for key, item in items.nodes.items()}
    fewer = graph.__class__(
        graph.nodes[1:], graph.edges, graph.root, graph.structure_key, graph.truncated
    )
    items.update(fewer, snapshot.graph_step, snapshot.paint, on_screen=(0.0, 0.0, 0.0, 0.0))
    gone = graph.nodes[0].key
    assert (items.nodes[gone].lines, items.nodes[gone].fill) == before[gone]
    assert not items.nodes[gone].pending
    scene.clear()


def test_the_area_index_finds_what_overlaps_as_the_scene_style_does() -> None:
    areas = [(0.0, 0.0, 10.0, 10.0), (20.0, 0.0, 30.0, 5.0), (5.0, 8.0, 6.0, 40.0)]
    index = AreaIndex(areas)
    for view in [(9.0, 9.0, 21.0, 9.5), (10.0, 10.0, 10.0, 10.0), (31.0, 0.0, 40.0, 1.0)]:
        expected = [i for i, area in enumerate(areas) if overlaps(area, view)]
        assert index.overlapping(view) == expected
    assert index.overlapping(None) == [0, 1, 2]
    assert AreaIndex([]).overlapping((0.0, 0.0, 1.0, 1.0)) == []


def test_a_tick_makes_the_constant_links_in_view_before_the_view_paints(
    qtbot: QtBot, session: Session
) -> None:
    """A tick sorts out what is in view and the view's next settle, in the same view, has
    nothing more to do: the links in view (no numbers to take) are made by the tick too."""
    session.set_code(BIG_CHAIN)
    snapshot = session.snapshot
    graph, layout, grads = snapshot.graph, snapshot.layout, snapshot.paint
    assert graph is not None and layout is not None and layout.compact and grads is not None
    scene = QGraphicsScene()
    items = GraphItems(scene, graph, layout)
    assert len(scene.items()) == len(items.links)  # nothing made yet
    top = min(box.top for box in layout.nodes.values())
    view = (-1e4, top, 1e4, top + 400.0)
    items.update(graph, snapshot.graph_step, grads, view)
    items.settle(view)  # the same view: nothing to sort out again
    links = [i for i, edge in enumerate(graph.edges) if edge.kind == "constant"]
    in_view = [
        i
        for i in links
        if i in items.edges and overlaps(edge_area(layout.edges[i], layout.arrows.get(i)), view)
    ]
    assert in_view
    made = {item.index for item in items.edges.built()}
    assert set(in_view) <= made
    assert len(made) < len(items.edges) // 4
