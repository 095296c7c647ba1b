"""One leaf's ``.grad`` after each backward call: accumulation made visible over time.

x is the backward call's number (1, 2, ...), y the value ``.grad`` held after it: one line
per element for small leaves, the norm for bigger ones. Where ``.grad`` changed between two
calls (zeroed, typically) the line drops at the half step and a dashed "zeroed" line says
why; failed calls get a red line; the step the other views show is highlighted. Clicking
near a step asks for that step (the panel turns it into ``session.select_step``). The points
come from :func:`gui.model.views.grad_history.history_data`.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import Symbols
from pyqtgraph.GraphicsScene.mouseEvents import MouseClickEvent
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QResizeEvent, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from gui.model import nested
from gui.model.views.grad_history import HistoryData, per_element, step_for_click
from gui.widgets.plot_style import (
    LOCKED_MARGIN,
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


class Markers(pg.GraphicsObject):
    """One element's points as symbols of a fixed size in pixels.

    What ``pg.ScatterPlotItem`` draws here, for a fraction of its cost: its ``setData``
    took ~0.3 ms per element per slider tick and its paint as much again.
    """

    def __init__(self, symbol: str, color: str, size: float) -> None:
        super().__init__()
        self._path = QTransform.fromScale(size, size).map(Symbols[symbol])
        self._pen = pg.mkPen(color)
        self._pen.setCosmetic(True)
        self._brush = pg.mkBrush(color)
        self._pad = size * 0.7072 + 1.0  # half the symbol's diagonal, and its pen
        self._points: list[QPointF] = []
        self._data = QRectF()
        self._margin: tuple[float, float] | None = None

    def setData(self, xs: list[float], ys: list[float]) -> None:
        """Show a symbol at each ``(x, y)`` (finite numbers)."""
        self.prepareGeometryChange()
        self._points = [QPointF(x, y) for x, y in zip(xs, ys, strict=True)]
        if xs:
            self._data = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        else:
            self._data = QRectF()
        self.update()

    def getData(self) -> tuple[list[float], list[float]]:
        """The points shown, as x and y lists."""
        return [p.x() for p in self._points], [p.y() for p in self._points]

    def dataBounds(
        self, ax: int, frac: float = 1.0, orthoRange: object = None
    ) -> tuple[float | None, float | None]:
        if not self._points:
            return None, None
        if ax == 0:
            return self._data.left(), self._data.right()
        return self._data.top(), self._data.bottom()

    def boundingRect(self) -> QRectF:
        if not self._points:
            return QRectF()
        if self._margin is None:  # a pixel in data units: it changes with the view only
            px, py = self.pixelVectors()
            dx = 0.0 if px is None else px.length() * self._pad
            dy = 0.0 if py is None else py.length() * self._pad
            self._margin = (dx, dy)
        dx, dy = self._margin
        return self._data.adjusted(-dx, -dy, dx, dy)

    def viewTransformChanged(self) -> None:
        self.prepareGeometryChange()
        self._margin = None
        super().viewTransformChanged()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not self._points:
            return
        to_device = painter.transform()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(self._pen)
        painter.setBrush(self._brush)
        for point in self._points:
            painter.drawPath(self._path.translated(to_device.map(point)))
        painter.restore()


def _marker(color: str, dashed: bool, text: str) -> pg.InfiniteLine:
    style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
    line = pg.InfiniteLine(
        angle=90,
        pen=pg.mkPen(color, width=2, style=style),
        label=text,
        # Written along the line: across it, neighbouring labels overlap and the last is cut.
        labelOpts={"position": 0.7, "color": color, "rotateAxis": (1, 0)},
    )
    line.label.setFont(plot_font())
    return line


class GradHistory(pg.PlotWidget):
    """The history plot of one leaf; built once per leaf shape, updated by :meth:`show_data`.

    ``step_clicked`` carries the step index a click inside the plot asks for (an ``int``, or
    ``None`` for "the latest"), ready for ``session.select_step``.
    """

    step_clicked = Signal(object)

    def __init__(self, leaf: str, shape: tuple[int, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w", axisItems={"left": ValueAxis("left")})
        style_plot(self)
        self.leaf = leaf
        elements = self._elements = per_element(shape)
        count = nested.numel(shape) if elements else 1
        heading = f"{leaf}.grad" if elements else f"‖{leaf}.grad‖"
        names = [nested.index_label(shape, i) or heading for i in range(count)]
        self._highlight = pg.InfiniteLine(angle=90, pen=pg.mkPen(SHOWN_COLOR, width=14))
        self._highlight.setZValue(-10)
        self.addItem(self._highlight)
        self._marks: list[Markers] = []
        self._samples: list[pg.PlotDataItem] = []
        self.curves = tuple(self._curve(k, name) for k, name in enumerate(names))
        self._drawn: list[tuple[tuple[float, ...], tuple[float, ...]] | None] = [None] * count
        if count > 1:
            self._add_legend(tuple(self._samples), names)
        self._zeroed: list[pg.InfiniteLine] = []
        self._failed: list[pg.InfiniteLine] = []
        self._range = StickyRange()
        self._locked: float | None = None  # the scale the y axis is locked at
        self._steps = -1
        self._end = 0.0
        self._data = HistoryData()
        set_title(self, f"{heading} after each backward")
        self.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.getPlotItem().vb.sigResized.connect(self._update_ticks)

    def resizeEvent(self, ev: QResizeEvent | None) -> None:
        super().resizeEvent(ev)
        fit_title(self)

    def _curve(self, k: int, name: str) -> QuickCurve:
        # A line item and a marker item rather than one PlotDataItem: PlotDataItem.setData
        # costs ~0.4 ms, these two ~0.1 ms together, and every element moves on a tick.
        color = CURVE_COLORS[k % len(CURVE_COLORS)]
        curve = QuickCurve(pen=pg.mkPen(color, width=2), name=name, connect="finite")
        marks = Markers(CURVE_SYMBOLS[k % len(CURVE_SYMBOLS)], color, 9)
        self.addItem(curve)
        self.addItem(marks)
        self._marks.append(marks)
        # The legend draws its sample from an item's style: one that is never plotted.
        self._samples.append(
            pg.PlotDataItem(
                pen=pg.mkPen(color, width=2),
                symbol=CURVE_SYMBOLS[k % len(CURVE_SYMBOLS)],
                symbolBrush=color,
                symbolPen=pg.mkPen(color),
                symbolSize=9,
            )
        )
        return curve

    def _add_legend(self, curves: tuple[pg.PlotDataItem, ...], names: list[str]) -> None:
        # Beside the plot, not over it: inside, it hid points whatever corner it took.
        legend = pg.LegendItem(
            labelTextSize=f"{plot_font().pointSizeF():g}pt",
            labelTextColor=TEXT_COLOR,
            frame=False,
            verSpacing=-6,
        )
        for curve, name in zip(curves, names, strict=True):
            legend.addItem(curve, name)
        legend.updateSize()
        legend.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)  # see style_plot
        # Its own height at the top of the cell: stretched to the plot's, rows drift apart.
        legend.setMaximumHeight(legend.height())
        layout = self.getPlotItem().layout
        layout.addItem(legend, 2, 3)
        layout.setAlignment(legend, Qt.AlignmentFlag.AlignTop)

    def show_data(self, data: HistoryData, locked_scale: float | None = None) -> None:
        """Draw ``data`` (the curves, marker lines, the highlighted step, the ranges);
        ``locked_scale``: the y axis is locked at ± that (the colour scale's lock)."""
        self._draw_curves(data)
        self._place(self._zeroed, data.zeroed, ZEROED_COLOR, True, "zeroed")
        self._place(self._failed, data.failed, FAILED_COLOR, False, "failed")
        self._highlight.setVisible(data.shown is not None)
        if data.shown is not None:
            self._highlight.setValue(data.shown)
        self._data = data
        if (data.steps, data.end) != (self._steps, self._end):
            self._steps, self._end = data.steps, data.end
            self.setXRange(0.5, max(data.end, 1.0) + 0.5, padding=0)
            self._update_ticks()
        new = self._y_range(data, locked_scale)
        if new is not None:
            self.setYRange(*new, padding=0)

    def _y_range(self, data: HistoryData, locked: float | None) -> tuple[float, float] | None:
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

    def y_range(self) -> tuple[float, float]:
        """The y axis' range now."""
        low, high = self.getPlotItem().vb.viewRange()[1]
        return float(low), float(high)

    def _draw_curves(self, data: HistoryData) -> None:
        for k, curve in enumerate(self.curves):
            ys = data.series[k] if k < len(data.series) else ()
            # A slider moves one element: redrawing the others' points cost ~0.3 ms each.
            if self._drawn[k] == (data.xs, ys):
                continue
            self._drawn[k] = (data.xs, ys)
            if any(math.isfinite(y) for y in ys):
                curve.set_points(list(data.xs), list(ys))
            else:  # all gaps (x.grad stayed None): pyqtgraph would warn about an all-nan slice
                curve.set_points([], [])
            points = [(x, y) for x, y in zip(data.xs, ys, strict=False) if math.isfinite(y)]
            self._marks[k].setData([x for x, _ in points], [y for _, y in points])

    def _place(
        self,
        pool: list[pg.InfiniteLine],
        positions: tuple[float, ...],
        color: str,
        dashed: bool,
        text: str,
    ) -> None:
        while len(pool) < len(positions):
            line = _marker(color, dashed, text)
            self.addItem(line)
            pool.append(line)
        for k, line in enumerate(pool):
            line.setVisible(k < len(positions))
            if k < len(positions) and line.value() != positions[k]:
                line.setValue(positions[k])

    def _update_ticks(self) -> None:
        numbers = list(range(1, max(self._steps, 0) + 1))
        width = self.getPlotItem().vb.boundingRect().width()
        label_ticks(self.getPlotItem().getAxis("bottom"), numbers, [str(n) for n in numbers], width)

    def _on_scene_clicked(self, event: MouseClickEvent) -> None:
        box = self.getPlotItem().vb
        pos = event.scenePos()
        if event.button() != Qt.MouseButton.LeftButton or self._steps <= 0:
            return
        if box.sceneBoundingRect().contains(pos):
            self.step_clicked.emit(step_for_click(box.mapSceneToView(pos).x(), self._data))

    @property
    def data(self) -> HistoryData:
        """What the plot shows now."""
        return self._data
