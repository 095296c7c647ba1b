"""A plot of curves over a numeric x axis, with a marked point and a tangent segment: the
function view's two plots (``f``, and its derivatives) on the app's painted plot base.

Like every plot of the app (:class:`~gui.widgets.plot_canvas.PlotCanvas`), the axes are
laid out once per change of range and painted into a cached layer; new numbers only store
the points and repaint. A ``NaN`` in a curve is a gap (a sample whose run failed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen, QResizeEvent
from PySide6.QtWidgets import QWidget

from gui.model.tensor_format import format_short
from gui.model.views.grad_plots import nice_ticks
from gui.widgets.plot_canvas import PlotCanvas, PlotLayout

MARKER_COLOR = "#e66101"
# Value ticks on the x axis at least this many characters apart.
X_TICK_GAP_CHARS = 9


@dataclass(frozen=True)
class Curve:
    """One curve: its points' y values (over the plot's xs), colour and legend label."""

    values: tuple[float, ...]
    color: str
    label: str
    dashed: bool = False


class CurvePlot(PlotCanvas):
    """Curves over ``xs``, a point and a tangent segment (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._xs: tuple[float, ...] = ()
        self._curves: tuple[Curve, ...] = ()
        self._points: tuple[tuple[float, float], ...] = ()
        self._segment: tuple[tuple[float, float], tuple[float, float]] | None = None
        self._marker_x: float | None = None

    def show_curves(
        self,
        xs: Sequence[float],
        curves: Sequence[Curve],
        x_range: tuple[float, float],
        y_range: tuple[float, float],
    ) -> None:
        """Draw ``curves`` over ``xs`` with these axes (the axes relayout only on change)."""
        self._xs = tuple(xs)
        legend_before = [(c.label, c.color) for c in self._curves]
        self._curves = tuple(curves)
        self.set_x_range(*x_range)
        self.set_y_range(*y_range)
        self._set_x_ticks(x_range)
        # The legend's line (two curves or more) is kept as the plot's note.
        self.set_note(" " if len(self._curves) > 1 else "")
        if legend_before != [(c.label, c.color) for c in self._curves]:
            self.restatic()
        self.update()

    def show_marks(
        self,
        points: Sequence[tuple[float, float]],
        segment: tuple[tuple[float, float], tuple[float, float]] | None,
        marker_x: float | None,
    ) -> None:
        """The current point(s), the tangent segment, a vertical line at ``marker_x``."""
        self._points = tuple(points)
        self._segment = segment
        self._marker_x = marker_x
        self.update()

    def _set_x_ticks(self, x_range: tuple[float, float]) -> None:
        """Round values along the x axis, as many as fit the width."""
        low, high = x_range
        chars = self.width() / max(1.0, QFontMetricsF(self.tick_font()).averageCharWidth())
        count = max(2.0, chars / X_TICK_GAP_CHARS)
        ticks = nice_ticks(low, high, (high - low) / count)
        self.set_categories(list(ticks), [format_short(t) for t in ticks])

    def sizeHint(self) -> QSize:
        # No taller than its least height: the function view's scroll area sizes its
        # content by the hints (wrapped labels make it ask for height-for-width), and the
        # plots take whatever room is left by stretching.
        hint = super().sizeHint()
        return QSize(hint.width(), self.minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._set_x_ticks(self.x_range())
        super().resizeEvent(event)

    # -- reading back (tests) ------------------------------------------------------------

    def curves(self) -> tuple[Curve, ...]:
        return self._curves

    def xs(self) -> tuple[float, ...]:
        return self._xs

    def points(self) -> tuple[tuple[float, float], ...]:
        return self._points

    def segment(self) -> tuple[tuple[float, float], tuple[float, float]] | None:
        return self._segment

    # -- painting ------------------------------------------------------------------------

    def paint_static(self, painter: QPainter, layout: PlotLayout) -> None:
        """The legend on the note's line, under the x axis (two curves or more)."""
        if len(self._curves) < 2 or layout.note_rect.isEmpty():
            return
        painter.fillRect(layout.note_rect, QColor("white"))
        metrics = QFontMetricsF(self.tick_font())
        line, pad = layout.line, layout.pad
        sample = 1.5 * line
        widths = [sample + pad + metrics.horizontalAdvance(c.label) for c in self._curves]
        total = sum(widths) + 2 * pad * (len(widths) - 1)
        x = max(0.0, layout.note_rect.center().x() - total / 2)
        y = layout.note_rect.center().y()
        for curve, width in zip(self._curves, widths, strict=True):
            painter.setPen(_pen(curve))
            painter.drawLine(QPointF(x, y), QPointF(x + sample, y))
            painter.setPen(QColor("#202020"))
            text = QRectF(x + sample + pad, layout.note_rect.top(), width, line)
            align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            painter.drawText(text, align, curve.label)
            x += width + 2 * pad

    def paint_data(self, painter: QPainter, layout: PlotLayout) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self._marker_x is not None and math.isfinite(self._marker_x):
            px = layout.x(self._marker_x)
            painter.setPen(QPen(QColor("#b0b0b0"), 1, Qt.PenStyle.DotLine))
            painter.drawLine(QPointF(px, layout.plot.top()), QPointF(px, layout.plot.bottom()))
        for curve in self._curves:
            painter.setPen(_pen(curve))
            painter.drawPath(self._path(curve.values, layout))
        if self._segment is not None:
            (xa, ya), (xb, yb) = self._segment
            painter.setPen(QPen(QColor(MARKER_COLOR), 2, Qt.PenStyle.DashLine))
            painter.drawLine(
                QPointF(layout.x(xa), layout.y(ya)), QPointF(layout.x(xb), layout.y(yb))
            )
        painter.setPen(QPen(QColor("white"), 1.5))
        painter.setBrush(QColor(MARKER_COLOR))
        radius = max(4.0, layout.line * 0.3)
        for x, y in self._points:
            if math.isfinite(x) and math.isfinite(y):
                painter.drawEllipse(QPointF(layout.x(x), layout.y(y)), radius, radius)

    def _path(self, values: Sequence[float], layout: PlotLayout) -> QPainterPath:
        path = QPainterPath()
        drawing = False
        for x, y in zip(self._xs, values, strict=False):
            if not (math.isfinite(x) and math.isfinite(y)):
                drawing = False  # a gap: the next finite point starts a new piece
                continue
            point = QPointF(layout.x(x), layout.y(y))
            if drawing:
                path.lineTo(point)
            else:
                path.moveTo(point)
                drawing = True
        return path


def _pen(curve: Curve) -> QPen:
    pen = QPen(QColor(curve.color), 2)
    if curve.dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen
