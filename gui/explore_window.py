"""The window of ``explore(loss)``: the main window on a live graph, in the user's process.

Built like the app's own window (:mod:`gui.window_app`) with three differences. Runs go
through the live graph inline on the GUI thread (an interactive shell runs the user's code
on this thread between events, so a worker thread could race it on their tensors). The code
panel and the values are read-only: there is no code to run again. And opening files or
lessons is off: the session's runs all come from the one graph.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QThread, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QScrollArea

from gui.model.export.explore_script import explore_script
from gui.model.export.files import write_export_file
from gui.model.request import RunRequest
from gui.model.result import RunResult
from gui.model.session import Document, Session
from gui.model.session.dispatch import ImmediateDispatcher
from gui.model.session.layouts import LayoutCache
from gui.widgets.live_values_panel import LiveValuesPanel
from gui.widgets.main_window import MainWindow
from gui.window_app import application, throwaway_settings

# The window's commands that would replace the explored graph with a file's code.
OFF_IN_EXPLORE = ("open", "save", "save_as", "browse_lessons", "save_as_lesson")
VALUES_TAB = "Values"
# Windows opened without blocking: kept here until closed (nothing else holds them).
OPEN_WINDOWS: list[ExploreWindow] = []


class ExploreWindow(MainWindow):
    """The main window in explore mode (see the module docstring)."""

    closed = Signal()

    def __init__(
        self, session: Session, settings: QSettings | None = None, source: str = "explore()"
    ) -> None:
        super().__init__(session, settings)
        self._source = source  # where the graph came from, for the exported script
        self.editor.editor().setReadOnly(True)
        # The values take the sliders' place inside the inputs tab, so everything that
        # raises the inputs tab (a lesson's text, compact mode) raises them.
        self.values = LiveValuesPanel(session)
        sliders = self.inputs.findChild(QScrollArea)
        if sliders is not None:
            sliders.setVisible(False)
        layout = self.inputs.layout()
        if layout is not None:
            layout.addWidget(self.values)
        self.controls.setTabText(self.controls.indexOf(self.inputs), VALUES_TAB)
        for key, action in self.commands.items():
            if key in OFF_IN_EXPLORE or key.startswith("lesson:"):
                action.setEnabled(False)
        # Runs are in this process, answered at once: no time limit applies.
        self.time_limit_button.setVisible(False)
        self.time_limit_menu.setEnabled(False)

    @property
    def session(self) -> Session:
        """The session the window shows (its runs come from the explored graph)."""
        return self._session

    def export_to(self, folder: str | os.PathLike[str]) -> bool:
        """File > Export: the files of ``--export``, with the explored graph's script (the
        typed-code script would name tensors the app never saw the code of)."""
        if not super().export_to(folder):
            return False
        result = self._session.snapshot.result
        if result is not None:
            script = explore_script(result, self._source)
            try:
                write_export_file(Path(folder) / "script.py", script.encode("utf-8"))
            except OSError as exc:
                self.show_error("Cannot export", f"{folder}: {exc.strerror or exc}")
                return False
        return True

    def _confirm_discard(self) -> bool:
        # Nothing here is the user's work to save: the graph stays in their script.
        return True

    def closeEvent(self, event: QCloseEvent) -> None:
        super().closeEvent(event)
        if event.isAccepted():
            if self in OPEN_WINDOWS:
                OPEN_WINDOWS.remove(self)
            self.closed.emit()


NO_DISPLAY = (
    "explore() cannot open a window: this process has no display (no DISPLAY or "
    "WAYLAND_DISPLAY). Use explore(..., export=DIR) to write the files instead, or set "
    "QT_QPA_PLATFORM=offscreen before Qt loads."
)


def has_display() -> bool:
    """Whether Qt can open windows here. Without a display Qt would end the whole process
    (of the user's script) when the application is made, so explore() says so first."""
    platform = os.environ.get("QT_QPA_PLATFORM")
    if platform:
        return platform != "offscreen"
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def qt_loop_running() -> bool:
    """Whether a Qt event loop already runs for this process: IPython's or Jupyter's
    (``%gui qt``), or a loop this call is made from."""
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    loop = getattr(shell, "active_eventloop", None)
    if isinstance(loop, str) and loop.startswith("qt"):
        return True
    return QThread.currentThread().loopLevel() > 0


def open_window(
    run: Callable[[RunRequest], RunResult],
    document: Document,
    block: bool | None = None,
    source: str = "explore()",
) -> ExploreWindow | None:
    """Show ``document`` answered by ``run`` in an :class:`ExploreWindow`.

    ``block``: run an event loop until the window closes and return ``None``; ``False``
    returns the open window at once (``None``: block unless a Qt loop already runs).
    ``source`` says where the graph came from (for the exported script).
    """
    if QApplication.instance() is None and not has_display() and not _offscreen():
        raise RuntimeError(NO_DISPLAY)
    application()
    session = Session(run, ImmediateDispatcher(), layouts=LayoutCache())
    window = ExploreWindow(session, throwaway_settings(), source)
    session.load(document)
    window.show()
    if block is None:
        block = not qt_loop_running()
    if not block:
        OPEN_WINDOWS.append(window)
        return window
    # A loop of its own: other windows of the process (a plot) neither keep it running
    # nor are closed by it.
    loop = QEventLoop()
    window.closed.connect(loop.quit)
    # Python cannot see Ctrl+C while Qt's loop runs: it ends the script, as it would
    # without the window, instead of doing nothing (the user's own handler comes back).
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_DFL) if main else None
    try:
        if window.isVisible():  # (something may have closed it already: no loop then)
            loop.exec()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return None


def _offscreen() -> bool:
    return os.environ.get("QT_QPA_PLATFORM") == "offscreen"
