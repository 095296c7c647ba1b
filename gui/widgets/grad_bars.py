"""Bars of one leaf's ``.grad`` per element: what was already there and what a backward added.

A learner who calls ``backward`` twice sees ``x.grad`` grow, but not which part came from
which call. So each element is one stacked bar: a hatched grey bar for the gradient that was
already in ``.grad`` before the shown backward call, and on top of it (or hanging down from
it, for a negative contribution) a bar coloured on the app's diverging scale for what this
call added. A black tick marks the value ``.grad`` holds afterwards. The numbers come from
:func:`gui.model.views.grad_bars.bar_data`; the styling from :mod:`gui.widgets.plot_style`.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen, QResizeEvent
from PySide6.QtWidgets import QWidget

from gui.model import nested
from gui.model.drawing.colors import diverging_color
from gui.model.views.grad_bars import MAX_BARS, BarData
from gui.widgets.plot_style import (
    ADDED_BORDER,
    AXIS_COLOR,
    BEFORE_COLOR,
    FINAL_COLOR,
    TEXT_COLOR,
    QuickCurve,
    StickyRange,
    ValueAxis,
    fit_title,
    label_ticks,
    locked_range,
    plot_font,
    set_title,
    style_plot,
)

NOTE_FILL = (255, 255, 255, 220)
BAR_WIDTH = 0.7
MARKER_WIDTH = 0.86


class GradBars(pg.PlotWidget):
    """The stacked bars of one leaf; built once per leaf shape, updated by :meth:`show_data`.

    ``before`` and ``added`` are the two ``BarGraphItem`` layers, ``final`` the ticks at the
    value after the call.
    """

    def __init__(self, leaf: str, shape: tuple[int, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w", axisItems={"left": ValueAxis("left")})
        style_plot(self)
        self.leaf = leaf
        count = min(nested.numel(shape), MAX_BARS)
        self._xs = list(range(count))
        self._labels = [nested.index_label(shape, i) or leaf for i in self._xs]
        zeros = [0.0] * count
        hatch = QBrush(QColor(BEFORE_COLOR), Qt.BrushStyle.BDiagPattern)
        self.before = pg.BarGraphItem(
            x=self._xs, height=zeros, width=BAR_WIDTH, brush=hatch, pen=pg.mkPen(BEFORE_COLOR)
        )
        self.added = pg.BarGraphItem(x=self._xs, height=zeros, y0=zeros, width=BAR_WIDTH)
        # PlotCurveItem, not PlotDataItem: setData costs a tenth (it moves on every tick).
        self.final = QuickCurve(connect="pairs", pen=pg.mkPen(FINAL_COLOR, width=3))
        self._zero = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen(AXIS_COLOR, width=1))
        self._bar_items = (self._zero, self.before, self.added, self.final)
        for item in self._bar_items:
            self.addItem(item)
        self._border = pg.mkPen(ADDED_BORDER)
        self._no_border = QPen(Qt.PenStyle.NoPen)
        # Parented to the view box itself, not its data group, so it is placed in pixels.
        self._message = pg.TextItem("", color=TEXT_COLOR, anchor=(0.5, 0.5), fill=NOTE_FILL)
        self._message.setFont(plot_font())
        self._message.setParentItem(self.getPlotItem().vb)
        self._range = StickyRange()
        self._locked: float | None = None  # the scale the y axis is locked at
        self._ticks = True
        self._before: tuple[float, ...] = ()
        self.setXRange(-0.6, max(count, 1) - 0.4, padding=0)
        self.getPlotItem().vb.sigResized.connect(self._on_resized)
        self._on_resized()
        set_title(self, f"{leaf}.grad")

    def resizeEvent(self, ev: QResizeEvent | None) -> None:
        super().resizeEvent(ev)
        fit_title(self)

    def _on_resized(self) -> None:
        box: QRectF = self.getPlotItem().vb.boundingRect()
        self._message.setPos(box.center())
        xs = self._xs if self._ticks else []
        labels = self._labels if self._ticks else []
        label_ticks(self.getPlotItem().getAxis("bottom"), xs, labels, box.width())

    def show_data(self, data: BarData, scale: float, locked: bool = False) -> None:
        """Draw ``data``; ``scale`` is the diverging scale shared by every leaf's bars.

        ``locked``: the scale is locked, and so is the y axis, at ±``scale`` for every
        leaf: doubling a gradient doubles its bar, and bars beyond the scale run off the top.
        """
        set_title(self, data.title)
        if self._message.toPlainText() != (data.message or ""):
            self._message.setText(data.message or "")
        self._message.setVisible(data.message is not None)
        axis = self.getPlotItem().getAxis("bottom")
        if axis.labelText != (data.note or ""):
            axis.setLabel(data.note, color=TEXT_COLOR, size=f"{plot_font().pointSizeF():g}pt")
        bars = data.message is None
        for item in self._bar_items:
            item.setVisible(bars)
        if bars != self._ticks:  # without bars, numbers on the axes would mean nothing
            self._ticks = bars
            self.getPlotItem().getAxis("left").setStyle(showValues=bars)
            self._on_resized()
        if bars:
            self._draw_bars(data, scale)
        new = self._y_range(data, scale if locked else None)
        if new is not None:
            self.setYRange(*new, padding=0)

    def _y_range(self, data: BarData, locked: float | None) -> tuple[float, float] | None:
        if locked is not None:
            if locked == self._locked:
                return None
            self._locked = locked
            return locked_range(locked)
        if self._locked is not None:  # unlocked: follow the numbers again, from scratch
            self._locked = None
            self._range = StickyRange()
        return self._range.fit([*data.before, *data.after])

    def y_range(self) -> tuple[float, float]:
        """The y axis' range now."""
        low, high = self.getPlotItem().vb.viewRange()[1]
        return float(low), float(high)

    def _draw_bars(self, data: BarData, scale: float) -> None:
        if not data.after:  # an empty tensor: nothing to draw (pyqtgraph fails on no bars)
            for item in self._bar_items:
                item.setVisible(False)
            return
        xs = self._xs[: len(data.after)]
        colors = [diverging_color(v, scale) for v in data.added]
        pens = [self._border if v else self._no_border for v in data.added]
        if self._before != data.before:  # the same for every tick of a slider drag
            self._before = data.before
            self.before.setOpts(x=xs, height=list(data.before))
        self.added.setOpts(
            x=xs, y0=list(data.before), height=list(data.added), brushes=colors, pens=pens
        )
        half = MARKER_WIDTH / 2
        self.final.set_points(
            [x + d for x in xs for d in (-half, half)], [v for v in data.after for _ in (0, 1)]
        )

    def message(self) -> str:
        """The text shown instead of bars ("x.grad is None"), or ``""``."""
        return str(self._message.toPlainText()) if self._message.isVisible() else ""

    def note(self) -> str:
        """What the bars leave out ("first 64 of 100 elements"), or ``""``."""
        return str(self.getPlotItem().getAxis("bottom").labelText)
