"""The box to type a number in: it shows a number as exactly as it is (see
:func:`gui.model.views.grid_numbers.number_text`) and reports only committed edits."""

from __future__ import annotations

from PySide6.QtCore import QLocale, QSize, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QDoubleSpinBox, QSizePolicy, QWidget

from gui.model.views.grid_numbers import MAX_DECIMALS, number_text

BOX_LIMIT = 1e9  # the largest magnitude a number box takes
# What the widest number box must fit without moving the layout while values change.
_NUMBER_SAMPLE = "-888.8888"


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
