"""DOT text into a pygraphviz graph without writing a file.

pygraphviz's own ``AGraph(string=...)`` writes the text to a temporary file for Graphviz
to read (Graphviz parses from a C ``FILE*``). The layout worker, walled in by the
operating system, may not create or write any file, so the text goes through a pipe: made
wide enough to hold all of it, filled, its writing end closed, then read to the end by
Graphviz. No second thread feeds it: pygraphviz holds the GIL while Graphviz reads, so a
writer thread would wait for the reader that waits for it.

A text that no pipe here can hold (Linux lets a pipe grow to ``/proc/sys/fs/pipe-max-size``,
1 MiB by default; macOS pipes hold 64 KiB) goes the temporary-file way where the process
may write files; where it may not, :class:`DotTooLong` says so in a sentence.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
# Linux only: elsewhere pipes keep the size they have.
SET_PIPE_SIZE: int | None = getattr(fcntl, "F_SETPIPE_SZ", None)


class DotTooLong(ValueError):
    """The graph's text is longer than this process can hand to Graphviz."""


def read_dot(source: str) -> Any:
    """``source`` parsed by Graphviz into a ``pygraphviz.AGraph``."""
    import pygraphviz as pgv

    data = source.encode("utf-8")
    read_end = _filled_pipe(data)
    if read_end is None:
        try:
            return pgv.AGraph(string=source)
        except OSError as exc:  # no file may be written here (the OS wall)
            raise DotTooLong(
                f"The graph's text is too long to draw ({len(data) / 1024**2:.1f} MB, mostly"
                " labels): Graphviz can be handed at most what a pipe holds here."
            ) from exc
    graph = pgv.AGraph()
    with os.fdopen(read_end, "rb") as text:
        graph.read(text)
    return graph


def _filled_pipe(data: bytes) -> int | None:
    """The reading end of a pipe holding all of ``data`` and closed behind it, or ``None``
    when no pipe can hold that much (the writes never block: a full pipe fails instead)."""
    if not hasattr(os, "set_blocking"):  # Windows before Python 3.12: no wall there anyway
        return None
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(write_end, False)
        if SET_PIPE_SIZE is not None and len(data) > 0:
            with contextlib.suppress(OSError):  # past the system's maximum: stays as it is
                fcntl.fcntl(write_end, SET_PIPE_SIZE, len(data))
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
    except BlockingIOError:
        os.close(read_end)
        return None
    finally:
        os.close(write_end)
    return read_end
