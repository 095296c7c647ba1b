"""A small plot drawn straight with QPainter: the base of both gradient plots.

A :class:`PlotCanvas` has a title, a value axis on the left (round ticks from
:func:`~gui.model.views.grad_plots.nice_ticks`, written with
:func:`~gui.model.tensor_format.format_short` like every round number of the app), a
category axis at the bottom (``[0, 1]``, backward call ``3``; every ``k``-th labelled when
not all fit), an optional note under it, an optional message over the plot, and room on the
right for a legend. Subclasses draw their data over it.

What costs is done rarely: the pixel layout (margins, ticks, labels that fit) is worked out
when the size, the font, a range, the title or the labels change, and everything that does
not move with the data (text, axes, legend, marker lines) is painted once into a pixmap.
A slider tick only stores new numbers and calls ``update()``; a paint blits that pixmap and
draws the data with a handful of QPainter calls, clipped to the plot.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QHelpEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from gui.model.tensor_format import format_short
from gui.model.views.grad_plots import label_stride, nice_ticks
from gui.widgets.pixels import axis_map, clamp_pixel, sane_axis
from gui.widgets.plot_style import AXIS_COLOR, NOTE_FILL, TEXT_COLOR, plot_font
from gui.widgets.qt_text import show_tooltip

# Value ticks at least this many lines of text apart (about what fits a label and a gap).
TICK_GAP_LINES = 1.6
# Pixels never in data: a value far off the plot is drawn this far past its edge (clipped).
OFF_PLOT = 50.0


@dataclass
class PlotLayout:
    """Where everything of a plot goes, in the widget's pixels (see :class:`PlotCanvas`)."""

    plot: QRectF
    line: float  # the height of a line of the plot font
    pad: float
    tick: float  # the length of a tick mark
    title: str = ""  # the title as shown (shortened with "…" to the width)
    title_rect: QRectF = field(default_factory=QRectF)
    # The value axis: (pixel y, label) per tick; the category axis: (pixel x, label or "").
    y_ticks: tuple[tuple[float, str], ...] = ()
    x_ticks: tuple[tuple[float, str], ...] = ()
    x_label_width: float = 0.0
    note_rect: QRectF = field(default_factory=QRectF)
    # Data to pixels: px = ox + sx * x, py = oy + sy * y.
    sx: float = 1.0
    ox: float = 0.0
    sy: float = -1.0
    oy: float = 0.0

    def x(self, value: float) -> float:
        """The pixel column of ``value`` on the category axis (never beyond reach)."""
        return clamp_pixel(self.ox + self.sx * value)

    def y(self, value: float) -> float:
        """The pixel row of ``value`` on the value axis; far-off values (and infinities,
        and NaN) just past the plot's edge, so drawing never meets huge numbers."""
        return clamp_pixel(
            self.oy + self.sy * value, self.plot.top() - OFF_PLOT, self.plot.bottom() + OFF_PLOT
        )


class PlotCanvas(QWidget):
    """A plot widget painted with QPainter; see the module docstring.

    Subclasses set the title, ranges and categories with the ``set_*`` methods (each does
    nothing when the value is the same), and override :meth:`paint_static` (drawn once into
    the cached layer: lines behind or beside the data, a legend), :meth:`paint_data`
    (drawn on every paint, clipped to the plot) and :meth:`legend_width`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Every pixel is painted (the cached layer is opaque): Qt need not clear first.
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._title = ""
        self._message = ""
        self._note = ""
        self._values_shown = True
        self._x_range = (0.0, 1.0)
        self._y_range = (-1.0, 1.0)
        self._categories: tuple[tuple[float, str], ...] = ()
        self._layout: PlotLayout | None = None
        self._static: QPixmap | None = None
        self._axis_pen = QPen(QColor(AXIS_COLOR), 1)
        self._text_pen = QPen(QColor(TEXT_COLOR))
        self._note_fill = QColor(*NOTE_FILL)
        self._set_font(plot_font())

    # -- what subclasses set ------------------------------------------------------------

    def set_plot_font(self, font: QFont) -> None:
        """Draw every text in ``font`` (presentation mode's bigger plot font)."""
        if font != self._font:
            self._set_font(font)
            self.font_changed()
            self.updateGeometry()
            self.relayout()

    def _set_font(self, font: QFont) -> None:
        self._font = QFont(font)
        self._metrics = QFontMetricsF(self._font)

    def set_title(self, text: str) -> None:
        """The title over the plot (shortened with "…" when the plot is narrower)."""
        if text != self._title:
            self._title = text
            self.relayout()

    def set_message(self, text: str) -> None:
        """A message written over the middle of the plot, ``""`` for none."""
        if text != self._message:
            self._message = text
            self.relayout()

    def set_note(self, text: str) -> None:
        """A line under the category axis (what the plot leaves out), ``""`` for none."""
        if text != self._note:
            self._note = text
            self.relayout()

    def set_values_shown(self, shown: bool) -> None:
        """Whether the axes are labelled (without data, numbers on them mean nothing)."""
        if shown != self._values_shown:
            self._values_shown = shown
            self.relayout()

    def set_x_range(self, low: float, high: float) -> None:
        """The category axis runs from ``low`` to ``high`` (data units)."""
        if (low, high) != self._x_range:
            self._x_range = (low, high)
            self.relayout()

    def set_y_range(self, low: float, high: float) -> None:
        """The value axis runs from ``low`` to ``high``."""
        if (low, high) != self._y_range and high > low:
            self._y_range = (low, high)
            self.relayout()

    def set_categories(self, positions: list[float], labels: list[str]) -> None:
        """A tick mark at each of ``positions`` on the category axis, with its label."""
        categories = tuple(zip(positions, labels, strict=True))
        if categories != self._categories:
            self._categories = categories
            self.relayout()

    def relayout(self) -> None:
        """Work the layout out again before the next paint (and repaint)."""
        self._layout = None
        self._static = None
        self.layout_changed()
        self.update()

    def restatic(self) -> None:
        """Paint the cached layer again before the next paint (and repaint)."""
        self._static = None
        self.update()

    # -- what subclasses draw -------------------------------------------------------------

    def legend_width(self, line: float) -> float:
        """Room to keep on the right of the plot (a legend), for lines ``line`` tall."""
        return 0.0

    def font_changed(self) -> None:
        """The plot font changed (subclasses remake what they drew in it)."""

    def layout_changed(self) -> None:
        """The pixel layout is being redone (subclasses drop what they placed in it)."""

    def paint_static(self, painter: QPainter, layout: PlotLayout) -> None:
        """Draw what stays while the data moves, over the axes and under the data."""

    def paint_data(self, painter: QPainter, layout: PlotLayout) -> None:
        """Draw the data (clipped to the plot; called on every paint)."""

    def tooltip_at(self, pos: QPointF, layout: PlotLayout) -> str:
        """The tooltip for the mouse at ``pos``, ``""`` for none."""
        return ""

    # -- reading it back (tests, the main window) ----------------------------------------

    def title(self) -> str:
        """The whole title (the plot may show it shortened: :meth:`shown_title`)."""
        return self._title

    def shown_title(self) -> str:
        """The title as drawn, ``…`` at its end when the plot is too narrow for all of it."""
        return self.plot_layout().title

    def message(self) -> str:
        """The message written over the plot, or ``""``."""
        return self._message

    def note(self) -> str:
        """The line under the category axis, or ``""``."""
        return self._note

    def tick_font(self) -> QFont:
        """The font of every text of the plot (titles, ticks, legend)."""
        return QFont(self._font)

    def x_range(self) -> tuple[float, float]:
        """The category axis' range now."""
        return self._x_range

    def y_range(self) -> tuple[float, float]:
        """The value axis' range now."""
        return self._y_range

    def y_tick_labels(self) -> tuple[str, ...]:
        """The value axis' labels as drawn, from the bottom up."""
        return tuple(label for _, label in self.plot_layout().y_ticks)

    def x_tick_labels(self) -> tuple[str, ...]:
        """The category axis' labels as drawn, left to right (unlabelled ticks left out)."""
        return tuple(label for _, label in self.plot_layout().x_ticks if label)

    def plot_rect(self) -> QRectF:
        """Where the data is drawn, in the widget's pixels."""
        return QRectF(self.plot_layout().plot)

    def to_pixel(self, x: float, y: float) -> QPointF:
        """Where the data point ``(x, y)`` is drawn, in the widget's pixels."""
        layout = self.plot_layout()
        return QPointF(layout.x(x), layout.y(y))

    def plot_layout(self) -> PlotLayout:
        """The layout for the current size, worked out if it is not known."""
        if self._layout is None:
            self._layout = self._compute_layout()
        return self._layout

    # -- Qt ------------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        line = self._metrics.height()
        return QSize(round(line * 18), round(line * 11))

    def minimumSizeHint(self) -> QSize:
        line = self._metrics.height()
        return QSize(round(line * 8), round(line * 6))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.relayout()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.tooltip_at(QPointF(event.pos()), self.plot_layout())
            if text:
                show_tooltip(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        layout = self.plot_layout()
        ratio = self.devicePixelRatioF()
        if self._static is None or self._static.devicePixelRatio() != ratio:
            self._static = self._paint_static_layer(layout, ratio)
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._static)
        if not self._message:
            painter.setClipRect(layout.plot)
            self.paint_data(painter, layout)
        painter.end()

    # -- the layout and the cached layer -------------------------------------------------

    def _compute_layout(self) -> PlotLayout:
        metrics = self._metrics
        width, height = float(self.width()), float(self.height())
        line = metrics.height()
        pad = max(3.0, round(line * 0.3))
        tick = max(4.0, round(line * 0.25))
        top = pad + (line + pad if self._title else 0.0)
        # The category labels' line is always kept, so that plots side by side line up.
        bottom = tick + 2 + line + (line if self._note else 0.0) + pad
        plot_height = max(1.0, round(height - top - bottom))
        # A range pixels can be worked out on (finite, not absurdly narrow): a gradient of
        # 1e-307 made the pixels per unit infinite, and NaN coordinates crashed Qt.
        low, high = sane_axis(*self._y_range)
        values = nice_ticks(low, high, (high - low) * TICK_GAP_LINES * line / plot_height)
        labels = [format_short(v) for v in values] if self._values_shown else []
        widest = max((metrics.horizontalAdvance(text) for text in labels), default=0.0)
        left = round(pad + widest + pad / 2 + tick)
        right = pad + self.legend_width(line)
        plot_width = max(1.0, round(width - left - right))
        plot = QRectF(left, top, plot_width, plot_height)
        sx, ox = axis_map(*self._x_range, left, plot_width)
        sy, oy = axis_map(high, low, top, plot_height)  # the high end at the top
        layout = PlotLayout(plot=plot, line=line, pad=pad, tick=tick, sx=sx, ox=ox, sy=sy, oy=oy)
        layout.y_ticks = tuple((layout.y(v), text) for v, text in zip(values, labels, strict=False))
        layout.x_ticks, layout.x_label_width = self._category_ticks(layout)
        room = max(0.0, width - 2 * metrics.averageCharWidth())
        layout.title = metrics.elidedText(self._title, Qt.TextElideMode.ElideRight, room)
        layout.title_rect = QRectF(0, pad, width, line)
        if self._note:
            layout.note_rect = QRectF(0, plot.bottom() + tick + 2 + line, width, line)
        return layout

    def _category_ticks(self, layout: PlotLayout) -> tuple[tuple[tuple[float, str], ...], float]:
        inside = [
            (layout.x(p), text)
            for p, text in self._categories
            if layout.plot.left() - 0.5 <= layout.x(p) <= layout.plot.right() + 0.5
        ]
        if not inside or not self._values_shown:
            return (), 0.0
        metrics = self._metrics
        widest = max(metrics.horizontalAdvance(text) for _, text in inside)
        spaced = widest + metrics.averageCharWidth()
        stride = label_stride(len(inside), spaced, layout.plot.width())
        ticks = tuple((x, text if i % stride == 0 else "") for i, (x, text) in enumerate(inside))
        return ticks, widest

    def _paint_static_layer(self, layout: PlotLayout, ratio: float) -> QPixmap:
        width, height = self.width(), self.height()
        pixmap = QPixmap(max(1, round(width * ratio)), max(1, round(height * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(QColor("white"))
        painter = QPainter(pixmap)
        painter.setFont(self._font)
        painter.setPen(self._text_pen)
        plot = layout.plot
        if layout.title:
            painter.drawText(layout.title_rect, Qt.AlignmentFlag.AlignCenter, layout.title)
        self._paint_axes(painter, layout)
        if self._note:
            painter.drawText(layout.note_rect, Qt.AlignmentFlag.AlignCenter, self._note)
        self.paint_static(painter, layout)
        if self._message:
            self._paint_message(painter, plot, layout.pad)
        painter.end()
        return pixmap

    def _paint_axes(self, painter: QPainter, layout: PlotLayout) -> None:
        plot, tick = layout.plot, layout.tick
        left, bottom = plot.left(), plot.bottom()
        painter.setPen(self._axis_pen)
        painter.drawLine(QPointF(left, plot.top()), QPointF(left, bottom))
        painter.drawLine(QPointF(left, bottom), QPointF(plot.right(), bottom))
        marks = [QPointF(left - tick, y) for y, _ in layout.y_ticks]
        marks += [QPointF(x, bottom + tick) for x, _ in layout.x_ticks]
        ends = [QPointF(left, y) for y, _ in layout.y_ticks]
        ends += [QPointF(x, bottom) for x, _ in layout.x_ticks]
        painter.drawLines([p for pair in zip(marks, ends, strict=True) for p in pair])
        painter.setPen(self._text_pen)
        line, pad = layout.line, layout.pad
        # Labels stay below the title and inside the widget, whatever their tick's place.
        highest = layout.title_rect.bottom() if layout.title else 0.0
        right_align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for y, text in layout.y_ticks:
            top = min(max(y - line / 2, highest), self.height() - line)
            painter.drawText(QRectF(0, top, left - tick - pad / 2, line), right_align, text)
        width, half = self.width(), layout.x_label_width / 2 + 1
        for x, text in layout.x_ticks:
            if text:
                start = min(max(x - half, 0.0), width - 2 * half)
                box = QRectF(start, bottom + tick + 2, 2 * half, line)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_message(self, painter: QPainter, plot: QRectF, pad: float) -> None:
        room = QRectF(pad, plot.top(), max(1.0, self.width() - 2 * pad), plot.height())
        flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
        # A model's qualified name ("model.layers.0.linear1.weight.grad is None") is one
        # word wider than a narrow plot: it may break after each dot (painted text only).
        message = self._message.replace(".", ".\u200b")
        text = self._metrics.boundingRect(room, flags, message)
        box = text.adjusted(-pad, -pad / 2, pad, pad / 2)
        box.moveCenter(QPointF(plot.center().x(), plot.center().y()))
        box = box.intersected(QRectF(0, 0, self.width(), self.height()))
        painter.fillRect(box, self._note_fill)
        painter.setPen(self._text_pen)
        painter.drawText(box, flags, message)
