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

from gui.model.drawing.colors import CELLS_BORDER, KIND_BORDER, KIND_FILL, text_color_on
from gui.model.drawing.layout import (
    CELLS_FONT_SIZE,
    CELLS_GAP,
    FONT_SIZE,
    LINE_HEIGHT,
    NodeBox,
    cells_rect,
    text_top,
)
from gui.model.drawing.paint import CellStrip
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

    def __init__(
        self,
        key: str,
        kind: str,
        box: NodeBox,
        text_scale: float = 1.0,
        has_cells: bool = False,
    ) -> None:
        super().__init__()
        self.key = key
        self.kind = kind
        self.lines: list[str] = []
        self.fill = KIND_FILL[kind]
        # The per-element colours under the text (None: none shown now); the box keeps room
        # for them when ``has_cells`` (its layout measured it so).
        self.cells: CellStrip | None = None
        self.has_cells = has_cells
        self._box = box
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
        self._note_font = scene_font(CELLS_FONT_SIZE)
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

    def set_content(self, lines: list[str], fill: str, cells: CellStrip | None = None) -> bool:
        """Show ``lines`` on ``fill`` and ``cells`` under them (in a box that has room for
        them); repaints only on a real change (returns whether)."""
        if not self.has_cells:
            cells = None
        if lines == self.lines and fill == self.fill and cells == self.cells:
            return False
        self.lines = lines
        self.cells = cells
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
        top = text_top(self._box, len(self.lines), self.has_cells)
        # Wider than the box on purpose: a line that fits the box must never be clipped by
        # its rectangle; centring on the box keeps it where the layout expects.
        left, width = rect.left() - rect.width(), rect.width() * 3
        align = Qt.AlignmentFlag.AlignCenter
        for i, line in enumerate(self.lines):
            painter.setFont(self._bold if i == 0 else self._font)
            painter.drawText(QRectF(left, top + i * LINE_HEIGHT, width, LINE_HEIGHT), align, line)
        if scale != 1.0:
            painter.restore()
        if self.cells is not None:
            self._paint_cells(painter, self.cells)

    def _paint_cells(self, painter: QPainter, cells: CellStrip) -> None:
        """One painted strip, one rectangle per element: cheap enough for every tick."""
        left, top, width, height = cells_rect(self._box, len(self.lines))
        note = cells.more_text
        if note:
            painter.setFont(self._note_font)
            room = painter.fontMetrics().horizontalAdvance(note) + CELLS_GAP
            painter.setPen(qcolor(self.text_color))
            painter.drawText(
                QRectF(left + width - room, top - 2, room, height + 4),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                note,
            )
            width -= room
        count = len(cells.colors)
        if count == 0:
            return
        step = width / count
        painter.setPen(Qt.PenStyle.NoPen)
        for i, color in enumerate(cells.colors):
            painter.setBrush(qcolor(color))
            # Whole-pixel-ish edges overlap a hair so no white seams show between cells.
            painter.drawRect(QRectF(left + i * step, top, step + 0.3, height))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(qcolor(CELLS_BORDER), 0.8))
        painter.drawRect(QRectF(left, top, step * count, height))
