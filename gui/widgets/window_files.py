"""The main window's files: open, save, export, the questions before work is replaced,
and the autosave copy of unsaved work.

Files are read off the GUI thread (a path on a network folder that went away can block a
read for minutes): the window waits a bounded time, still painting, then reports. Unsaved
work is copied a few seconds after each change by :class:`~gui.model.session.autosave.Autosave`
(the window owns its timer) and offered back after a crash (:meth:`WindowFiles.offer_restore`).
Every failure is reported in a dialog and changes nothing: the user's work is never lost.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from gui.model.session import (
    Document,
    Session,
    SessionFileError,
    Snapshot,
    file_format,
    load_session,
)
from gui.model.session.autosave import Autosave, Recovered, remove
from gui.model.session.file_io import (
    EXPORT_FILES,
    PICTURE_FILES,
    check_targets,
    read_in_background,
)
from gui.model.views.unsaved import has_unsaved_work
from gui.picture_export import PictureError, write_pictures
from gui.resources import default_lesson, lesson_paths
from gui.widgets.code_editor_panel import CodeEditorPanel
from gui.widgets.qt_text import literal_html

APP_NAME = "Autograd Explorer"
SESSION_FILTER = "Autograd Explorer sessions (*.json);;All files (*)"
# How often the window checks a background read while it waits (and keeps painting).
READ_POLL_MS = 10


class WindowFiles(QMainWindow):
    """The file side of :class:`~gui.widgets.main_window.MainWindow` (its base class):
    what the window needs of it is set up by the window's ``__init__``."""

    _session: Session
    _settings: QSettings
    _autosave: Autosave | None
    _autosave_timer: QTimer
    _autosave_error: str | None
    # The code of the file or lesson as opened or last saved (see _unsaved).
    _saved_code: str | None
    editor: CodeEditorPanel
    # How long a read may take before it is reported (seconds).
    read_timeout: float

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        raise NotImplementedError  # the window renders every panel

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
        problem = show_document(self._session, document, os.fspath(path))
        if problem is not None:
            self.show_error("Cannot open this session", f"{problem}\n\nShowing the welcome lesson.")
            return False
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
        if path is None or is_lesson(path):
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
            # A named pipe in a file's place would block the window forever on writing.
            check_targets(folder, (*EXPORT_FILES, *PICTURE_FILES))
            svg = self._session.export(folder)
            write_pictures(Path(folder), svg, self._session)
        except OSError as exc:
            self.show_error("Cannot export", f"{folder}: {exc.strerror or exc}")
            return False
        except (ValueError, PictureError) as exc:
            self.show_error("Cannot export", f"{folder}: {exc}")
            return False
        self.statusBar().showMessage(
            f"Exported result.json, script.py, graph.svg, graph.dot, graph.png, plots.png "
            f"to {folder}",
            5000,
        )
        return True

    def _last_dir(self) -> str:
        # Only a folder that is there: the settings file is plain text anyone may have
        # edited (a list, a device, a named pipe); the file dialogs start at home then.
        kept = self._settings.value("last_dir")
        if isinstance(kept, str) and len(kept) < 4096 and "\0" not in kept:
            with contextlib.suppress(OSError, ValueError):
                if os.path.isdir(kept):
                    return kept
        return str(Path.home())

    # -- dialogs (methods, so tests can answer them) -------------------------------------

    def show_error(self, title: str, text: str) -> None:
        # Message boxes take text that looks like HTML as HTML, and these quote a stranger's
        # file names, fields and titles (see gui.widgets.qt_text).
        QMessageBox.warning(self, title, literal_html(text))

    def ask_restore(self, recovered: Recovered) -> bool:
        """Ask whether to bring back work a crash left behind; ``True``: restore it."""
        answer = QMessageBox.question(
            self,
            "Restore unsaved work?",
            literal_html(
                f"{APP_NAME} did not close properly last time. Restore the unsaved work on "
                f"{recovered.describe()}?\n\nYes restores it; Discard deletes the copy."
            ),
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

    # -- autosave ------------------------------------------------------------------------

    def _unsaved(self, snapshot: Snapshot) -> bool:
        """Work that would be lost: see :func:`~gui.model.views.unsaved.has_unsaved_work`
        (a lesson only dragged about has none), or work restored from a crash."""
        lesson = snapshot.path is not None and is_lesson(snapshot.path)
        return has_unsaved_work(snapshot, self._saved_code, lesson) or (
            self._autosave is not None and self._autosave.restored
        )

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
        problem = show_document(self._session, newest.document, newest.path)
        if problem is not None:  # the copy stays where it is: the work is in it
            self.show_error(
                "Cannot restore the unsaved work",
                f"The copy in {newest.file} cannot be shown: {problem}",
            )
            return False
        # If the copy cannot be written, the old one stays where it was; the work is on
        # screen and marked unsaved either way.
        with contextlib.suppress(OSError, SessionFileError):
            self._autosave.adopt(newest)
        self.render(self._session.snapshot)
        return True


def show_document(session: Session, document: Document, path: str | None) -> str | None:
    """Load ``document`` into ``session``; if a panel fails on it, the welcome lesson
    instead, and the reason (``None`` when it shows).

    A file that passed every check of the format can still hold what a panel cannot draw
    (a gradient of 1e308 overflowed the sliders' range): that must end neither the start
    (the error left ``run_window``) nor leave the window half drawn after an Open.
    """
    try:
        session.load(document, path)
    except Exception as exc:  # any panel's failure: reported, never the end of the window
        cause = exc.__cause__ or exc  # psygnal wraps a callback's error in EmitLoopError
        first = (str(cause).splitlines() or [""])[0][:200]
        session.load(load_session(default_lesson()), str(default_lesson()))
        where = f"{path}: " if path else ""
        return f"{where}the window cannot show this session ({type(cause).__name__}: {first})"
    return None


def _quit_when(done: bool, loop: QEventLoop) -> None:
    if done:
        loop.quit()


def is_lesson(path: str) -> bool:
    """Lessons ship with the app: saving goes to a new file rather than over them."""
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError, ValueError):
        # A loop of links (RuntimeError on Python 3.11), a NUL: not a lesson. Raising here
        # failed every render and the window's close, for a path restored from an autosave.
        return False
    return any(resolved == p.resolve() for p in lesson_paths())
