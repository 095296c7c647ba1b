"""A big graph zoomed far out, painted in two calls instead of one per item; and where
its first view looks.

Fitted whole, a 5,000-node graph puts every box and edge in view, each a pixel or two;
QGraphicsView then asks every item to paint itself, a Python call each (~180 ms a paint,
measured by ``benchmarks/big_layout.py``). Below :data:`FAR_SCALE` no text can be read,
so the view paints this instead: every edge in one hairline path and every box in one
batch of outlined rectangles, made once per layout (numbers and colours come back as soon
as the text can be read).
"""

from __future__ import annotations

import functools

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen

from gui.model.drawing.layout import GraphLayout

# Screen pixels per point below which the view paints the overview: 10 pt text is then
# under 1.5 px (unreadable, and not drawn: scene_style.LEGIBLE_TEXT_PX), a box a few
# pixels. The items painted themselves in 30 ms at 0.1 for a 5,000-node graph, the
# overview in 3-7 ms (benchmarks/big_layout.py).
FAR_SCALE = 0.15
# How far down a big graph's first view looks for the boxes it shows across, in points.
FIRST_ROWS_DEPTH = 600.0
# Light: hundreds of long edges side by side in their lanes merge into one grey band.
EDGE_COLOR = QColor("#d9dee5")
BOX_FILL = QColor("#dfe6f0")
BOX_BORDER = QColor("#5b6f8e")


class OverviewPainting:
    """Every box and edge of ``layout``, ready to paint zoomed far out: made when first
    painted (a big graph's first view is near, and its first picture does not wait)."""

    def __init__(self, layout: GraphLayout) -> None:
        self._layout = layout

    @functools.cached_property
    def edges(self) -> QPainterPath:
        """Every edge, straight between the ends of each curve."""
        edges = QPainterPath()
        for points in self._layout.edges.values():
            edges.moveTo(QPointF(*points[0]))
            for i in range(1, len(points) - 2, 3):
                # Straight between the ends of each curve: no one sees the bend at this size.
                edges.lineTo(QPointF(*points[i + 2]))
        return edges

    @functools.cached_property
    def boxes(self) -> list[QRectF]:
        """Every box's rectangle."""
        return [QRectF(b.left, b.top, b.width, b.height) for b in self._layout.nodes.values()]

    def paint(self, painter: QPainter) -> None:
        """Paint onto ``painter`` already transformed to scene coordinates."""
        pen = QPen(EDGE_COLOR, 0)  # cosmetic: one pixel at any zoom
        painter.setPen(pen)
        painter.drawPath(self.edges)
        painter.setPen(QPen(BOX_BORDER, 0))
        painter.setBrush(BOX_FILL)
        painter.drawRects(self.boxes)


def first_rows_span(
    layout: GraphLayout, depth: float = FIRST_ROWS_DEPTH
) -> tuple[float, float] | None:
    """Left and right of the boxes that start within ``depth`` points of a graph's top
    (``None``: no boxes): what the first view of a graph too wide to read whole shows
    across (a big graph's long edges' lanes lie further right)."""
    if not layout.nodes:
        return None
    top = min(box.top for box in layout.nodes.values())
    rows = [box for box in layout.nodes.values() if box.top <= top + depth]
    return min(b.left for b in rows), max(b.left + b.width for b in rows)
