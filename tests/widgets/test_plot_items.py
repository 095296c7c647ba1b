"""The light plot items that stand in for pyqtgraph's on the slider-tick path, and the host
that keeps the ``.grad`` line from relayouting the inputs column: they show what the items
they replace showed."""

from __future__ import annotations

import math

import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.widgets.grad_history import Markers
from gui.widgets.leaf_group import _WrapHost
from gui.widgets.plot_style import QuickCurve

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    "ys",
    [[1.0, -2.0, 3.5], [NAN, 2.0, -1.0], [INF, 1.0, -4.0], [0.0], [-INF, NAN, 7.0]],
)
def test_quick_curve_bounds_are_pyqtgraphs(qtbot: QtBot, ys: list[float]) -> None:
    xs = [float(i) for i in range(len(ys))]
    quick = QuickCurve(pen=pg.mkPen("k", width=2), connect="finite")
    quick.set_points(xs, ys)
    plain = pg.PlotCurveItem(pen=pg.mkPen("k", width=2), connect="finite")
    plain.setData(xs, ys)
    for ax in (0, 1):
        assert quick.dataBounds(ax) == plain.dataBounds(ax)
    x_shown, y_shown = quick.getData()
    assert list(x_shown) == xs
    assert [y for y in y_shown if math.isfinite(y)] == [y for y in ys if math.isfinite(y)]


def test_quick_curve_emptied_has_no_bounds(qtbot: QtBot) -> None:
    curve = QuickCurve()
    curve.set_points([1.0, 2.0], [3.0, 4.0])
    curve.set_points([], [])
    assert curve.dataBounds(1) == (None, None)


def test_markers_show_their_points_inside_their_bounds(qtbot: QtBot) -> None:
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    marks = Markers("o", "#0072b2", 9)
    plot.addItem(marks)
    marks.setData([1.0, 2.0, 3.0], [0.5, -1.0, 2.0])
    assert marks.getData() == ([1.0, 2.0, 3.0], [0.5, -1.0, 2.0])
    assert marks.dataBounds(0) == (1.0, 3.0)
    assert marks.dataBounds(1) == (-1.0, 2.0)
    box = marks.boundingRect()
    assert box.left() < 1.0 and box.right() > 3.0
    assert box.top() < -1.0 and box.bottom() > 2.0
    marks.setData([], [])
    assert marks.getData() == ([], [])
    assert marks.dataBounds(1) == (None, None)
    assert marks.boundingRect().isEmpty()


def test_wrap_host_grows_when_the_text_needs_more_lines(qtbot: QtBot) -> None:
    top = QWidget()
    qtbot.addWidget(top)
    layout = QVBoxLayout(top)
    label = QLabel("x.grad = [1., 2.]")
    label.setWordWrap(True)
    host = _WrapHost(label)
    layout.addWidget(host)
    layout.addStretch(1)
    top.resize(200, 400)
    top.show()
    qtbot.waitExposed(top)
    one_line = host.height()
    assert label.geometry() == host.rect()
    label.setText("x.grad = " + ", ".join(f"{i}.125" for i in range(40)))
    qtbot.waitUntil(lambda: host.height() > 2 * one_line)
    assert label.geometry() == host.rect()
    label.setText("x.grad = [3., 4.]")
    qtbot.waitUntil(lambda: host.height() == one_line)
