"""The Landlock layer: the kernel refuses every file access but reading the allowlist.

Every access right the running kernel's Landlock ABI knows is handled, and only reading
(files and directory listings) beneath the given paths is granted; with ABI >= 4 TCP
``bind``/``connect`` and with ABI >= 6 signals and abstract unix sockets outside this
domain are refused too. Landlock talks through three system calls that libc does not wrap,
so they are made with ``syscall`` and the kernel's structures rebuilt with :mod:`ctypes`.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from gui.model.os_wall import process

_SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture but alpha
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
# Every filesystem right each ABI knows: 13 in ABI 1, then REFER (2), TRUNCATE (3) and
# IOCTL_DEV (5). All are handled, so all are refused unless a rule grants them.
_FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_BIND_CONNECT_TCP = 0b11  # ABI 4
_SCOPE_ABSTRACT_UNIX_AND_SIGNAL = 0b11  # ABI 6
_RESTRICT_SELF_TSYNC = 1 << 3  # ABI 8: confine every thread, not only the calling one


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


def landlock_abi(libc: ctypes.CDLL) -> int | None:
    """The Landlock ABI this kernel offers, or ``None`` without Landlock (errno tells why)."""
    version = libc.syscall(
        ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET),
        ctypes.c_void_p(None),
        ctypes.c_size_t(0),
        ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION),
    )
    return int(version) if version > 0 else None


def apply_landlock(readable: Sequence[Path], missing: list[str]) -> int | None:
    """Confine this process to reading beneath ``readable``; the ABI enforced, or ``None``.

    What could not be done goes to ``missing``. Needs ``no_new_privs`` (or privileges).
    """
    libc = process.libc()
    abi = landlock_abi(libc)
    if abi is None:
        why = os.strerror(ctypes.get_errno())
        missing.append(f"landlock: not offered by this kernel ({why}); files stay readable")
        return None
    fs_rights = _FS_RIGHTS_BY_ABI[max(v for v in _FS_RIGHTS_BY_ABI if v <= abi)]
    # The kernel accepts the largest struct it knows as long as the fields it does not
    # know are zero, so one struct serves every ABI.
    attr = _RulesetAttr(
        handled_access_fs=fs_rights,
        handled_access_net=_NET_BIND_CONNECT_TCP if abi >= 4 else 0,
        scoped=_SCOPE_ABSTRACT_UNIX_AND_SIGNAL if abi >= 6 else 0,
    )
    ruleset = libc.syscall(
        ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
        ctypes.c_uint32(0),
    )
    if ruleset < 0:
        missing.append(f"landlock: ruleset refused ({os.strerror(ctypes.get_errno())})")
        return None
    try:
        for path in readable:
            _allow_reading(libc, int(ruleset), path, missing)
        if abi < 8 and process.thread_count() > 1:  # ABI 8 confines them too (TSYNC)
            missing.append(
                "landlock: other threads were already running; they are not confined "
                "(apply while single-threaded)"
            )
        restricted = -1
        for flags in (_RESTRICT_SELF_TSYNC, 0) if abi >= 8 else (0,):
            restricted = libc.syscall(
                ctypes.c_long(_SYS_LANDLOCK_RESTRICT_SELF),
                ctypes.c_int(ruleset),
                ctypes.c_uint32(flags),
            )
            if restricted == 0:
                break
        if restricted != 0:
            why = os.strerror(ctypes.get_errno())
            missing.append(f"landlock: restrict_self refused ({why})")
            return None
    finally:
        os.close(int(ruleset))
    return abi


def _allow_reading(libc: ctypes.CDLL, ruleset: int, path: Path, missing: list[str]) -> None:
    """Add the rule that lets ``path`` (and, for a directory, all beneath it) be read."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this system does not have: nothing to allow
    try:
        is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)  # READ_DIR on a file is EINVAL
        rule = _PathBeneathAttr(
            allowed_access=_FS_READ_FILE | (_FS_READ_DIR if is_dir else 0), parent_fd=fd
        )
        added = libc.syscall(
            ctypes.c_long(_SYS_LANDLOCK_ADD_RULE),
            ctypes.c_int(ruleset),
            ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
        )
        if added != 0:
            why = os.strerror(ctypes.get_errno())
            missing.append(f"landlock: could not allow reading {path} ({why})")
    finally:
        os.close(fd)
