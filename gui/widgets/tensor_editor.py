"""Editing the numbers of a tensor: a :class:`~gui.widgets.value_slider.ValueSlider` row per
element, or a :class:`~gui.widgets.value_table.ValueTable` for bigger ones.

Like its rows, it emits only for *user* edits: values set from a snapshot are applied with
signals blocked, so nothing echoes back.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gui.model import nested
from gui.model.session import InputRange
from gui.model.tensor_format import format_number
from gui.widgets.value_slider import ValueSlider
from gui.widgets.value_table import ValueTable

MAX_SLIDERS = 64


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
