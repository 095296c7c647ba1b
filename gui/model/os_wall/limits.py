"""The resource limits: no file grows, no core is dumped, memory is capped.

Unlike Landlock and seccomp these exist beyond Linux (macOS has ``RLIMIT_FSIZE`` and
``RLIMIT_CORE``), and ``RLIMIT_FSIZE`` = 0 stops writes even through descriptors opened
before the wall, which no path rule can reach.
"""

from __future__ import annotations

import os

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]


def apply_rlimits(
    memory_headroom_bytes: int | None, missing: list[str]
) -> tuple[tuple[str, int], ...]:
    """Cap file size and core dumps at 0 and, given a headroom, the address space.

    Soft and hard are set equal, so an unprivileged process cannot raise them again (the
    seccomp filter refuses any change, root's too). Returns ``(name, limit)`` for each
    limit set; what could not be set goes to ``missing``.
    """
    if resource is None:
        missing.append("rlimits: no resource module on this platform; files and memory unlimited")
        return ()
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


def address_space_in_use() -> int | None:
    """Bytes of address space this process maps now, or ``None`` without ``/proc``."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")
