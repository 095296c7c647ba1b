"""One leaf's ``.grad`` after each backward call: accumulation made visible over time.

x is the backward call's number (1, 2, ...), y the value ``.grad`` held after it: one line
per element for small leaves, the norm for bigger ones. Where ``.grad`` changed between two
calls (zeroed, typically) the line drops at the half step and a dashed "zeroed" line says
why; failed calls get a red line; the step the other views show is highlighted. Clicking
in the plot asks for the nearest step (the panel turns it into ``session.select_step``).
The points come from :func:`gui.model.views.grad_history.history_data`; the plot itself is
a :class:`~gui.widgets.plot_canvas.PlotCanvas`.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QWidget

from gui.model import nested
from gui.model.tensor_format import format_number
from gui.model.views.grad_history import HistoryData, per_element, step_for_click
from gui.model.views.grad_plots import LOCKED_MARGIN, StickyRange, locked_range
from gui.widgets.plot_canvas import PlotCanvas, PlotLayout
from gui.widgets.plot_style import TEXT_COLOR

# Elements are categories, not signed amounts, so they take a colour-blind-safe categorical
# palette (Okabe-Ito without its yellow and vermillion: yellow vanishes on white and
# vermillion would read as the red of a failed step), with a distinct symbol each as well.
CURVE_COLORS = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#cc79a7",
    "#56b4e9",
    "#000000",
    "#8c564b",
    "#999999",
)
CURVE_SYMBOLS = ("o", "s", "t", "d", "t1", "p", "h", "star")
FAILED_COLOR = "#c62828"
ZEROED_COLOR = "#505050"
SHOWN_COLOR = (255, 193, 7, 110)
# Symbol size and highlight width in lines of the plot font, never below what they were
# at 11 pt (9 px and 14 px).
SYMBOL_LINES = 0.45
BAND_LINES = 0.8
LEGEND_ROW_LINES = 1.15

# Each symbol's outline in a unit box centred on 0, y down (what pyqtgraph's were).
_OUTLINES: dict[str, tuple[tuple[float, float], ...]] = {
    "t": ((-0.5, -0.5), (0.0, 0.5), (0.5, -0.5)),
    "t1": ((-0.5, 0.5), (0.0, -0.5), (0.5, 0.5)),
    "d": ((0.0, -0.5), (-0.4, 0.0), (0.0, 0.5), (0.4, 0.0)),
    "p": ((0.0, -0.5), (-0.4755, -0.1545), (-0.2939, 0.4045), (0.2939, 0.4045), (0.4755, -0.1545)),
    "h": ((0.433, 0.25), (0.0, 0.5), (-0.433, 0.25), (-0.433, -0.25), (0.0, -0.5), (0.433, -0.25)),
    "star": (
        (0.0, -0.5),
        (-0.1123, -0.1545),
        (-0.4755, -0.1545),
        (-0.1816, 0.059),
        (-0.2939, 0.4045),
        (0.0, 0.191),
        (0.2939, 0.4045),
        (0.1816, 0.059),
        (0.4755, -0.1545),
        (0.1123, -0.1545),
    ),
}


def symbol_path(symbol: str, size: float) -> QPainterPath:
    """The outline of ``symbol`` (``o s t d t1 p h star``) ``size`` pixels across, centred
    on (0, 0)."""
    path = QPainterPath()
    if symbol == "o":
        path.addEllipse(QRectF(-size / 2, -size / 2, size, size))
    elif symbol == "s":
        path.addRect(QRectF(-size / 2, -size / 2, size, size))
    else:
        path.addPolygon(QPolygonF([QPointF(x * size, y * size) for x, y in _OUTLINES[symbol]]))
        path.closeSubpath()
    return path


@lru_cache(maxsize=256)
def symbol_sprite(symbol: str, color: str, size: int, ratio: float) -> QPixmap:
    """``symbol`` drawn once, filled and outlined in ``color``: every point of a curve is
    this pixmap, blitted (for ``ratio`` device pixels per pixel)."""
    side = size + 2
    pixmap = QPixmap(math.ceil(side * ratio), math.ceil(side * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor(color), 1))
    painter.setBrush(QColor(color))
    painter.translate(side / 2, side / 2)
    painter.drawPath(symbol_path(symbol, size))
    painter.end()
    return pixmap


class GradHistory(PlotCanvas):
    """The history plot of one leaf; built once per leaf shape, updated by :meth:`show_data`.

    ``step_clicked`` carries the step index a click inside the plot asks for (an ``int``, or
    ``None`` for "the latest"), ready for ``session.select_step``.
    """

    step_clicked = Signal(object)

    def __init__(self, leaf: str, shape: tuple[int, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.leaf = leaf
        elements = self._elements = per_element(shape)
        count = nested.numel(shape) if elements else 1
        heading = self._heading = f"{leaf}.grad" if elements else f"‖{leaf}.grad‖"
        self.names = tuple(nested.index_label(shape, i) or heading for i in range(count))
        self._pens = []
        for k in range(count):
            pen = QPen(QColor(CURVE_COLORS[k % len(CURVE_COLORS)]), 2)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            self._pens.append(pen)
        self._band = QColor(*SHOWN_COLOR)
        self._marker_pens = {
            "zeroed": QPen(QColor(ZEROED_COLOR), 2, Qt.PenStyle.DashLine),
            "failed": QPen(QColor(FAILED_COLOR), 2),
        }
        self._label_fill = QColor(255, 255, 255, 200)
        self._text_pen = QPen(QColor(TEXT_COLOR))
        self._range = StickyRange()
        self._locked: float | None = None  # the scale the y axis is locked at
        self._data = HistoryData()
        self._curves: list[tuple[list[QPolygonF], list[QPointF]]] | None = None
        self.set_title(f"{heading} after each backward")
        self.set_x_range(0.5, 1.5)

    def show_data(self, data: HistoryData, locked_scale: float | None = None) -> None:
        """Show ``data`` (the curves, marker lines, the highlighted step, the ranges);
        ``locked_scale``: the y axis is locked at ± that (the colour scale's lock)."""
        old = self._data
        if (data.steps, data.end) != (old.steps, old.end):
            numbers = range(1, max(data.steps, 0) + 1)
            self.set_categories([float(n) for n in numbers], [str(n) for n in numbers])
            self.set_x_range(0.5, max(data.end, 1.0) + 0.5)
            self.setCursor(
                Qt.CursorShape.PointingHandCursor if data.steps > 1 else Qt.CursorShape.ArrowCursor
            )
        if (data.zeroed, data.failed, data.shown) != (old.zeroed, old.failed, old.shown):
            self.restatic()  # the marker lines and the band are in the cached layer
        new = self._next_y_range(data, locked_scale)
        if new is not None:
            self.set_y_range(*new)
        if data != old:
            self._data = data
            self._curves = None
            self.update()

    def _next_y_range(self, data: HistoryData, locked: float | None) -> tuple[float, float] | None:
        if locked is not None:
            if locked == self._locked:
                return None
            self._locked = locked
            # The norm of a big leaf is never negative: its locked axis starts at zero.
            low, high = locked_range(locked)
            return (low if self._elements else -LOCKED_MARGIN * locked), high
        if self._locked is not None:  # unlocked: follow the numbers again, from scratch
            self._locked = None
            self._range = StickyRange()
        return self._range.fit(v for ys in data.series for v in ys)

    @property
    def data(self) -> HistoryData:
        """What the plot shows now."""
        return self._data

    def points(self) -> list[tuple[list[float], list[float]]]:
        """Each curve's points as drawn (its symbols): x and y lists, nan left out."""
        out = []
        for k in range(len(self.names)):
            ys = self._data.series[k] if k < len(self._data.series) else ()
            pairs = [(x, y) for x, y in zip(self._data.xs, ys, strict=False) if y == y]
            out.append(([x for x, _ in pairs], [y for _, y in pairs]))
        return out

    # -- drawing -------------------------------------------------------------------------

    def _symbol_size(self, line: float) -> int:
        return max(9, round(line * SYMBOL_LINES))

    def legend_width(self, line: float) -> float:
        if len(self.names) <= 1:
            return 0.0
        widest = max(self._metrics.horizontalAdvance(name) for name in self.names)
        return round(line * 1.6) + line / 2 + widest + line / 2

    def layout_changed(self) -> None:
        self._curves = None

    def paint_static(self, painter: QPainter, layout: PlotLayout) -> None:
        data, plot = self._data, layout.plot
        if data.shown is not None:
            band = max(14.0, round(layout.line * BAND_LINES))
            x = layout.x(data.shown)
            painter.fillRect(QRectF(x - band / 2, plot.top(), band, plot.height()), self._band)
        painter.save()
        painter.setClipRect(plot)
        for kind, positions in (("zeroed", data.zeroed), ("failed", data.failed)):
            for position in positions:
                self._paint_marker(painter, layout, layout.x(position), kind)
        painter.restore()
        if len(self.names) > 1:
            self._paint_legend(painter, layout)

    def _paint_marker(self, painter: QPainter, layout: PlotLayout, x: float, text: str) -> None:
        plot, pen = layout.plot, self._marker_pens[text]
        painter.setPen(pen)
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
        # Written up along the line, its middle 70% of the way up: across it, neighbouring
        # labels would overlap.
        width = self._metrics.horizontalAdvance(text) + layout.pad
        painter.save()
        painter.translate(x + 2, plot.bottom() - 0.7 * plot.height())
        painter.rotate(-90)
        box = QRectF(-width / 2, 0, width, layout.line)
        painter.fillRect(box, self._label_fill)
        painter.setPen(pen.color())
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    def _paint_legend(self, painter: QPainter, layout: PlotLayout) -> None:
        line, plot = layout.line, layout.plot
        left = plot.right() + layout.pad + line / 2
        sample = round(line * 1.6)
        size = self._symbol_size(line)
        ratio = painter.device().devicePixelRatioF()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        # Rows a little apart, closer when many must fit the widget's height.
        room = self.height() - plot.top() - layout.pad
        row = max(min(line * LEGEND_ROW_LINES, room / len(self.names)), line * 0.8)
        for k, name in enumerate(self.names):
            middle = plot.top() + (k + 0.5) * row
            painter.setPen(self._pens[k])
            painter.drawLine(QPointF(left, middle), QPointF(left + sample, middle))
            sprite = self._sprite(k, size, ratio)
            half = sprite.width() / sprite.devicePixelRatio() / 2
            painter.drawPixmap(QPointF(left + sample / 2 - half, middle - half), sprite)
            painter.setPen(self._text_pen)
            box = QRectF(left + sample + line / 2, middle - line / 2, plot.width(), line)
            painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)

    def _sprite(self, k: int, size: int, ratio: float) -> QPixmap:
        symbol = CURVE_SYMBOLS[k % len(CURVE_SYMBOLS)]
        return symbol_sprite(symbol, CURVE_COLORS[k % len(CURVE_COLORS)], size, ratio)

    def paint_data(self, painter: QPainter, layout: PlotLayout) -> None:
        curves = self._place(layout)
        ratio = self.devicePixelRatioF()
        size = self._symbol_size(layout.line)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for k, (lines, points) in enumerate(curves):
            if lines:
                painter.setPen(self._pens[k])
                for polyline in lines:
                    painter.drawPolyline(polyline)
            if points:
                sprite = self._sprite(k, size, ratio)
                half = sprite.width() / sprite.devicePixelRatio() / 2
                for point in points:
                    painter.drawPixmap(QPointF(point.x() - half, point.y() - half), sprite)

    def _place(self, layout: PlotLayout) -> list[tuple[list[QPolygonF], list[QPointF]]]:
        """Each curve in pixels: its lines (broken where a value is missing) and points."""
        if self._curves is not None:
            return self._curves
        data = self._data
        xs = [layout.x(x) for x in data.xs]
        curves = []
        for k in range(len(self.names)):
            ys = data.series[k] if k < len(data.series) else ()
            points: list[QPointF] = []
            lines: list[QPolygonF] = []
            run: list[QPointF] = []
            for x, y in zip(xs, ys, strict=False):
                if y != y:  # nan: a gap in the line
                    if len(run) > 1:
                        lines.append(QPolygonF(run))
                    run = []
                    continue
                point = QPointF(x, layout.y(y))
                points.append(point)
                run.append(point)
            if len(run) > 1:
                lines.append(QPolygonF(run))
            curves.append((lines, points))
        self._curves = curves
        return curves

    # -- the mouse -----------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        layout = self.plot_layout()
        position = event.position()
        if (
            event.button() != Qt.MouseButton.LeftButton
            or self._data.steps <= 0
            or not layout.plot.contains(position)
        ):
            super().mousePressEvent(event)
            return
        x = (position.x() - layout.ox) / layout.sx
        self.step_clicked.emit(step_for_click(x, self._data))
        event.accept()

    def tooltip_at(self, pos: QPointF, layout: PlotLayout) -> str:
        data = self._data
        if not data.xs or not layout.plot.contains(pos):
            return ""
        x = (pos.x() - layout.ox) / layout.sx
        j = min(range(len(data.xs)), key=lambda i: abs(data.xs[i] - x))
        at = data.xs[j]
        if at == data.end and at > data.steps:
            head = f"{self._heading} now"
        elif at != int(at):
            head = f"{self._heading} before backward {math.ceil(at)}"
        else:
            head = f"{self._heading} after backward {int(at)}"
        if at in data.zeroed:
            head += " (zeroed)"
        if at in data.failed:
            head += " (failed)"
        lines = [head]
        for name, ys in zip(self.names, data.series, strict=False):
            value = format_number(ys[j]) if j < len(ys) else "?"
            lines.append(value if len(self.names) == 1 else f"{name}  {value}")
        if data.steps > 1:
            lines.append("Click to show this call in the graph")
        return "\n".join(lines)
