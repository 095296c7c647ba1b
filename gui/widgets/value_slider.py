"""One element of a tensor as a row: its label, a slider, the exact number, its ``.grad``.

It emits only for *user* edits: values set from a snapshot are applied with signals
blocked, so nothing echoes back. Rows change on every slider tick, so each part is touched
only when what it shows changes, and a dragged value is reported before the row shows it
in its box (the session sends the run to the engine first).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QProxyStyle,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOption,
    QWidget,
)

from gui.model.session import InputRange
from gui.model.tensor_format import format_number
from gui.model.views.grid_numbers import step_decimals
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.grad_swatch import GradSwatch
from gui.widgets.number_box import BOX_LIMIT, NumberBox

# QSlider positions are ints; a tiny step across a wide range would overflow them.
MAX_TICKS = 100_000
PAGE_TICKS = 10
# The handle's length and the slider's thickness as a share of the font's line height
# (Fusion draws 15 px handles beside 11 pt text): they grow with presentation mode's font.
HANDLE_PER_LINE = 0.85
# Slider width for this many characters of the font at least (80 px at 11 pt).
MIN_SLIDER_CHARS = 9


_SCALED = (
    QStyle.PixelMetric.PM_SliderLength,
    QStyle.PixelMetric.PM_SliderThickness,
)


class _FontSizedSliders(QProxyStyle):
    """The application's style with slider handles that grow with the slider's font, so a
    projector's big font gets handles a presenter can hit (Qt's are a fixed size)."""

    _SCALED = _SCALED

    def pixelMetric(
        self,
        metric: QStyle.PixelMetric,
        option: QStyleOption | None = None,
        widget: QWidget | None = None,
    ) -> int:
        value = super().pixelMetric(metric, option, widget)
        if widget is None or metric not in self._SCALED:
            return value
        return max(value, round(widget.fontMetrics().height() * HANDLE_PER_LINE))


_STYLE: list[_FontSizedSliders] = []  # one for every slider, made once the app exists


def _slider_style() -> _FontSizedSliders:
    if not _STYLE:
        _STYLE.append(_FontSizedSliders())
    return _STYLE[0]


class _Slider(QSlider):
    """A horizontal slider that leaves the wheel to the scroll area until it has focus:
    in a panel full of sliders, scrolling the panel must not change values on the way.
    Its handle and its least width follow the font (presentation mode).

    The font-sized style is used only while the font asks for bigger handles than the
    style's own: it answers Qt's size questions in Python, several times per paint, and at
    the usual font its answers are the style's anyway.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._fit_style()

    def _fit_style(self) -> None:
        proxy = _slider_style()
        base = proxy.baseStyle()
        wanted = round(self.fontMetrics().height() * HANDLE_PER_LINE)
        grows = any(wanted > base.pixelMetric(metric, None, self) for metric in _SCALED)
        if grows and self.style() is not proxy:
            self.setStyle(proxy)
        elif not grows and self.style() is proxy:
            self.setStyle(QApplication.style())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_style()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        least = self.fontMetrics().averageCharWidth() * MIN_SLIDER_CHARS
        return QSize(max(hint.width(), least), hint.height())

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # an ignored wheel event goes on to the parent: the scroll area


def _grid_digits(step: float) -> int:
    """Decimals that keep a value on a grid of ``step`` and drop float noise: 9 for the
    usual steps, more for tiny ones (a 1e-12 step must not round to 0)."""
    return max(9, 6 - math.floor(math.log10(step)))


class ValueSlider(QWidget):
    """One element as a row: label, slider on the range's grid, exact number, gradient.

    ``valueEdited`` fires only for the user's edits; :meth:`setValue` is silent and cheap
    (skipped when unchanged). A value outside the range keeps its true number in the box
    while the slider pins at the end: the session's value is never clamped here.
    """

    valueEdited = Signal(float)

    def __init__(
        self,
        label: str,
        value_range: InputRange,
        show_gradient: bool = True,
        parent: QWidget | None = None,
        opaque: bool = False,
    ) -> None:
        """``opaque``: the row sits on the window's plain background colour (not in a
        tinted group box), so the slider, the box and the swatch may paint it themselves;
        then a moved handle, a new number or a new ``.grad`` repaints only them, not the
        row, the group and the panel under them."""
        super().__init__(parent)
        self._value = math.nan
        self._range: InputRange | None = None
        self._ticks = 1
        self._tick_step = 1.0
        self._digits = 9
        # What the box holds (its special text, its number: None when unknown), to skip
        # setting them again.
        self._box_special = ""
        self._box_number: float | None = None
        self._label_text = label
        # A tensor's name (the program's text), both ends kept where a model's qualified
        # name is longer than the labels' column (see TensorEditor).
        self.label = ElidedLabel(label, mode=Qt.TextElideMode.ElideMiddle)
        # Its width is set (setLabelWidth): a layout gives an Ignored widget none at all.
        self.label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.slider = _Slider()
        self.slider.setSingleStep(1)
        self.slider.setPageStep(PAGE_TICKS)
        self.box = NumberBox()
        # Typing may go past the slider's ends (the slider then pins): only the box can.
        self.box.setRange(-BOX_LIMIT, BOX_LIMIT)
        self.swatch = GradSwatch()
        for part in (self.slider, self.box, self.swatch):
            part.setAutoFillBackground(opaque)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.slider, self.box, self.swatch):
            row.addWidget(widget)
        # Only once it has a parent: a parentless widget made visible is its own window.
        self.swatch.setVisible(show_gradient)
        row.setStretch(1, 1)
        self.setRange(value_range)
        self.slider.valueChanged.connect(self._on_view_slider)
        self.box.valueChanged.connect(self._on_view_box)

    def value(self) -> float:
        return self._value

    def labelText(self) -> str:
        """The label's text (kept here: asking the QLabel costs a call into Qt)."""
        return self._label_text

    def setLabel(self, text: str) -> None:
        if text != self._label_text:
            self._label_text = text
            self.label.setText(text)

    def setLabelWidth(self, width: int) -> None:
        if width != self.label.minimumWidth() or width != self.label.maximumWidth():
            self.label.setFixedWidth(width)

    def setRange(self, value_range: InputRange) -> None:
        """Put the slider on the grid ``low + k * step``; the value stays what it is."""
        if value_range == self._range:
            return
        self._range = value_range
        # Halves first: a range may span more than the largest float (-1e308 to 1e308).
        half = value_range.high / 2 - value_range.low / 2
        steps = half / value_range.step * 2  # inf for a tiny step across a huge range
        self._ticks = MAX_TICKS if not steps < MAX_TICKS else max(1, math.ceil(steps - 1e-9))
        self._tick_step = max(value_range.step, half / MAX_TICKS * 2)
        self._digits = _grid_digits(self._tick_step)
        self.box.set_shown_decimals(step_decimals(value_range.step))
        with QSignalBlocker(self.slider), QSignalBlocker(self.box):
            self.slider.setRange(0, self._ticks)
            self.box.setSingleStep(value_range.step)
        self._box_number = None  # another step shows other decimals: write it again
        self._show(self._value)

    def setValue(self, value: float) -> None:
        """Show ``value`` without emitting ``valueEdited``."""
        if value == self._value or (math.isnan(value) and math.isnan(self._value)):
            return
        self._value = value
        self._show(value)

    def setGradient(self, value: float | None, scale: float) -> None:
        self.swatch.set_gradient(value, scale)

    def _value_at(self, tick: int) -> float:
        assert self._range is not None
        if tick >= self._ticks:
            return self._range.high
        low = self._range.low
        value = low + tick * self._tick_step
        if not math.isfinite(value):  # past the largest float on the way (a huge range)
            value = (low / 2 + tick * (self._tick_step / 2)) * 2
        # Rounding drops float noise: -5 + 123 * 0.01 is -3.7699999999999996.
        return min(max(round(value, self._digits), low), self._range.high)

    def _tick_of(self, value: float) -> int:
        """The slider position nearest ``value``: pinned at an end beyond the range, for
        infinities, and for numbers whose distance from the range overflows (1e308)."""
        assert self._range is not None
        if value != value:
            return 0
        # In halves: 1e308 - -5 is fine, but 1e308 - -1e308 is infinite.
        position = (value / 2 - self._range.low / 2) / self._tick_step * 2
        if not position < self._ticks:  # also +inf
            return self._ticks
        if not position > 0:
            return 0
        return round(position)

    def _show(self, value: float) -> None:
        tick = self._tick_of(value)
        if tick != self.slider.value():
            with QSignalBlocker(self.slider):
                self.slider.setValue(tick)
        self._show_in_box(value)

    def _show_in_box(self, value: float) -> None:
        # A spin box holds no nan/inf, nor a number past its limit (1e308 would show as
        # 1e9): show the number's text on the minimum instead.
        if abs(value) <= BOX_LIMIT:
            special, number = "", value
        else:
            special, number = format_number(value), self.box.minimum()
        if special == self._box_special and number == self._box_number:
            return
        with QSignalBlocker(self.box):
            if special != self._box_special:
                self._box_special = special
                self.box.setSpecialValueText(special)
            self.box.setValue(number)
        self._box_number = number
        self.box.fit_text()  # tells its column if the number widened it (signals were off)

    def _on_view_slider(self, tick: int) -> None:
        value = self._value_at(tick)
        if value == self._value:
            return
        self._value = value
        # The session hears first: it hands the run to the engine before anything else.
        self.valueEdited.emit(value)
        # Whatever the session did meanwhile (a result shown inline), the box shows the
        # row's value now.
        self._show_in_box(self._value)

    def _on_view_box(self, value: float) -> None:
        if value == self._value:
            return
        self._value = value
        self._box_number = value  # typed there: the box holds it already
        tick = self._tick_of(value)
        if tick != self.slider.value():
            with QSignalBlocker(self.slider):
                self.slider.setValue(tick)
        self.valueEdited.emit(value)
