"""Module groups in the graph panel: double-click and Enter open a collapsed module's box,
the context menu and the "Groups" menu collapse, search finds nodes inside a collapsed
module and opens it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.model.drawing.collapse import group_key
from gui.model.session import Session
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.module_groups import menu_text
from tests.fixtures import MLP_CODE, SessionSpy, show_panel, viewport_point

LAYER0 = ("model", "0")
BOX0 = group_key(LAYER0)


def mlp_panel(qtbot: QtBot, session: Session) -> GraphPanel:
    panel = show_panel(qtbot, GraphPanel(session), 700, 600)
    session.set_code(MLP_CODE)
    assert session.snapshot.grouping is not None
    return panel


def test_double_click_on_a_box_expands_its_module(qtbot: QtBot, session: Session) -> None:
    panel = mlp_panel(qtbot, session)
    session.collapse_module(LAYER0)
    item = panel.node_item(BOX0)
    assert item is not None
    assert item.lines[0] == "⊞ model.0"
    panel.view().bring_into_view(item)
    qtbot.mouseDClick(
        panel.view().viewport(), Qt.MouseButton.LeftButton, pos=viewport_point(panel, item)
    )
    assert session.snapshot.grouping is not None
    assert session.snapshot.grouping.collapsed == frozenset()
    assert panel.node_item(BOX0) is None
    weight = next(n.key for n in session.snapshot.graph.nodes if n.label == "model.0.weight")  # type: ignore[union-attr]
    assert panel.node_item(weight) is not None


def test_a_click_on_the_mark_expands_and_elsewhere_selects(qtbot: QtBot, session: Session) -> None:
    panel = mlp_panel(qtbot, session)
    session.collapse_module(LAYER0)
    item = panel.node_item(BOX0)
    assert item is not None
    panel.view().bring_into_view(item)
    qtbot.mouseClick(
        panel.view().viewport(), Qt.MouseButton.LeftButton, pos=viewport_point(panel, item)
    )
    assert session.snapshot.selected_node == BOX0  # the box's middle: selected, still shut
    assert session.snapshot.grouping.collapsed == {LAYER0}  # type: ignore[union-attr]
    mark = panel.groups.mark_rect(BOX0)
    assert mark is not None and item.sceneBoundingRect().contains(mark.center())
    point = panel.view().mapFromScene(mark.center())
    qtbot.mouseClick(panel.view().viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert session.snapshot.grouping.collapsed == frozenset()  # type: ignore[union-attr]


def test_enter_on_a_selected_box_expands_it(qtbot: QtBot, session: Session) -> None:
    panel = mlp_panel(qtbot, session)
    session.collapse_module(LAYER0)
    session.select_node(BOX0)
    panel.view().setFocus()
    qtbot.keyClick(panel.view(), Qt.Key.Key_Return)
    assert session.snapshot.grouping.collapsed == frozenset()  # type: ignore[union-attr]


@pytest.mark.qt_log_ignore(
    r"This plugin does not support raise\(\)", "This plugin does not support grabbing"
)
def test_context_menu_collapses_the_nodes_module(qtbot: QtBot, session: Session) -> None:
    panel = mlp_panel(qtbot, session)
    graph = session.snapshot.graph
    assert graph is not None
    weight = next(n.key for n in graph.nodes if n.label == "model.0.weight")
    item = panel.node_item(weight)
    assert item is not None
    panel.view().bring_into_view(item)
    point = viewport_point(panel, item)
    viewport = panel.view().viewport()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, viewport.mapToGlobal(point))
    QApplication.sendEvent(viewport, event)  # a right-click
    menu = panel.groups.context_menu
    assert menu is not None
    texts = [a.text() for a in menu.actions() if a.text()]
    assert texts[:2] == ["Collapse model.0", "Collapse model"]
    assert "Collapse all modules" in texts and "Expand all" in texts
    menu.actions()[0].trigger()
    menu.close()
    snap = session.snapshot
    assert snap.grouping is not None and snap.grouping.collapsed == {LAYER0}
    assert snap.selected_node == BOX0  # the right-clicked node's box stays selected
    assert panel.node_item(BOX0) is not None and panel.node_item(weight) is None


def test_groups_menu_offers_each_depth(qtbot: QtBot, session: Session) -> None:
    panel = mlp_panel(qtbot, session)
    assert panel.groups.button.isEnabled()
    panel.groups.menu.aboutToShow.emit()
    texts = [a.text() for a in panel.groups.menu.actions() if a.text()]
    assert texts[:2] == ["Collapse all modules", "Expand all"]
    depth2 = next(
        a for a in panel.groups.menu.actions() if a.text().startswith("Collapse to depth 2")
    )
    depth2.trigger()
    assert session.snapshot.grouping.collapsed == {LAYER0, ("model", "2")}  # type: ignore[union-attr]
    assert panel.node_item(group_key(("model", "2"))) is not None


def test_search_into_a_collapsed_module_opens_it(qtbot: QtBot, session: Session) -> None:
    panel = mlp_panel(qtbot, session)
    session.collapse_to_depth(1)
    assert panel.node_item(group_key(("model",))) is not None
    panel.search.setFocus()
    qtbot.keyClicks(panel.search, "model.2.bias")
    qtbot.keyClick(panel.search, Qt.Key.Key_Return)
    snap = session.snapshot
    assert snap.grouping is not None and snap.grouping.collapsed == frozenset()
    key = snap.selected_node
    assert key is not None and snap.graph is not None
    assert snap.graph.node(key).label == "model.2.bias"
    item = panel.node_item(key)
    assert item is not None and item.isVisible()
    viewport = panel.view().viewport().rect()
    centre = panel.view().mapFromScene(item.sceneBoundingRect().center())
    assert viewport.contains(QPoint(centre.x(), centre.y()))


def test_menu_text_is_one_plain_line() -> None:
    assert menu_text("a\nb\x00c&d") == "a b c&&d"


def test_a_double_click_is_one_session_call(
    qtbot: QtBot, session: Session, spy: SessionSpy
) -> None:
    panel = mlp_panel(qtbot, session)
    spy.direct("collapse_module", LAYER0)
    item = panel.node_item(BOX0)
    assert item is not None
    panel.view().bring_into_view(item)
    qtbot.mouseDClick(
        panel.view().viewport(), Qt.MouseButton.LeftButton, pos=viewport_point(panel, item)
    )
    assert spy.calls == ["expand_module"]
