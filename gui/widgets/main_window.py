"""The main window: the panels around one session, menus, shortcuts and the status bar.

The window owns no state of its own beyond Qt's: every panel renders the session's
snapshots, and every menu action calls one session method. Geometry and splitter sizes
are kept in QSettings so the window comes back as the user left it.

Files are read off the GUI thread (a path on a network folder that went away can block a
read for minutes): the window waits a bounded time, still painting, then reports. Unsaved
work is copied a few seconds after each change by :class:`~gui.model.session.autosave.Autosave`
(the window owns its timer) and offered back after a crash (:meth:`MainWindow.offer_restore`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QEventLoop, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QWidget,
)

from gui.model.session import (
    Document,
    Session,
    SessionFileError,
    Snapshot,
    file_format,
    load_session,
)
from gui.model.session.autosave import DELAY_SECONDS, Autosave, Recovered, remove
from gui.model.session.file_io import read_in_background
from gui.model.views.status import status_bar_text
from gui.resources import lesson_paths
from gui.widgets.backward_panel import BackwardPanel
from gui.widgets.code_editor_panel import CodeEditorPanel
from gui.widgets.grad_plots_panel import GradPlotsPanel
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.inputs_panel import InputsPanel
from gui.widgets.node_details_panel import NodeDetailsPanel

APP_NAME = "Autograd Explorer"
PRESENTATION_SCALE = 1.45
SESSION_FILTER = "Autograd Explorer sessions (*.json);;All files (*)"
# Splitters by settings key, with the sizes a 1280x720 window starts with.
DEFAULT_SIZES: dict[str, list[int]] = {
    "columns": [415, 510, 355],
    "left": [350, 340],
    "right": [450, 240],
}
# How often the window checks a background read while it waits (and keeps painting).
READ_POLL_MS = 10


class MainWindow(QMainWindow):
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
        self._offered_fixes = False
        self._settings = settings if settings is not None else QSettings()
        self.editor = CodeEditorPanel(session)
        self.inputs = InputsPanel(session)
        self.graph = GraphPanel(session)
        self.plots = GradPlotsPanel(session)
        self.backward = BackwardPanel(session)
        self.details = NodeDetailsPanel(session)
        self._splitters = self._build_splitters()
        self._status = QLabel()
        self._steps_label = QLabel()
        self._live_label = QLabel()
        self.statusBar().addWidget(self._status, 1)
        self.statusBar().addPermanentWidget(self._steps_label)
        self.statusBar().addPermanentWidget(self._live_label)
        self.commands: dict[str, QAction] = {}
        self._build_menus()
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
        left = self._splitter("left", Qt.Orientation.Vertical, self.editor, self.controls)
        right = self._splitter("right", Qt.Orientation.Vertical, self.plots, self.details)
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
                 "Write result.json, script.py and graph.svg into a folder"),
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
                ("live", "&Live", self._on_view_live, "Ctrl+L",
                 "Re-run forward and backward on every change"),
            ]),
            ("&View", [
                ("presentation", "&Presentation Mode", self._on_view_presentation, "F11",
                 "Big fonts for a projector"),
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
        self.commands["live"].setCheckable(True)
        self.commands["presentation"].setCheckable(True)
        self._build_lessons_menu()
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(self._action("guide", "&What Am I Looking At?", self._on_view_guide))
        help_menu.addAction(self._action("about", "&About", self._on_view_about))

    def _build_lessons_menu(self) -> None:
        menu = self.menuBar().addMenu("&Lessons")
        for number, path in enumerate(lesson_paths()):
            try:
                title = load_session(path).title or path.stem
            except SessionFileError:
                continue  # a broken lesson file must not stop the window from opening
            action = self._action(
                f"lesson:{path.stem}",
                f"&{number} {title}" if number < 10 else title,
                self._lesson_opener(path),
            )
            menu.addAction(action)

    def _lesson_opener(self, path: Path) -> Callable[[], object]:
        return lambda: self.open_path(path)

    # -- rendering -----------------------------------------------------------------------

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Title, status bar and checkable actions follow the session."""
        name = Path(snapshot.path).name if snapshot.path else "untitled"
        title = snapshot.title or name
        self.setWindowTitle(f"{title}[*] — {APP_NAME}")
        self.setWindowModified(self._unsaved(snapshot))
        live = self.commands["live"]
        if live.isChecked() != snapshot.live:
            live.blockSignals(True)
            live.setChecked(snapshot.live)
            live.blockSignals(False)
        _set_text(self._status, status_bar_text(snapshot))
        count = 0 if snapshot.result is None else snapshot.result.step_count
        _set_text(self._steps_label, f"backward calls: {count}")
        _set_text(self._live_label, "live" if snapshot.live else "live off")
        if snapshot.fixes and not self._offered_fixes:
            self.controls.setCurrentWidget(self.backward)
        self._offered_fixes = bool(snapshot.fixes)
        tab = "Backward" if not snapshot.fixes else "Backward ⚠"
        index = self.controls.indexOf(self.backward)
        if self.controls.tabText(index) != tab:
            self.controls.setTabText(index, tab)

    # -- user actions --------------------------------------------------------------------

    def _on_view_run(self) -> None:
        self.editor.flush()
        self._session.run_now()

    def _on_view_live(self) -> None:
        self._session.set_live(self.commands["live"].isChecked())

    def _on_view_open(self) -> None:
        if not self._confirm_discard():
            return
        path, _ = QFileDialog.getOpenFileName(
            self, "Open Session", self._last_dir(), SESSION_FILTER
        )
        if path:
            self.open_path(path, confirmed=True)

    def open_path(self, path: str | os.PathLike[str], confirmed: bool = False) -> bool:
        """Open a session file; a file that cannot be used is reported and changes nothing."""
        if not confirmed and not self._confirm_discard():
            return False
        try:
            document = self.read_session(path)
        except SessionFileError as exc:
            self.show_error("Cannot open this session", str(exc))
            return False
        self._session.load(document, os.fspath(path))
        self._settings.setValue("last_dir", str(Path(path).parent))
        return True

    def read_session(self, path: str | os.PathLike[str]) -> Document:
        """Read a session file on a background thread; raise ``SessionFileError`` if it is
        unusable or does not answer within :attr:`read_timeout` seconds.

        The wait runs an event loop that paints but takes no input (no second Open can start
        meanwhile), so a slow network folder greys nothing out and freezes nothing.
        """
        future = read_in_background(lambda: file_format.load_session(path))
        if not future.done():
            self.statusBar().showMessage(f"Reading {path}…")
            loop = QEventLoop()
            poll = QTimer()
            poll.timeout.connect(lambda: _quit_when(future.done(), loop))
            deadline = QTimer()
            deadline.setSingleShot(True)
            deadline.timeout.connect(loop.quit)
            poll.start(READ_POLL_MS)
            deadline.start(round(self.read_timeout * 1000))
            loop.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
            poll.stop()
            deadline.stop()
            self.statusBar().clearMessage()
        if not future.done():
            raise file_format.not_answering(path, self.read_timeout)
        return future.result()

    def _on_view_save(self) -> bool:
        path = self._session.snapshot.path
        if path is None or _is_lesson(path):
            return self._on_view_save_as()
        return self.save_to(path)

    def _on_view_save_as(self) -> bool:
        suggested = os.path.join(self._last_dir(), "session.json")
        path, _ = QFileDialog.getSaveFileName(self, "Save Session", suggested, SESSION_FILTER)
        return bool(path) and self.save_to(path)

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        """Save the session; a failed save is reported and the old file is kept."""
        self.editor.flush()
        try:
            self._session.save(path)
        except OSError as exc:
            self.show_error("Cannot save the session", f"{path}: {exc.strerror or exc}")
            return False
        except SessionFileError as exc:  # past a limit of the format: it would not open again
            self.show_error("Cannot save the session", f"{path}: {exc}")
            return False
        self._settings.setValue("last_dir", str(Path(path).parent))
        return True

    def _on_view_export(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export Report Into", self._last_dir())
        if folder:
            self.export_to(folder)

    def export_to(self, folder: str | os.PathLike[str]) -> bool:
        """Write the export files; a failure is reported, nothing else changes."""
        try:
            self._session.export(folder)
        except (OSError, ValueError) as exc:
            self.show_error("Cannot export", f"{folder}: {exc}")
            return False
        self.statusBar().showMessage(
            f"Exported result.json, script.py, graph.svg to {folder}", 5000
        )
        return True

    def _on_view_presentation(self) -> None:
        self.set_presentation(self.commands["presentation"].isChecked())

    def set_presentation(self, on: bool) -> None:
        """Big fonts for a projector: every panel follows the application font."""
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        if self._base_point_size is None:
            self._base_point_size = app.font().pointSizeF()
        font = app.font()
        font.setPointSizeF(self._base_point_size * (PRESENTATION_SCALE if on else 1.0))
        app.setFont(font)
        self.commands["presentation"].setChecked(on)
        self._settings.setValue("presentation", on)

    def _on_view_reset_layout(self) -> None:
        for name, splitter in self._splitters.items():
            splitter.setSizes(DEFAULT_SIZES[name])

    def _on_view_guide(self) -> None:
        QMessageBox.information(self, "What am I looking at?", GUIDE)

    def _on_view_about(self) -> None:
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<b>{APP_NAME}</b><p>PyTorch's autograd, made visible: the real graph, live "
            "gradients, the gradient argument as a slider.</p>",
        )

    # -- dialogs (methods, so tests can answer them) -------------------------------------

    def show_error(self, title: str, text: str) -> None:
        QMessageBox.warning(self, title, text)

    def ask_restore(self, recovered: Recovered) -> bool:
        """Ask whether to bring back work a crash left behind; ``True``: restore it."""
        answer = QMessageBox.question(
            self,
            "Restore unsaved work?",
            f"{APP_NAME} did not close properly last time. Restore the unsaved work on "
            f"{recovered.describe()}?\n\nYes restores it; Discard deletes the copy.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Discard,
            QMessageBox.StandardButton.Yes,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _confirm_discard(self) -> bool:
        """Ask before replacing unsaved work; ``True`` when it is fine to go on."""
        if not self._unsaved(self._session.snapshot):
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            "This session has changes that are not saved. Save them first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self._on_view_save()
        return answer == QMessageBox.StandardButton.Discard

    # -- settings ------------------------------------------------------------------------

    def _last_dir(self) -> str:
        return str(self._settings.value("last_dir", str(Path.home())))

    def _restore_settings(self) -> None:
        geometry = self._settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 720)
        for name, splitter in self._splitters.items():
            state = self._settings.value(f"splitters/{name}")
            if isinstance(state, QByteArray):
                splitter.restoreState(state)
        if str(self._settings.value("presentation", "false")).lower() == "true":
            self.set_presentation(True)
        if str(self._settings.value("show_saved", "false")).lower() == "true":
            self._session.set_show_saved(True)

    def save_settings(self) -> None:
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

    # -- autosave ------------------------------------------------------------------------

    def _unsaved(self, snapshot: Snapshot) -> bool:
        """Changed since the last save, or restored from a crash and not saved since."""
        return snapshot.modified or (self._autosave is not None and self._autosave.restored)

    def _on_autosave_pending(self) -> None:
        # Started by the first change only: a slider dragged for a minute is copied every
        # few seconds, not postponed until it stops.
        if not self._autosave_timer.isActive():
            self._autosave_timer.start()

    def flush_autosave(self) -> None:
        """Copy the unsaved work now; a failure is shown once in the status bar."""
        if self._autosave is None:
            return
        try:
            self._autosave.flush()
        except (OSError, SessionFileError) as exc:
            error = str(exc) if isinstance(exc, SessionFileError) else exc.strerror or str(exc)
            if error != self._autosave_error:
                self.statusBar().showMessage(f"Could not keep a copy of unsaved work: {error}")
            self._autosave_error = error
            return
        self._autosave_error = None

    def offer_restore(self, recovered: list[Recovered]) -> bool:
        """Offer back the newest work a crash left (:func:`~gui.model.session.autosave.
        find_unsaved`); ``True`` if the session now shows it. Declined work is deleted;
        older copies stay for the next start."""
        if self._autosave is None or not recovered:
            return False
        newest = recovered[0]
        if not self.ask_restore(newest):
            remove(newest)
            return False
        self._session.load(newest.document, newest.path)
        # If the copy cannot be written, the old one stays where it was; the work is on
        # screen and marked unsaved either way.
        with contextlib.suppress(OSError, SessionFileError):
            self._autosave.adopt(newest)
        self.render(self._session.snapshot)
        return True


def _quit_when(done: bool, loop: QEventLoop) -> None:
    if done:
        loop.quit()


def _set_text(label: QLabel, text: str) -> None:
    if label.text() != text:  # setText relayouts even when nothing changed
        label.setText(text)


def _is_lesson(path: str) -> bool:
    """Lessons ship with the app: saving goes to a new file rather than over them."""
    return any(Path(path).resolve() == p.resolve() for p in lesson_paths())


GUIDE = (
    "<p><b>Code</b> (left): a small PyTorch program. It re-runs shortly after you stop "
    "typing, or at once with Ctrl+Enter.</p>"
    "<p><b>Inputs</b>: a slider per element of every leaf tensor (requires_grad=True).</p>"
    "<p><b>Graph</b> (middle): the autograd graph PyTorch built (leaves on top, output at "
    "the bottom). Colours show gradients on one scale: blue below zero, red above. Edge "
    "labels show the gradient flowing back. Click a box for its local derivative rule.</p>"
    "<p><b>Plots</b>: each leaf's .grad, what the latest backward added, and the history "
    "across backward calls.</p>"
    "<p><b>Backward</b> (right): which tensor to differentiate, the gradient argument v of "
    "backward(v) as sliders, and the options retain_graph, create_graph, zeroing.</p>"
)
