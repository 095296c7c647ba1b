"""Start the window: engine process, QApplication, session, main window, in that order.

Kept apart from :mod:`gui.app` so that module stays free of Qt (the engine's child process
imports it). Everything the window needs is created here and handed down; nothing else in
the app creates a QApplication.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QSettings, QStandardPaths
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from gui.model.drawing.layout_process import unstarted_layout_process
from gui.model.engine_process import EngineProcess
from gui.model.session import Session, SessionFileError, Snapshot, lesson_steps, load_session
from gui.model.session.autosave import Autosave, data_dir, find_unsaved
from gui.model.session.file_format import READ_TIMEOUT_SECONDS, load_session_within
from gui.model.session.file_io import file_kind, write_atomically
from gui.model.session.layouts import LayoutCache
from gui.resources import default_lesson
from gui.widgets.main_window import MainWindow
from gui.widgets.thread_dispatcher import ThreadDispatcher
from gui.widgets.window_files import APP_NAME, show_document

ORGANIZATION = "AutogradExplorer"
# Projectors and classrooms: nothing in the app is drawn smaller than this.
MIN_POINT_SIZE = 11.0
SCREENSHOT_SIZE = (1280, 720)
SCREENSHOT_TIMEOUT_SECONDS = 120.0
# The window's settings file holds a geometry, three splitter states and a few flags: a few
# KiB. Qt reads the whole file into memory when the settings are made (a 1 GiB file took 4
# seconds and 2 GiB of memory), so anything far bigger is not ours.
MAX_SETTINGS_BYTES = 1024 * 1024


def application() -> QApplication:
    """The one QApplication, configured (name for QSettings, a readable font)."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APP_NAME)
    font = app.font()
    if font.pointSizeF() < MIN_POINT_SIZE:
        font.setPointSizeF(MIN_POINT_SIZE)
        app.setFont(font)
    return app


class FreezeAfterFirstResult:
    """``gc.freeze()`` once the window is up and the first result is in.

    Everything alive by then (Qt wrappers, modules, the first result) lives for the whole
    session; moving it out of the collector's reach keeps collections short while results
    are unpickled at slider speed. No full collection first: it runs before the first
    result is painted, takes 50-100 ms there and finds nothing (the collections during
    start-up already did).
    """

    def __init__(self, session: Session) -> None:
        self._session = session
        session.changed.connect(self.on_snapshot)

    def on_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.result is None or snapshot.running:
            return
        self._session.changed.disconnect(self.on_snapshot)
        gc.freeze()


def settings_path() -> Path | None:
    """Where Qt keeps the user's settings as an INI file (Linux and other Unix), else
    ``None`` (Windows keeps them in the registry, macOS in a property list)."""
    if sys.platform in ("win32", "darwin"):
        return None
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    return Path(folder) / ORGANIZATION / f"{APP_NAME}.conf"


def settings_problem(path: Path) -> str | None:
    """Why the settings file at ``path`` (or Qt's lock file beside it) must not be used.

    Qt reads the settings file when the settings are made: a named pipe there blocks the
    start forever, and a huge file is read whole. Its lock file (``.lock``), taken on every
    write, loops forever when it is a pipe, a device or a folder: the window froze on the
    first setting written and never closed. Both are checked with ``stat``, which opens
    nothing. ``None`` when both are small regular files (or not there yet).
    """
    for file in (path, path.with_name(path.name + ".lock")):
        try:
            info = os.stat(file)
        except FileNotFoundError:
            continue
        except OSError as exc:  # a loop of links, a file where a folder goes...
            return exc.strerror or str(exc)
        kind = file_kind(info.st_mode)
        if kind is not None:
            return f"{file.name} is {kind}, not a file"
        if info.st_size > MAX_SETTINGS_BYTES:  # the lock too: Qt reads it whole (1 GiB: 37 s)
            return f"{file.name} holds {info.st_size:,} bytes, far more than settings do"
    return None


def throwaway_settings() -> QSettings:
    """Settings in a new temporary file: nothing read, nothing kept for the next start."""
    return QSettings(str(Path(tempfile.mkdtemp()) / "settings.ini"), QSettings.Format.IniFormat)


def user_settings() -> QSettings:
    """The user's settings, or throwaway ones (and a line on stderr) when their file could
    hang or flood Qt (see :func:`settings_problem`).

    On Unix this is the very file ``QSettings()`` uses, opened by its path: that skips the
    fallback files Qt would also read (the organization-wide one, ``/etc/xdg``), which the
    app never wrote.
    """
    path = settings_path()
    if path is None:
        return QSettings()
    problem = settings_problem(path)
    if problem is None:
        return QSettings(str(path), QSettings.Format.IniFormat)
    print(
        f"warning: the settings in {path} are not used ({problem}); starting with the "
        "default window layout, and nothing is remembered for the next start",
        file=sys.stderr,
    )
    return throwaway_settings()


def save_image(image: QImage, out: str) -> str | None:
    """Write ``image`` to ``out`` (format from its suffix; PNG without one); the reason it
    could not, or ``None``.

    Encoded in memory and written with the session files' atomic save, which refuses a
    named pipe, a device or a folder: Qt's own ``save(path)`` opened a named pipe for
    writing and waited forever for a reader.
    """
    suffix = Path(out).suffix.lstrip(".").upper() or "PNG"
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # A str at run time (PySide's stubs say bytes, which it refuses).
    if not image.save(buffer, suffix):  # type: ignore[call-overload]
        return f"cannot write {out}: {suffix} is not an image format this app can write"
    try:
        write_atomically(out, bytes(buffer.data().data()))
    except OSError as exc:
        return f"cannot write {out}: {exc.strerror or exc}"
    return None


def run_window(
    path: str | None,
    screenshot: str | None = None,
    time_limit: float = 1.5,
    engine: EngineProcess | None = None,
    step: int | None = None,
) -> int:
    """Open the window on ``path`` (or the welcome lesson) and run until it closes.

    ``engine``: the engine process, if the caller started it already (:mod:`gui.app` does,
    before Qt loads); it is closed with the window. ``step``: the lesson's step to show
    (from 1); one the lesson does not have ends with one line on stderr and status 2.
    """
    if engine is None:
        engine = EngineProcess()
    engine.start()  # torch loads in the child while Qt starts and the window builds
    app = application()
    dispatcher = ThreadDispatcher()
    # Graphviz's worker starts once the window is shown (below), not before: the first
    # layout is wanted only when the engine's first result is back, seconds later.
    layouts = unstarted_layout_process()
    session = Session(
        engine.run, dispatcher, time_limit, LayoutCache(process=layouts), sweep=engine.sweep
    )
    # A screenshot must not depend on (or change) the user's saved window layout.
    settings = throwaway_settings() if screenshot else user_settings()
    # A screenshot never reads or writes the user's autosaves either.
    folder = None if screenshot else data_dir()
    recovered = [] if folder is None else find_unsaved(folder)
    autosave = None if folder is None else Autosave(folder)
    window = MainWindow(session, settings, autosave)
    freezer = FreezeAfterFirstResult(session)
    try:
        error = _open_first(session, path)
        if error is not None and screenshot:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if step is not None:
            problem = lesson_steps.step_problem(session.lesson_step_count, step)
            if problem is not None:
                print(f"error: {path or default_lesson()}: {problem}", file=sys.stderr)
                return 2
            session.go_to_lesson_step(step - 1)
        if screenshot:
            window.resize(*SCREENSHOT_SIZE)
        window.show()
        layouts.start()
        if error is not None:
            window.show_error("Cannot open this session", f"{error}\n\nShowing the welcome lesson.")
        if screenshot:
            return _save_screenshot(app, window, session, screenshot)
        window.offer_restore(recovered)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl+C in the terminal quits
        return app.exec()
    finally:
        del freezer
        dispatcher.close()
        engine.close()


def _open_first(session: Session, path: str | None) -> str | None:
    """Load the requested session, else the welcome lesson; the error text if it failed.

    The file is read on another thread and given up after a while: a path on a network
    folder that does not answer must not keep the window from ever appearing.
    """
    if path is not None:
        try:
            document = load_session_within(path, READ_TIMEOUT_SECONDS)
        except SessionFileError as exc:
            error = str(exc)
        else:
            # A valid file a panel cannot draw falls back to the welcome lesson itself.
            return show_document(session, document, path)
    else:
        error = None
    session.load(load_session(default_lesson()), str(default_lesson()))
    return error


def _save_screenshot(app: QApplication, window: MainWindow, session: Session, out: str) -> int:
    deadline = time.monotonic() + SCREENSHOT_TIMEOUT_SECONDS
    # The engine's answer, then the graph's layout (a big graph's takes a moment more).
    while (
        session.snapshot.running
        or session.snapshot.result is None
        or session.snapshot.laying_out is not None
    ):
        app.processEvents()
        if time.monotonic() > deadline:
            print("error: the engine did not answer in time", file=sys.stderr)
            return 1
        time.sleep(0.01)
    for _ in range(5):  # let layouts and paints settle
        app.processEvents()
    problem = save_image(window.grab().toImage(), out)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    print(out)
    return 0
