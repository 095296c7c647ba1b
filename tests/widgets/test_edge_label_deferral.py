"""A big graph's edge labels are placed as they come into view, readable: its first
picture no longer waits for a thousand labels it shows too small to read."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.model.drawing.paint import edge_label
from gui.model.session import Session
from gui.widgets.graph_items import PLACE_LABELS_AT_ONCE
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.scene_style import overlaps
from tests.fixtures import show_panel

BIG = (
    "x = torch.tensor([0.5], requires_grad=True)\n"
    "y = x\n"
    "for i in range(120):\n"
    "    y = torch.sin(y) * 1.01 + 0.1\n"
)


def _labelled(panel: GraphPanel, session: Session) -> tuple[list[int], list[int]]:
    """The data edges in view, and those whose labels are placed (shown)."""
    items, view, graph = panel.items, panel.view(), session.snapshot.drawn_graph
    assert items is not None and graph is not None
    visible = view.visible_area()
    strokes = {i: e for i, e in items.edges.items() if graph.edges[i].kind == "data"}
    in_view = [i for i, e in strokes.items() if overlaps(e.area, visible)]
    shown = [i for i, e in strokes.items() if e.label.isVisible()]
    return in_view, shown


def test_labels_are_placed_as_they_come_into_view(qtbot: QtBot, session: Session) -> None:
    panel = show_panel(qtbot, GraphPanel(session), 900, 600)
    session.set_code(BIG)
    items, view = panel.items, panel.view()
    assert items is not None and len(items.edges) > PLACE_LABELS_AT_ONCE
    qtbot.wait(20)
    in_view, shown = _labelled(panel, session)
    assert in_view and set(in_view) <= set(shown)
    assert len(shown) < len(items.edges) / 3  # the rest wait
    assert items.labels_unplaced
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.wait(20)
    in_view, shown = _labelled(panel, session)
    assert in_view and set(in_view) <= set(shown)
    # What they say is the gradient on their edge, as every drawing says it.
    snapshot = session.snapshot
    grads = snapshot.paint
    assert grads is not None
    labelled = [i for i in in_view if grads.edges.get(i) is not None]
    assert labelled
    for i in labelled:
        grad = grads.edges[i]
        assert grad is not None and items.edges[i].label.text == edge_label(grad)
    # Each placed label sits clear of every box.
    boxes = [n.rect for n in items.nodes.values()]  # the boxes, not the room for a ring
    for i in shown:
        label = items.edges[i].label
        plate = label.boundingRect().translated(label.pos())
        assert not any(plate.intersects(box) for box in boxes), i


def test_zoomed_out_too_far_to_read_no_label_is_placed(qtbot: QtBot, session: Session) -> None:
    panel = show_panel(qtbot, GraphPanel(session), 900, 600)
    session.set_code(BIG)
    panel.fit_action.trigger()  # fitted: the labels are far too small to read
    qtbot.wait(20)
    items = panel.items
    assert items is not None and not items.labels_legible_at(panel.view().transform().m11())
    assert _labelled(panel, session)[1] == []
