"""The gradient plots panel: per leaf, this backward's bars and the history over backwards.

Each leaf gets one row: on the left :class:`~gui.widgets.grad_bars.GradBars` (``x.grad``
per element, split into what was already there and what the shown backward added), on the
right :class:`~gui.widgets.grad_history.GradHistory` (``x.grad`` after each backward call).
Up to :data:`MAX_ROWS` leaves are shown together; with more, a combo box picks one.

Plots are built once per set of leaves and shapes; a slider tick only feeds them new numbers
(they repaint themselves with QPainter: see :mod:`gui.widgets.plot_canvas`).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QSignalBlocker, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QLinearGradient,
    QPainter,
    QPen,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gui.model.drawing.colors import DIVERGING_STOPS
from gui.model.result import RunResult
from gui.model.session import Session, Snapshot
from gui.model.views.grad_bars import bar_data
from gui.model.views.grad_history import history_data
from gui.model.views.grad_plots import leaf_shape
from gui.widgets.grad_bars import GradBars
from gui.widgets.grad_history import GradHistory
from gui.widgets.name_combo import bound_to_short_names
from gui.widgets.plot_style import ADDED_BORDER, BEFORE_COLOR, FINAL_COLOR, plot_font

MAX_ROWS = 3
# A plot's least height, in lines of the plot font (150 px at 11 pt): title, axis, bars;
# two stacked plots fit the narrow column above the node details at 1280x720.
ROW_MIN_LINES = 8.5

Shapes = tuple[tuple[str, tuple[int, ...]], ...]


def row_min_height() -> int:
    """A plot's least height for the current plot font."""
    return round(QFontMetrics(plot_font()).height() * ROW_MIN_LINES)


def _swatch(kind: str) -> QPixmap:
    """A legend sample drawn like the bars: hatched, the diverging scale, the final tick;
    as tall as the legend's text."""
    height = QFontMetrics(plot_font()).ascent()
    width = round(height * 1.4)
    pixmap = QPixmap(width, height)
    pixmap.fill(QColor("white"))
    painter = QPainter(pixmap)
    if kind == "before":
        painter.setPen(QPen(QColor(BEFORE_COLOR)))
        painter.setBrush(QBrush(QColor(BEFORE_COLOR), Qt.BrushStyle.BDiagPattern))
        painter.drawRect(0, 0, width - 1, height - 1)
    elif kind == "added":
        ramp = QLinearGradient(QPointF(0, 0), QPointF(width, 0))
        for k, color in enumerate(DIVERGING_STOPS):
            ramp.setColorAt(k / (len(DIVERGING_STOPS) - 1), QColor(color))
        painter.setPen(QPen(QColor(ADDED_BORDER)))
        painter.setBrush(QBrush(ramp))
        painter.drawRect(0, 0, width - 1, height - 1)
    else:
        painter.setPen(QPen(QColor(FINAL_COLOR), 3))
        painter.drawLine(1, height // 2, width - 2, height // 2)
    painter.end()
    return pixmap


def _legend() -> QWidget:
    """What the bars mean, once for all leaves (inside each plot it would cover bars)."""
    row = QWidget()
    row.setObjectName("gradPlotsLegend")
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(6)
    # Short words so the row fits a narrow column; the tooltips say it in full.
    entries = (
        ("before", "before", "What .grad already held before this backward call"),
        ("added", "added", "What this backward call added to .grad"),
        ("final", "after", ".grad after this backward call"),
    )
    for kind, text, tip in entries:
        sample = QLabel()
        sample.setPixmap(_swatch(kind))
        sample.setToolTip(tip)
        label = QLabel(text)
        label.setToolTip(tip)
        label.setFont(plot_font())
        layout.addWidget(sample)
        layout.addWidget(label)
        layout.addSpacing(4)
    layout.addStretch(1)
    return row


# Below this width a bars plot and a history plot side by side clip their axes.
SIDE_BY_SIDE_MIN_WIDTH = 560


class GradPlotsPanel(QWidget):
    """Gradient plots for the session's leaves; see the module docstring.

    Parameters
    ----------
    session
        The session to render; clicking a step in a history plot selects it there.
    parent
        The usual Qt parent.
    """

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._rows: dict[str, tuple[GradBars, GradHistory]] = {}
        self._shapes: Shapes = ()
        self._picked: str | None = None
        self._stacked: bool | None = None
        self._synced: tuple[tuple[str, ...], str | None] | None = None
        self._drawn: tuple[RunResult | None, int | None, float | None] | None = None
        self._build()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.fontChanged.connect(self._follow_application_font)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    def _build(self) -> None:
        self._combo = bound_to_short_names(QComboBox())
        self._combo.setFont(plot_font())
        self._combo.setToolTip("Which leaf's gradient to plot")
        self._combo.currentTextChanged.connect(self._on_leaf_picked)
        self._combo_label = QLabel("Leaf:")
        self._combo_label.setFont(plot_font())
        top = self._top = QHBoxLayout()
        self._legend = self._new_legend()
        top.addWidget(self._legend, 1)
        # The leaf chooser on a row of its own, under the legend: beside it, the two made
        # the narrow right column (and a 1280-pixel window) wider than the screen.
        choose = QHBoxLayout()
        choose.addWidget(self._combo_label)
        choose.addWidget(self._combo, 1)
        self._empty = QLabel("No leaf tensor that requires grad: nothing to plot yet.")
        self._empty.setFont(plot_font())
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)  # never wider than a narrow column
        host = self._grid_host = QWidget()
        self._grid = QGridLayout(host)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setColumnStretch(0, 1)
        self._grid.setColumnStretch(1, 1)
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setWidget(host)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(choose)
        layout.addWidget(self._empty, 1)
        layout.addWidget(self._scroll, 1)

    @staticmethod
    def _new_legend() -> QWidget:
        # Never cut off: the column is kept at least as wide as the legend (the window's
        # splitter honours the panel's minimum width), in presentation mode too.
        legend = _legend()
        legend.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        return legend

    def _follow_application_font(self, _font: QFont) -> None:
        """Presentation mode: axes, ticks, titles and the legend in the new font. The plots
        keep their numbers and lay themselves out again; rows get their new least height."""
        font = plot_font()
        for widget in (self._combo, self._combo_label, self._empty):
            widget.setFont(font)
        legend = self._new_legend()
        self._top.replaceWidget(self._legend, legend)
        self._legend.hide()
        self._legend.setParent(None)  # gone from the panel now, deleted later
        self._legend.deleteLater()
        self._legend = legend
        for bar_plot, history_plot in self._rows.values():
            for plot in (bar_plot, history_plot):
                plot.set_plot_font(font)
                plot.setMinimumHeight(row_min_height())
        self._stacked = None
        self._arrange()

    # -- rendering ---------------------------------------------------------------------

    # Shadows QWidget.render(QPaintDevice) on purpose: every panel's public entry point.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``: only a new result or another selected step changes the plots."""
        drawn = (snapshot.result, snapshot.selected_step, snapshot.locked_scale)
        if self._drawn is not None and drawn[0] is self._drawn[0] and drawn[1:] == self._drawn[1:]:
            return
        self._drawn = drawn
        leaves = snapshot.leaves
        self._sync_combo(leaves)
        shown = leaves if len(leaves) <= MAX_ROWS else tuple(x for x in leaves if x == self._picked)
        shapes = tuple((leaf, leaf_shape(snapshot.result, leaf)) for leaf in shown)
        if shapes != self._shapes:
            self._rebuild(shapes)
        self._empty.setVisible(not shapes)
        self._scroll.setVisible(bool(shapes))
        bars = {leaf: bar_data(snapshot, leaf) for leaf, _ in shapes}
        scale = snapshot.colour_scale
        # Locked: every plot's y axis at ±the locked colour scale, tick after tick.
        locked = snapshot.locked_scale
        for leaf, shape in shapes:
            bar_plot, history_plot = self._rows[leaf]
            bar_plot.show_data(bars[leaf], scale, locked is not None)
            history_plot.show_data(history_data(snapshot, leaf, shape), locked)

    def _sync_combo(self, leaves: tuple[str, ...]) -> None:
        if (leaves, self._picked) == self._synced:  # a slider tick: nothing to do
            return
        many = len(leaves) > MAX_ROWS
        if self._picked not in leaves:
            self._picked = leaves[0] if leaves else None
        items = [self._combo.itemText(i) for i in range(self._combo.count())]
        with QSignalBlocker(self._combo):
            if items != list(leaves):
                self._combo.clear()
                self._combo.addItems(list(leaves))
            if self._picked is not None:
                self._combo.setCurrentText(self._picked)
        self._combo.setVisible(many)
        self._combo_label.setVisible(many)
        self._synced = (leaves, self._picked)

    def _rebuild(self, shapes: Shapes) -> None:
        for bar_plot, history_plot in self._rows.values():
            for plot in (bar_plot, history_plot):
                self._grid.removeWidget(plot)
                plot.setParent(None)
                plot.deleteLater()
        self._rows = {}
        for leaf, shape in shapes:
            bar_plot = GradBars(leaf, shape)
            history_plot = GradHistory(leaf, shape)
            history_plot.step_clicked.connect(self._on_view_step_clicked)
            for plot in (bar_plot, history_plot):
                plot.setMinimumHeight(row_min_height())
            self._rows[leaf] = (bar_plot, history_plot)
        self._shapes = shapes
        self._stacked = None
        self._arrange()

    def _arrange(self) -> None:
        """Bars and history side by side, or one above the other in a narrow column."""
        stacked = self.width() < SIDE_BY_SIDE_MIN_WIDTH
        if stacked == self._stacked:
            return
        self._stacked = stacked
        for i, (bar_plot, history_plot) in enumerate(self._rows.values()):
            self._grid.removeWidget(bar_plot)
            self._grid.removeWidget(history_plot)
            if stacked:
                self._grid.addWidget(bar_plot, 2 * i, 0, 1, 2)
                self._grid.addWidget(history_plot, 2 * i + 1, 0, 1, 2)
            else:
                self._grid.addWidget(bar_plot, i, 0)
                self._grid.addWidget(history_plot, i, 1)
        rows = len(self._rows) * (2 if stacked else 1)
        # Said outright: the scroll area did not always hear of the grid's new minimum.
        spacing = self._grid.verticalSpacing()
        self._grid_host.setMinimumHeight(max(0, rows * (row_min_height() + spacing) - spacing))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange()

    # -- user actions ------------------------------------------------------------------

    def _on_view_step_clicked(self, index: int | None) -> None:
        self._session.select_step(index)

    def _on_leaf_picked(self, name: str) -> None:
        # Which leaf to plot is this panel's own view state, like a scroll position: it
        # changes nothing in the session.
        if not name or name == self._picked:
            return
        self._picked = name
        self._drawn = None
        self.render(self._session.snapshot)

    # -- for tests and the main window -------------------------------------------------

    def shown_leaves(self) -> tuple[str, ...]:
        """The leaves that have plots now."""
        return tuple(self._rows)

    def bars(self, leaf: str) -> GradBars:
        """The bars plot of ``leaf``: ``.data`` (the numbers shown), ``.bar_shapes()`` (the
        bars in pixels), ``.title()``, ``.message()``, ``.note()``, ``.y_range()``."""
        return self._rows[leaf][0]

    def history(self, leaf: str) -> GradHistory:
        """The history plot of ``leaf``: ``.points()`` (each curve's points as drawn),
        ``.data`` (the points, marker lines and highlighted step), ``.y_range()``."""
        return self._rows[leaf][1]
