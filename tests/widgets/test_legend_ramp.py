"""The graph's colour legend writes -scale, 0 and scale apart and whole at any font size
(presentation mode's bigger font once ran them into each other: ``-35.1035.11``)."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.widgets.legend_ramp import LegendRamp

GAP_PX = 4  # the least room between two numbers that still reads as two


def assert_texts_apart(legend: LegendRamp) -> None:
    rects = legend.text_rects()
    for rect in rects:
        assert legend.rect().contains(rect), f"{rect} runs off the bar {legend.rect()}"
    for left, right in itertools.pairwise(rects):
        assert right.left() - left.right() >= GAP_PX, f"{legend.texts()} touch: {rects}"


def show_at(qtbot: QtBot, scale: float, point_size: float) -> tuple[QWidget, LegendRamp]:
    # In a row as on the graph panel: the layout gives the legend the width it asks for.
    row = QWidget()
    qtbot.addWidget(row)
    legend = LegendRamp()
    layout = QHBoxLayout(row)
    layout.addWidget(legend)
    layout.addStretch(1)
    font = QFont(legend.font())
    font.setPointSizeF(point_size)
    legend.setFont(font)
    legend.set_scale(scale)
    row.resize(800, 60)
    row.show()
    qtbot.waitExposed(row)
    return row, legend


@pytest.mark.parametrize("scale", [35.11, 1.0, 1.234e-05, 1.797e308, 123456.0])
def test_the_numbers_are_apart_and_whole(qtbot: QtBot, scale: float) -> None:
    _row, legend = show_at(qtbot, scale, 11)
    assert_texts_apart(legend)


@pytest.mark.parametrize("scale", [35.11, 1.797e308])
def test_a_bigger_font_after_the_scale_widens_the_bar(qtbot: QtBot, scale: float) -> None:
    # Presentation mode: the font grows after the legend was measured for the scale.
    _row, legend = show_at(qtbot, scale, 11)
    small = legend.width()
    font = QFont(legend.font())
    font.setPointSizeF(11 * 1.6)
    legend.setFont(font)
    qtbot.waitUntil(lambda: legend.width() == legend.sizeHint().width())
    assert legend.width() > small
    assert_texts_apart(legend)
    # And back: the normal font gives the normal width again.
    legend.setFont(QFont(font.family(), 11))
    qtbot.waitUntil(lambda: legend.width() == legend.sizeHint().width())
    assert legend.width() == small
    assert_texts_apart(legend)


def test_a_short_row_drops_the_middle_zero_and_keeps_the_ends_whole(qtbot: QtBot) -> None:
    # Presentation mode on a 1024-pixel screen: the caption row is short of room.
    _row, legend = show_at(qtbot, 35.11, 11 * 1.6)
    assert legend.minimumSizeHint().width() < legend.sizeHint().width()
    legend.setFixedWidth(legend.minimumSizeHint().width())
    qtbot.waitUntil(lambda: legend.width() == legend.minimumSizeHint().width())
    assert not legend.shows_zero()
    assert len(legend.text_rects()) == 2
    assert_texts_apart(legend)
    legend.setFixedWidth(legend.sizeHint().width())
    qtbot.waitUntil(legend.shows_zero)
    assert len(legend.text_rects()) == 3
    assert_texts_apart(legend)
