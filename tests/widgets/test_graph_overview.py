"""Big graphs in the graph panel: "Laying out…" while pending, the minimap, the far view.

The session's side (numbers first, then the layout) is in
``tests/model/session/test_big_layouts.py``; paint times of a 5,000-node graph are
measured by ``benchmarks/big_layout.py``, not here.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from gui.model.session import Session
from gui.model.session.layouts import LayoutCache
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.graph_view import GraphView
from gui.widgets.layout_progress import laying_out_text
from gui.widgets.overview_paint import FAR_SCALE
from tests.big_graphs import (
    InProcessWorker,
    chain_graph,
    loop_graph,
    result_with,
)
from tests.fixtures import HeldDispatcher, show_panel

PROGRAMS = {
    "big": result_with(loop_graph(300)),
    "chain": result_with(chain_graph(800)),
    "small": result_with(chain_graph(3)),
}


def panel_with(qtbot: QtBot) -> tuple[GraphPanel, Session, HeldDispatcher]:
    dispatcher = HeldDispatcher()
    session = Session(
        lambda request: PROGRAMS[request.program.code],
        dispatcher,
        layouts=LayoutCache(process=InProcessWorker()),  # type: ignore[arg-type]
    )
    panel = show_panel(qtbot, GraphPanel(session), 600, 450)
    return panel, session, dispatcher


def shown_graph(qtbot: QtBot, code: str) -> tuple[GraphPanel, Session]:
    panel, session, dispatcher = panel_with(qtbot)
    session.set_code(code)
    while dispatcher.pending:
        dispatcher.finish_one()
    qtbot.wait(1)
    return panel, session


def view_centre(view: GraphView) -> QPointF:
    return view.mapToScene(view.viewport().rect()).boundingRect().center()


def test_the_panel_says_it_is_laying_out_a_big_graph_until_the_picture_comes(
    qtbot: QtBot,
) -> None:
    panel, session, dispatcher = panel_with(qtbot)
    session.set_code("big")
    dispatcher.finish_one()  # the run: numbers, no picture yet
    assert panel.stack.currentWidget() is panel.progress and panel.progress.isVisible()
    assert panel.progress.label.text() == laying_out_text(903) == "Laying out 903 boxes…"
    assert panel.progress.bar.maximum() == 0  # Qt's busy indicator
    assert panel.items is None
    dispatcher.finish_one()  # the layout
    assert panel.stack.currentWidget() is panel.view() and panel.items is not None
    assert len(panel.items.nodes) == 903


def test_the_minimap_shows_a_graph_bigger_than_the_view_and_moves_it(qtbot: QtBot) -> None:
    panel, _ = shown_graph(qtbot, "big")
    view, minimap = panel.view(), panel.view().minimap
    assert minimap.isVisible()
    assert view.viewport().geometry().contains(minimap.geometry())  # in the view's corner
    before = view_centre(view)
    target = QPoint(minimap.width() // 2, minimap.height() * 3 // 4)
    qtbot.mouseClick(minimap, Qt.MouseButton.LeftButton, pos=target)
    after = view_centre(view)
    scene = panel.items.bounds  # type: ignore[union-attr]
    wanted_y = scene.top() + 0.75 * scene.height()
    assert abs(after.y() - wanted_y) < scene.height() * 0.02 and after.y() > before.y() + 1000
    x = minimap.width() // 2
    qtbot.mousePress(minimap, Qt.MouseButton.LeftButton, pos=QPoint(x, 5))
    top = view_centre(view)
    qtbot.mouseMove(minimap, QPoint(x, minimap.height() // 4))  # dragged with the button held
    dragged = view_centre(view)
    qtbot.mouseRelease(minimap, Qt.MouseButton.LeftButton, pos=QPoint(x, minimap.height() // 4))
    assert top.y() < dragged.y() < after.y() and view.fit_mode is None  # no refits now
    assert abs(dragged.y() - (scene.top() + 0.25 * scene.height())) < scene.height() * 0.02


def test_the_minimap_hides_when_the_whole_graph_fits(qtbot: QtBot) -> None:
    panel, _ = shown_graph(qtbot, "big")
    panel.fit_action.trigger()
    qtbot.wait(1)
    assert not panel.view().minimap.isVisible()
    small, _ = shown_graph(qtbot, "small")  # a lesson-sized graph that scrolls
    assert small.view().verticalScrollBar().maximum() > 0
    assert small.items is not None and not small.view().minimap.isVisible()


def test_a_big_graph_fitted_whole_is_painted_as_an_overview(qtbot: QtBot) -> None:
    panel, _ = shown_graph(qtbot, "chain")
    view = panel.view()
    view.fit()
    qtbot.wait(1)
    assert view.transform().m11() < FAR_SCALE and view.overview is not None
    image = view.viewport().grab().toImage()
    rows = [
        y
        for y in range(image.height())
        if any(image.pixelColor(x, y) != QColor("white") for x in range(image.width()))
    ]
    assert len(rows) > image.height() // 2  # the chain, from top to bottom


def test_a_big_graph_starts_readable_at_its_leaves(qtbot: QtBot) -> None:
    panel, _ = shown_graph(qtbot, "big")
    view = panel.view()
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    leaf = panel.node_item("w")
    assert leaf is not None and visible.intersects(leaf.rect)
    assert visible.top() <= leaf.rect.top()
    assert view.transform().m11() >= view.readable_scale() - 1e-9
