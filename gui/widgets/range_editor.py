"""The editor of a slider range (low, high, step), which refuses bad ranges in words, not
exceptions."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from gui.model.session import InputRange
from gui.model.views.grid_numbers import range_text, step_decimals
from gui.widgets.number_box import BOX_LIMIT, NumberBox
from gui.widgets.qt_text import plain_label


class RangeEditor(QWidget):
    """A toggle showing the range, opening an inline low/high/step editor.

    ``rangeEdited(InputRange)`` fires for valid user edits only; an invalid one (low not
    below high, a step that does not fit) shows why next to the boxes and changes nothing.
    """

    rangeEdited = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown: InputRange | None = None
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setToolTip("Change the sliders' range and step")
        self.low, self.high, self.step = NumberBox(), NumberBox(), NumberBox()
        self.low.setRange(-BOX_LIMIT, BOX_LIMIT)
        self.high.setRange(-BOX_LIMIT, BOX_LIMIT)
        self.step.setRange(0, BOX_LIMIT)
        self.message = plain_label()
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        self.boxes = QWidget()
        row = QHBoxLayout(self.boxes)
        row.setContentsMargins(16, 0, 0, 0)
        for text, box in (("from", self.low), ("to", self.high), ("step", self.step)):
            row.addWidget(QLabel(text))
            row.addWidget(box)
            box.valueChanged.connect(self._on_view_box)
        row.addStretch(1)
        self.boxes.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.boxes)
        layout.addWidget(self.message)
        self.toggle.toggled.connect(self._on_view_toggle)

    def value_range(self) -> InputRange | None:
        return self._shown

    def setRange(self, value_range: InputRange) -> None:
        """Show ``value_range`` without emitting; a half-typed invalid edit is kept while
        the range itself does not change."""
        if value_range == self._shown:
            return
        self._shown = value_range
        self.toggle.setText(f"Range {range_text(value_range)}")
        decimals = step_decimals(value_range.step)
        for box, value in (
            (self.low, value_range.low),
            (self.high, value_range.high),
            (self.step, value_range.step),
        ):
            box.set_shown_decimals(decimals)
            box.setSingleStep(value_range.step)
            with QSignalBlocker(box):
                box.setValue(value)
        self.message.setVisible(False)

    def _on_view_toggle(self, opened: bool) -> None:
        self.boxes.setVisible(opened)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if opened else Qt.ArrowType.RightArrow)
        if not opened:
            self.message.setVisible(False)

    def _on_view_box(self, _value: float) -> None:
        try:
            edited = InputRange(self.low.value(), self.high.value(), self.step.value())
        except ValueError as error:
            self.message.setText(f"⚠ Range not changed: {error}.")
            self.message.setVisible(True)
            return
        self.message.setVisible(False)
        self.rangeEdited.emit(edited)
