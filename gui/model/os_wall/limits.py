"""The resource limits: no file grows, no core is dumped, memory is capped.

Unlike Landlock and seccomp these exist beyond Linux (macOS has ``RLIMIT_FSIZE`` and
``RLIMIT_CORE``), and ``RLIMIT_FSIZE`` = 0 stops writes even through descriptors opened
before the wall, which no path rule can reach.
"""

from __future__ import annotations

import contextlib
import os

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]


def apply_rlimits(
    memory_headroom_bytes: int | None, missing: list[str]
) -> tuple[tuple[str, int], ...]:
    """Cap file size and core dumps at 0 and, given a headroom, the address space; let the
    main thread's stack grow to :data:`DEEP_STACK_BYTES` (a deep graph's free).

    Soft and hard are set equal, so an unprivileged process cannot raise them again (the
    seccomp filter refuses any change, root's too); the stack's is no wall, left out of
    the report. Returns ``(name, limit)`` for each limit set; what could not be set goes
    to ``missing``.
    """
    if resource is None:
        missing.append("rlimits: no resource module on this platform; files and memory unlimited")
        return ()
    _grow_stack()
    wanted = [("RLIMIT_FSIZE", 0), ("RLIMIT_CORE", 0)]
    if memory_headroom_bytes is not None:
        in_use = address_space_in_use()
        if in_use is None:
            missing.append("rlimits: RLIMIT_AS not set (address space in use unknown here)")
        else:
            wanted.append(("RLIMIT_AS", in_use + memory_headroom_bytes))
    applied = []
    for name, limit in wanted:
        which = getattr(resource, name)
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        try:
            resource.setrlimit(which, (limit, limit))
        except (OSError, ValueError) as exc:
            missing.append(f"rlimits: {name} not set ({exc})")
            continue
        applied.append((name, limit))
    return tuple(applied)


# How far the main thread's stack may grow. torch frees an autograd node that Python has
# seen (the engine's recorder reads every op's ``grad_fn``) through its Python object, one
# node inside the other's free, and not in its loop for deep graphs: a chain of 40,000
# multiply-adds (a learner's loop of ``y = y * a + b``) took more than the usual 8 MiB and
# the engine died of SIGSEGV as it let the graph go, where plain torch (which never read
# those ``grad_fn``) ran it (red team, round 19). About 170 bytes a node: 100 MiB is half a
# million nodes, below the 128 MiB Linux leaves at least between the stack and the
# mappings under it (a run that made more lets go of them one at a time: see
# engine.node_of.let_go). The stack grows only as far as it is used.
DEEP_STACK_BYTES = 100 * 1024**2


def _grow_stack() -> None:
    """Let the main thread's stack grow to :data:`DEEP_STACK_BYTES` (never less than it may
    already, never past the hard limit). Not a wall: where the system refuses, as before."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if soft == resource.RLIM_INFINITY or soft >= DEEP_STACK_BYTES:
        return
    wanted = DEEP_STACK_BYTES if hard == resource.RLIM_INFINITY else min(DEEP_STACK_BYTES, hard)
    with contextlib.suppress(OSError, ValueError):
        resource.setrlimit(resource.RLIMIT_STACK, (wanted, hard))


def address_space_in_use() -> int | None:
    """Bytes of address space this process maps now, or ``None`` without ``/proc``."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")
