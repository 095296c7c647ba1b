"""Bars of one leaf's ``.grad`` per element: what was already there and what a backward added.

A learner who calls ``backward`` twice sees ``x.grad`` grow, but not which part came from
which call. So each element is one stacked bar: a hatched grey bar for the gradient that was
already in ``.grad`` before the shown backward call, and on top of it (or hanging down from
it, for a negative contribution) a bar coloured on the app's diverging scale for what this
call added. A black tick marks the value ``.grad`` holds afterwards. The numbers come from
:func:`gui.model.views.grad_bars.bar_data`; the plot itself is a
:class:`~gui.widgets.plot_canvas.PlotCanvas`.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from gui.model import nested
from gui.model.drawing.colors import diverging_color
from gui.model.tensor_format import format_number
from gui.model.views.grad_bars import MAX_BARS, BarData
from gui.model.views.grad_plots import StickyRange, locked_range
from gui.widgets.pixels import clamp_pixel
from gui.widgets.plot_canvas import PlotCanvas, PlotLayout
from gui.widgets.plot_style import ADDED_BORDER, AXIS_COLOR, BEFORE_COLOR, FINAL_COLOR

BAR_WIDTH = 0.7
MARKER_WIDTH = 0.86

# The diverging scale's colours as QColor, made once per colour (the scale's own cache
# answers hex strings; a slider tick asks for the same few again and again).
_COLORS: dict[str, QColor] = {}


def _qcolor(hex_color: str) -> QColor:
    color = _COLORS.get(hex_color)
    if color is None:
        if len(_COLORS) > 4096:
            _COLORS.clear()
        color = _COLORS[hex_color] = QColor(hex_color)
    return color


@dataclass
class BarShapes:
    """The bars as drawn, in pixels: hatched ``before`` rectangles, ``added`` rectangles
    with their colour (``bordered``: those outlined, every nonzero one), ``final`` ticks."""

    before: list[QRectF]
    added: list[tuple[QRectF, QColor]]
    bordered: list[QRectF]
    final: list[QLineF]


class GradBars(PlotCanvas):
    """The stacked bars of one leaf; built once per leaf shape, updated by :meth:`show_data`,
    which only stores the numbers: the bars are placed and drawn at the next paint."""

    def __init__(self, leaf: str, shape: tuple[int, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.leaf = leaf
        count = min(nested.numel(shape), MAX_BARS)
        self._index = [nested.index_label(shape, i) for i in range(count)]
        self._data = BarData(f"{leaf}.grad")
        self._scale = 1.0
        self._shapes: BarShapes | None = None
        self._range = StickyRange()
        self._locked: float | None = None  # the scale the y axis is locked at
        self._before_pen = QPen(QColor(BEFORE_COLOR), 1)
        self._hatch = QBrush(QColor(BEFORE_COLOR), Qt.BrushStyle.BDiagPattern)
        self._border_pen = QPen(QColor(ADDED_BORDER), 1)
        self._final_pen = QPen(QColor(FINAL_COLOR), 3)
        self._final_pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self._zero_pen = QPen(QColor(AXIS_COLOR), 1)
        self.set_categories([float(i) for i in range(count)], [t or leaf for t in self._index])
        self.set_x_range(-0.6, max(count, 1) - 0.4)
        self.set_title(f"{leaf}.grad")

    def show_data(self, data: BarData, scale: float, locked: bool = False) -> None:
        """Show ``data``; ``scale`` is the diverging scale shared by every leaf's bars.

        ``locked``: the scale is locked, and so is the y axis, at ±``scale`` for every
        leaf: doubling a gradient doubles its bar, and bars beyond the scale run off the top.
        """
        self.set_title(data.title)
        self.set_message(data.message or "")
        self.set_note(data.note or "")
        self.set_values_shown(data.message is None)
        new = self._next_y_range(data, scale if locked else None)
        if new is not None:
            self.set_y_range(*new)
        if data != self._data or scale != self._scale:
            self._data, self._scale = data, scale
            self._shapes = None
            self.update()

    def _next_y_range(self, data: BarData, locked: float | None) -> tuple[float, float] | None:
        if locked is not None:
            if locked == self._locked:
                return None
            self._locked = locked
            return locked_range(locked)
        if self._locked is not None:  # unlocked: follow the numbers again, from scratch
            self._locked = None
            self._range = StickyRange()
        return self._range.fit([*data.before, *data.after])

    @property
    def data(self) -> BarData:
        """The numbers the bars show now."""
        return self._data

    # -- drawing -------------------------------------------------------------------------

    def layout_changed(self) -> None:
        self._shapes = None

    def paint_static(self, painter: QPainter, layout: PlotLayout) -> None:
        if self.message():
            return
        y = layout.y(0.0)
        painter.setPen(self._zero_pen)
        painter.drawLine(QPointF(layout.plot.left(), y), QPointF(layout.plot.right(), y))

    def paint_data(self, painter: QPainter, layout: PlotLayout) -> None:
        shapes = self.bar_shapes()
        if shapes.before:
            painter.setPen(self._before_pen)
            painter.setBrush(self._hatch)
            painter.drawRects(shapes.before)
        for rect, color in shapes.added:
            painter.fillRect(rect, color)
        if shapes.bordered:
            painter.setPen(self._border_pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRects(shapes.bordered)
        if shapes.final:
            painter.setPen(self._final_pen)
            painter.drawLines(shapes.final)

    def bar_shapes(self) -> BarShapes:
        """The bars in pixels, placed once per new data or layout."""
        if self._shapes is None:
            self._shapes = self._place(self.plot_layout())
        return self._shapes

    def _place(self, layout: PlotLayout) -> BarShapes:
        data = self._data
        shapes = BarShapes([], [], [], [])
        if data.message is not None:
            return shapes
        half = clamp_pixel(BAR_WIDTH / 2 * layout.sx, 0.0)
        tick = clamp_pixel(MARKER_WIDTH / 2 * layout.sx, 0.0)
        zero = layout.y(0.0)
        # nan is left out (nan != nan); ±inf runs off the plot (layout.y stops it just past).
        for i, (old, added, new) in enumerate(
            zip(data.before, data.added, data.after, strict=True)
        ):
            x = layout.x(i)
            y = zero
            if old and old == old:
                y = layout.y(old)
                shapes.before.append(QRectF(x - half, min(y, zero), 2 * half, abs(y - zero)))
            if added and added == added and old == old and new == new:
                end = layout.y(new)
                rect = QRectF(x - half, min(y, end), 2 * half, abs(end - y))
                shapes.added.append((rect, _qcolor(diverging_color(added, self._scale))))
                shapes.bordered.append(rect)
            if new == new:
                end = layout.y(new)
                shapes.final.append(QLineF(x - tick, end, x + tick, end))
        return shapes

    def tooltip_at(self, pos: QPointF, layout: PlotLayout) -> str:
        data = self._data
        if data.message is not None or not data.after or not layout.plot.contains(pos):
            return ""
        i = round((pos.x() - layout.ox) / layout.sx)
        if not 0 <= i < len(data.after):
            return ""
        return (
            f"{self.leaf}.grad{self._index[i]}\nbefore {format_number(data.before[i])}\n"
            f"added {format_number(data.added[i])}\nafter {format_number(data.after[i])}"
        )
