"""Colour and scale a class can read: with the scale locked, doubling v doubles the bars on
a fixed axis and changes the box's colour; a vector of mixed signs shows one cell per
element in both colours; the lock is a toggle beside the legend that never echoes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from pytestqt.qtbot import QtBot

from gui.model.drawing.layout import cells_rect
from gui.model.session import Session
from gui.widgets.grad_plots_panel import GradPlotsPanel
from gui.widgets.graph_panel import GraphPanel
from tests.fixtures import SessionSpy, final_marks, leaf_key, load_lesson, show_panel

pytestmark = pytest.mark.slow

MIXED = "x = torch.tensor([1., -2., 3.], requires_grad=True)\ny = (x * x).sum()\n"


@pytest.fixture
def graph(qtbot: QtBot, session: Session) -> GraphPanel:
    return show_panel(qtbot, GraphPanel(session), 900, 600)


@pytest.fixture
def plots(qtbot: QtBot, session: Session) -> GradPlotsPanel:
    return show_panel(qtbot, GradPlotsPanel(session), 900, 300)


def x_fill(graph: GraphPanel, session: Session) -> str:
    item = graph.node_item(leaf_key(session.snapshot, "x"))
    assert item is not None
    return item.fill


def test_locked_doubling_v_doubles_the_bar_on_the_same_axis(
    graph: GraphPanel, plots: GradPlotsPanel, session: Session
) -> None:
    load_lesson(session, 4)  # locked at 40, v = 0.1: x.grad = 3.511
    assert session.snapshot.scale_lock and graph.lock_action.isChecked()
    bars, history = plots.bars("x"), plots.history("x")
    height, axis, history_axis = final_marks(bars)[0], bars.y_range(), history.y_range()
    fill = x_fill(graph, session)
    assert axis[0] < 0 < 40 < axis[1] < 45  # ±40, a little room around it
    session.set_gradient([[0.2]])
    assert final_marks(bars)[0] == pytest.approx(2 * height, rel=1e-5)
    assert bars.y_range() == axis and history.y_range() == history_axis
    assert x_fill(graph, session) != fill  # twice the gradient, a darker red
    assert graph.legend.texts() == ["-40", "0", "40"]
    assert not graph.beyond.isVisible()


def test_unlocked_the_axis_follows_the_numbers(
    graph: GraphPanel, plots: GradPlotsPanel, session: Session
) -> None:
    load_lesson(session, 4)
    graph.lock_action.trigger()  # the user unlocks
    assert not session.snapshot.scale_lock
    bars = plots.bars("x")
    axis = bars.y_range()
    assert axis[1] < 10  # fits 3.511, not 40
    session.set_gradient([[1.0]])
    assert bars.y_range()[1] > 35.11 > axis[1]
    assert graph.legend.texts() == ["-35.11", "0", "35.11"]


def test_beyond_the_locked_scale_the_legend_says_so_and_rescale_fits(
    graph: GraphPanel, plots: GradPlotsPanel, session: Session
) -> None:
    load_lesson(session, 4)
    session.set_gradient([[2.0]])  # x.grad = 70.22 on a scale locked at 40
    assert graph.beyond.isVisible() and "beyond scale" in graph.beyond.text()
    assert graph.rescale_action.isEnabled()
    graph.rescale_action.trigger()
    assert session.snapshot.locked_scale == 80.0
    assert not graph.beyond.isVisible()
    assert plots.bars("x").y_range()[1] > 80 and graph.legend.texts()[-1] == "80"


def test_the_lock_follows_the_session_without_echo(
    graph: GraphPanel, session: Session, spy: SessionSpy
) -> None:
    session.set_code(MIXED)
    assert not graph.lock_action.isChecked() and not graph.rescale_action.isEnabled()
    spy.direct("set_scale_lock", True)
    assert graph.lock_action.isChecked() and graph.rescale_action.isEnabled()
    assert spy.calls == []
    graph.lock_button.click()
    assert spy.calls == ["set_scale_lock"] and not session.snapshot.scale_lock


def test_a_mixed_sign_vector_shows_a_cell_per_element_in_both_colours(
    qtbot: QtBot, graph: GraphPanel, session: Session
) -> None:
    session.set_code(MIXED)  # x.grad = [2., -4., 6.]
    item = graph.node_item(leaf_key(session.snapshot, "x"))
    assert item is not None and item.cells is not None
    assert item.lines[-1] == "x.grad [2., -4., 6.]"
    colours = [QColor(c) for c in item.cells.colors]
    assert len(colours) == 3
    red, blue, red2 = colours
    assert red.red() > red.blue() and red2.red() > red2.blue() and blue.blue() > blue.red()
    # And they are painted: the strip's pixels hold a red and a blue.
    left, top, width, height = cells_rect(graph.items.layout.nodes[item.key], len(item.lines))
    strip = QRectF(left, top, width, height)
    image = QImage(300, 30, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    stretch = Qt.AspectRatioMode.IgnoreAspectRatio
    graph.view().scene().render(painter, QRectF(0, 0, 300, 30), strip, stretch)
    painter.end()
    row = [image.pixelColor(x, 15) for x in range(0, 300, 5)]
    assert any(c.red() > c.blue() + 60 for c in row), "no red cell painted"
    assert any(c.blue() > c.red() + 60 for c in row), "no blue cell painted"


def test_a_non_leaf_box_says_grad_in_never_dot_grad(graph: GraphPanel, session: Session) -> None:
    snapshot = load_lesson(session, 3)
    assert snapshot.graph is not None
    for node in snapshot.graph.nodes:
        item = graph.node_item(node.key)
        if item is None or node.kind == "leaf":
            continue
        assert not any(".grad" in line for line in item.lines), item.lines
        if node.kind == "function":
            assert item.lines[-1].startswith("grad in ")
