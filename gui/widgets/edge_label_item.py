"""The gradient label of a graph edge: a small number on a white plate beside the edge."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from gui.model.drawing.layout import FONT_SIZE
from gui.widgets.scene_style import Z_LABEL, qcolor, scene_font

# As big as the boxes' text: a class at the back reads the gradients along the edges too.
EDGE_FONT_SIZE = FONT_SIZE
EDGE_TEXT_COLOR = "#303030"
# Edge labels sit on a near-opaque white plate so crossing lines never hide their digits.
LABEL_PLATE = QColor(255, 255, 255, 225)
# Text advances by (font pixel size, text): every label of every graph uses the same font,
# and a slider tick on a big graph measures a label per edge (a few µs each in Qt).
# Bounded: emptied when full.
_ADVANCES: dict[tuple[int, str], float] = {}
_ADVANCES_MAX = 16384


class EdgeLabelItem(QGraphicsItem):
    """A small gradient label on a white plate, its left edge anchored beside an edge."""

    PAD = 2.0

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        # Left of its edge the plate grows leftwards from the anchor, so it hugs the line.
        self.grows_left = False
        self._font = scene_font(EDGE_FONT_SIZE)
        self._metrics = QFontMetricsF(self._font)
        self._height = self._metrics.height() + 2 * self.PAD
        self._rect = QRectF(0, -self._height / 2, 0, self._height)
        self.setZValue(Z_LABEL)
        self.setVisible(False)

    def set_text(self, text: str) -> None:
        """Show ``text`` (empty hides the label)."""
        if text == self.text:
            return
        self.text = text
        self.setVisible(bool(text))
        if text:
            width = self.width_of(text)
            if width != self._rect.width():
                self.prepareGeometryChange()
                left = -width if self.grows_left else 0.0
                self._rect = QRectF(left, -self._height / 2, width, self._height)
        self.update()

    def width_of(self, text: str) -> float:
        """The plate's width for ``text``."""
        key = (self._font.pixelSize(), text)
        advance = _ADVANCES.get(key)
        if advance is None:
            if len(_ADVANCES) >= _ADVANCES_MAX:
                _ADVANCES.clear()
            advance = _ADVANCES[key] = self._metrics.horizontalAdvance(text)
        return advance + 2 * self.PAD

    def plate_at(self, anchor: QPointF, width: float, left: bool) -> QRectF:
        """Where a plate ``width`` wide would sit if anchored at ``anchor``."""
        x = anchor.x() - width if left else anchor.x()
        return QRectF(x, anchor.y() - self._height / 2, width, self._height)

    def anchor(self, pos: QPointF, left: bool) -> None:
        """Pin the plate's near edge to ``pos`` (on the edge's left or right)."""
        self.grows_left = left
        self.setPos(pos)

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(LABEL_PLATE)
        painter.drawRoundedRect(self._rect, 2.0, 2.0)
        painter.setPen(qcolor(EDGE_TEXT_COLOR))
        painter.setFont(self._font)
        painter.drawText(self._rect, Qt.AlignmentFlag.AlignCenter, self.text)
