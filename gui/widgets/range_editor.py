"""Numbers on a step grid: how they read (:func:`number_text`), the box to type them in
(:class:`NumberBox`), and the editor of a slider range (low, high, step) that refuses bad
ranges in words, not exceptions.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.model.session.snapshot import InputRange

BOX_LIMIT = 1e9  # the largest magnitude a number box takes
MAX_DECIMALS = 6
# What the widest number box must fit without moving the layout while values change.
_NUMBER_SAMPLE = "-888.8888"


def step_decimals(step: float) -> int:
    """How many decimals a value on a grid of ``step`` needs: 0.04 -> 2, 0.002 -> 3."""
    for decimals in range(MAX_DECIMALS + 1):
        scaled = step * 10**decimals
        if abs(scaled - round(scaled)) <= 1e-6 * max(1.0, scaled):
            return decimals
    return MAX_DECIMALS


def number_text(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, or more when fewer would change it: a value
    the slider grid cannot hit (-1.2095 on a 0.004 grid) still shows as it is."""
    text = f"{value:.{decimals}f}"
    if abs(float(text) - value) <= 1e-6 * max(1.0, abs(value)):
        return text
    full = f"{value:.{MAX_DECIMALS}f}".rstrip("0")
    head, _, tail = full.partition(".")
    return f"{head}.{tail.ljust(decimals, '0')}" if tail or decimals else head


class NumberBox(QDoubleSpinBox):
    """A spin box that shows a number as exactly as it is and reports only committed
    edits (Enter, focus out, arrow keys), in the C locale so ``1.5`` always parses."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown_decimals = 2
        self.setLocale(QLocale.c())
        self.setDecimals(MAX_DECIMALS)
        self.setKeyboardTracking(False)
        self.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def set_shown_decimals(self, decimals: int) -> None:
        self._shown_decimals = decimals

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # scrolling the panel, not this number

    def textFromValue(self, value: float) -> str:
        return number_text(value, self._shown_decimals)

    def sizeHint(self) -> QSize:
        # Qt sizes spin boxes by their range's text; a wide range would make a huge box.
        width = self.fontMetrics().horizontalAdvance(_NUMBER_SAMPLE) + 16
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()


def range_text(value_range: InputRange) -> str:
    """``"-5 to 5, step 0.01"``."""
    return f"{value_range.low:g} to {value_range.high:g}, step {value_range.step:g}"


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
        self.message = QLabel()
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
