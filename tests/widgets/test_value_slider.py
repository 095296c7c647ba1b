"""One element's row: the slider's handle grows with the font, for a presenter to hit; a
value shown again costs nothing, and no value moves the row's parts."""

from __future__ import annotations

import math

import pytest
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QStyle
from pytestqt.qtbot import QtBot

from gui.model.session import InputRange
from gui.widgets.number_box import NumberBox
from gui.widgets.value_slider import ValueSlider
from tests.fixtures import handle_center, show_panel


def handle_length(row: ValueSlider) -> int:
    slider = row.slider
    return slider.style().pixelMetric(QStyle.PixelMetric.PM_SliderLength, None, slider)


def set_point_size(qapp: QApplication, size: float) -> None:
    font = QFont(qapp.font())
    font.setPointSizeF(size)
    qapp.setFont(font)


def test_the_handle_and_the_slider_grow_with_the_font(qtbot: QtBot, qapp: QApplication) -> None:
    old = qapp.font()
    set_point_size(qapp, 11)  # the app's font (gui.window_app)
    row = show_panel(qtbot, ValueSlider("x[0]", InputRange(-5, 5, 0.01)), 420, 40)
    length, least = handle_length(row), row.slider.minimumSizeHint().width()
    assert length >= QApplication.style().pixelMetric(
        QStyle.PixelMetric.PM_SliderLength, None, None
    ), "never smaller than the style's own"
    set_point_size(qapp, 11 * 1.45)  # presentation mode
    try:
        qtbot.waitUntil(lambda: handle_length(row) > length)
        assert handle_length(row) >= 1.3 * length
        assert row.slider.minimumSizeHint().width() > least
        assert handle_center(row.slider).y() > 0
    finally:
        qapp.setFont(old)


def test_at_the_apps_font_the_slider_paints_with_the_style_itself(
    qtbot: QtBot, qapp: QApplication
) -> None:
    # The font-sized style answers Qt's size questions in Python, several per paint: it
    # is used only when the font asks for bigger handles than the style's own.
    old = qapp.font()
    set_point_size(qapp, 11)
    try:
        row = show_panel(qtbot, ValueSlider("x[0]", InputRange(-5, 5, 0.01)), 420, 40)
        assert row.slider.style() is QApplication.style()
        set_point_size(qapp, 11 * 1.45)
        qtbot.waitUntil(lambda: row.slider.style() is not QApplication.style())
        set_point_size(qapp, 11)
        qtbot.waitUntil(lambda: row.slider.style() is QApplication.style())
    finally:
        qapp.setFont(old)


def test_showing_the_same_value_again_touches_nothing(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = show_panel(qtbot, ValueSlider("x[0]", InputRange(-5, 5, 0.01)), 420, 40)
    row.setValue(1.25)
    calls: list[str] = []
    for owner, name in ((NumberBox, "setValue"), (NumberBox, "setSpecialValueText")):
        original = getattr(owner, name)
        monkeypatch.setattr(
            owner, name, lambda this, *a, _o=original, _n=name: (calls.append(_n), _o(this, *a))
        )
    row.setValue(1.25)
    row.setRange(InputRange(-5, 5, 0.01))
    row.setGradient(0.5, 1.0)
    row.setGradient(0.5, 1.0)
    assert calls == []
    row.setValue(math.nan)  # the word, on the box's minimum
    assert calls == ["setSpecialValueText", "setValue"] and row.box.text() == "nan"
    row.setValue(2.0)
    assert row.box.text() == "2.00"


def test_the_rows_parts_keep_their_place_across_the_range(qtbot: QtBot) -> None:
    row = show_panel(qtbot, ValueSlider("x[0]", InputRange(-5, 5, 0.005)), 420, 40)
    row.setLabelWidth(40)
    qtbot.wait(10)
    places = [w.geometry() for w in (row.label, row.slider, row.box, row.swatch)]
    for value in (-5.0, -4.995, -0.005, 0.0, 1.2345, 4.995, 5.0, 250.0, math.inf, math.nan):
        row.setValue(value)
        row.setGradient(value * 1e6 if math.isfinite(value) else value, 1.0)
        QApplication.processEvents()
        assert [w.geometry() for w in (row.label, row.slider, row.box, row.swatch)] == places
