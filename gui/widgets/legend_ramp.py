"""The graph's colour legend: the shared diverging scale as one labelled bar.

Its numbers change on most slider ticks (the scale follows the gradients), its colours
never: the bar is drawn once per size into a pixmap and each repaint blits it and writes
the three numbers.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QLinearGradient, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from gui.model.drawing.colors import diverging_color, text_color_on
from gui.model.tensor_format import format_number, format_short

_ALIGNS = (Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignHCenter, Qt.AlignmentFlag.AlignRight)
_INSET = 5  # pixels between the bar's ends and the numbers at them
_GAP = 6  # the least room between two numbers that still reads as two


class LegendRamp(QWidget):
    """The diverging scale as one bar, labelled -s, 0 and s at its ends and middle."""

    STOPS = 9  # samples of the scale: its piecewise-linear colour stops
    TIP = "Gradient colours: blue below zero, red above, darkest at ±scale"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scale = 1.0
        self.locked = False
        self._width = 0
        self._least = 0  # the least width: the two ends whole (see minimumSizeHint)
        self._bar: QPixmap | None = None
        self._bar_key: tuple[int, int, float] | None = None
        # The ends' and middle's text colours: the bar's colours at -1, 0 and 1 of the scale.
        self._text_colors = [QColor(text_color_on(self._color(at))) for at in (-1.0, 0.0, 1.0)]
        # Narrower than it asks for when the row is short of room (presentation mode on a
        # 1024-pixel screen): the middle "0" goes first, the ends stay whole.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setToolTip(self.TIP)
        self._fit_width()

    def set_scale(self, scale: float, locked: bool = False) -> None:
        """Label the bar for ``scale`` (the magnitude drawn darkest); ``locked``: a scale
        the user locked (a round number, written without trailing zeros)."""
        if scale != self.scale or locked != self.locked or self._width == 0:
            if locked != self.locked:
                self.setToolTip(
                    self.TIP
                    + (" (locked: numbers beyond it get the end colours)" if locked else "")
                )
            self.scale = scale
            self.locked = locked
            self._fit_width()
            self.update()

    def texts(self) -> list[str]:
        """The numbers printed on the bar: -scale, 0, scale."""
        number = format_short if self.locked else format_number
        return [number(-self.scale), "0", number(self.scale)]

    def shrink(self) -> None:
        """Let the bar narrow again at the next :meth:`set_scale` (a new graph)."""
        self._width = self._least = 0

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            # Presentation mode's bigger font: the numbers, measured in the old font,
            # would run into each other. Measure again (narrower too, for a smaller font).
            self._width = self._least = 0
            self._fit_width()
            self.update()

    def wanted_width(self) -> int:
        """The width the bar asks for: -scale, 0 and scale whole and well apart."""
        metrics = self.fontMetrics()
        low, zero, high = (metrics.horizontalAdvance(t) for t in self.texts())
        return max(12 * metrics.averageCharWidth(), 2 * max(low, high) + zero + 40)

    def least_width(self) -> int:
        """The narrowest the bar gets: its two ends whole and apart (no middle "0")."""
        metrics = self.fontMetrics()
        low, _zero, high = (metrics.horizontalAdvance(t) for t in self.texts())
        return 2 * max(low, high) + 2 * _INSET + _GAP

    def shows_zero(self) -> bool:
        """Whether the middle "0" fits between the ends at the bar's width."""
        metrics = self.fontMetrics()
        low, zero, high = (metrics.horizontalAdvance(t) for t in self.texts())
        middle = self.width() / 2
        return (
            middle - zero / 2 - (_INSET + low) >= _GAP
            and (self.width() - _INSET - high) - (middle + zero / 2) >= _GAP
        )

    def _fit_width(self) -> None:
        # Only ever widens, so a slider tick never makes the caption beside it reflow
        # back and forth.
        width, least = self.wanted_width(), self.least_width()
        if width > self._width or least > self._least:
            self._width = max(width, self._width)
            self._least = max(least, self._least)
            self.updateGeometry()

    def sizeHint(self) -> QSize:
        return QSize(self._width, self.fontMetrics().height() + 6)

    def minimumSizeHint(self) -> QSize:
        return QSize(self._least, self.fontMetrics().height() + 6)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._bar_pixmap())
        inner = QRectF(self.rect()).adjusted(_INSET, 0, -_INSET, 0)
        for color, text, align in self._drawn():
            painter.setPen(color)
            painter.drawText(inner, align | Qt.AlignmentFlag.AlignVCenter, text)
        painter.end()

    def _drawn(self) -> list[tuple[QColor, str, Qt.AlignmentFlag]]:
        drawn = list(zip(self._text_colors, self.texts(), _ALIGNS, strict=True))
        return drawn if self.shows_zero() else [drawn[0], drawn[2]]

    def text_rects(self) -> list[QRect]:
        """Where :meth:`paintEvent` writes -scale, 0 (if it fits) and scale, in widget
        pixels."""
        inner = self.rect().adjusted(_INSET, 0, -_INSET, 0)
        metrics = self.fontMetrics()
        return [
            metrics.boundingRect(inner, align | Qt.AlignmentFlag.AlignVCenter, text)
            for _color, text, align in self._drawn()
        ]

    def _bar_pixmap(self) -> QPixmap:
        """The coloured bar at the widget's size and pixel ratio (made again on a resize)."""
        ratio = self.devicePixelRatioF()
        size = self.size()
        key = (size.width(), size.height(), ratio)
        bar = self._bar
        if bar is not None and self._bar_key == key:
            return bar
        self._bar_key = key
        bar = QPixmap(size * ratio)
        bar.setDevicePixelRatio(ratio)
        rect = QRectF(0, 0, size.width(), size.height())
        gradient = QLinearGradient(rect.topLeft(), rect.topRight())
        for i in range(self.STOPS):
            fraction = i / (self.STOPS - 1)
            gradient.setColorAt(fraction, QColor(self._color(2 * fraction - 1)))
        painter = QPainter(bar)
        painter.fillRect(rect, gradient)
        painter.end()
        self._bar = bar
        return bar

    @staticmethod
    def _color(fraction: float) -> str:
        """The colour ``fraction`` of the way from 0 to either end (the same at any scale)."""
        return diverging_color(fraction, 1.0)
