"""The graph panel: the autograd graph, drawn live, with a step chooser and a colour legend.

Boxes sit where the session's layout put them (Graphviz ``dot``, by structure key), so a
slider moving ``x`` only changes texts and colours: the scene is rebuilt exactly when the
graph's structure changes (:class:`~gui.widgets.graph_items.GraphItems`). What each box and
edge shows comes from the same helpers as the SVG export (:mod:`gui.model.drawing.paint`,
:func:`gui.model.drawing.layout.node_lines`), so the window and an exported report agree
number for number and colour for colour; the captions come from
:mod:`gui.model.views.graph_caption`.

A value tick touches only what changed (:meth:`GraphItems.update`): the items on screen
make their new texts and colours and repaint just the rows, cells, strokes and labels that
changed; the items off screen take their numbers and make them when they come into view
(the view asks before it paints). Nothing changes size on a tick, so the scene's geometry
stays put.

Clicking a box selects it in the session; the outline is drawn from the snapshot, never
from Qt's own selection state. Dragging empty space pans, the wheel zooms at the cursor
(:class:`~gui.widgets.graph_view.GraphView`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGraphicsScene,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.model.drawing.paint import BEYOND_TEXT, Gradients
from gui.model.paused_collector import collector_paused
from gui.model.result import Graph
from gui.model.session import Session, Snapshot
from gui.model.views.graph_caption import (
    EMPTY_TEXT,
    caption_text,
    empty_text,
    failure_text,
    step_labels,
)
from gui.widgets import gui_thread_collections
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.graph_items import GraphItems
from gui.widgets.graph_search_box import GraphSearchBox
from gui.widgets.graph_view import ZOOM_STEP, GraphView
from gui.widgets.layout_progress import LayoutProgress
from gui.widgets.legend_ramp import LegendRamp
from gui.widgets.module_groups import ModuleGroups
from gui.widgets.node_item import NodeItem
from gui.widgets.qt_text import follow_application_font, plain_label
from gui.widgets.replay_bar import ReplayBar
from gui.widgets.scene_style import Area
from gui.widgets.tool_rows import ToolRows

FAILED_COLOR = "#b2182b"
LOCK_KEY = "Ctrl+K"
SCENE_PADDING = 16.0


class GraphPanel(QWidget):
    """The autograd graph of the session's output, live.

    Parameters
    ----------
    session
        The session to show; the panel calls ``select_node`` and ``select_step`` on it.
    parent
        The Qt parent.
    """

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._scene = QGraphicsScene(self)
        # No index: items never move on a tick, but a BSP index measured no cheaper to
        # paint with (it once cost more than the drawing, when labels still resized).
        # Lookups (clicks) are linear, fine for a few thousand items.
        self._scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self._view = GraphView(self._scene, self)
        self._view.before_paint = self._settle
        self._items: GraphItems | None = None
        self._shown: tuple[object, int | None, float | None, object] | None = None
        self._step_labels: list[str] = []
        # A node asked for by show_node that is not drawn yet (its module is being
        # expanded): brought into view once the graph with it is built.
        self._pending_focus: str | None = None
        # The nodes whose numbers the view shows, as last told to the session (a big
        # graph's slider drag reads only those: see gui.model.session.drag_detail), and
        # those waiting to be told (None: nothing waits).
        self._in_view: frozenset[str] | None = None
        self._in_view_unsent: frozenset[str] | None = None
        self._build_ui()
        self._view.node_clicked.connect(self._on_view_node_clicked)
        self.step_choice.currentIndexChanged.connect(self._on_view_step_chosen)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # -- building ----------------------------------------------------------------------

    def _build_ui(self) -> None:
        # One line each, shortened where a narrow column ends (the whole text on hover):
        # wrapped, they grew into a column of words that took the graph's height.
        self.caption = ElidedLabel()
        self.legend = LegendRamp()
        caption_row = QHBoxLayout()
        caption_row.setContentsMargins(4, 0, 4, 0)
        caption_row.addWidget(self.legend)
        self._build_lock(caption_row)
        caption_row.addWidget(self.caption, 1)
        self.failure = ElidedLabel()
        palette = self.failure.palette()  # a palette, not a style sheet: it keeps the font
        palette.setColor(QPalette.ColorRole.WindowText, QColor(FAILED_COLOR))
        self.failure.setPalette(palette)
        self.failure.setContentsMargins(4, 0, 4, 0)
        self.empty = plain_label(EMPTY_TEXT)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self._view)
        self.stack.addWidget(self.empty)
        self.progress = LayoutProgress()
        self.stack.addWidget(self.progress)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self._build_top_row())
        layout.addLayout(caption_row)
        self.replay_bar = ReplayBar(self._session)
        layout.addWidget(self.replay_bar)
        layout.addWidget(self.failure)
        layout.addWidget(self.stack, 1)

    def _build_lock(self, row: QHBoxLayout) -> None:
        """The scale lock beside the legend: a toggle, "Rescale", and the mark that says
        numbers are beyond the locked scale. The actions also go in the window's View menu."""
        self.lock_action = QAction("Lock colour scale and axes", self)
        self.lock_action.setCheckable(True)
        self.lock_action.setShortcut(QKeySequence(LOCK_KEY))
        self.lock_action.setIconText("Lock scale")
        self.lock_action.setToolTip(
            f"Keep the colours and the plots' axes fixed while values change ({LOCK_KEY}): "
            "doubling v then doubles the bars, and fading gradients fade"
        )
        self.lock_action.triggered.connect(self._on_view_lock_toggled)
        self.rescale_action = QAction("Rescale colours and axes", self)
        self.rescale_action.setIconText("Rescale")
        self.rescale_action.setToolTip("Lock the scale again at the numbers shown now")
        self.rescale_action.triggered.connect(self._on_view_rescale)
        self.lock_button = QToolButton()
        self.lock_button.setDefaultAction(self.lock_action)
        self.rescale_button = QToolButton()
        self.rescale_button.setDefaultAction(self.rescale_action)
        self.beyond = QLabel(BEYOND_TEXT)
        palette = self.beyond.palette()
        palette.setColor(QPalette.ColorRole.WindowText, QColor(FAILED_COLOR))
        self.beyond.setPalette(palette)
        self.beyond.setToolTip(
            "Some numbers are beyond the locked scale: they get the end colours and their "
            "bars run off the plot. Rescale to fit them."
        )
        self.beyond.setVisible(False)
        for button in (self.lock_button, self.rescale_button):
            button.setAutoRaise(True)
            # As tall as the legend beside them, not a button's usual height: a taller row
            # would take its pixels from the graph.
            button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        for widget in (self.lock_button, self.rescale_button, self.beyond):
            row.addWidget(widget)

    def _on_view_lock_toggled(self, checked: bool) -> None:
        self._session.set_scale_lock(checked)

    def _on_view_rescale(self) -> None:
        self._session.rescale()

    def _render_lock(self, snapshot: Snapshot) -> None:
        locked = snapshot.scale_lock
        if self.lock_action.isChecked() != locked:
            self.lock_action.setChecked(locked)  # no echo: only "triggered" reaches the session
            self.lock_action.setIconText("Scale locked" if locked else "Lock scale")
        if self.rescale_action.isEnabled() != locked:
            self.rescale_action.setEnabled(locked)
        beyond = snapshot.beyond_scale
        if self.beyond.isVisibleTo(self) != beyond:
            self.beyond.setVisible(beyond)

    def _build_top_row(self) -> ToolRows:
        toolbar = self._toolbar = QToolBar(self)
        self.fit_action = self._action(toolbar, "Fit", "F", self._fit, "Fit the graph (F)")
        self.zoom_out_action = self._action(
            toolbar, "−", "Ctrl+-", self._zoom_out, "Zoom out (Ctrl+-)"
        )
        self.zoom_in_action = self._action(
            toolbar, "+", "Ctrl+=", self._zoom_in, "Zoom in (Ctrl+=)"
        )
        self._action(self, "Fit", "Ctrl+0", self._fit, "Fit the graph (Ctrl+0)")
        self._action(self, "Zoom in", "Ctrl++", self._zoom_in, "Zoom in (Ctrl++)")
        # Right after the zoom: a model's modules, the first thing a big graph needs (the
        # first row's bar keeps its whole width: ToolRows moves the next bar down first).
        self.groups = ModuleGroups(self._session, self._view, self.node_item)
        self.groups.place_on(toolbar)
        # What the graph shows: a bar of its own, which takes a second row when the
        # column is too narrow for both (never the overflow menu, where no one finds it).
        view_bar = self._view_bar = QToolBar(self)
        self.step_choice = QComboBox()
        self.step_choice.setToolTip("Which backward call's gradients the graph shows")
        self.step_choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # The label and its box as one item (short labels: the bar must fit one row).
        show = QWidget()
        show_row = QHBoxLayout(show)
        show_row.setContentsMargins(0, 0, 0, 0)
        show_row.addWidget(QLabel("Show "))
        show_row.addWidget(self.step_choice)
        view_bar.addWidget(show)
        view_bar.addSeparator()
        self.saved_toggle = QCheckBox("Saved")
        self.saved_toggle.setToolTip(
            "Show what each node saved for backward as dashed boxes beside it "
            "(click a node to see them in its details either way)"
        )
        self.saved_toggle.clicked.connect(self._on_view_saved_toggled)
        view_bar.addWidget(self.saved_toggle)
        # Beside the toolbar, not on it: a narrow column moves the toolbar's last buttons
        # into its overflow menu, and Ctrl+F must always find the box on screen.
        self.search = GraphSearchBox(self._shown_graph, self.show_node)
        self._action(self, "Find", "Ctrl+F", self._focus_search, "Find a node by name (Ctrl+F)")
        self.stale_badge = QLabel(" stale ")
        self.stale_badge.setStyleSheet("background:#fff3b0; color:#5a4a00; border-radius:3px;")
        follow_application_font(self.stale_badge)
        self.stale_badge.setToolTip("The graph shows the last finished run, not the current code")
        self.tool_rows = ToolRows(toolbar, view_bar, (self.search, self.stale_badge))
        self.tool_rows.setContentsMargins(0, 0, 4, 0)
        return self.tool_rows

    def _action(
        self, owner: QWidget, text: str, shortcut: str, slot: Callable[[], None], tip: str
    ) -> QAction:
        action = QAction(text, owner)
        action.setShortcut(QKeySequence(shortcut))
        # Keys act only while the graph panel has focus: other panels have their own.
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(tip)
        action.triggered.connect(slot)
        owner.addAction(action)
        if owner is not self:
            self.addAction(action)  # so its key works wherever focus is inside the panel
        return action

    # -- public ------------------------------------------------------------------------

    def view(self) -> GraphView:
        """The graph's QGraphicsView."""
        return self._view

    def node_item(self, key: str) -> NodeItem | None:
        """The box drawn for node ``key`` (``None`` if there is none)."""
        return None if self._items is None else self._items.nodes.get(key)

    def show_node(self, key: str) -> None:
        """Select node ``key`` and bring it into view, zoomed in enough to read."""
        self._session.select_node(key)
        item = self.node_item(key)
        if item is None:
            self._pending_focus = key  # hidden in a module the selection expands
            return
        self._pending_focus = None
        self._view.bring_into_view(item)

    def _shown_graph(self) -> Graph | None:
        return self._session.snapshot.graph

    def _focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def set_text_scale(self, scale: float) -> None:
        """Show the graph's text ``scale`` times its readable size (presentation mode)."""
        self._view.set_text_scale(scale)

    def add_window_action(self, action: QAction) -> None:
        """Put a window command (the graph-only view) first on the panel's toolbar, where
        a narrow column never pushes it into the overflow menu."""
        first = self._toolbar.actions()[0]
        self._toolbar.insertAction(first, action)
        self._toolbar.insertSeparator(first)

    def smallest_text_pixels(self) -> float | None:
        """The height in screen pixels of the graph's smallest text at the current zoom:
        its font's size in scene units times the view's scale (``None``: no graph)."""
        if self._items is None:
            return None
        return self._items.smallest_text_size() * self._view.transform().m11()

    @property
    def items(self) -> GraphItems | None:
        """Every item of the current graph (``None`` while there is no graph)."""
        return self._items

    def _on_view_saved_toggled(self, checked: bool) -> None:
        self._session.set_show_saved(checked)

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``: rebuild on a new structure, else update texts and colours."""
        graph, layout = snapshot.drawn_graph, snapshot.layout
        self.groups.render()
        # While a run is on its way the picture is only milliseconds old: veiling it on
        # every slider tick would flicker. Stale means no newer result is coming.
        stale = snapshot.stale and not snapshot.running
        if self.stale_badge.isVisibleTo(self) != stale:
            self.stale_badge.setVisible(stale)
        self._view.set_stale(stale)
        if self.saved_toggle.isChecked() != snapshot.show_saved:
            with QSignalBlocker(self.saved_toggle):
                self.saved_toggle.setChecked(snapshot.show_saved)
        self._render_steps(snapshot)
        self._render_lock(snapshot)
        if graph is None or layout is None:
            self._clear(snapshot)
            if graph is not None and snapshot.laying_out is not None:
                self.progress.show_boxes(snapshot.laying_out)
                self.stack.setCurrentWidget(self.progress)
            return
        items = self._items
        if (
            items is None
            or items.layout is not layout
            or items.structure_key != graph.structure_key
        ):
            items = self._rebuild(snapshot)
        shown = (
            snapshot.result,
            snapshot.selected_step,
            snapshot.locked_scale,
            snapshot.replay_state,
        )
        if self._shown is None or shown[0] is not self._shown[0] or shown[1:] != self._shown[1:]:
            self._shown = shown
            grads = snapshot.drawn_paint
            assert grads is not None  # there is a graph
            items.update(graph, snapshot.drawn_step, grads, self._view.visible_area())
            self._render_captions(snapshot, grads, layout.compact)
        items.select(snapshot.drawn_key(snapshot.selected_node))
        items.set_active(snapshot.drawn_key(snapshot.replay_active_node))
        pending = self._pending_focus
        if pending is not None and pending in items.nodes:
            self._pending_focus = None
            self._view.bring_into_view(items.nodes[pending])

    # -- rendering ---------------------------------------------------------------------

    def _settle(self, on_screen: Area) -> None:
        """Before the view paints: edge labels are placed once they can be read, and
        items coming into view make what they show."""
        items = self._items
        if items is None:
            return
        if items.labels_unplaced and items.labels_legible_at(self._view.transform().m11()):
            # Those in view and half a view around it: a scroll finds its labels placed.
            left, top, right, bottom = on_screen
            dx, dy = (right - left) / 2, (bottom - top) / 2
            before = items.bounds
            grown = items.place_labels((left - dx, top - dy, right + dx, bottom + dy))
            if grown != before:
                pad = SCENE_PADDING
                self._scene.setSceneRect(grown.adjusted(-pad, -pad, pad, pad))
        items.settle(on_screen)
        in_view = items.keys_in_view(on_screen)
        if in_view != self._in_view:
            # Told after the paint, not from inside it: the session may start a run.
            if self._in_view_unsent is None:
                QTimer.singleShot(0, self, self._send_in_view)
            self._in_view = self._in_view_unsent = in_view

    def _send_in_view(self) -> None:
        keys, self._in_view_unsent = self._in_view_unsent, None
        self._session.set_on_screen(keys)

    def _clear(self, snapshot: Snapshot) -> None:
        if self._items is not None:
            self._scene.clear()
            self._items = None
            self._view.show_layout(None, QRectF())
        self._shown = None
        self.empty.setText(empty_text(snapshot))
        self.stack.setCurrentWidget(self.empty)
        self.caption.setText("")
        self.legend.setVisible(False)
        self.failure.setVisible(False)

    def _rebuild(self, snapshot: Snapshot) -> GraphItems:
        graph = snapshot.drawn_graph
        assert graph is not None and snapshot.layout is not None
        self._scene.clear()
        # Indexed while building (placing edge labels asks "what is here?" a lot), then
        # unindexed for the ticks that follow (see __init__). Compact graphs have no edge
        # labels to place: indexing their thousands of items would be work for nothing.
        if not snapshot.layout.compact:
            self._scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        with collector_paused():  # thousands of items, none of them garbage
            items = GraphItems(self._scene, graph, snapshot.layout)
        gui_thread_collections.postpone()  # the first paint of them comes first
        self._scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self._items = items
        self._shown = None
        rect = items.bounds
        pad = SCENE_PADDING
        self._scene.setSceneRect(rect.adjusted(-pad, -pad, pad, pad))
        self.stack.setCurrentWidget(self._view)
        self._view.smallest_text = items.smallest_text_size()
        self._view.show_layout(snapshot.layout, rect)
        self.legend.shrink()
        return items

    def _render_captions(self, snapshot: Snapshot, grads: Gradients, compact: bool) -> None:
        self.caption.setText(caption_text(snapshot, grads, compact))
        self.legend.setVisible(grads.any)
        self.legend.set_scale(grads.scale, grads.locked)
        failure = failure_text(snapshot)
        self.failure.setText(failure)
        self.failure.setVisible(bool(failure))

    def _render_steps(self, snapshot: Snapshot) -> None:
        labels = step_labels(snapshot)
        index = 0 if snapshot.selected_step is None else snapshot.selected_step + 1
        if labels == self._step_labels and index == self.step_choice.currentIndex():
            return
        with QSignalBlocker(self.step_choice):
            if labels != self._step_labels:
                self.step_choice.clear()
                self.step_choice.addItems(labels)
                self._step_labels = labels
            self.step_choice.setCurrentIndex(min(index, len(labels) - 1))
        self.step_choice.setEnabled(len(labels) > 1)

    # -- user actions ------------------------------------------------------------------

    def _on_view_node_clicked(self, key: str | None) -> None:
        self._session.select_node(key)

    def _on_view_step_chosen(self, index: int) -> None:
        self._session.select_step(None if index <= 0 else index - 1)

    def _fit(self) -> None:
        self._view.fit()

    def _zoom_in(self) -> None:
        self._view.zoom_by(ZOOM_STEP)

    def _zoom_out(self) -> None:
        self._view.zoom_by(1 / ZOOM_STEP)
