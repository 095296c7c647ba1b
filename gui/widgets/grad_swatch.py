"""An element's ``.grad`` as a number on its colour from the shared diverging scale."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from gui.model.drawing.colors import diverging_color, text_color_on
from gui.model.tensor_format import format_number

_SWATCH_SAMPLE = "-8.888e+88"


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
