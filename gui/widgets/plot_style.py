"""The plot styling both gradient plots share: white, dark axes, projector-sized text, no
mouse panning, labels that fit, and :class:`StickyRange`, which keeps an axis still while
values wobble."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsScene, QGraphicsView

from gui.model.tensor_format import format_short

AXIS_COLOR = "#404040"
TEXT_COLOR = "#202020"
# "Already there" is achromatic and hatched, so it can never be read as a gradient's sign
# (and stays apart from the flat grey the scale uses for nan). The bars and the panel's
# legend of them both draw with these.
BEFORE_COLOR = "#7a7a7a"
FINAL_COLOR = "#000000"
ADDED_BORDER = "#404040"
MIN_FONT_PT = 10.0


def plot_font() -> QFont:
    """The application font, never below 10 pt (projectors)."""
    font = QFont(QApplication.font())
    font.setPointSizeF(max(MIN_FONT_PT, font.pointSizeF()))
    return font


def style_plot(widget: pg.PlotWidget) -> None:
    """White plot, dark axes with readable ticks, fixed ranges and no mouse panning: the
    panel sets the ranges itself, and a stray drag during a demo must not lose the view."""
    # Repaint only what changed: a full-viewport update repaints both axes (about a
    # millisecond each) on every slider tick even when their range stays put.
    widget.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
    # Bars and points move on every tick: a BSP index of them costs more than it saves.
    widget.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
    item = widget.getPlotItem()
    item.setMouseEnabled(x=False, y=False)
    item.setMenuEnabled(False)
    item.hideButtons()
    item.disableAutoRange()
    font = plot_font()
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(AXIS_COLOR))
        axis.setTextPen(pg.mkPen(TEXT_COLOR))
        axis.setStyle(tickFont=font)
    # No grid: pyqtgraph paints a translucent grid across the whole plot on every repaint
    # (3-4 ms per plot per slider tick, measured); the zero line and the final-value ticks
    # carry the reading.
    # The title spans the axis and legend columns too: over the data column alone, a long
    # title's minimum width pushed a narrow plot out of its widget.
    item.layout.removeItem(item.titleLabel)
    item.layout.addItem(item.titleLabel, 0, 0, 1, 4)
    # Text is what costs in a repaint; the title and axes change rarely, so they are drawn
    # once into pixmaps and blitted on every tick.
    for cached in (item.titleLabel, item.getAxis("left"), item.getAxis("bottom")):
        cached.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def set_title(widget: pg.PlotWidget, text: str) -> None:
    """Set the plot title only when it changed (a title change relayouts the plot).

    ``titleLabel.text`` is the whole title; a plot narrower than it shows its start and
    "…" (see :func:`fit_title`), never a title cut off at the plot's edge.
    """
    item = widget.getPlotItem()
    if item.titleLabel.text != text:
        item.titleLabel.text = text
        fit_title(widget)


def fit_title(widget: pg.PlotWidget) -> None:
    """Show as much of the title as the plot's width holds (call on every resize)."""
    item = widget.getPlotItem()
    if item is None:  # pyqtgraph resizes the view before it has made the plot
        return
    label = item.titleLabel
    full = str(label.text)
    font = plot_font()
    room = max(0, widget.width() - 2 * QFontMetricsF(font).averageCharWidth())
    shown = QFontMetricsF(font).elidedText(full, Qt.TextElideMode.ElideRight, room)
    if label.item.toPlainText() != shown or not label.isVisible():
        item.setTitle(shown, color=TEXT_COLOR, size=f"{font.pointSizeF():g}pt")
    label.text = full  # setTitle kept the shortened one


def label_ticks(
    axis: pg.AxisItem, positions: Sequence[float], labels: Sequence[str], pixels: float
) -> None:
    """Label every k-th tick so the labels fit in ``pixels``; the rest get unlabelled ticks.

    pyqtgraph always draws every label of the first tick level, overlapping or not, so the
    stride is chosen here from the widest label.
    """
    if not positions:
        axis.setTicks([[], []])
        return
    metrics = QFontMetricsF(plot_font())
    widest = max(metrics.horizontalAdvance(text) for text in labels) + metrics.averageCharWidth()
    fits = max(1, int(pixels // max(widest, 1.0)))
    stride = _nice_stride(math.ceil(len(positions) / fits))
    major = [
        (p, t) for i, (p, t) in enumerate(zip(positions, labels, strict=True)) if i % stride == 0
    ]
    minor = [(p, "") for i, p in enumerate(positions) if i % stride]
    axis.setTicks([major, minor])


def _nice_stride(least: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50... that is at least ``least``: [0], [10], [20]."""
    base = 1
    while True:
        for factor in (1, 2, 5):
            if base * factor >= least:
                return base * factor
        base *= 10


class StickyRange:
    """An axis range that moves only when the data leaves it or shrinks a lot.

    Refitting on every slider tick would make the bars jump and cost an autoRange each
    time; instead the range grows with headroom and shrinks once the data needs less than
    a third of it.
    """

    HEADROOM = 0.15
    GROWTH = 0.4  # when the data outgrows the range: room for a slider drag to go on
    MARGIN = 0.08
    SHRINK_BELOW = 1 / 3

    def __init__(self) -> None:
        self.low = 0.0
        self.high = 0.0

    def fit(self, values: Iterable[float]) -> tuple[float, float] | None:
        """The new range for ``values`` (0 always included), or ``None`` to keep it."""
        finite = [v for v in values if math.isfinite(v)]
        low, high = min([0.0, *finite]), max([0.0, *finite])
        span = high - low
        if span == 0:
            low, high, span = -1.0, 1.0, 2.0
        known = self.high > self.low
        fits = known and self.low <= low and high <= self.high
        if fits and span >= self.SHRINK_BELOW * (self.high - self.low):
            return None
        room = self.GROWTH if known and not fits else self.HEADROOM
        # A sliver below/above zero keeps the zero line and its tick label inside the plot.
        self.low = low - (room if low < 0 else self.MARGIN) * span
        self.high = high + (room if high > 0 else self.MARGIN) * span
        return self.low, self.high


class QuickCurve(pg.PlotCurveItem):
    """A ``PlotCurveItem`` that is told its data's bounds with its points.

    pyqtgraph finds them again with numpy after every ``setData`` (~0.1 ms per curve per
    slider tick for a handful of points); here they come from the plain lists given.
    """

    def set_points(self, xs: Sequence[float], ys: Sequence[float]) -> None:
        """Show the points ``(xs[i], ys[i])``; non-finite ones leave gaps."""
        self.setData(xs, ys)
        if not xs:
            return  # pyqtgraph answers "no bounds" for no data by itself
        for ax, values in ((0, xs), (1, ys)):
            finite = [float(v) for v in values if math.isfinite(v)]
            bounds = (min(finite), max(finite)) if finite else (None, None)
            # The cache pyqtgraph's own dataBounds fills (same key: the whole range).
            self._boundsCache[ax] = [(1.0, None), bounds]


class ValueAxis(pg.AxisItem):
    """An axis whose tick labels are written in the app's number format
    (:func:`~gui.model.tensor_format.format_short`: ``0.5``, ``40``, ``1.5e+04``), as the
    graph and the legend write numbers, rather than pyqtgraph's own."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [format_short(v * scale) for v in values]


# A locked axis runs a little past ±scale, so a bar at exactly the scale stays inside.
LOCKED_MARGIN = 0.05


def locked_range(scale: float) -> tuple[float, float]:
    """The y range of a plot while the scale is locked at ``scale``: the same for every
    plot and every tick, zero in the middle as on the colour legend."""
    reach = scale * (1 + LOCKED_MARGIN)
    return -reach, reach
