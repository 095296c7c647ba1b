"""Editing the numbers of a tensor: a slider row per element, or a table for bigger ones.

:class:`ValueSlider` is one row (``x[1]``, a slider, the exact number, the element's
``.grad``); :class:`ValueTable` a compact grid for tensors with too many elements for rows;
:class:`TensorEditor` picks one of the two by size. All of them emit only for *user* edits:
values set from a snapshot are applied with signals blocked, so nothing echoes back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import QEvent, QRectF, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent, QPen, QWheelEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from gui.model import nested
from gui.model.drawing.colors import diverging_color, text_color_on
from gui.model.session.snapshot import InputRange
from gui.model.tensor_format import format_number
from gui.widgets.range_editor import BOX_LIMIT, NumberBox, step_decimals

MAX_SLIDERS = 64
# QSlider positions are ints; a tiny step across a wide range would overflow them.
MAX_TICKS = 100_000
PAGE_TICKS = 10
_SWATCH_SAMPLE = "-8.888e+88"


class Slider(QSlider):
    """A horizontal slider that leaves the wheel to the scroll area until it has focus:
    in a panel full of sliders, scrolling the panel must not change values on the way."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # an ignored wheel event goes on to the parent: the scroll area


class GradSwatch(QWidget):
    """A number on its colour from the shared diverging scale (an element's ``.grad``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self._fill = QColor("#ffffff")
        self._ink = QColor("#000000")
        self._key: tuple[float | None, float] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance(_SWATCH_SAMPLE) + 12, metrics.height() + 8)

    def text(self) -> str:
        return self._text

    def set_gradient(self, value: float | None, scale: float, tooltip: str) -> None:
        """Show ``value`` (``None``: no gradient yet) coloured against ``scale``."""
        key = (value, scale)
        if key == self._key:
            return
        self._key = key
        if value is None:
            self._text, fill = "None", "#ffffff"
        else:
            self._text, fill = format_number(value), diverging_color(value, scale)
        self._fill, self._ink = QColor(fill), QColor(text_color_on(fill))
        self.setToolTip(tooltip)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 2.5, -0.5, -2.5)
        painter.setPen(QPen(QColor("#8c8c8c"), 1))
        painter.setBrush(self._fill)
        painter.drawRoundedRect(rect, 4, 4)
        painter.setPen(self._ink)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self._text)
        painter.end()


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
    ) -> None:
        super().__init__(parent)
        self._value = math.nan
        self._range: InputRange | None = None
        self._ticks = 1
        self._tick_step = 1.0
        self.label = QLabel(label)
        self.slider = Slider()
        self.slider.setSingleStep(1)
        self.slider.setPageStep(PAGE_TICKS)
        self.slider.setMinimumWidth(80)
        self.box = NumberBox()
        # Typing may go past the slider's ends (the slider then pins): only the box can.
        self.box.setRange(-BOX_LIMIT, BOX_LIMIT)
        self.swatch = GradSwatch()
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

    def setLabel(self, text: str) -> None:
        if text != self.label.text():
            self.label.setText(text)

    def setLabelWidth(self, width: int) -> None:
        self.label.setFixedWidth(width)

    def setRange(self, value_range: InputRange) -> None:
        """Put the slider on the grid ``low + k * step``; the value stays what it is."""
        if value_range == self._range:
            return
        self._range = value_range
        span = value_range.high - value_range.low
        self._ticks = max(1, min(MAX_TICKS, math.ceil(span / value_range.step - 1e-9)))
        self._tick_step = max(value_range.step, span / MAX_TICKS)
        self.box.set_shown_decimals(step_decimals(value_range.step))
        with QSignalBlocker(self.slider), QSignalBlocker(self.box):
            self.slider.setRange(0, self._ticks)
            self.box.setSingleStep(value_range.step)
        self._show(self._value)

    def setValue(self, value: float) -> None:
        """Show ``value`` without emitting ``valueEdited``."""
        if value == self._value or (math.isnan(value) and math.isnan(self._value)):
            return
        self._value = value
        self._show(value)

    def setGradient(self, value: float | None, scale: float, tooltip: str = "") -> None:
        self.swatch.set_gradient(value, scale, tooltip)

    def _value_at(self, tick: int) -> float:
        assert self._range is not None
        if tick >= self._ticks:
            return self._range.high
        # Rounding drops float noise: -5 + 123 * 0.01 is -3.7699999999999996.
        return round(self._range.low + tick * self._tick_step, 9)

    def _tick_of(self, value: float) -> int:
        assert self._range is not None
        if not math.isfinite(value):
            return self._ticks if value > 0 else 0
        tick = round((value - self._range.low) / self._tick_step)
        return max(0, min(self._ticks, tick))

    def _show(self, value: float) -> None:
        with QSignalBlocker(self.slider):
            self.slider.setValue(self._tick_of(value))
        self._show_in_box(value)

    def _show_in_box(self, value: float) -> None:
        finite = math.isfinite(value)
        with QSignalBlocker(self.box):
            # A spin box holds no nan/inf: show the word on the minimum instead.
            self.box.setSpecialValueText("" if finite else format_number(value))
            self.box.setValue(value if finite else self.box.minimum())

    def _on_view_slider(self, tick: int) -> None:
        value = self._value_at(tick)
        if value == self._value:
            return
        self._value = value
        self._show_in_box(value)
        self.valueEdited.emit(value)

    def _on_view_box(self, value: float) -> None:
        if value == self._value:
            return
        self._value = value
        with QSignalBlocker(self.slider):
            self.slider.setValue(self._tick_of(value))
        self.valueEdited.emit(value)


class ValueTable(QTableWidget):
    """Every element of a tensor in a grid (rows: first dimension, columns: the rest
    flattened), editable cell by cell; cells are tinted by the element's gradient."""

    elementEdited = Signal(int, float)

    def __init__(self, name: str, shape: Sequence[int], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._shape = tuple(shape)
        rows = self._shape[0] if len(self._shape) > 1 else 1
        cols = max(1, nested.numel(self._shape) // max(1, rows))
        self.setRowCount(rows)
        self.setColumnCount(cols)
        rest = self._shape[1:] if len(self._shape) > 1 else self._shape
        self.setHorizontalHeaderLabels([nested.index_label(rest, c) for c in range(cols)])
        self.setVerticalHeaderLabels([f"[{r}]" for r in range(rows)] if len(shape) > 1 else [""])
        width = self.fontMetrics().horizontalAdvance("-8.888e+88") + 10
        self.horizontalHeader().setDefaultSectionSize(width)
        self._texts = [""] * (rows * cols)
        self._grads: list[float | None] = [None] * (rows * cols)
        self._fills = ["#ffffff"] * (rows * cols)
        self._scale = 1.0
        self._items = [QTableWidgetItem("") for _ in range(rows * cols)]
        with QSignalBlocker(self):
            for i, item in enumerate(self._items):
                self.setItem(i // cols, i % cols, item)
        visible_rows = min(rows, 8) + 1
        self.setFixedHeight(visible_rows * self.verticalHeader().defaultSectionSize() + 8)
        self.itemChanged.connect(self._on_view_item)

    def cell_text(self, flat_index: int) -> str:
        return self._texts[flat_index]

    def set_values(self, flat: Sequence[float]) -> None:
        """Show ``flat`` (row-major); only cells whose text changes are touched."""
        with QSignalBlocker(self):
            for i, value in enumerate(flat):
                text = format_number(value)
                if text != self._texts[i]:
                    self._texts[i] = text
                    self._items[i].setText(text)

    def set_gradients(self, flat: Sequence[float] | None, scale: float) -> None:
        """Tint each cell by its element's gradient on the shared scale (white: none)."""
        grads: Sequence[float | None] = flat if flat is not None else [None] * len(self._grads)
        rescaled = scale != self._scale
        self._scale = scale
        with QSignalBlocker(self):
            for i, grad in enumerate(grads):
                if grad == self._grads[i] and not rescaled:
                    continue
                self._grads[i] = grad
                fill = "#ffffff" if grad is None else diverging_color(grad, scale)
                # Every item change repaints through the model: skip colours that stay.
                if fill != self._fills[i]:
                    self._fills[i] = fill
                    self._items[i].setBackground(QColor(fill))
                    self._items[i].setForeground(QColor(text_color_on(fill)))

    def tooltip_for(self, flat_index: int) -> str:
        label = f"{self._name}{nested.index_label(self._shape, flat_index)}"
        grad = format_number(self._grads[flat_index])
        return f"{label} = {self._texts[flat_index]}, .grad = {grad}"

    def viewportEvent(self, event: QEvent) -> bool:
        # Tooltips are written when asked for, not on every gradient change.
        if isinstance(event, QHelpEvent) and event.type() == QEvent.Type.ToolTip:
            index = self.indexAt(event.pos())
            if index.isValid():
                flat = index.row() * self.columnCount() + index.column()
                QToolTip.showText(event.globalPos(), self.tooltip_for(flat), self.viewport())
                return True
        return super().viewportEvent(event)

    def _on_view_item(self, item: QTableWidgetItem) -> None:
        index = item.row() * self.columnCount() + item.column()
        text = item.text().strip()
        if text == self._texts[index]:
            return
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            with QSignalBlocker(self):
                item.setText(self._texts[index])
            return
        self.elementEdited.emit(index, value)


class TensorEditor(QWidget):
    """A tensor's numbers: one :class:`ValueSlider` per element up to :data:`MAX_SLIDERS`,
    else a :class:`ValueTable`. ``elementEdited(flat_index, value)`` reports user edits.

    ``grad_name`` (``"x.grad"``) adds a column with each element's gradient; ``None`` leaves
    it out (the gradient argument's own sliders have none).
    """

    elementEdited = Signal(int, float)

    def __init__(
        self,
        name: str,
        shape: Sequence[int],
        value_range: InputRange,
        grad_name: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self.shape = tuple(shape)
        self.grad_name = grad_name
        self.sliders: list[ValueSlider] = []
        self.table: ValueTable | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        if nested.numel(self.shape) > MAX_SLIDERS:
            self.table = ValueTable(name, self.shape)
            self.table.elementEdited.connect(self.elementEdited)
            layout.addWidget(self.table)
            return
        for i, label in enumerate(self.default_labels()):
            row = ValueSlider(label, value_range, grad_name is not None)
            row.valueEdited.connect(partial(self._on_view_row, i))
            self.sliders.append(row)
            layout.addWidget(row)
        if grad_name is not None and self.sliders:
            layout.insertLayout(0, self._captions(self.sliders[0], grad_name))
        self._align_labels()

    @staticmethod
    def _captions(first: ValueSlider, grad_name: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        for text, width in (
            ("value", first.box.sizeHint().width()),
            (grad_name, first.swatch.sizeHint().width()),
        ):
            caption = QLabel(text)
            caption.setFixedWidth(width)
            caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
            row.addWidget(caption)
        return row

    def default_labels(self) -> list[str]:
        """``x[0]``, ``x[1]``...: how Python indexes each element."""
        count = nested.numel(self.shape)
        return [f"{self.name}{nested.index_label(self.shape, i)}" for i in range(count)]

    def _on_view_row(self, index: int, value: float) -> None:
        self.elementEdited.emit(index, value)

    def _align_labels(self) -> None:
        if not self.sliders:
            return
        metrics = self.sliders[0].label.fontMetrics()
        width = max(metrics.horizontalAdvance(s.label.text()) for s in self.sliders) + 8
        for s in self.sliders:
            s.setLabelWidth(width)

    def set_labels(self, labels: Sequence[str]) -> None:
        """Relabel the slider rows (e.g. "gradient (implicit 1.0)")."""
        if [s.label.text() for s in self.sliders] == list(labels):
            return
        for s, text in zip(self.sliders, labels, strict=False):
            s.setLabel(text)
        self._align_labels()

    def set_range(self, value_range: InputRange) -> None:
        for s in self.sliders:
            s.setRange(value_range)

    def set_values(self, flat: Sequence[float]) -> None:
        if self.table is not None:
            self.table.set_values(flat)
        for s, value in zip(self.sliders, flat, strict=False):
            s.setValue(value)

    def set_gradients(self, flat: Sequence[float] | None, scale: float) -> None:
        """Show each element's gradient (``None``: no ``.grad`` yet) on the shared scale."""
        if self.table is not None:
            self.table.set_gradients(flat, scale)
            return
        for i, s in enumerate(self.sliders):
            value = None if flat is None else flat[i]
            where = nested.index_label(self.shape, i)
            s.setGradient(value, scale, f"{self.grad_name}{where} = {format_number(value)}")
