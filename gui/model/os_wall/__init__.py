"""The second wall: the kernel confines the processes that handle a stranger's program.

Session files come from strangers and their code runs in the engine's child. The first wall
is Python-level (the AST allowlist and the attribute guard); a hole in it would hand the
code the whole machine, with the app's rights (possibly root). :func:`apply_os_wall` adds a
wall the kernel enforces, so that even plain Python with no guard at all, in this process,
can compute with torch and answer through the pipe it already has, and do nothing else
that matters. Call it once, in the child, after torch is imported and warmed up and before
the first user program runs, while the child has a single thread. It cannot be undone.

The layout worker (:mod:`gui.model.drawing.layout_worker`) walls itself in the same way:
Graphviz parses the program's names and values in native code. Neither torch nor Qt is
imported here, so both kinds of process can use it.

One module per layer: :mod:`.landlock`, :mod:`.seccomp` and :mod:`.limits`, with the
helpers they share (the C library, ``no_new_privs``, the read allowlist) in :mod:`.process`.
This package assembles them in :func:`apply_os_wall`, in the order they must be applied.

What each layer stops (Linux)
-----------------------------
``PR_SET_NO_NEW_PRIVS`` (:mod:`.process`)
    Set first: no later ``execve`` can gain privileges, and it lets an unprivileged process
    install the filters below. Nothing here relies on file permissions (the app may run
    as root, which they do not stop).
Landlock (file access; whatever ABI the kernel offers, 1 and up; :mod:`.landlock`)
    Every access right the kernel's ABI knows is handled and none is granted except reading
    (files and directory listings) beneath the read allowlist (:data:`SYSTEM_READABLE`
    plus the Python installation, torch, numpy, this ``gui`` package and the caller's
    extra paths). So no file can be created, written, truncated, renamed, linked, removed,
    executed or made anywhere, and no file outside the allowlist can be read or listed,
    the home directory included (only the part of it that holds the Python installation,
    if it lives there). With ABI >= 4 TCP ``bind``/``connect`` are refused too; with
    ABI >= 6 signals to processes outside this domain (the app itself) and connections to
    abstract unix sockets are refused. Before ABI 8 Landlock confines only the calling
    thread and the threads it starts later: threads already running keep their freedom
    (the report says so); with ABI 8 every thread is confined (``TSYNC``).
seccomp (system calls; a deny list built with libseccomp, default allow; :mod:`.seccomp`)
    Refused with ``EPERM``: ``execve``/``execveat``; ``fork``/``vfork`` and any ``clone``
    that does not make a thread of this process (``clone3`` gets ``ENOSYS`` so glibc falls
    back to ``clone``, whose flags a filter can read); every socket creation and use of
    a new address (``socket``, ``socketpair``, ``connect``, ``bind``, ``listen``,
    ``accept``; the pipe or socketpair to the parent was opened before and keeps working);
    ``ptrace`` and reading or writing other processes; signals to other processes;
    ``setrlimit`` and ``prlimit64`` with a new limit (so the limits below stay); the
    ``prctl`` options that could loosen anything; namespaces, mounts, ``chroot``, BPF,
    kernel keyrings, modules, ``personality``, ``io_uring`` (it would bypass this filter),
    ``userfaultfd``, ``perf_event_open``, SysV and POSIX message queues, ``TIOCSTI``. It
    also refuses, a second time after Landlock (and alone where Landlock is missing),
    opening a file for writing, every call that makes, removes or renames a path, and the
    metadata changes Landlock does not cover (``chmod``, ``chown``, extended attributes,
    times), plus ``ftruncate``/``fallocate`` and shared writable ``mmap`` of files, which
    would change files opened before the wall. The filter is synchronised to every thread
    (``TSYNC``). System calls of another ABI (``int 0x80``, x32) kill the thread.
``resource`` limits (soft = hard, so they cannot be raised either; :mod:`.limits`)
    ``RLIMIT_FSIZE`` = 0: ``write`` to any regular file fails with ``EFBIG`` even through a
    descriptor opened before the wall (``SIGXFSZ`` is ignored, as CPython does anyway).
    ``RLIMIT_CORE`` = 0: a crash writes no core file. ``RLIMIT_AS`` = the address space in
    use now plus ``memory_headroom_bytes``: a huge allocation fails inside torch
    (``RuntimeError``) or Python (``MemoryError``) instead of exhausting the machine.

What stays allowed, and why
---------------------------
Reading the Python installation, torch and numpy (lazy imports: torch imports parts of
itself, and the stdlib, on first use); computing; starting threads (torch's intra-op pool);
``mmap`` of anonymous and private memory; reading and writing descriptors already open
(the pipe to the parent, and stdout/stderr when they are pipes: if they are regular files
the ``FSIZE`` limit makes writes to them fail, so send output through the pipe); signals
to itself; ``exit``. The seccomp filter is a deny list rather than an allow list because
torch, its BLAS and OpenMP use a wide and version-dependent set of system calls; the
file rules, the real confinement, are an allow list (Landlock).

What the caller must do
-----------------------
- Apply it single-threaded. numpy's OpenBLAS starts a worker thread when imported, so a
  child started with ``spawn`` has two threads after ``import torch``: set
  ``OPENBLAS_NUM_THREADS=1`` in its environment, or fork the child from a parent that
  imported torch (the fork has one thread).
- Import before the wall whatever writes files when imported: ``torch._dynamo`` (reached
  through ``torch.func`` and ``torch.compile``) creates a cache directory at import, so
  after the wall it fails with ``PermissionError`` unless imported first.
- Send output through the pipe: stdout and stderr that are regular files cannot be
  written behind the wall.

What each platform gets
-----------------------
Linux
    Everything above, each layer as far as the kernel offers it: Landlock since 5.13 (its
    ABI decides which rights are handled), seccomp wherever ``libseccomp.so.2`` loads,
    all three limits. A missing layer is reported in :attr:`WallReport.missing`, never
    raised.
macOS
    ``RLIMIT_FSIZE`` and ``RLIMIT_CORE`` only. ``RLIMIT_AS`` is not enforced there and the
    address space in use cannot be read without ``/proc``, so it is reported missing, as
    are Landlock and seccomp (their macOS counterpart, Seatbelt, has no supported API).
Windows
    Nothing: there is no ``resource`` module; every layer is reported missing (the time
    limit and the Python guard remain).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gui.model.os_wall.landlock import apply_landlock
from gui.model.os_wall.limits import apply_rlimits
from gui.model.os_wall.process import ignore_sigxfsz, readable_paths, set_no_new_privs
from gui.model.os_wall.seccomp import apply_seccomp, load_libseccomp

__all__ = ["SYSTEM_READABLE", "WallReport", "apply_os_wall"]


@dataclass(frozen=True)
class WallReport:
    """What :func:`apply_os_wall` put in place.

    Attributes
    ----------
    landlock_abi
        The Landlock ABI version the file rules were enforced with, or ``None`` if
        Landlock was not applied.
    seccomp
        Whether the system-call filter was loaded.
    no_new_privs
        Whether ``PR_SET_NO_NEW_PRIVS`` is set.
    rlimits
        ``(name, limit)`` for each resource limit set (soft and hard), e.g.
        ``("RLIMIT_FSIZE", 0)``.
    missing
        One plain sentence per layer, or part of one, that could not be applied, and why.
    seconds
        How long applying the wall took.
    """

    landlock_abi: int | None
    seccomp: bool
    no_new_privs: bool
    rlimits: tuple[tuple[str, int], ...]
    missing: tuple[str, ...]
    seconds: float

    @property
    def memory_limit_bytes(self) -> int | None:
        """The address-space cap in force, or ``None`` if none was set."""
        return dict(self.rlimits).get("RLIMIT_AS")


# Read-only, beyond the Python installation and the packages (see process.readable_paths). Each
# entry was needed by a program run behind the wall (tests/model/engine/test_os_wall.py);
# a path this system lacks is skipped. Left out because nothing read them after the wall:
# /lib64 (only the loader, already mapped, and exec is refused), /proc/self and
# /sys/devices/system/cpu (thread pools size themselves at import; os.cpu_count() falls
# back to the affinity mask), /dev/null.
SYSTEM_READABLE: tuple[tuple[str, str], ...] = (
    ("/usr/lib", "libraries a module imported after the wall links to (sqlite3: libsqlite3)"),
    ("/lib", "the same, on systems whose /lib is not a link to /usr/lib"),
    ("/usr/lib64", "the same, where 64-bit libraries live there (Fedora, openSUSE)"),
    ("/etc/ld.so.cache", "the dynamic loader's index, read to find those libraries"),
    ("/dev/urandom", "read by torch.seed() (std::random_device) for a fresh seed"),
)


def apply_os_wall(memory_headroom_bytes: int | None, readable: Sequence[Path] = ()) -> WallReport:
    """Confine this process for good: no writes, few reads, no processes, no sockets.

    Irreversible. Apply it in the engine's child after torch is imported and warmed up
    (so its files are loaded) and before user code runs, while the process has one thread.
    Never raises for a layer the platform lacks: the report says what is missing.

    Parameters
    ----------
    memory_headroom_bytes
        Address space allowed on top of what the process uses now (``RLIMIT_AS``), or
        ``None`` for no memory cap.
    readable
        Files or directories to allow reading beneath, in addition to the Python
        installation, the imported torch and numpy packages, this ``gui`` package and
        :data:`SYSTEM_READABLE`.

    Returns
    -------
    WallReport
        Which layers were applied, and what is missing.
    """
    started = time.perf_counter()
    missing: list[str] = []
    ignore_sigxfsz()
    is_linux = sys.platform.startswith("linux")
    libseccomp = load_libseccomp() if is_linux else None  # before Landlock hides it
    no_new_privs = set_no_new_privs(missing) if is_linux else False
    rlimits = apply_rlimits(memory_headroom_bytes, missing)
    abi = (
        apply_landlock(readable_paths(readable, system=SYSTEM_READABLE), missing)
        if is_linux
        else None
    )
    if not is_linux:
        missing.append("landlock: Linux only; files stay readable and writable by path")
    seccomp = apply_seccomp(libseccomp, missing) if is_linux else False
    if not is_linux:
        missing.append("seccomp: Linux only; processes and sockets stay possible")
    return WallReport(
        landlock_abi=abi,
        seccomp=seccomp,
        no_new_privs=no_new_privs,
        rlimits=rlimits,
        missing=tuple(missing),
        seconds=time.perf_counter() - started,
    )
