"""What the wall's layers share: the C library, and facts about this process.

Kept apart from the layers so each of them (:mod:`.landlock`, :mod:`.seccomp`,
:mod:`.limits`) and the package's :func:`~gui.model.os_wall.apply_os_wall` can use
them without importing one another, or the package that assembles them.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

# This file is gui/model/os_wall/process.py: three levels up is the gui package.
_GUI_PACKAGE = Path(__file__).resolve().parents[2]


@functools.cache
def libc() -> ctypes.CDLL:
    """The C library, with ``errno`` kept for :func:`ctypes.get_errno` after each call."""
    found = ctypes.CDLL(None, use_errno=True)
    found.syscall.restype = ctypes.c_long
    return found


def ignore_sigxfsz() -> None:
    """Make a write beyond ``RLIMIT_FSIZE`` fail with ``EFBIG`` rather than kill us."""
    # With RLIMIT_FSIZE = 0 a write to a file raises SIGXFSZ, whose default action kills
    # the process; ignored, the write fails with EFBIG instead (CPython ignores it already).
    sigxfsz = getattr(signal, "SIGXFSZ", None)
    if sigxfsz is not None and threading.current_thread() is threading.main_thread():
        signal.signal(sigxfsz, signal.SIG_IGN)


def set_no_new_privs(missing: list[str]) -> bool:
    """Set ``PR_SET_NO_NEW_PRIVS``: needed before an unprivileged process may filter itself."""
    pr_set_no_new_privs = 38
    if libc().prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        missing.append(f"no_new_privs: prctl failed ({os.strerror(ctypes.get_errno())})")
        return False
    return True


def readable_paths(extra: Iterable[Path], *, system: Iterable[tuple[str, str]]) -> list[Path]:
    """Every path to allow reading beneath, most important first, without duplicates.

    ``system`` is the package's ``SYSTEM_READABLE`` (``(path, why)`` pairs), passed in
    because this module may not import the package that defines it.
    """
    paths = [Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)]
    for name in ("torch", "numpy"):
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file:
            paths.append(Path(file).parent)
    paths.append(_GUI_PACKAGE)  # lazy imports of the app's own modules
    paths.extend(Path(p) for p, _why in system)
    paths.extend(extra)
    return list(dict.fromkeys(paths))


def thread_count() -> int:
    """Threads running in this process now (1 where ``/proc`` cannot tell)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1
