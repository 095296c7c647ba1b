"""A box of the graph: a node in its kind's style, with its text lines, outlined when selected.

Created once per graph structure and then only told new texts and colours; it repaints
only when something it shows really changed, and draws its text itself (one item per box,
not one text item per line), which keeps a 200-node graph cheap to update and to paint.

Styles follow the SVG export (:mod:`gui.model.drawing.svg`) so the window and an exported
report look alike: border widths and dash styles per node kind.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from gui.model.drawing.colors import KIND_BORDER, KIND_FILL, text_color_on
from gui.model.drawing.layout import FONT_SIZE, LINE_HEIGHT, NodeBox
from gui.widgets.scene_style import Z_NODE, Z_SELECTED, qcolor, scene_font

# The selected box's outline: purple lies outside both arms of the red/blue gradient scale
# and outside the kind colours, so it never reads as a value.
SELECTION_COLOR = "#7b3294"
SELECTION_WIDTH = 3.0
SELECTION_GAP = 2.5
CORNER_RADIUS = 6.0

# (rounded, border width, dashed) per node kind, as the SVG export's _STYLE.
KIND_STYLE: dict[str, tuple[bool, float, bool]] = {
    "leaf": (True, 2.2, False),
    "function": (True, 1.2, False),
    "constant": (False, 1.0, False),
    "saved": (True, 1.2, True),
    "output": (True, 3.2, False),
}


class NodeItem(QGraphicsItem):
    """One box: a rounded rectangle in its kind's style with its text lines, centred.

    ``lines`` and ``fill`` are what the box shows (tests read them); ``key`` is the graph
    node's key. ``text_scale`` shrinks the text when the available font is wider than the
    one the layout measured (never enlarges it).
    """

    def __init__(self, key: str, kind: str, box: NodeBox, text_scale: float = 1.0) -> None:
        super().__init__()
        self.key = key
        self.kind = kind
        self.lines: list[str] = []
        self.fill = KIND_FILL[kind]
        self.text_color = text_color_on(self.fill)
        self.highlighted = False
        # What the content was last made from (see GraphItems.update).
        self.source: object = None
        self._rect = QRectF(box.left, box.top, box.width, box.height)
        self._text_scale = text_scale
        rounded, width, dashed = KIND_STYLE[kind]
        self._radius = CORNER_RADIUS if rounded else 0.0
        pen = QPen(qcolor(KIND_BORDER[kind]), width)
        if dashed:
            pen.setDashPattern([4.0, 2.0])
        self._pen = pen
        self._font = scene_font(FONT_SIZE)
        self._bold = scene_font(FONT_SIZE, bold=True)
        margin = SELECTION_GAP + SELECTION_WIDTH + width
        self._bounds = self._rect.adjusted(-margin, -margin, margin, margin)
        self.setZValue(Z_NODE)

    @property
    def rect(self) -> QRectF:
        """The box in scene coordinates (the layout's points)."""
        return QRectF(self._rect)

    @property
    def pen_width(self) -> float:
        """The border's width, per kind."""
        return self._pen.widthF()

    def set_content(self, lines: list[str], fill: str) -> bool:
        """Show ``lines`` on ``fill``; repaints only on a real change (returns whether)."""
        if lines == self.lines and fill == self.fill:
            return False
        self.lines = lines
        if fill != self.fill:
            self.fill = fill
            self.text_color = text_color_on(fill)
        self.update()
        return True

    def set_highlighted(self, on: bool) -> None:
        """Outline the box as the session's selected node."""
        if on == self.highlighted:
            return
        self.highlighted = on
        self.setZValue(Z_SELECTED if on else Z_NODE)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        # Clicks and label placement see the box itself, not the room kept for the outline.
        path = QPainterPath()
        path.addRect(self._rect)
        return path

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        if self.highlighted:
            grow = SELECTION_GAP + SELECTION_WIDTH / 2 + self._pen.widthF() / 2
            painter.setPen(QPen(qcolor(SELECTION_COLOR), SELECTION_WIDTH))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            ring = self._rect.adjusted(-grow, -grow, grow, grow)
            painter.drawRoundedRect(ring, self._radius + grow, self._radius + grow)
        painter.setPen(self._pen)
        painter.setBrush(QBrush(qcolor(self.fill)))
        painter.drawRoundedRect(self._rect, self._radius, self._radius)
        self._paint_text(painter)

    def _paint_text(self, painter: QPainter) -> None:
        painter.setPen(qcolor(self.text_color))
        rect = self._rect
        scale = self._text_scale
        if scale != 1.0:
            painter.save()
            painter.translate(rect.center())
            painter.scale(scale, scale)
            painter.translate(-rect.center())
        top = rect.center().y() - len(self.lines) * LINE_HEIGHT / 2
        # Wider than the box on purpose: a line that fits the box must never be clipped by
        # its rectangle; centring on the box keeps it where the layout expects.
        left, width = rect.left() - rect.width(), rect.width() * 3
        align = Qt.AlignmentFlag.AlignCenter
        for i, line in enumerate(self.lines):
            painter.setFont(self._bold if i == 0 else self._font)
            painter.drawText(QRectF(left, top + i * LINE_HEIGHT, width, LINE_HEIGHT), align, line)
        if scale != 1.0:
            painter.restore()
