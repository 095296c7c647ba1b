"""Every number a box holds reads whole: a value box once showed 1.797e+308 as
``.797e+308`` and -123456789 as ``-12345678``. Boxes widen for a long number (never
narrowing again, so a dragged slider does not make its row reflow), a column of boxes
widens together, and a number too long for the widest box shows its start with the whole
number in the tooltip. Checked at the app's font and at presentation mode's bigger one."""

from __future__ import annotations

import math

import pytest
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.model.session import InputRange
from gui.model.tensor_format import format_number
from gui.widgets.number_box import NumberBox
from gui.widgets.tensor_editor import TensorEditor
from gui.widgets.value_slider import ValueSlider
from tests.fixtures import show_panel

HUGE = InputRange(-5e307, 5e307, 5e304)  # the range a value near the largest float gets


def shows_whole(box: NumberBox) -> bool:
    """Whether the box's text fits the room its line edit has for text (2 px margins)."""
    edit = box.lineEdit()
    assert edit is not None
    return edit.fontMetrics().horizontalAdvance(box.text()) <= edit.width() - 4


def settle_layout(qtbot: QtBot, widget: ValueSlider | TensorEditor) -> None:
    qtbot.waitUntil(lambda: widget.layout() is not None and not widget.layout().isEmpty())
    QApplication.processEvents()


@pytest.mark.parametrize(
    "value",
    [1.797e308, -1.797e308, -1.0e-300, -123456789.0, 987654321.0, math.nan, -math.inf, 0.5],
)
def test_a_rows_box_shows_any_number_whole(qtbot: QtBot, point_size: float, value: float) -> None:
    row = show_panel(qtbot, ValueSlider("x[0]", HUGE), 640, 40)
    row.setValue(value)
    qtbot.waitUntil(lambda: shows_whole(row.box))
    expected = format_number(value) if not abs(value) <= 1e9 else row.box.textFromValue(value)
    assert row.box.text() == expected


def test_the_box_widens_once_and_never_narrows(qtbot: QtBot, point_size: float) -> None:
    row = show_panel(qtbot, ValueSlider("x[0]", HUGE), 640, 40)
    row.setValue(1.0)
    QApplication.processEvents()
    usual = row.box.width()
    row.setValue(-1.797e308)
    qtbot.waitUntil(lambda: row.box.width() > usual)
    wide = row.box.width()
    row.setValue(2.0)  # a slider dragged back: the row keeps its place
    QApplication.processEvents()
    assert row.box.width() == wide


def test_a_column_of_boxes_widens_together_with_its_caption(
    qtbot: QtBot, point_size: float
) -> None:
    editor = show_panel(qtbot, TensorEditor("x", (3,), HUGE, grad_name="x.grad"), 640, 160)
    editor.set_values([1.0, -1.797e308, 2.0])
    boxes = [row.box for row in editor.sliders]
    qtbot.waitUntil(lambda: shows_whole(boxes[1]))
    qtbot.waitUntil(lambda: len({box.width() for box in boxes}) == 1)
    caption = editor._captions[0][0]
    qtbot.waitUntil(lambda: caption.width() == boxes[0].sizeHint().width())
    assert all(shows_whole(box) for box in boxes)


def test_a_number_longer_than_the_widest_box_shows_its_start_and_the_whole_in_the_tooltip(
    qtbot: QtBot, point_size: float
) -> None:
    # A fine step over a wide range: the value on its grid has 17 characters.
    row = show_panel(qtbot, ValueSlider("x[0]", InputRange(-1e9, 1e9, 2e-6)), 900, 40)
    row.box.setToolTip("the owner's tip")
    row.setValue(-999999999.5)
    text = row.box.text()
    assert text == "-999999999.500000"
    assert row.box.toolTip() == text
    edit = row.box.lineEdit()
    assert edit is not None and edit.cursorPosition() == 0  # the sign and leading digits
    widest = row.box.fontMetrics().horizontalAdvance("-8888888.88888") + 16
    assert row.box.sizeHint().width() <= widest, "no wider than the widest box"
    row.setValue(1.5)  # fits again: the owner's tooltip comes back
    assert row.box.toolTip() == "the owner's tip"


def test_typed_text_widens_the_box_too(qtbot: QtBot, point_size: float) -> None:
    box = show_panel(qtbot, NumberBox(), 300, 40)
    box.setRange(-1e9, 1e9)
    box.set_shown_decimals(0)
    usual = box.sizeHint().width()
    box.setValue(-123456789.0)  # signals on: the box hears of its own text
    assert box.sizeHint().width() > usual
    box.resize(box.sizeHint())
    assert shows_whole(box)


def test_a_font_change_measures_again(qtbot: QtBot, qapp: QApplication) -> None:
    old = qapp.font()
    try:
        font = QFont(old)
        font.setPointSizeF(11)
        qapp.setFont(font)
        row = show_panel(qtbot, ValueSlider("x[0]", HUGE), 900, 60)
        row.setValue(-1.797e308)
        qtbot.waitUntil(lambda: shows_whole(row.box))
        small = row.box.width()
        font.setPointSizeF(11 * 1.6)
        qapp.setFont(font)
        qtbot.waitUntil(lambda: row.box.width() > small)
        qtbot.waitUntil(lambda: shows_whole(row.box))
    finally:
        qapp.setFont(old)
