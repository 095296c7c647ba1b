"""Bars of one leaf's ``.grad`` per element: what was already there and what a backward added.

A learner who calls ``backward`` twice sees ``x.grad`` grow, but not which part came from
which call. So each element is one stacked bar: a hatched grey bar for the gradient that was
already in ``.grad`` before the shown backward call, and on top of it (or hanging down from
it, for a negative contribution) a bar coloured on the app's diverging scale for what this
call added. A black tick marks the value ``.grad`` holds afterwards.

Also the plot styling both gradient plots share (white, dark axes, projector-sized ticks,
no mouse panning) and :class:`StickyRange`, which keeps an axis still while values wobble.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPen
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsScene, QGraphicsView, QWidget

from gui.model import nested
from gui.model.drawing.colors import diverging_color
from gui.model.result import TensorData
from gui.model.session.snapshot import Snapshot
from gui.model.tensor_format import format_number

MAX_BARS = 64
AXIS_COLOR = "#404040"
TEXT_COLOR = "#202020"
# "Already there" is achromatic and hatched, so it can never be read as a gradient's sign
# (and stays apart from the flat grey the scale uses for nan).
BEFORE_COLOR = "#7a7a7a"
FINAL_COLOR = "#000000"
ADDED_BORDER = "#404040"
NOTE_FILL = (255, 255, 255, 220)
BAR_WIDTH = 0.7
MARKER_WIDTH = 0.86
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
    """Set the plot title only when it changed (a title change relayouts the plot)."""
    item = widget.getPlotItem()
    if item.titleLabel.text != text:
        item.setTitle(text, color=TEXT_COLOR, size=f"{plot_font().pointSizeF():g}pt")


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


def floats(data: TensorData | None) -> list[float] | None:
    """A tensor's numbers in row-major order as floats (complex: magnitude); ``None`` when
    there are none (no gradient, or a tensor only summarised)."""
    if data is None or data.values is None:
        return None
    return [_as_float(v) for v in nested.flatten(data.values)]


def _as_float(v: object) -> float:
    if isinstance(v, complex):
        return abs(v)
    if isinstance(v, bool | int | float):
        return float(v)
    return math.nan


def same_grad(a: TensorData | None, b: TensorData | None) -> bool:
    """Whether two gradients hold the same numbers (nan equals nan here)."""
    if a is None or b is None:
        return a is b
    if a.values is None or b.values is None:
        return a == b
    fa, fb = floats(a), floats(b)
    return (
        fa is not None
        and fb is not None
        and len(fa) == len(fb)
        and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(fa, fb, strict=True))
    )


def is_zeroed(data: TensorData | None) -> bool:
    """Whether a gradient is all zeros or gone (``None``), as zeroing leaves it."""
    if data is None:
        return True
    values = floats(data)
    if values is None:
        s = data.summary
        return s is not None and s.minimum == 0 and s.maximum == 0
    return not any(values)


@dataclass(frozen=True)
class BarData:
    """What the bars of one leaf show: per element, ``before`` + ``added`` = ``after``.

    ``message`` replaces the bars (``"x.grad is None"``); ``note`` says what the bars leave
    out (``"first 64 of 100 elements"``).
    """

    title: str
    before: tuple[float, ...] = ()
    added: tuple[float, ...] = ()
    after: tuple[float, ...] = ()
    message: str | None = None
    note: str | None = None


def bar_data(snapshot: Snapshot, leaf: str) -> BarData:
    """The bars of ``leaf`` for the step the snapshot shows (the selected one, else the last;
    if ``.grad`` changed after the last step, e.g. "Zero grad", the latest shows that)."""
    result = snapshot.result
    step = snapshot.shown_step
    final = snapshot.leaf_grads.get(leaf)
    if result is None or step is None:
        return _bars(f"{leaf}.grad", leaf, None, final)
    count = len(result.steps)
    selected = snapshot.selected_step
    latest = selected is None or not 0 <= selected < count
    number = count if latest or selected is None else selected + 1
    before, after = step.grads_before.get(leaf), step.grads_after.get(leaf)
    if step.error is not None:
        title = f"{leaf}.grad: backward {number} of {count} failed"
    else:
        title = f"{leaf}.grad after backward {number} of {count}"
    if latest and not same_grad(final, after):
        # Something after the last call changed .grad ("Zero grad", x.grad.zero_()).
        what = "zeroed" if is_zeroed(final) else "changed"
        title = f"{leaf}.grad {what} after backward {count}"
        before, after = final, final
    return _bars(title, leaf, before, after)


def _bars(title: str, leaf: str, before: TensorData | None, after: TensorData | None) -> BarData:
    if after is None:
        return BarData(title, message=f"{leaf}.grad is None")
    values = floats(after)
    if values is None:
        lines = [f"{leaf}.grad has {after.numel} elements"]
        s = after.summary
        if s is not None:
            lines += [f"min {format_number(s.minimum)}   max {format_number(s.maximum)}"]
            lines += [f"mean {format_number(s.mean)}   norm {format_number(s.norm)}"]
        return BarData(title, message="\n".join(lines))
    old = floats(before)
    if old is None or len(old) != len(values):
        old = [0.0] * len(values)
    note = None
    if len(values) > MAX_BARS:
        note = f"first {MAX_BARS} of {len(values)} elements"
        values, old = values[:MAX_BARS], old[:MAX_BARS]
    added = tuple(a - b for a, b in zip(values, old, strict=True))
    return BarData(title, tuple(old), added, tuple(values), note=note)


class GradBars(pg.PlotWidget):
    """The stacked bars of one leaf; built once per leaf shape, updated by :meth:`show_data`.

    ``before`` and ``added`` are the two ``BarGraphItem`` layers, ``final`` the ticks at the
    value after the call.
    """

    def __init__(self, leaf: str, shape: tuple[int, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w")
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
        self.final = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(FINAL_COLOR, width=3))
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
        self._ticks = True
        self._before: tuple[float, ...] = ()
        self.setXRange(-0.6, max(count, 1) - 0.4, padding=0)
        self.getPlotItem().vb.sigResized.connect(self._on_resized)
        self._on_resized()
        set_title(self, f"{leaf}.grad")

    def _on_resized(self) -> None:
        box: QRectF = self.getPlotItem().vb.boundingRect()
        self._message.setPos(box.center())
        xs = self._xs if self._ticks else []
        labels = self._labels if self._ticks else []
        label_ticks(self.getPlotItem().getAxis("bottom"), xs, labels, box.width())

    def show_data(self, data: BarData, scale: float) -> None:
        """Draw ``data``; ``scale`` is the diverging scale shared by every leaf's bars."""
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
        new = self._range.fit([*data.before, *data.after])
        if new is not None:
            self.setYRange(*new, padding=0)

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
        self.final.setData(
            [x + d for x in xs for d in (-half, half)], [v for v in data.after for _ in (0, 1)]
        )

    def message(self) -> str:
        """The text shown instead of bars ("x.grad is None"), or ``""``."""
        return str(self._message.toPlainText()) if self._message.isVisible() else ""

    def note(self) -> str:
        """What the bars leave out ("first 64 of 100 elements"), or ``""``."""
        return str(self.getPlotItem().getAxis("bottom").labelText)
