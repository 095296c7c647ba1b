"""Editing the numbers of a tensor: a :class:`~gui.widgets.value_slider.ValueSlider` row per
element, or a :class:`~gui.widgets.value_table.ValueTable` for bigger ones.

Like its rows, it emits only for *user* edits: values set from a snapshot are applied with
signals blocked, so nothing echoes back. Every setter is cheap when nothing changed (a
panel calls them all on every snapshot).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gui.model import nested
from gui.model.session import InputRange
from gui.widgets.qt_text import plain_label, set_tooltip
from gui.widgets.slider_hold import SliderHold
from gui.widgets.value_slider import ValueSlider
from gui.widgets.value_table import ValueTable

MAX_SLIDERS = 64
# The most characters a row's label is given room for (see _align_labels).
LABEL_CHARACTERS = 14


class TensorEditor(QWidget):
    """A tensor's numbers: one :class:`ValueSlider` per element up to :data:`MAX_SLIDERS`,
    else a :class:`ValueTable`. ``elementEdited(flat_index, value)`` reports user edits.

    ``grad_name`` (``"x.grad"``) adds a column with each element's gradient; ``None`` leaves
    it out (the gradient argument's own sliders have none). ``opaque``: the editor sits on the
    window's plain background (see :class:`ValueSlider`).
    """

    elementEdited = Signal(int, float)
    # True when a value starts being moved (a handle pressed, a key or wheel step), False
    # when let go or the steps pause (SliderHold): the session reads only what is on
    # screen of a big graph meanwhile (Session.set_dragging).
    dragging = Signal(bool)

    def __init__(
        self,
        name: str,
        shape: Sequence[int],
        value_range: InputRange,
        grad_name: str | None = None,
        parent: QWidget | None = None,
        opaque: bool = False,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self.shape = tuple(shape)
        self.grad_name = grad_name
        self.sliders: list[ValueSlider] = []
        self.table: ValueTable | None = None
        self._range: InputRange | None = None
        self._default_labels: list[str] | None = None
        # Every label text the rows have shown: their width fits the widest, so a label
        # that changes ("v (implicit 1)" becoming "v" on the first drag) never
        # moves the slider beside it under the mouse.
        self._label_texts: set[str] = set()
        # Each caption over its column, and its whole text (shown shortened if need be).
        self._captions: list[tuple[QLabel, QWidget, str]] = []
        self._hold = SliderHold(self)
        self._hold.held.connect(self.dragging)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        if nested.numel(self.shape) > MAX_SLIDERS:
            self.table = ValueTable(name, self.shape)
            self.table.elementEdited.connect(self.elementEdited)
            layout.addWidget(self.table)
            return
        for i, label in enumerate(self.default_labels()):
            row = ValueSlider(label, value_range, grad_name is not None, opaque=opaque)
            if grad_name is not None:
                row.swatch.set_name(f"{grad_name}{nested.index_label(self.shape, i)}")
            row.valueEdited.connect(partial(self._on_view_row, i))
            self._hold.watch(row.slider)
            row.box.widened.connect(self._align_boxes)
            self.sliders.append(row)
            layout.addWidget(row)
        self._range = value_range
        if grad_name is not None and self.sliders:
            layout.insertLayout(0, self._caption_row(self.sliders[0], grad_name))
        self._align_labels()

    def _caption_row(self, first: ValueSlider, grad_name: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        for text, column in (("value", first.box), (grad_name, first.swatch)):
            caption = plain_label(text)  # "x.grad": a name from the program
            caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self._captions.append((caption, column, text))
            row.addWidget(caption)
        self._size_captions()
        return row

    def _size_captions(self) -> None:
        # Each caption as wide as the column it names (both follow the font); a model's
        # long name keeps its ".grad" end, whole on hover.
        for caption, column, text in self._captions:
            width = column.sizeHint().width()
            caption.setFixedWidth(width)
            shown = caption.fontMetrics().elidedText(text, Qt.TextElideMode.ElideLeft, width)
            caption.setText(shown)
            set_tooltip(caption, text if shown != text else "")

    @property
    def value_held(self) -> bool:
        """Whether one of the values is being moved (see :class:`SliderHold`)."""
        return self._hold.is_held

    def hideEvent(self, event: QHideEvent) -> None:
        # Removed mid-drag (a run changed the tensor's shape): no release will come.
        self._hold.release()
        super().hideEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode: measure again,
            # once every child has its new font too (they hear of it in no set order)
            QTimer.singleShot(0, self, self._refit)

    def _refit(self) -> None:
        self._align_boxes()
        self._align_labels()

    def _align_boxes(self) -> None:
        """Every row's number box as wide as the widest one asks (a long number in one
        row widens the column, not one box), and the column's caption with them."""
        if self.sliders:
            width = max(s.box.natural_width() for s in self.sliders)
            for s in self.sliders:
                s.box.set_least_width(width)
        self._size_captions()

    def default_labels(self) -> list[str]:
        """``x[0]``, ``x[1]``...: how Python indexes each element."""
        if self._default_labels is None:
            count = nested.numel(self.shape)
            self._default_labels = [
                f"{self.name}{nested.index_label(self.shape, i)}" for i in range(count)
            ]
        return list(self._default_labels)

    def _on_view_row(self, index: int, value: float) -> None:
        self.elementEdited.emit(index, value)

    def _align_labels(self) -> None:
        if not self.sliders:
            return
        self._label_texts.update(s.labelText() for s in self.sliders)
        metrics = self.sliders[0].label.fontMetrics()
        widest = max(metrics.horizontalAdvance(text) for text in self._label_texts) + 8
        # A model's qualified names (model.layers.0.self_attn.out_proj.bias[12]) would
        # push the column, and a 1280-pixel window, wider than the screen: past this
        # many characters the labels are shortened in the middle (whole on hover).
        width = min(widest, metrics.horizontalAdvance("x" * LABEL_CHARACTERS))
        for s in self.sliders:
            s.setLabelWidth(width)

    def label_width(self) -> int:
        """The width every row's label has (the widest label text shown so far)."""
        return self.sliders[0].label.minimumWidth() if self.sliders else 0

    def set_labels(self, labels: Sequence[str]) -> None:
        """Relabel the slider rows (e.g. "v (implicit 1)")."""
        if all(s.labelText() == text for s, text in zip(self.sliders, labels, strict=False)):
            return
        for s, text in zip(self.sliders, labels, strict=False):
            s.setLabel(text)
        self._align_labels()

    def set_range(self, value_range: InputRange) -> None:
        if value_range == self._range:
            return
        self._range = value_range
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
        if flat is None:
            for s in self.sliders:
                s.setGradient(None, scale)
            return
        for s, value in zip(self.sliders, flat, strict=False):
            s.setGradient(value, scale)
