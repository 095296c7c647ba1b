"""The box to type a number in: it shows a number as exactly as it is (see
:func:`gui.model.views.grid_numbers.number_text`) and reports only committed edits.

It is as wide as a usual number and widens (never narrows again, so a dragged slider never
makes its row reflow) for a longer one, up to :data:`_WIDEST_SAMPLE`: every text
:func:`~gui.model.tensor_format.format_number` writes for a number past the box's limit
(``-1.797e+308``) shows whole. A longer exact value (many decimals of a huge number) shows
its start, with the whole number in the tooltip; the box never gets wide enough to push
the window past a classroom screen.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QLocale, QSize, Qt, Signal
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QDoubleSpinBox, QSizePolicy, QWidget

from gui.model.views.grid_numbers import MAX_DECIMALS, number_text
from gui.widgets.qt_text import set_tooltip

BOX_LIMIT = 1e9  # the largest magnitude a number box takes
# What the widest number box must fit without moving the layout while values change.
_NUMBER_SAMPLE = "-888.8888"
# The widest a box grows for a long number: room for -1.797e+308 and a few digits more.
_WIDEST_SAMPLE = "-8888888.88888"
# The box's frame and text margins around its text.
_FRAME_PX = 16


class NumberBox(QDoubleSpinBox):
    """A spin box that shows a number as exactly as it is and reports only committed
    edits (Enter, focus out, arrow keys), in the C locale so ``1.5`` always parses.

    ``widened`` fires when a longer text made the box ask for more width (a column of
    boxes then widens them all, see :class:`~gui.widgets.tensor_editor.TensorEditor`).
    """

    widened = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown_decimals = 2
        # The widest text shown so far in this font, in pixels.
        self._text_width = 0
        # Widened while the box's signals were blocked: told at the next fit_text.
        self._widen_untold = False
        self._least_width = 0
        # The tooltip the owner gave, while the box shows its own (the whole number).
        self._own_tip: str | None = None
        self.setLocale(QLocale.c())
        self.setDecimals(MAX_DECIMALS)
        self.setKeyboardTracking(False)
        self.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # Typed text (values set from code come through setValue).
        self.textChanged.connect(self._on_model_text)

    def set_shown_decimals(self, decimals: int) -> None:
        self._shown_decimals = decimals

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # scrolling the panel, not this number

    def textFromValue(self, value: float) -> str:
        return number_text(value, self._shown_decimals)

    def natural_width(self) -> int:
        """The width the box asks for alone: a usual number, or the longest text it has
        shown (up to :data:`_WIDEST_SAMPLE`)."""
        metrics = self.fontMetrics()
        usual = metrics.horizontalAdvance(_NUMBER_SAMPLE)
        widest = metrics.horizontalAdvance(_WIDEST_SAMPLE)
        return max(usual, min(self._text_width, widest)) + _FRAME_PX

    def set_least_width(self, width: int) -> None:
        """Be at least ``width`` wide (a column of boxes as wide as its widest)."""
        if width != self._least_width:
            self._least_width = width
            self.updateGeometry()

    def fits(self) -> bool:
        """Whether the text shows whole in the box's current width."""
        return self.fontMetrics().horizontalAdvance(self.text()) + _FRAME_PX <= max(
            self.width(), self.natural_width()
        )

    def sizeHint(self) -> QSize:
        # Qt sizes spin boxes by their range's text; a wide range would make a huge box.
        width = max(self.natural_width(), self._least_width)
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            # Another font (presentation mode): measure what the box shows now again.
            self._text_width = 0
            self.fit_text()
            self.updateGeometry()

    def setValue(self, value: float) -> None:
        # Owners set values with signals blocked (no echo): textChanged says nothing then.
        super().setValue(value)
        self.fit_text()

    def fit_text(self) -> None:
        """Widen for the text shown now if it needs it (see the module's docstring), and
        say so if it widened while its signals were blocked."""
        self._on_model_text(self.text())
        if self._widen_untold and not self.signalsBlocked():
            self._widen_untold = False
            self.widened.emit()

    def _on_model_text(self, text: str) -> None:
        width = self.fontMetrics().horizontalAdvance(text)
        if width > self._text_width:
            before = self.natural_width()
            self._text_width = width
            if self.natural_width() > before:
                self.updateGeometry()
                self._widen_untold = True
                if not self.signalsBlocked():
                    self._widen_untold = False
                    self.widened.emit()
        self._show_whole(text)

    def _show_whole(self, text: str) -> None:
        """Past the widest box: show the number's start and the whole in the tooltip."""
        too_long = self._text_width > self.fontMetrics().horizontalAdvance(_WIDEST_SAMPLE) and (
            self.fontMetrics().horizontalAdvance(text) + _FRAME_PX > self.sizeHint().width()
        )
        if too_long:
            if self._own_tip is None:
                self._own_tip = self.toolTip()
            set_tooltip(self, text)
            edit = self.lineEdit()
            if edit is not None and not self.hasFocus():
                edit.setCursorPosition(0)  # the sign and the leading digits, not the end
        elif self._own_tip is not None:
            self.setToolTip(self._own_tip)
            self._own_tip = None
