"""An element's ``.grad`` as a number on its colour from the shared diverging scale.

Every swatch of a leaf changes on every slider tick, so showing a value is cheap: nothing
is done when the number and its colour stay, and the tooltip is written only when asked
for.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QHelpEvent,
    QImage,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from gui.model.drawing.colors import diverging_color, text_color_on
from gui.model.tensor_format import format_number
from gui.widgets.qt_text import show_tooltip

_SWATCH_SAMPLE = "-8.888e+88"
_NO_GRADIENT_FILL = "#ffffff"
_BORDER = QColor("#8c8c8c")
# The colours a swatch has drawn (a drag goes back and forth over the same few hundred).
_COLORS: dict[str, tuple[QColor, QColor]] = {}
_COLORS_MAX = 4096
# Each size's rounded border on each background, drawn once (see GradSwatch._frame).
_FRAMES: dict[tuple[int, int, float, int], QPixmap] = {}
_FRAMES_MAX = 64


def _colors(fill: str) -> tuple[QColor, QColor]:
    """The fill and the text colour on it, as QColors."""
    pair = _COLORS.get(fill)
    if pair is None:
        if len(_COLORS) >= _COLORS_MAX:
            _COLORS.clear()
        pair = _COLORS[fill] = (QColor(fill), QColor(text_color_on(fill)))
    return pair


class GradSwatch(QWidget):
    """A number on its colour from the shared diverging scale (an element's ``.grad``).

    ``name`` (``"x.grad[0]"``) starts the tooltip: ``"x.grad[0] = 0.2435"``.
    """

    def __init__(self, name: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._value: float | None = None
        self._text = ""
        self._fill = ""
        self._fill_color, self._ink = _colors(_NO_GRADIENT_FILL)
        self._key: tuple[float | None, float] | None = None
        self._box = QRectF()
        self._border = QPen(_BORDER, 1)
        self._frame_pixmap: QPixmap | None = None
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance(_SWATCH_SAMPLE) + 12, metrics.height() + 8)

    def text(self) -> str:
        return self._text

    def fill(self) -> str:
        """The fill colour shown (``"#rrggbb"``)."""
        return self._fill

    def set_name(self, name: str) -> None:
        """What the tooltip calls this element (``"x.grad[0]"``)."""
        self._name = name

    def tooltip_text(self) -> str:
        """The tooltip, written when asked for: ``"x.grad[0] = 0.2435"``."""
        return f"{self._name} = {format_number(self._value)}"

    def set_gradient(self, value: float | None, scale: float) -> None:
        """Show ``value`` (``None``: no gradient yet) coloured against ``scale``."""
        key = (value, scale)
        if key == self._key:
            return
        self._key = key
        self._value = value
        if value is None:
            text, fill = "None", _NO_GRADIENT_FILL
        else:
            text, fill = format_number(value), diverging_color(value, scale)
        if text == self._text and fill == self._fill:
            return
        self._text = text
        if fill != self._fill:
            self._fill = fill
            self._fill_color, self._ink = _colors(fill)
        self.update()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            show_tooltip(event.globalPos(), self.tooltip_text(), self)
            return True
        return super().event(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._box = QRectF(self.rect()).adjusted(0.5, 2.5, -0.5, -2.5)
        self._frame_pixmap = None

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        self._frame_pixmap = None  # another palette (background), style or screen

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        frame = None
        if self.autoFillBackground():
            frame = self._frame_pixmap
            if frame is None:
                frame = self._frame_pixmap = self._frame()
        if frame is None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(self._border)
            painter.setBrush(self._fill_color)
            painter.drawRoundedRect(self._box, 4, 4)
        else:
            # The same picture, without an antialiased path per paint: the colour, then
            # the border and the corners over it (see _frame).
            painter.fillRect(self._box.toAlignedRect(), self._fill_color)
            painter.drawPixmap(0, 0, frame)
        painter.setPen(self._ink)
        painter.drawText(self._box, Qt.AlignmentFlag.AlignCenter, self._text)
        painter.end()

    def _frame(self) -> QPixmap:
        """The rounded border on the background around it, with the fill left out: drawn
        over any fill colour, it gives what drawing the rounded rectangle in that colour
        gives (the fill's share of each pixel is what the frame lets through)."""
        ratio = self.devicePixelRatioF()
        background = self.palette().color(self.backgroundRole())
        key = (self.width(), self.height(), ratio, background.rgba())
        frame = _FRAMES.get(key)
        if frame is None:
            image = QImage(
                round(self.width() * ratio),
                round(self.height() * ratio),
                QImage.Format.Format_ARGB32_Premultiplied,
            )
            image.setDevicePixelRatio(ratio)
            image.fill(background)
            painter = QPainter(image)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor("#000000"))
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_DestinationOut)
            painter.drawRoundedRect(self._box, 4, 4)  # the fill's share, cut out
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
            painter.setPen(self._border)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(self._box, 4, 4)
            painter.end()
            if len(_FRAMES) >= _FRAMES_MAX:
                _FRAMES.clear()
            frame = _FRAMES[key] = QPixmap.fromImage(image)
        return frame
