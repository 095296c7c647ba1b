"""An edge of the graph: Graphviz's spline, an arrowhead, and its gradient label.

The stroke follows :func:`gui.model.drawing.paint.edge_stroke` (as the SVG export does);
constant links keep a fixed thin grey stroke and never get a label.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPolygonItem, QStyleOptionGraphicsItem, QWidget

from gui.model.drawing.paint import EDGE_BASE_WIDTH, EDGE_MAX_EXTRA_WIDTH
from gui.widgets.edge_label_item import EdgeLabelItem
from gui.widgets.scene_style import Z_EDGE, qcolor

# How far beside its edge a label sits, so the line never runs through its digits.
LABEL_GAP = 5.0


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
