"""Every element of a tensor too big for slider rows, in an editable grid tinted by ``.grad``.

It emits only for *user* edits; text that is not a number is refused and put back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QSignalBlocker, Signal
from PySide6.QtGui import QColor, QHelpEvent
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QWidget

from gui.model import nested
from gui.model.drawing.colors import diverging_color, text_color_on
from gui.model.tensor_format import format_number
from gui.widgets.qt_text import show_tooltip


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
                show_tooltip(event.globalPos(), self.tooltip_for(flat), self.viewport())
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
