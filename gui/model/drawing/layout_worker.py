"""The layout worker: the one process that runs Graphviz, walled off from the window.

pygraphviz holds the GIL for as long as ``dot`` works (a loop of 100 iterations froze the
window for 53 s), its native code can crash the process it runs in (see
``docs/platform-notes.md``), and rendering a big graph as SVG took 19 GB. So Graphviz runs
here, in a process of its own, started by :class:`~gui.model.drawing.layout_process.
LayoutProcess` with ``spawn``: it imports pygraphviz and :mod:`gui.model.drawing` (never
Qt, torch or the session) and can be killed and restarted whenever a layout hangs, crashes,
runs out of the memory it may use, or belongs to code the user has already changed.

Messages, pickled through a ``multiprocessing`` connection, plain data only:

- to the worker: :class:`LayoutJob` or :class:`SvgJob`; ``None`` means stop;
- from the worker: one :class:`WorkerReady` once pygraphviz is loaded, then one
  :class:`Reply` per job, carrying a :class:`~.layout.GraphLayout`, the SVG text, or a
  :class:`JobFailed` when Graphviz raised.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection

from gui.model.drawing.layout import GraphLayout, layout_graph
from gui.model.drawing.svg import render_svg
from gui.model.result import Graph, StepRecord, TensorData

# CPU seconds a job may use beyond its own time limit before the kernel stops the worker
# (SIGXCPU). The window kills a late worker itself; this only matters if the window is gone
# and cannot, so that no orphaned Graphviz grinds on.
CPU_MARGIN_SECONDS = 10


@dataclass(frozen=True)
class LayoutJob:
    """Place ``graph``'s boxes (:func:`~.layout.layout_graph`)."""

    job_id: int
    graph: Graph
    show_saved: bool
    time_limit: float


@dataclass(frozen=True)
class SvgJob:
    """Draw ``graph`` as an SVG document (:func:`~.svg.render_svg`)."""

    job_id: int
    graph: Graph
    step: StepRecord | None
    leaf_grads: Mapping[str, TensorData | None]
    shown_step: StepRecord | None
    time_limit: float
    locked_scale: float | None = None


@dataclass(frozen=True)
class WorkerReady:
    """The worker is up: pygraphviz is loaded, the memory limit set."""

    pid: int
    memory_limited: bool


@dataclass(frozen=True)
class JobFailed:
    """Graphviz raised an exception for the job (the worker itself is fine)."""

    message: str


@dataclass(frozen=True)
class Reply:
    """The answer to job ``job_id``."""

    job_id: int
    value: GraphLayout | str | JobFailed


def serve(conn: Connection, memory_headroom: int) -> None:
    """The worker's main loop: load Graphviz, then answer jobs until told to stop."""
    import pygraphviz  # noqa: F401  - loaded before "ready": the first job should not pay

    limited = _limit_memory(memory_headroom)
    conn.send(WorkerReady(os.getpid(), limited))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the window went away
            return
        if not isinstance(job, LayoutJob | SvgJob):
            return
        _limit_cpu(job.time_limit)
        conn.send(Reply(job.job_id, run_job(job)))


def run_job(job: LayoutJob | SvgJob) -> GraphLayout | str | JobFailed:
    """Do ``job`` here; Graphviz's exceptions (and running out of memory) become
    :class:`JobFailed`, so the worker keeps serving."""
    try:
        if isinstance(job, LayoutJob):
            return layout_graph(job.graph, job.show_saved)
        return render_svg(job.graph, job.step, job.leaf_grads, job.shown_step, job.locked_scale)
    except MemoryError:
        return JobFailed("MemoryError: Graphviz ran out of the memory the layout may use")
    except Exception as exc:
        return JobFailed(f"{type(exc).__name__}: {exc}")


def _limit_memory(headroom: int) -> bool:
    """Cap the address space at what is mapped now plus ``headroom`` (Linux)."""
    try:
        import resource

        with open("/proc/self/status") as status:
            vm = next(int(ln.split()[1]) * 1024 for ln in status if ln.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + headroom, vm + headroom))
    except (ImportError, OSError, StopIteration, ValueError):
        return False  # Windows has no resource module, macOS no /proc: the time limit stays
    return True


def _limit_cpu(seconds: float) -> None:
    """Let the kernel stop this worker once it has used ``seconds`` more CPU (plus a
    margin): a backstop for a layout that never ends after the window has gone."""
    if sys.platform == "win32":
        return
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    limit = int(used.ru_utime + used.ru_stime + seconds) + CPU_MARGIN_SECONDS
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
