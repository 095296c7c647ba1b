"""Autosave: a copy of unsaved work in the per-user data folder, offered back after a crash.

Without it a crash (the window's process killed, a native library failing) loses everything
since the last save. :class:`Autosave` listens to the session's snapshots and keeps the
newest unsaved :class:`~gui.model.session.document.Document`, with the path of the file it
belongs to; the window writes it (:meth:`Autosave.flush`) a few seconds after a change, and
removes it after a save, when the work is discarded, and on a clean exit. A file still there
when the app starts was left by a process that did not exit cleanly: :func:`find_unsaved`
returns those, and the window offers to restore them.

One file per process (``autosave-<pid>.json``), so two windows open at once never overwrite
each other's copy, and a running window's copy is never offered to another. Files are
written with the same atomic save as session files and read with the same strict reader.

No Qt here: the timer and the dialog are the window's (:mod:`gui.widgets.main_window`).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psygnal import Signal

from gui.model.session.document import Document
from gui.model.session.file_format import (
    SessionFileError,
    load_session,
    read_json_file,
    session_from_dict,
    session_text,
    write_text_atomically,
)
from gui.model.session.snapshot import Snapshot

# Tests (and anyone who wants the copies elsewhere) point the data folder here.
DATA_DIR_VARIABLE = "AUTOGRAD_EXPLORER_DATA_DIR"
APP_DIR_NAME = "autograd-explorer"
APP_AUTHOR = "AutogradExplorer"
FORMAT = "autograd-explorer-autosave/1"
# How long after a change the window writes the copy: soon enough that a crash loses only
# seconds, rarely enough that dragging a slider does not write the disk on every tick.
DELAY_SECONDS = 3.0
MAX_PATH_CHARS = 4096
# How many copies a start reads, newest files first. Each may hold 2 MiB to parse on the
# GUI thread before the window shows: a folder with thousands of them (a loop of crashes,
# or anyone who can write there) must not keep the window from appearing. The rest stay on
# disk for later starts.
MAX_CANDIDATES = 20
# A copy's time is shown in the restore dialog: one that is not a time at all (NaN, 1e308,
# before 1970) reads as unknown rather than failing the dialog (and with it every start).
_LATEST_TIME = 253_402_300_799.0  # 9999-12-31 23:59:59 UTC
# Where a dead process's copy goes when this process reuses its id (see
# Autosave._keep_foreign_copy): ids from here on are never a process's on Linux (its
# PID_MAX_LIMIT is 2**22), macOS or the BSDs, so the copy reads as left behind.
_UNUSED_PIDS = 2**22
_FILE_NAME = re.compile(r"autosave-(\d{1,10})\.json")


def data_dir() -> Path:
    """The per-user data folder (``$AUTOGRAD_EXPLORER_DATA_DIR`` if set)."""
    configured = os.environ.get(DATA_DIR_VARIABLE)
    if configured:
        return Path(configured)
    import platformdirs  # only when needed: tests and the engine's child never need it

    return Path(platformdirs.user_data_dir(APP_DIR_NAME, APP_AUTHOR))


@dataclass(frozen=True)
class Recovered:
    """Unsaved work a process left behind: what it was editing, and which file it belongs
    to (``None`` if it was never saved)."""

    file: Path
    document: Document
    path: str | None
    saved_at: float

    def describe(self) -> str:
        """One line for the restore dialog: which session, and when it was copied."""
        name = self.document.title or (Path(self.path).name if self.path else "an untitled session")
        if not self.saved_at:  # unknown (see _LATEST_TIME)
            return f"{name} (copied at an unknown time)"
        try:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))
        except (OverflowError, OSError, ValueError):  # a time this platform cannot show
            return f"{name} (copied at an unknown time)"
        return f"{name} (copied {when})"


def find_unsaved(folder: Path, own_pid: int | None = None) -> list[Recovered]:
    """Autosaves left by processes that are gone, newest first.

    Copies of running processes (another window) are skipped; an unreadable copy is skipped
    (and left on disk) rather than stopping the app from starting; at most
    :data:`MAX_CANDIDATES` of the newest files are read. Call it before this process autosaves: a
    copy under this process's own id (``own_pid``) is then a dead process's whose id was
    reused, and is returned too.
    """
    own = os.getpid() if own_pid is None else own_pid
    found = []
    try:
        names = os.listdir(folder)
    except OSError:  # no folder yet: nothing was ever autosaved
        return []
    candidates = []
    for name in names:
        match = _FILE_NAME.fullmatch(name)
        if match is None:
            continue
        pid = int(match.group(1))
        if pid != own and _alive(pid):
            continue
        file = folder / name
        candidates.append((_modified(file), name, file))
    # Newest files first, at most MAX_CANDIDATES of them (see there).
    for _, _, file in sorted(candidates, reverse=True)[:MAX_CANDIDATES]:
        try:
            found.append(read_json_file(file, functools.partial(_recovered, file)))
        except SessionFileError:
            continue  # left on disk: never delete what could not be read
    return sorted(found, key=lambda r: r.saved_at, reverse=True)


def _modified(file: Path) -> float:
    """When ``file`` was last written (0 if it cannot be told); never opens it."""
    try:
        return os.lstat(file).st_mtime
    except OSError:
        return 0.0


def _alive(pid: int) -> bool:
    if sys.platform == "win32":
        # os.kill(pid, 0) would terminate the process there; without a safe check, treat
        # the copy as left behind (at worst another window's copy is offered too).
        return False
    if not 0 < pid < 2**31:  # no process has it, and os.kill would raise OverflowError
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except (OSError, OverflowError):  # not a process id this system knows: left behind
        return False
    return True


def _recovered(file: Path, data: Any) -> Recovered:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionFileError(f"not an autosave file (expected format {FORMAT!r})")
    session = data.get("session")
    if not isinstance(session, dict):
        raise SessionFileError("session: expected a session object")
    # The work is what matters: a path or a time that cannot be used is dropped, the work
    # is still offered (untitled, or copied "at an unknown time").
    return Recovered(
        file,
        session_from_dict(session),
        _session_path(_usable_path(data.get("path"))),
        _time(data.get("saved_at")),
    )


def _session_path(path: str | None) -> str | None:
    """``path`` if saving the restored work there replaces nothing but a session file.

    The copy names the file its work belongs to, and Save writes there without asking. A
    copy is a file like any other in a folder that others may have been able to write (see
    :meth:`Autosave.flush`): one naming ``~/.bashrc`` or a report made the user's next Save
    replace that file with session JSON (red team, round 14). So the path must be a ``.json``
    name, and what is there now (if anything) must read as a session file; otherwise the
    work is restored untitled and Save asks where to put it.
    """
    if path is None or not path.lower().endswith(".json"):
        return None
    if not os.path.lexists(path):
        return path
    try:
        load_session(path)  # never blocks on a pipe or a device; at most a session's size
    except SessionFileError:
        return None
    return path


def _usable_path(path: object) -> str | None:
    """The copy's file path if the window can use it, else ``None`` (the work is untitled).

    Refused: anything but an absolute path string, a NUL, or characters the file system
    cannot name (a lone surrogate that is not one of Python's stand-ins for undecodable
    bytes): each made every later use of the path raise (the lesson check, saving).
    """
    if not isinstance(path, str) or not path or len(path) > MAX_PATH_CHARS or "\0" in path:
        return None
    try:
        os.fsencode(path)
    except UnicodeError:
        return None
    return path if os.path.isabs(path) else None


def _time(saved_at: object) -> float:
    """The copy's time in seconds since 1970, or ``0.0`` when it is not a usable time."""
    if isinstance(saved_at, bool) or not isinstance(saved_at, int | float):
        return 0.0
    value = float(saved_at)
    return value if math.isfinite(value) and 0 < value <= _LATEST_TIME else 0.0


class Autosave:
    """Keeps this process's copy of unsaved work in ``folder`` (``autosave-<pid>.json``).

    Connect :meth:`on_snapshot` to the session's ``changed`` signal; when unsaved work is
    waiting to be written, :attr:`pending` is emitted (once, until :meth:`flush` writes it),
    so a GUI can start a timer. ``restored`` is true while the session shows work restored
    from a crash that is not saved yet: the session thinks the document is unmodified (it was
    just loaded), but it is not on disk.
    """

    pending = Signal()

    def __init__(self, folder: Path, pid: int | None = None) -> None:
        self.folder = folder
        self.file = folder / f"autosave-{os.getpid() if pid is None else pid}.json"
        self.restored = False
        self._waiting: tuple[Document, str | None] | None = None
        self._written: tuple[Document, str | None] | None = None
        self._file_written = False

    @property
    def has_pending(self) -> bool:
        """Unsaved work that is not in the file yet."""
        return self._waiting is not None

    def on_snapshot(self, snapshot: Snapshot) -> None:
        """Remember the newest unsaved work; forget the copy once nothing is unsaved.

        Called for every snapshot (slider ticks included), so it only compares identities:
        a change makes a new document object, a result does not.
        """
        if "file" in snapshot.changes:  # saved, or another file opened: not restored work
            self.restored = False
        if not (snapshot.modified or self.restored):
            self.discard()
            return
        work = (snapshot.state.document, snapshot.path)
        if _same(work, self._waiting or self._written):
            return
        was_waiting = self._waiting is not None
        self._waiting = work
        if not was_waiting:
            self.pending.emit()

    def flush(self) -> None:
        """Write the waiting work now (nothing if none is waiting).

        Raises ``OSError`` if the folder cannot be written, and
        :class:`~gui.model.session.file_format.SessionFileError` if the document is past the
        session format's limits; the work stays waiting either way.
        """
        if self._waiting is None:
            return
        document, path = self._waiting
        text = (
            f'{{"format": {json.dumps(FORMAT)}, "path": {json.dumps(path)}, '
            f'"saved_at": {time.time()!r}, "session": {session_text(document)}}}\n'
        )
        # Private: the copy may hold a student's work; only its owner reads it.
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self._file_written:
            self._keep_foreign_copy()
        elif os.path.islink(self.file):
            # The copy is the app's own file, never a link: a link put in its place since
            # the last write would have the atomic save replace the file it names (a
            # user's file, lost) rather than the copy. The link goes, not its target.
            self.file.unlink()
        write_text_atomically(self.file, text)
        self._file_written = True
        self._written, self._waiting = self._waiting, None

    def _keep_foreign_copy(self) -> None:
        """Move a copy already under this process's name to a name no process has.

        It was left by a dead process whose id this one reuses. A start offers only the
        newest copy: an older one under this name would be overwritten by this process's
        first copy, and its work lost. (The folder is private: no one else races for the
        new name.)
        """
        if not os.path.lexists(self.file):
            return
        for pid in range(_UNUSED_PIDS, _UNUSED_PIDS + 1000):
            candidate = self.folder / f"autosave-{pid}.json"
            if not os.path.lexists(candidate):
                os.rename(self.file, candidate)
                return
        raise FileExistsError(errno.EEXIST, "no free name to keep an older copy", str(self.file))

    def discard(self) -> None:
        """Forget the copy and remove its file (a save, a discard, a clean exit)."""
        self._waiting = None
        self._written = None
        if self._file_written:  # checked first: this runs for every snapshot of saved work
            with contextlib.suppress(FileNotFoundError):
                self.file.unlink()
            self._file_written = False

    def adopt(self, recovered: Recovered) -> None:
        """The session now shows ``recovered``'s work: keep it unsaved, copy it to this
        process's file, then remove the dead process's file."""
        self.restored = True
        self._waiting = (recovered.document, recovered.path)
        if recovered.file == self.file:  # a reused process id: that copy is ours now
            self._file_written = True
        self.flush()
        if recovered.file != self.file:  # a reused process id: the same name, now ours
            remove(recovered)

    def close(self) -> None:
        """A clean exit: the copy is no longer needed."""
        self.discard()


def _same(a: tuple[Document, str | None], b: tuple[Document, str | None] | None) -> bool:
    return b is not None and a[0] is b[0] and a[1] == b[1]


def remove(recovered: Recovered) -> None:
    """Delete a copy the user chose not to restore."""
    with contextlib.suppress(FileNotFoundError):
        recovered.file.unlink()
