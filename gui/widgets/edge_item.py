"""An edge of the graph: Graphviz's spline, an arrowhead, and its gradient label.

The stroke follows :func:`gui.model.drawing.paint.edge_stroke` (as the SVG export does);
constant links keep a fixed thin grey stroke and never get a label. Like a box, an edge off
screen only takes its new gradient; its stroke is made when it is next painted.
"""

from __future__ import annotations

import functools
import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from gui.model.drawing.paint import EDGE_BASE_WIDTH, EDGE_MAX_EXTRA_WIDTH, edge_stroke
from gui.model.result import TensorData
from gui.widgets.edge_label_item import EdgeLabelItem
from gui.widgets.pixels import clamp_pixel
from gui.widgets.scene_style import NO_BRUSH, NO_PEN, Z_EDGE, Area, qbrush, qcolor
from gui.widgets.tick_feed import FedFromBoard, TickFeed

# How far beside its edge a label sits, so the line never runs through its digits.
LABEL_GAP = 5.0
ODD_EVEN = Qt.FillRule.OddEvenFill

# The glow under the edges a step-through's current node sends gradients along: the
# selection's purple (the node itself is the selected one), translucent, wider than any
# stroke, so the gradient's own colour still shows on top.
GLOW_COLOR = "#7b3294"
GLOW_ALPHA = 90
GLOW_WIDTH = 9.0

# What an edge's stroke is made from: the gradient flowing back along it and the colour
# scale (0.0 when there is no gradient).
StrokeSource = tuple[TensorData | None, float]


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


@functools.cache
def _glow_pen() -> QPen:
    """The step-through's glow, one pen shared by every edge (never changed)."""
    glow = qcolor(GLOW_COLOR)
    glow.setAlpha(GLOW_ALPHA)
    pen = QPen(glow, GLOW_WIDTH)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    return pen


# How far an edge's stroke or glow reaches beside its spline's control points.
STROKE_MARGIN = max(EDGE_BASE_WIDTH + EDGE_MAX_EXTRA_WIDTH, GLOW_WIDTH) / 2 + 1


def edge_area(points: tuple[tuple[float, float], ...], tip: tuple[float, float] | None) -> Area:
    """What an edge drawn through ``points`` (a spline's control points) with its arrowhead
    at ``tip`` can cover at its widest stroke or glow, in plain numbers: the graph's "is it
    on screen?" test on every tick, and a big graph's index of edges not made yet.

    A cubic Bézier lies within its control points, so their rectangle holds the curve (a
    little more than the curve's own bounds, and no Qt path to make). The arrowhead is
    taken at its widest (:func:`arrow_polygon`), a point wider."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    m = STROKE_MARGIN
    left, top, right, bottom = min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m
    if tip is not None:
        (bx, by), (tx, ty) = points[-1], tip
        dx, dy = tx - bx, ty - by
        length = math.hypot(dx, dy) or 1.0
        half = 2.6 + 0.6 * (EDGE_BASE_WIDTH + EDGE_MAX_EXTRA_WIDTH)
        nx, ny = -dy / length * half, dx / length * half
        left = min(left, tx - 1, bx + nx - 1, bx - nx - 1)
        right = max(right, tx + 1, bx + nx + 1, bx - nx + 1)
        top = min(top, ty - 1, by + ny - 1, by - ny - 1)
        bottom = max(bottom, ty + 1, by + ny + 1, by - ny + 1)
    return (left, top, right, bottom)


class EdgeItem(FedFromBoard, QGraphicsItem):
    """One edge: the spline, an arrowhead at the layout's tip and an optional label.

    ``label_text`` is the label shown ("" for none); ``color`` and ``width`` the stroke.
    Constant links keep a fixed thin grey stroke and never get a label.

    A plain item with a fixed bounding box rather than a QGraphicsPathItem: the stroke's
    width follows the gradient on every tick, and a path item recomputes its stroked
    outline (slow for splines) whenever its pen changes. Edges are never clicked, so the
    outline is not needed. The arrowhead is painted by the edge itself (an item of its own
    was one more item to mark dirty, index and visit on every tick).
    """

    def __init__(
        self,
        points: tuple[tuple[float, float], ...],
        tip: tuple[float, float] | None,
        link: bool,
    ) -> None:
        super().__init__()
        self._path = spline_path(points)
        # What this item strokes: the whole spline, or its own end (share_trunk).
        self._drawn = self._path
        self._points = points
        self._pen = QPen()
        self._shape: QPainterPath | None = None
        self.link = link
        self.source: StrokeSource | None = None
        self._pending: StrokeSource | TickFeed | None = None
        # Its position in the graph's edges: what it reads from a tick's feed.
        self.index = -1
        self.color = ""
        self.width = 0.0
        self.highlighted = False
        self._glow_pen = _glow_pen()
        self.setZValue(Z_EDGE)
        self._base = QPointF(*points[-1])
        self._tip_point = tip
        self._tip = QPointF(*tip) if tip is not None else None
        # The arrowhead at the current width (empty until the first stroke), and its fill.
        self._arrow = QPolygonF()
        self._arrow_brush = NO_BRUSH
        self._set_bounds(points)
        self._label: EdgeLabelItem | None = None

    @property
    def label(self) -> EdgeLabelItem:
        """The edge's gradient label, made when first asked for: compact graphs (thousands
        of edges) never show labels, and making one each was a fifth of building them."""
        if self._label is None:
            self._label = EdgeLabelItem()
        return self._label

    def _set_bounds(self, drawn: tuple[tuple[float, float], ...]) -> None:
        """Bounds holding the spline through ``drawn`` at its widest stroke or glow, and
        the widest arrowhead (:func:`edge_area`)."""
        self.area = edge_area(drawn, self._tip_point)
        self._bounds = QRectF(QPointF(*self.area[:2]), QPointF(*self.area[2:]))

    @property
    def label_text(self) -> str:
        return self.label.text

    def path(self) -> QPainterPath:
        return self._path

    def share_trunk(self, own_from: int) -> None:
        """Stroke only the spline from control point ``own_from`` on: the part before it
        lies under another edge's stroke (long edges of one source sharing a lane, see
        :func:`gui.widgets.graph_items.share_lane_trunks`). A thousand strokes drawn over
        each other cost a big graph's view a third of a second per paint; one costs
        nothing. Clicks, labels and the layout still see the whole spline."""
        self._drawn = spline_path(self._points[own_from:])
        # Bounds of what it draws: the view then never asks it to paint for the trunk.
        self.prepareGeometryChange()
        self._set_bounds(self._points[own_from:])

    def pen(self) -> QPen:
        self.settle()
        return self._pen

    def setPen(self, pen: QPen) -> None:
        self._pen = pen
        self.update()

    def arrow(self) -> QPolygonF:
        """The arrowhead as painted now (empty before the first stroke, or without a tip)."""
        self.settle()
        return QPolygonF(self._arrow)

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
        if self.pending:  # painted without the view asking first (a render)
            self.settle()
        painter.setBrush(NO_BRUSH)
        if self.highlighted:
            painter.setPen(self._glow_pen)
            painter.drawPath(self._drawn)
        painter.setPen(self._pen)
        painter.drawPath(self._drawn)
        if not self._arrow.isEmpty():
            painter.setPen(NO_PEN)
            painter.setBrush(self._arrow_brush)
            painter.drawPolygon(self._arrow, ODD_EVEN)

    def label_anchor(self, t: float, left: bool) -> QPointF:
        """A point beside the spline at fraction ``t`` of its length."""
        point = self.path().pointAtPercent(t)
        return QPointF(point.x() + (-LABEL_GAP if left else LABEL_GAP), point.y())

    def refresh(self, source: StrokeSource) -> None:
        """Stroke for ``source`` now (the edge is on screen); repaints only on a change."""
        self._take_board()  # (newer than the board's feed)
        self._pending = None
        if source == self.source:
            return
        self.source = source
        self.set_stroke(*edge_stroke(source[0], source[1]))

    def defer(self, source: StrokeSource) -> None:
        """Take ``source`` without making the stroke (off screen): made when next painted."""
        self._take_board()
        self._pending = source

    def settle(self) -> None:
        """Make the stroke of a deferred source now, without asking for a repaint."""
        self._take_board()
        source = self._pending
        if source is None:
            return
        self._pending = None
        if isinstance(source, TickFeed):
            source = source.stroke(self.index)
        if source == self.source:
            return
        self.source = source
        self.set_stroke(*edge_stroke(source[0], source[1]), repaint=False)

    def set_stroke(self, color: str, width: float, repaint: bool = True) -> None:
        """Stroke the spline (and fill the arrowhead) in ``color`` at ``width`` points."""
        # Never wider than the widest stroke the item's bounds hold (nor NaN: Qt's
        # stroker takes any number); finer steps are invisible, and each costs a repaint.
        width = round(clamp_pixel(width, 0.0, EDGE_BASE_WIDTH + EDGE_MAX_EXTRA_WIDTH) * 20) / 20
        if color == self.color and width == self.width:
            return
        pen = QPen(qcolor(color), width)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self._pen = pen
        if self._tip is not None:
            self._arrow_brush = qbrush(color)
            if width != self.width:
                self._arrow = arrow_polygon(self._base, self._tip, width)
        self.color, self.width = color, width
        if repaint:
            self.update()

    def set_highlighted(self, on: bool) -> None:
        """Glow as an edge the step-through's current node just sent a gradient along."""
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def set_label(self, text: str) -> None:
        self.label.set_text(text)
