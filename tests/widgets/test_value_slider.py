"""One element's row: the slider's handle grows with the font, for a presenter to hit."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QStyle
from pytestqt.qtbot import QtBot

from gui.model.session import InputRange
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
