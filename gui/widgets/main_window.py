"""The main window: the panels around one session, menus, shortcuts and the status bar.

The window owns no state of its own beyond Qt's: every panel renders the session's
snapshots, and every menu action calls one session method. Geometry and splitter sizes
are kept in QSettings so the window comes back as the user left it.

Opening, saving, exporting and the autosave copy live in its base class
:class:`~gui.widgets.window_files.WindowFiles`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QByteArray,
    QPoint,
    QSettings,
    QSignalBlocker,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QKeySequence,
    QResizeEvent,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStyle,
    QTabWidget,
    QToolButton,
    QWidget,
)

from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS
from gui.model.session import (
    Session,
    SessionFileError,
    Snapshot,
    file_format,
    load_session,
)
from gui.model.session.autosave import DELAY_SECONDS, Autosave
from gui.model.views.lesson_controls import (
    Control,
    controls_tab,
    lesson_text,
    named_controls,
)
from gui.model.views.panel_sizes import SHARES, split
from gui.model.views.status import (
    PROGRESS_AFTER_SECONDS,
    TIME_LIMIT_CHOICES,
    has_explanation,
    running_text,
    seconds_text,
    status_bar_text,
    time_limit_text,
)
from gui.model.visible_text import visible_controls
from gui.resources import lesson_paths
from gui.widgets.backward_panel import BackwardPanel
from gui.widgets.code_editor_panel import CodeEditorPanel
from gui.widgets.content_width_guard import ContentWidthGuard
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.function_panel import FunctionPanel
from gui.widgets.grad_plots_panel import GradPlotsPanel
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.inputs_panel import InputsPanel
from gui.widgets.jacobian_panel import JacobianPanel
from gui.widgets.lesson_tools import LessonTools
from gui.widgets.memory_panel import MemoryPanel
from gui.widgets.node_details_panel import NodeDetailsPanel
from gui.widgets.window_files import APP_NAME, WindowFiles

PRESENTATION_SCALE = 1.45
# Splitters by settings key, with the sizes a 1280x720 window starts with; other sizes
# share their room the same way (gui.model.views.panel_sizes).
DEFAULT_SIZES: dict[str, list[int]] = {
    name: split(total, shares, [0] * len(shares))
    for (name, shares), total in zip(SHARES.items(), (1280, 660, 660), strict=True)
}
GRAPH_ONLY_KEY = "F9"
# The least share of the window's width the graph gets beside the side columns. When the
# side columns' narrowest (their rows must not be cut off) leave it less, as at 1024 pixels
# or in presentation mode, the window turns compact: the plots and the node details become
# tabs beside Inputs and Backward, and the graph takes their column.
GRAPH_LEAST_SHARE = 0.45
EXPLAIN_LINK = "Explanation ›"


class MainWindow(WindowFiles):
    """Code, inputs and backward controls on the left; the graph, plots and node details
    on the right.

    Parameters
    ----------
    session
        The session every panel renders.
    settings
        Where geometry and splitter sizes live (tests pass a throwaway one).
    autosave
        Where unsaved work is copied (``None``: nowhere, as in screenshots and most tests).
    """

    def __init__(
        self,
        session: Session,
        settings: QSettings | None = None,
        autosave: Autosave | None = None,
    ) -> None:
        super().__init__()
        self._session = session
        self._autosave = autosave
        self.read_timeout = file_format.READ_TIMEOUT_SECONDS
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(round(DELAY_SECONDS * 1000))
        self._autosave_timer.timeout.connect(self.flush_autosave)
        self._autosave_error: str | None = None
        self._base_point_size: float | None = None
        # Splitter sizes to apply at the first show (None: restored from the settings), and
        # the column sizes to come back to from the graph-only view.
        self._pending_sizes = True
        self._sizes_before_graph_only: list[int] | None = None
        # Compact (see GRAPH_LEAST_SHARE): the right column's sizes to come back to, and
        # the controls tab to go back to when the node details close again.
        self._compact = False
        self._right_sizes: list[int] | None = None
        self._tab_before_details: QWidget | None = None
        self._shown_node: str | None = None
        self._shown_error: object = None
        self._offered_fixes = False
        # A document just opened: its first result picks the controls tab and shares the
        # left column between the code and the controls (see _arrange_for_document).
        self._arrange_pending = False
        # The code of the file or lesson as opened or last saved (see _unsaved).
        self._saved_code: str | None = None
        self._settings = settings if settings is not None else QSettings()
        self.editor = CodeEditorPanel(session)
        self.inputs = InputsPanel(session)
        self.graph = GraphPanel(session)
        self.plots = GradPlotsPanel(session)
        self.backward = BackwardPanel(session)
        self.details = NodeDetailsPanel(session)
        self._splitters = self._build_splitters()
        # The message is one line, shortened to the bar's width (whole on hover); an error
        # or warning adds a link that opens its explanation, fix included.
        self._status = ElidedLabel()
        self._explain_link = QLabel(f'<a href="explain">{EXPLAIN_LINK}</a>')
        self._explain_link.setToolTip("Show the explanation and its fix under the code")
        self._explain_link.linkActivated.connect(self._on_view_explain)
        self._explain_link.setVisible(False)
        self._ever_ran = False
        self._steps_label = QLabel()
        self._live_label = QLabel()
        self.statusBar().addWidget(self._status, 1)
        self.statusBar().addWidget(self._explain_link)
        self.statusBar().addPermanentWidget(self._steps_label)
        self.statusBar().addPermanentWidget(self._live_label)
        self.commands: dict[str, QAction] = {}
        self._build_menus()
        self._build_time_limit()
        # Lessons: the browser, the step bar and its clicker keys, Save as Lesson.
        self.lessons = LessonTools(
            self,
            session,
            self.show_view,
            self.open_path,
            self._confirm_discard,
            self.show_error,
            self.fit_left_column,
        )
        self.lessons.add_to_menus(self._lessons_menu, self.commands["save_as"])
        self.commands.update(self.lessons.commands)
        self._restore_settings()
        if autosave is not None:
            # Before render: the title's "unsaved" mark reads what the autosave decided.
            session.changed.connect(autosave.on_snapshot)
            autosave.pending.connect(self._on_autosave_pending)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # -- building ------------------------------------------------------------------------

    def _build_splitters(self) -> dict[str, QSplitter]:
        # The graph is what a class looks at: it gets the most room. Inputs and backward
        # controls share a column as tabs; the window raises the backward tab when it
        # offers a fix, so no fix ever hides behind the other tab.
        self.controls = QTabWidget()
        self.controls.setDocumentMode(True)
        self.controls.addTab(self.inputs, "Inputs")
        self.controls.addTab(self.backward, "Backward")
        self.controls.currentChanged.connect(self._on_view_controls_tab)
        # Never cut the backward controls off at the right either (the inputs panel keeps
        # its own guard): the column is kept as wide as their rows.
        backward_area = self.backward.findChild(QScrollArea)
        if backward_area is not None:
            self._backward_width = ContentWidthGuard(backward_area)
        # Clicked buttons leave the focus where it was: "Clear steps" and "Zero grad"
        # disable themselves, and a focused button that is disabled hands the focus on,
        # which scrolled the panel to whatever took it (the inputs' reset buttons do the
        # same in LeafGroup).
        for button in self.backward.findChildren(QPushButton):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        left = self._splitter("left", Qt.Orientation.Vertical, self.editor, self.controls)
        # The views of one backward call, one page each: the gradient plots, and the
        # teaching views that read the same result (each page's objectName is what
        # show_view and a lesson's steps call it).
        self.views = QTabWidget()
        self.views.setObjectName("views")
        self.views.setDocumentMode(True)
        self.plots.setObjectName("plots")
        self.jacobian = JacobianPanel(self._session)
        self.function = FunctionPanel(self._session)
        self.memory = MemoryPanel(self._session)
        # Short titles: all four fit the narrow right column without scroll arrows (the
        # tooltip says the rest).
        for page, title, tip in (
            (self.plots, "Plots", "Each leaf's .grad: this call's bars and the history"),
            (self.jacobian, "J", "The Jacobian of this call, and building it row by row"),
            (self.function, "f(x)", "The output and its derivative as curves over a slider"),
            (self.memory, "Memory", "What backward keeps in memory, biggest first"),
        ):
            self.views.setTabToolTip(self.views.addTab(page, title), tip)
        right = self._splitter("right", Qt.Orientation.Vertical, self.views, self.details)
        # Autograd graphs are tall and narrow: a full-height middle column shows them
        # biggest.
        columns = self._splitter("columns", Qt.Orientation.Horizontal, left, self.graph, right)
        columns.setStretchFactor(1, 1)
        right.setStretchFactor(0, 1)
        self.setCentralWidget(columns)
        return {"columns": columns, "left": left, "right": right}

    def _splitter(self, name: str, orientation: Qt.Orientation, *panels: QWidget) -> QSplitter:
        splitter = QSplitter(orientation)
        splitter.setObjectName(f"{name}-splitter")
        splitter.setChildrenCollapsible(False)
        for panel in panels:
            splitter.addWidget(panel)
        splitter.setSizes(DEFAULT_SIZES[name])
        return splitter

    def _action(
        self,
        key: str,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
        tip: str | None = None,
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.commands[key] = action
        return action

    def _build_menus(self) -> None:
        s = self._session
        std = QKeySequence.StandardKey
        menus: list[tuple[str, list[tuple[str, str, Callable[[], object], object, str] | None]]]
        menus = [
            ("&File", [
                ("open", "&Open Session…", self._on_view_open, std.Open, ""),
                ("save", "&Save Session", self._on_view_save, std.Save, ""),
                ("save_as", "Save Session &As…", self._on_view_save_as, "Ctrl+Shift+S", ""),
                ("export", "&Export Report…", self._on_view_export, "Ctrl+E",
                 "Write result.json, script.py, the graph (SVG, DOT, PNG) and plots into a folder"),
                None,
                ("quit", "&Quit", self.close, std.Quit, ""),
            ]),
            ("&Run", [
                ("run", "&Run Now", self._on_view_run, "F5", "Run the code and backward calls"),
                ("backward", "&Backward", s.backward, "Ctrl+B",
                 "Call backward once more: gradients add up in .grad"),
                ("zero_grad", "&Zero Grad", s.zero_grad, "Ctrl+Shift+G",
                 "Zero every leaf's .grad"),
                ("clear_steps", "&Clear Backward Calls", s.clear_steps, None,
                 "Back to a single backward call"),
                None,
                ("replay_play", "&Step Through Backward", self._on_view_replay_play, "F6",
                 "Replay torch's backward pass node by node (F6 again: pause)"),
                ("replay_next", "&Next Node", lambda: s.step_replay(1), "F7",
                 "One node on in the step-through, in the order torch ran them"),
                ("replay_previous", "&Previous Node", lambda: s.step_replay(-1), "Shift+F7",
                 "One node back in the step-through"),
                ("replay_done", "Show the &Whole Call", s.stop_replay, None,
                 "Leave the step-through: the graph shows the whole backward call"),
                None,
                ("live", "&Live", self._on_view_live, "Ctrl+L",
                 "Re-run forward and backward on every change"),
            ]),
            ("&View", [
                ("presentation", "&Presentation Mode", self._on_view_presentation, "F11",
                 "Big fonts for a projector"),
                ("graph_only", "&Graph Only", self._on_view_graph_only, GRAPH_ONLY_KEY,
                 "Show only the graph, as big as the window (F9 or Esc: back)"),
                ("reset_layout", "&Reset Panel Sizes", self._on_view_reset_layout, None, ""),
            ]),
        ]  # fmt: skip
        for title, entries in menus:
            menu = self.menuBar().addMenu(title)
            for entry in entries:
                if entry is None:
                    menu.addSeparator()
                    continue
                key, text, slot, shortcut, tip = entry
                menu.addAction(self._action(key, text, slot, shortcut, tip))  # type: ignore[arg-type]
            if title == "&View":  # the graph panel's scale lock, also beside its legend
                menu.addSeparator()
                menu.addActions([self.graph.lock_action, self.graph.rescale_action])
        self.commands["live"].setCheckable(True)
        self.commands["presentation"].setCheckable(True)
        self.commands["graph_only"].setCheckable(True)
        # A glyph on the graph's toolbar (its tooltip says the rest): the toolbar's first
        # button sets how narrow the graph's column can get.
        self.commands["graph_only"].setIconText("⤢")
        self.commands["graph_only"].setToolTip(
            f"Graph only: the graph as big as the window ({GRAPH_ONLY_KEY}; Esc comes back)"
        )
        self.graph.add_window_action(self.commands["graph_only"])
        # Esc leaves the graph-only view (and does nothing otherwise: the editor keeps it).
        self._leave_graph_only = QShortcut(QKeySequence("Esc"), self)
        self._leave_graph_only.setEnabled(False)
        self._leave_graph_only.activated.connect(lambda: self.set_graph_only(False))
        self._build_lessons_menu()
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(self._action("guide", "&What Am I Looking At?", self._on_view_guide))
        help_menu.addAction(self._action("about", "&About", self._on_view_about))

    # -- the time limit and a long run's progress ------------------------------------------

    def _build_time_limit(self) -> None:
        """Run > Time Limit, and the same choices on a status bar button ("Time limit: 1.5 s");
        the choice is kept in QSettings (``time_limit``), never in session files. A
        ``--time-limit`` on the command line wins over the kept choice for that start."""
        kept = self._settings.value("time_limit")
        try:
            seconds = float(kept) if kept is not None else None
        except (TypeError, ValueError):
            seconds = None
        chosen = self._session.time_limit == DEFAULT_TIME_LIMIT_SECONDS
        if seconds is not None and seconds in TIME_LIMIT_CHOICES and chosen:
            self._session.set_time_limit(seconds)
        self.time_limit_menu = QMenu("&Time Limit", self)
        self.time_limit_menu.setToolTipsVisible(True)
        group = QActionGroup(self)
        self.time_limit_actions: dict[float, QAction] = {}
        for choice in TIME_LIMIT_CHOICES:
            action = QAction(seconds_text(choice), self, checkable=True)
            action.setToolTip(f"Stop the code after {seconds_text(choice)}")
            action.triggered.connect(lambda _=False, c=choice: self.set_time_limit(c))
            group.addAction(action)
            self.time_limit_actions[choice] = action
        self.time_limit_menu.addActions(group.actions())
        for menu in self.menuBar().findChildren(QMenu):
            if self.commands["live"] in menu.actions():  # the Run menu
                menu.addSeparator()
                menu.addMenu(self.time_limit_menu)
        self.time_limit_button = QToolButton()
        self.time_limit_button.setAutoRaise(True)
        self.time_limit_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.time_limit_button.setMenu(self.time_limit_menu)
        self.time_limit_button.setToolTip(
            "How long the code may run before it is stopped (a training loop may need more)"
        )
        self.statusBar().addPermanentWidget(self.time_limit_button)
        self._run_started: float | None = None
        self._progress_timer = QTimer(self)
        self._progress_timer.setInterval(200)
        self._progress_timer.timeout.connect(self._show_progress)
        self._shown_time_limit = self._session.time_limit
        self._show_time_limit(self._session.time_limit)

    def set_time_limit(self, seconds: float) -> None:
        """Choose the time limit (a menu entry); kept for the next start."""
        self._session.set_time_limit(seconds)
        self._settings.setValue("time_limit", seconds)
        self._show_time_limit(seconds)

    def _show_time_limit(self, seconds: float) -> None:
        if self.time_limit_button.text() != time_limit_text(seconds):
            self.time_limit_button.setText(time_limit_text(seconds))
        action = self.time_limit_actions.get(seconds)
        for choice, other in self.time_limit_actions.items():
            with QSignalBlocker(other):
                other.setChecked(choice == seconds)
        if action is None:  # a --time-limit that is not among the choices
            self.time_limit_button.setToolTip(f"{seconds_text(seconds)}, from the command line")

    def _follow_running(self, snapshot: Snapshot) -> None:
        """While a run is in flight, time it; past a moment the status bar shows the seconds
        (the engine answers once, at the end: the count of calls comes with the result)."""
        if snapshot.time_limit != self._shown_time_limit:  # not on every tick: menus cost
            self._shown_time_limit = snapshot.time_limit
            self._show_time_limit(snapshot.time_limit)
        if snapshot.running and self._ever_ran:
            if self._run_started is None:
                self._run_started = time.monotonic()
                self._progress_timer.start()
        elif self._run_started is not None:
            self._run_started = None
            self._progress_timer.stop()

    def _show_progress(self) -> None:
        started = self._run_started
        if started is None:
            return
        elapsed = time.monotonic() - started
        if elapsed >= PROGRESS_AFTER_SECONDS:
            self._status.setText(running_text(elapsed, self._session.time_limit))

    def _build_lessons_menu(self) -> None:
        menu = self.menuBar().addMenu("&Lessons")
        self._lessons_menu = menu
        for number, path in enumerate(lesson_paths()):
            try:
                title = load_session(path).title or path.stem
            except SessionFileError:
                continue  # a broken lesson file must not stop the window from opening
            action = self._action(
                f"lesson:{path.stem}",
                f"&{number} {title}" if number < 10 else f"{number} {title}",
                self._lesson_opener(path),
            )
            menu.addAction(action)

    def _lesson_opener(self, path: Path) -> Callable[[], object]:
        return lambda: self.open_path(path)

    # -- rendering -----------------------------------------------------------------------

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Title, status bar and checkable actions follow the session."""
        if "file" in snapshot.changes and not snapshot.modified:  # opened, or saved
            self._saved_code = snapshot.code
            self._arrange_pending = self._arrange_pending or snapshot.running
        if self._arrange_pending and not snapshot.running and snapshot.result is not None:
            self._arrange_pending = False
            # Once every panel has drawn this result and Qt has laid the new rows out.
            QTimer.singleShot(0, self, self._arrange_for_document)
        name = Path(snapshot.path).name if snapshot.path else "untitled"
        # A stranger's file name or lesson title: its controls as escapes (visible_text).
        title = visible_controls(snapshot.title or name)
        # Only when they change: each call posts an event that repaints the window's frame.
        window_title = f"{title}[*] — {APP_NAME}"
        if self.windowTitle() != window_title:
            self.setWindowTitle(window_title)
        unsaved = self._unsaved(snapshot)
        if self.isWindowModified() != unsaved:
            self.setWindowModified(unsaved)
        live = self.commands["live"]
        if live.isChecked() != snapshot.live:
            live.blockSignals(True)
            live.setChecked(snapshot.live)
            live.blockSignals(False)
        self._ever_ran = self._ever_ran or snapshot.result is not None or snapshot.error is not None
        self._status.setText(status_bar_text(snapshot, self._ever_ran))
        if self._explain_link.isVisibleTo(self) != has_explanation(snapshot):
            self._explain_link.setVisible(has_explanation(snapshot))
        count = 0 if snapshot.result is None else snapshot.result.step_count
        _set_text(self._steps_label, f"backward calls: {count}")
        _set_text(self._live_label, "live" if snapshot.live else "live off")
        self._follow_running(snapshot)
        if snapshot.fixes and not self._offered_fixes:
            self.controls.setCurrentWidget(self.backward)
        self._offered_fixes = bool(snapshot.fixes)
        if snapshot.error != self._shown_error:
            self._shown_error = snapshot.error
            if snapshot.error is not None and not self._arrange_pending:
                # Once the code panel has fitted its explanation to the new text.
                QTimer.singleShot(0, self, self.make_room_for_explanation)
        if snapshot.selected_node != self._shown_node:
            self._shown_node = snapshot.selected_node
            self._show_details_tab(snapshot.selected_node is not None)
        tab = "Backward" if not snapshot.fixes else "Backward ⚠"
        index = self.controls.indexOf(self.backward)
        if self.controls.tabText(index) != tab:
            self.controls.setTabText(index, tab)

    def _arrange_for_document(self) -> None:
        """A lesson or file just opened: show the tab of controls its text names, and share
        the left column so the code, its explanation and those controls all show."""
        snapshot = self._session.snapshot
        tab = controls_tab(named_controls(lesson_text(snapshot)))
        if not snapshot.fixes:  # an offered fix keeps the backward tab up
            self.controls.setCurrentWidget(self.backward if tab == "backward" else self.inputs)
        # Measured once the tab just raised has laid its rows out.
        QTimer.singleShot(0, self, self.fit_left_column)

    def fit_left_column(self) -> None:
        """Share the left column between the code panel and the controls tab.

        When both fit, the controls get what their content needs and the code panel the
        rest. When they do not, the controls the lesson names come first (the tab shows
        down to the last of them), else the code and its explanation do; either side
        keeps at least a third. An error comes first: the code panel then
        gets up to three quarters, for the error and its fix. Inside the code panel the
        explanation then gets its text's height (see :meth:`CodeEditorPanel.fit_explanation`).
        """
        left = self._splitters["left"]
        if not left.isVisible():
            return
        total = sum(left.sizes())
        least = total // 3
        named = self._named_on_tab()
        controls_need = _controls_height(self.controls, named)
        code_need = self.editor.needed_height()
        if self._session.snapshot.error is not None:  # what went wrong before the controls
            most = total * 3 // 4
            code = max(min(code_need, most), total - _controls_height(self.controls, []))
        elif code_need + controls_need <= total or named:
            code = max(min(least, code_need), total - controls_need)
        else:
            code = max(least, min(code_need, total - least))
        left.setSizes([code, total - code])
        self.editor.fit_explanation(shrink=True)
        QTimer.singleShot(0, self, self._show_named_controls)

    def make_room_for_explanation(self) -> None:
        """An error came in: the code panel grows (never shrinks) so the code, the error
        and its fix all show, taking up to three quarters of the left column from the
        controls."""
        left = self._splitters["left"]
        if not left.isVisible() or self._session.snapshot.error is None:
            return
        sizes = left.sizes()
        total = sum(sizes)
        code = min(self.editor.needed_height(), total * 3 // 4)
        if code > sizes[0]:
            left.setSizes([code, total - code])
        self.editor.fit_explanation()

    def _named_on_tab(self) -> list[QWidget]:
        """The widgets of the controls the open lesson names that are on the shown tab."""
        page = self.controls.currentWidget()
        return [
            widget
            for control in named_controls(lesson_text(self._session.snapshot))
            for widget in self.control_widgets(control)
            if page is not None and widget.isVisibleTo(page)
        ]

    def _show_named_controls(self) -> None:
        """Scroll the controls tab so the controls the lesson names are in view: the last
        of them, then the first (when they do not all fit, the first ones win)."""
        page = self.controls.currentWidget()
        area = page.findChild(QScrollArea) if page is not None else None
        named = self._named_on_tab()
        content = area.widget() if area is not None else None
        if area is None or content is None or not named:
            return
        named.sort(key=lambda w: w.mapTo(content, QPoint(0, 0)).y())
        area.ensureWidgetVisible(named[-1], 0, 6)
        area.ensureWidgetVisible(named[0], 0, 6)

    def control_widgets(self, control: Control) -> list[QWidget]:
        """The widgets that show a control a lesson names (none if it has none now)."""
        backward = self.backward
        found: list[QWidget | None]
        if control.kind == "sliders":
            group = self.inputs.groups.get(control.name or "")
            found = [group]
        elif control.kind == "gradient":
            found = [backward.editor]
        elif control.kind == "retain_graph":
            found = [backward.retain_graph]
        elif control.kind == "zero_first":
            found = [backward.zero_first]
        elif control.kind == "retain_grad":
            found = [backward.retain.get(control.name or "")]
        elif control.kind == "backward_button":
            found = [backward.backward]
        else:
            found = []
        return [w for w in found if w is not None]

    # -- user actions --------------------------------------------------------------------

    def _on_view_run(self) -> None:
        self.editor.flush()
        self._session.run_now()

    def _on_view_replay_play(self) -> None:
        replay = self._session.snapshot.replay_state
        self._session.play_replay(not (replay is not None and replay.playing))

    def _on_view_explain(self, _link: str = "") -> None:
        """The status bar's link: every panel back, the explanation tab shown."""
        self.set_graph_only(False)
        self.editor.show_explanation()

    def _on_view_live(self) -> None:
        self._session.set_live(self.commands["live"].isChecked())

    def _on_view_presentation(self) -> None:
        self.set_presentation(self.commands["presentation"].isChecked())

    def set_presentation(self, on: bool) -> None:
        """Big fonts for a projector: every panel follows the application font, and the
        graph's text grows by the same factor (its boxes are drawn in scene units)."""
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        if self._base_point_size is None:
            self._base_point_size = app.font().pointSizeF()
        scale = PRESENTATION_SCALE if on else 1.0
        font = app.font()
        font.setPointSizeF(self._base_point_size * scale)
        app.setFont(font)
        self.graph.set_text_scale(scale)
        self.commands["presentation"].setChecked(on)
        self._settings.setValue("presentation", on)
        # Bigger rows need room: maybe the compact arrangement, and a new share of the left
        # column (once they have relaid out).
        QTimer.singleShot(0, self, self.fit_columns)
        if self._session.snapshot.result is not None:
            QTimer.singleShot(0, self, self.fit_left_column)

    def _on_view_graph_only(self) -> None:
        self.set_graph_only(self.commands["graph_only"].isChecked())

    def set_graph_only(self, on: bool) -> None:
        """Show only the graph, as big as the window (the side columns hidden), or go back
        to every panel at the sizes they had."""
        action = self.commands["graph_only"]
        if action.isChecked() != on:
            action.setChecked(on)
        columns = self._splitters["columns"]
        if on == self.graph_only():
            return
        if on:
            self._sizes_before_graph_only = columns.sizes()
        self._show_sides(graph_only=on)
        if not on and self._sizes_before_graph_only is not None:
            columns.refresh()  # the handles are back: sizes count them again
            columns.setSizes(self._sizes_before_graph_only)
            self._sizes_before_graph_only = None
        self._leave_graph_only.setEnabled(on)

    def graph_only(self) -> bool:
        """Whether the graph-only view is on."""
        return self._sizes_before_graph_only is not None

    def _show_sides(self, graph_only: bool) -> None:
        self._splitters["left"].setVisible(not graph_only)
        self._splitters["right"].setVisible(not graph_only and not self._compact)

    # -- compact: narrow windows -----------------------------------------------------------

    def compact(self) -> bool:
        """Whether the plots and node details are tabs beside Inputs and Backward (a
        window too narrow for three columns: see :data:`GRAPH_LEAST_SHARE`)."""
        return self._compact

    def side_minimums(self) -> tuple[int, int]:
        """The narrowest the left column (code, inputs, backward) and the right column
        (plots, node details) can be without cutting a row off, wherever they are now."""
        frame = 2 * self.controls.style().pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth)
        left = max(
            self.editor.minimumSizeHint().width(),
            *(_least_width(p) + frame for p in (self.inputs, self.backward)),
        )
        return left, max(_least_width(p) for p in (self.views, self.details))

    def fit_columns(self) -> None:
        """Turn compact, or back, as the window's width and the side columns' minimums
        say (called on every resize and after presentation mode changes the fonts)."""
        left, right = self.side_minimums()
        handles = 2 * self._splitters["columns"].handleWidth()
        self.set_compact(self.width() * (1 - GRAPH_LEAST_SHARE) < left + right + handles)

    def set_compact(self, on: bool) -> None:
        """Put the plots and node details in tabs beside Inputs and Backward (``on``) or
        back in their column on the right, at the sizes they had."""
        if on == self._compact:
            return
        right = self._splitters["right"]
        current = self.controls.currentWidget()
        self._compact = on
        if on:
            self._right_sizes = right.sizes()
            self.controls.addTab(self.views, "Views")
            self.controls.addTab(self.details, "Node details")
        else:
            for index, panel in enumerate((self.views, self.details)):
                self.controls.removeTab(self.controls.indexOf(panel))
                right.insertWidget(index, panel)
                panel.setVisible(True)
            if self._right_sizes is not None:
                right.setSizes(self._right_sizes)
            if current in (self.views, self.details):
                self.controls.setCurrentWidget(self._tab_before_details or self.inputs)
        self._tab_before_details = None
        self._show_sides(graph_only=self.graph_only())
        if not self.graph_only():
            self._share_columns()

    def show_view(self, name: str) -> bool:
        """Raise the page of :attr:`views` whose objectName is ``name`` ("plots",
        "jacobian"...), bringing its tab up in compact mode; ``False`` if there is none.
        ``"details"`` raises the node details (a tab in compact mode, else always shown).
        ``"replay"`` starts the step-through of the graph's backward call at its seed (its
        bar sits under the graph's toolbar)."""
        if name == "replay":
            self._session.start_replay(playing=False)
            return True
        if name == "details":  # beside the views; a tab of its own in compact mode
            self._show_details_tab(True)
            return True
        page = self.views.findChild(QWidget, name)
        if page is None or self.views.indexOf(page) < 0:
            return False
        self.views.setCurrentWidget(page)
        if self._compact:
            self.controls.setCurrentWidget(self.views)
        return True

    def _on_view_controls_tab(self, _index: int) -> None:
        """Compact: the views (a heat map, curves) need height the slider rows do not; the
        code panel gives up room to them, down to a third of the column."""
        if not self._compact or self.controls.currentWidget() is not self.views:
            return
        left = self._splitters["left"]
        total = sum(left.sizes())
        if left.sizes()[0] > total // 3:
            left.setSizes([total // 3, total - total // 3])

    def _show_details_tab(self, on: bool) -> None:
        """Compact: a node clicked raises the node details tab; closing them goes back to
        the tab that was up."""
        if not self._compact:
            return
        if on and self.controls.currentWidget() is not self.details:
            self._tab_before_details = self.controls.currentWidget()
            self.controls.setCurrentWidget(self.details)
        elif not on and self.controls.currentWidget() is self.details:
            self.controls.setCurrentWidget(self._tab_before_details or self.inputs)
            self._tab_before_details = None

    def _share_columns(self) -> None:
        """The columns' default shares of the width (compact: the left column and the
        graph only), no column below its minimum."""
        columns = self._splitters["columns"]
        total = columns.width() - columns.handleWidth() * (columns.count() - 1)
        left, right = self.side_minimums()
        if self._compact:
            shares = SHARES["columns"]
            sizes = [*split(total, shares[:2], [left, 0]), 0]
        else:
            sizes = split(total, SHARES["columns"], [left, 0, right])
        columns.setSizes(sizes)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def _on_view_reset_layout(self) -> None:
        self.set_graph_only(False)
        self.apply_default_sizes()

    def apply_default_sizes(self) -> None:
        """Share each splitter's room as :data:`~gui.model.views.panel_sizes.SHARES` says,
        no panel below its minimum (a slider row must not be cut off)."""
        self._pending_sizes = False
        for name, splitter in self._splitters.items():
            if name == "columns":
                self._share_columns()
                continue
            if splitter.count() != len(SHARES[name]):  # compact: the right one is empty
                continue
            horizontal = splitter.orientation() == Qt.Orientation.Horizontal
            total = splitter.width() if horizontal else splitter.height()
            total -= splitter.handleWidth() * (splitter.count() - 1)
            minimums = []
            for panel in (splitter.widget(i) for i in range(splitter.count())):
                hint = panel.minimumSizeHint() if panel is not None else QSize()
                minimums.append(max(0, hint.width() if horizontal else hint.height()))
            splitter.setSizes(split(total, SHARES[name], minimums))

    def setVisible(self, visible: bool) -> None:
        # Before Qt sizes the window to its minimum: a narrow window turns compact first,
        # so it keeps the size it was given rather than growing to three columns' width.
        if visible and not self.isVisible():
            self.fit_columns()
        super().setVisible(visible)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._pending_sizes:  # no sizes in the settings: share the window as shown
            self.apply_default_sizes()

    def _on_view_guide(self) -> None:
        QMessageBox.information(self, "What am I looking at?", GUIDE)

    def _on_view_about(self) -> None:
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<b>{APP_NAME}</b><p>PyTorch's autograd, made visible: the real graph, live "
            "gradients, the gradient argument as a slider.</p>",
        )

    # -- settings ------------------------------------------------------------------------

    def _restore_settings(self) -> None:
        geometry = self._settings.value("geometry")
        # restoreGeometry refuses bytes it cannot read and then leaves the window at Qt's
        # default size: the window's own default size, as on a first start, instead.
        if not (isinstance(geometry, QByteArray) and self.restoreGeometry(geometry)):
            self.resize(1280, 720)
        for name, splitter in self._splitters.items():
            state = self._settings.value(f"splitters/{name}")
            # A state that does not restore keeps the default sizes at the first show.
            if isinstance(state, QByteArray) and splitter.restoreState(state):
                self._pending_sizes = False
        if str(self._settings.value("presentation", "false")).lower() == "true":
            self.set_presentation(True)
        if str(self._settings.value("show_saved", "false")).lower() == "true":
            self._session.set_show_saved(True)

    def save_settings(self) -> None:
        self.set_graph_only(False)  # the next start shows every panel, at these sizes
        self.set_compact(False)  # (and turns compact again if its window is narrow)
        self._settings.setValue("geometry", self.saveGeometry())
        for name, splitter in self._splitters.items():
            self._settings.setValue(f"splitters/{name}", splitter.saveState())
        self._settings.setValue("show_saved", self._session.snapshot.show_saved)
        self._settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.editor.flush()
        if not self._confirm_discard():
            event.ignore()
            return
        self.save_settings()
        if self._autosave is not None:  # saved or discarded on purpose: a clean exit
            self._autosave_timer.stop()
            self._autosave.close()
        event.accept()


def _controls_height(tabs: QTabWidget, named: list[QWidget]) -> int:
    """The height that shows the current tab's content down to the last of ``named`` (all
    of it when none is named)."""
    page = tabs.currentWidget()
    area = page.findChild(QScrollArea) if page is not None else None
    content = area.widget() if area is not None else None
    if area is None or content is None:
        return tabs.sizeHint().height()
    bottom = content.sizeHint().height()
    if named:
        layout = content.layout()
        margin = layout.contentsMargins().bottom() if layout is not None else 0
        bottom = max(w.mapTo(content, QPoint(0, w.height())).y() for w in named) + margin
    return tabs.tabBar().sizeHint().height() + bottom + 2 * area.frameWidth()


def _least_width(widget: QWidget) -> int:
    return max(widget.minimumSizeHint().width(), widget.minimumWidth())


def _set_text(label: QLabel, text: str) -> None:
    if label.text() != text:  # setText relayouts even when nothing changed
        label.setText(text)


GUIDE = (
    "<p><b>Code</b> (top left): a small PyTorch program. It re-runs shortly after you stop "
    "typing, or at once with Ctrl+Enter.</p>"
    "<p><b>Inputs</b> (under the code): a slider per element of every leaf tensor "
    "(requires_grad=True).</p>"
    "<p><b>Graph</b> (middle): the autograd graph PyTorch built (leaves on top, output at "
    "the bottom). Colours show gradients on one scale: blue below zero, red above. Edge "
    "labels show the gradient flowing back. Click a box for its local derivative rule.</p>"
    "<p><b>Plots</b> (right): each leaf's .grad, what the latest backward added, and the history "
    "across backward calls. In a narrow window (or presentation mode on a small screen) the "
    "plots and the node details are tabs beside Inputs and Backward.</p>"
    "<p><b>Backward</b> (the tab beside Inputs, on the left): which tensor to differentiate, "
    "the gradient argument v of backward(v) as sliders, and the options retain_graph, "
    "create_graph, zeroing. A lesson opens on the tab whose controls it talks about.</p>"
    "<p><b>Keys</b>: F9 shows only the graph (F9 or Esc: back), F11 is presentation mode "
    "(everything bigger, for a projector), F5 runs.</p>"
)
