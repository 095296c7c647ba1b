"""The scene items of the graph panel: boxes, edges, edge labels and saved-tensor links.

Each item is created once per graph structure and then only told new texts and colours;
it repaints only when something it shows really changed. Boxes and labels draw their text
themselves (one item per box, not one text item per line), which keeps a 200-node graph
cheap to update and to paint.

Styles follow the SVG export (:mod:`gui.model.drawing.svg`) so the window and an exported
report look alike: border widths and dash styles per node kind, grey links for constants
and saved tensors, edge strokes from :func:`gui.model.drawing.paint.edge_stroke`.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from gui.model.drawing.colors import KIND_BORDER, KIND_FILL, LINK_COLOR, text_color_on
from gui.model.drawing.layout import FONT_SIZE, LINE_HEIGHT, NodeBox
from gui.model.drawing.paint import EDGE_BASE_WIDTH, EDGE_MAX_EXTRA_WIDTH

# The font the layout measured box widths in (tensor_format.text_width).
FONT_FAMILY = "DejaVu Sans"
EDGE_FONT_SIZE = 9
EDGE_TEXT_COLOR = "#303030"
# Edge labels sit on a near-opaque white plate so crossing lines never hide their digits.
LABEL_PLATE = QColor(255, 255, 255, 225)
# The selected box's outline: purple lies outside both arms of the red/blue gradient scale
# and outside the kind colours, so it never reads as a value.
SELECTION_COLOR = "#7b3294"
SELECTION_WIDTH = 3.0
SELECTION_GAP = 2.5
CORNER_RADIUS = 6.0
LABEL_GAP = 5.0
# Where along an edge its label may go, most wanted first; each on the right, then left.
LABEL_SPOTS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)

# (rounded, border width, dashed) per node kind, as svg_export's _STYLE.
KIND_STYLE: dict[str, tuple[bool, float, bool]] = {
    "leaf": (True, 2.2, False),
    "function": (True, 1.2, False),
    "constant": (False, 1.0, False),
    "saved": (True, 1.2, True),
    "output": (True, 3.2, False),
}

Z_EDGE, Z_LABEL, Z_NODE, Z_SELECTED = 0.0, 1.0, 2.0, 3.0


@lru_cache(maxsize=512)
def qcolor(hex_color: str) -> QColor:
    """A QColor for ``#rrggbb``, cached: the same few colours come back on every tick."""
    return QColor(hex_color)


def scene_font(pixel_size: float, bold: bool = False) -> QFont:
    """The layout's font at ``pixel_size`` scene units (one unit = one layout point).

    Unhinted, so glyph advances scale exactly with the zoom and text measured for the
    layout keeps fitting its box at every zoom level.
    """
    return QFont(_scene_font(round(pixel_size), bold))  # a copy: callers may change theirs


@lru_cache(maxsize=32)
def _scene_font(pixel_size: int, bold: bool) -> QFont:
    # Cached: setting the hinting preference costs ~40 us in PySide (enum lookups), and a
    # big graph asks for the same few fonts thousands of times when it is built.
    font = QFont(FONT_FAMILY)
    font.setPixelSize(pixel_size)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return font


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
        return self._metrics.horizontalAdvance(text) + 2 * self.PAD

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


def spline_path(points: tuple[tuple[float, float], ...]) -> QPainterPath:
    """A path through Graphviz's cubic Bézier control points (``1 + 3k`` of them)."""
    path = QPainterPath(QPointF(*points[0]))
    for i in range(1, len(points) - 2, 3):
        path.cubicTo(QPointF(*points[i]), QPointF(*points[i + 1]), QPointF(*points[i + 2]))
    return path


def arrow_polygon(base: QPointF, tip: QPointF, width: float) -> QPolygonF:
    """A filled arrowhead from ``base`` to ``tip``, wider for thicker strokes."""
    dx, dy = tip.x() - base.x(), tip.y() - base.y()
    length = math.hypot(dx, dy) or 1.0
    half = 2.6 + 0.6 * width
    nx, ny = -dy / length * half, dx / length * half
    return QPolygonF(
        [tip, QPointF(base.x() + nx, base.y() + ny), QPointF(base.x() - nx, base.y() - ny)]
    )


class EdgeItem(QGraphicsItem):
    """One edge: the spline, an arrowhead at the layout's tip and an optional label.

    ``label_text`` is the label shown ("" for none); ``color`` and ``width`` the stroke.
    Constant links keep a fixed thin grey stroke and never get a label.

    A plain item with a fixed bounding box rather than a QGraphicsPathItem: the stroke's
    width follows the gradient on every tick, and a path item recomputes its stroked
    outline (slow for splines) whenever its pen changes. Edges are never clicked, so the
    outline is not needed.
    """

    def __init__(
        self,
        points: tuple[tuple[float, float], ...],
        tip: tuple[float, float] | None,
        link: bool,
    ) -> None:
        super().__init__()
        self._path = spline_path(points)
        margin = (EDGE_BASE_WIDTH + EDGE_MAX_EXTRA_WIDTH) / 2 + 1
        self._bounds = self._path.boundingRect().adjusted(-margin, -margin, margin, margin)
        self._pen = QPen()
        self._shape: QPainterPath | None = None
        self.link = link
        self.source: object = None
        self.color = ""
        self.width = 0.0
        self.setZValue(Z_EDGE)
        self._base = QPointF(*points[-1])
        self._tip = QPointF(*tip) if tip is not None else None
        self._arrow: QGraphicsPolygonItem | None = None
        if self._tip is not None:
            self._arrow = QGraphicsPolygonItem(self)
            self._arrow.setPen(QPen(Qt.PenStyle.NoPen))
        self.label = EdgeLabelItem()

    @property
    def label_text(self) -> str:
        return self.label.text

    def path(self) -> QPainterPath:
        return self._path

    def pen(self) -> QPen:
        return self._pen

    def setPen(self, pen: QPen) -> None:
        self._pen = pen
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        """The spline's outline at its widest stroke (where labels must not go)."""
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(EDGE_BASE_WIDTH + EDGE_MAX_EXTRA_WIDTH)
            self._shape = stroker.createStroke(self._path)
        return self._shape

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        painter.setPen(self._pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._path)

    def label_anchor(self, t: float, left: bool) -> QPointF:
        """A point beside the spline at fraction ``t`` of its length."""
        point = self.path().pointAtPercent(t)
        return QPointF(point.x() + (-LABEL_GAP if left else LABEL_GAP), point.y())

    def set_stroke(self, color: str, width: float) -> None:
        """Stroke the spline (and fill the arrowhead) in ``color`` at ``width`` points."""
        width = round(width * 20) / 20  # finer steps are invisible, and each costs a repaint
        if color == self.color and width == self.width:
            return
        pen = QPen(qcolor(color), width)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self.setPen(pen)
        if self._arrow is not None and self._tip is not None:
            self._arrow.setBrush(QBrush(qcolor(color)))
            if width != self.width:
                self._arrow.setPolygon(arrow_polygon(self._base, self._tip, width))
        self.color, self.width = color, width

    def set_label(self, text: str) -> None:
        self.label.set_text(text)


def link_item(owner: NodeBox, saved: NodeBox) -> QGraphicsPathItem:
    """The dotted grey connector from a function to a tensor it saved (no arrowhead)."""
    side = 1.0 if saved.x >= owner.x else -1.0
    start = QPointF(owner.x + side * owner.width / 2, owner.y)
    end = QPointF(saved.x - side * saved.width / 2, saved.y)
    path = QPainterPath(start)
    path.lineTo(end)
    item = QGraphicsPathItem(path)
    pen = QPen(qcolor(LINK_COLOR), 1.2)
    pen.setStyle(Qt.PenStyle.DotLine)
    item.setPen(pen)
    item.setZValue(Z_EDGE)
    return item
