"""Reading and writing files that may come from anyone, without hanging and without loss.

Reading (:func:`read_regular_file`) opens without blocking and refuses anything but a
regular file: a named pipe, ``/dev/zero``, ``/dev/random`` or a link to one of them would
otherwise block the reader forever or feed it without end. It reads at most ``limit`` bytes
whatever the file claims its size is. A path on a network folder that does not answer can
still block in the operating system, so callers on the GUI thread read in the background
(:func:`read_in_background`) and give up after a time.

Writing (:func:`write_atomically`) never leaves a half-written file: the bytes go to a short
temporary name in the target's own folder, are flushed to the disk, and replace the target
in one rename. A symbolic link is followed (its target is replaced and the link stays a
link), the target's permissions are kept, and a new file gets the usual permissions (what
the umask allows), not a temporary file's 0600.

Errors are ``OSError`` with a ``strerror`` written for a person; :mod:`.file_format` turns
reading errors into one-sentence refusals.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# What opening must never do: wait for a writer (a FIFO), become the controlling terminal
# (a tty), or leak into the engine's child processes.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_WRITE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)
_CHUNK = 1 << 20
# ".<8 hex digits>.tmp": 14 characters, so a target whose own name is near the file
# system's limit (255 bytes) can still be saved; the old ".<name>.<random>.tmp" could not.
_TEMPORARY_PREFIX = "."
_TEMPORARY_SUFFIX = ".tmp"


class FileTooLarge(OSError):
    """The file holds more than the reader's limit (``size`` is what was seen, at least)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"it holds more than {limit} bytes")
        self.size = size
        self.limit = limit


class NotARegularFile(OSError):
    """The path names a folder, a device, a named pipe or a socket (``kind`` says which)."""

    def __init__(self, kind: str) -> None:
        super().__init__(errno.EINVAL, f"it is {kind}, not a file")
        self.kind = kind


def file_kind(mode: int) -> str | None:
    """What a non-regular file is, in words; ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (links followed), at most ``limit`` of them.

    Raises :class:`NotARegularFile` before opening a folder, device, pipe or socket (opening
    some devices has side effects), and again if the path changed into one meanwhile;
    :class:`FileTooLarge` past ``limit`` (checked while reading: ``st_size`` may lie, and a
    file may grow); any other ``OSError`` as the system reports it.
    """
    kind = file_kind(os.stat(path).st_mode)
    if kind is not None:
        raise NotARegularFile(kind)
    fd = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(fd)
        kind = file_kind(info.st_mode)
        if kind is not None:
            raise NotARegularFile(kind)
        if info.st_size > limit:
            raise FileTooLarge(info.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileTooLarge(total, limit)
    finally:
        os.close(fd)


# The files an export writes into its folder (gui/model/export/files.py, write_export),
# for its callers to check first with check_targets.
EXPORT_FILES = ("result.json", "script.py", "graph.svg", "graph.dot")
# The pictures drawn from them with Qt (gui/picture_export.py), checked the same way.
PICTURE_FILES = ("graph.png", "plots.png")


def check_targets(folder: str | os.PathLike[str], names: Iterable[str]) -> None:
    """Refuse to write ``names`` into ``folder`` if any of them is there but not a file.

    For writers that open the names themselves (the export's three files): opening a named
    pipe for writing blocks until something reads it, forever, and a folder or a device in
    a file's place cannot be written either. Raises :class:`NotARegularFile` naming the
    first such name, ``NotADirectoryError`` when ``folder`` (or a folder on its path) is a
    file; a missing folder or file is fine (it will be made).
    """
    try:
        folder_mode: int | None = os.stat(folder).st_mode
    except FileNotFoundError:
        folder_mode = None  # made by the writer
    except NotADirectoryError:
        raise NotADirectoryError(errno.ENOTDIR, "a folder on its path is a file") from None
    if folder_mode is not None and not stat.S_ISDIR(folder_mode):
        raise NotADirectoryError(
            errno.ENOTDIR, f"it is {file_kind(folder_mode) or 'a file'}, not a folder"
        )
    for name in names:
        try:
            mode = os.stat(Path(folder) / name).st_mode
        except FileNotFoundError:
            continue  # nothing there yet
        kind = file_kind(mode)
        if kind is not None:
            error = NotARegularFile(kind)
            error.strerror = f"{name}: {error.strerror}"
            raise error


def read_in_background(read: Callable[[], T]) -> Future[T]:
    """Run ``read`` on a thread of its own; its future holds the value or the exception.

    A daemon thread, not a pool: a read stuck in the operating system (an unreachable network
    folder) can never be cancelled, and a stuck pool worker would hold up every later read.
    """
    future: Future[T] = Future()

    def work() -> None:
        try:
            value = read()
        except BaseException as exc:  # handed to whoever waits, whatever it is
            future.set_exception(exc)
        else:
            future.set_result(value)

    threading.Thread(target=work, name="file-reader", daemon=True).start()
    return future


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` so that a crash leaves the old or the new.

    Symbolic links are followed: the file they point to is replaced and the link stays as it
    is. An existing file keeps its permission bits (and, where allowed, its owner); a new
    file gets what the umask allows. The data and the folder entry are flushed to the disk
    before this returns. Raises ``OSError`` (the old file untouched, no temporary file left);
    a target that is a folder, device or pipe is refused with :class:`NotARegularFile`.
    """
    target = Path(os.path.realpath(path))
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None:
        kind = file_kind(existing.st_mode)
        if kind is not None:
            raise NotARegularFile(kind)
    # An existing file's contents may be private: the temporary file starts private and gets
    # the old file's bits before any byte is written. A new one starts as 0666 less the
    # umask, exactly like a file any other program would create there.
    temporary, fd = _create_temporary(target.parent, 0o600 if existing is not None else 0o666)
    try:
        try:
            if existing is not None:
                _copy_owner_and_mode(fd, existing)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(target.parent)


def _create_temporary(folder: Path, mode: int) -> tuple[Path, int]:
    for _ in range(100):
        candidate = folder / f"{_TEMPORARY_PREFIX}{secrets.token_hex(4)}{_TEMPORARY_SUFFIX}"
        try:
            return candidate, os.open(candidate, _WRITE_FLAGS, mode)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(folder))


def _copy_owner_and_mode(fd: int, existing: os.stat_result) -> None:
    fchown = getattr(os, "fchown", None)
    ours = (getattr(os, "geteuid", lambda: -1)(), getattr(os, "getegid", lambda: -1)())
    if fchown is not None and (existing.st_uid, existing.st_gid) != ours:
        # Only root may give a file away; anyone else keeps the file as their own.
        with contextlib.suppress(OSError):
            fchown(fd, existing.st_uid, existing.st_gid)
    fchmod = getattr(os, "fchmod", None)
    if fchmod is not None:  # Windows has no permission bits to keep
        fchmod(fd, stat.S_IMODE(existing.st_mode))


def _fsync_folder(folder: Path) -> None:
    """Flush the folder entry too: without it a crash may forget the rename."""
    directory_flag = getattr(os, "O_DIRECTORY", None)
    if directory_flag is None:  # Windows: folders cannot be opened, renames are journaled
        return
    fd = os.open(folder, os.O_RDONLY | directory_flag)
    try:
        with contextlib.suppress(OSError):  # some file systems refuse fsync on a folder: EINVAL
            os.fsync(fd)
    finally:
        os.close(fd)
