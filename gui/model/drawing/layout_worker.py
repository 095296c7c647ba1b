"""The layout worker: the one process that runs Graphviz, walled off from the window.

pygraphviz holds the GIL for as long as ``dot`` works (a loop of 100 iterations froze the
window for 53 s), its native code can crash the process it runs in (see
``docs/platform-notes.md``), and rendering a big graph as SVG took 19 GB. So Graphviz runs
here, in a process of its own, started by :class:`~gui.model.drawing.layout_process.
LayoutProcess` with ``spawn``: it imports pygraphviz and :mod:`gui.model.drawing` (never
Qt, torch or the session) and can be killed and restarted whenever a layout hangs, crashes,
runs out of the memory it may use, or belongs to code the user has already changed.

Graphviz parses text a stranger's program wrote (variable names, values in labels) in
native code, so the worker is walled in like the engine's processes
(:mod:`gui.model.os_wall`): once Graphviz has loaded its plugins and drawn one small graph,
the worker may no longer write or create any file, read outside the installation, start a
process, open a socket or signal another process. It reads the DOT text from a pipe
(:mod:`.dot_reader`).

Messages, pickled through a ``multiprocessing`` connection, plain data only:

- to the worker: :class:`LayoutJob` or :class:`SvgJob`; ``None`` means stop;
- from the worker: one :class:`WorkerReady` once pygraphviz is loaded, then one
  :class:`Reply` per job, carrying a :class:`~.layout.GraphLayout`, the SVG text, or a
  :class:`JobFailed` when Graphviz raised.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection

# Imported before the wall goes up: the graphs a job holds come as its columns, and the
# layouts it answers go as columns (read in one pass by the window, see layout_columns).
from gui.model import graph_columns  # noqa: F401
from gui.model.drawing import layout_columns  # noqa: F401
from gui.model.drawing.layout import GraphLayout, layout_graph
from gui.model.drawing.svg import render_svg
from gui.model.os_wall import WallReport, apply_os_wall
from gui.model.paused_collector import collector_paused
from gui.model.result import Graph, GraphEdge, GraphNode, StepRecord, TensorData

# CPU seconds a worker may use in all before the kernel stops it (SIGXCPU). The window
# kills a late worker itself; this only matters if the window is gone and cannot, so that
# no orphaned Graphviz grinds on. A worker retires at half of it: layouts within the
# limits (gui.model.drawing.limits) take well under a second, so that is hundreds of them.
CPU_BUDGET_SECONDS = 600


@dataclass(frozen=True)
class LayoutJob:
    """Place ``graph``'s boxes (:func:`~.layout.layout_graph`)."""

    job_id: int
    graph: Graph
    show_saved: bool
    time_limit: float
    use_dot: bool | None = None  # None: dot while quick for this graph (see layout_graph)


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
    """The worker is up: pygraphviz is loaded, the wall applied (``missing``: one sentence
    per layer of it this platform lacks, see :class:`~gui.model.os_wall.WallReport`)."""

    pid: int
    memory_limited: bool
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class JobFailed:
    """Graphviz raised an exception for the job (the worker itself is fine)."""

    message: str


@dataclass(frozen=True)
class Reply:
    """The answer to job ``job_id``."""

    job_id: int
    value: GraphLayout | str | JobFailed
    retiring: bool = False  # the worker exits after this reply (see serve)


def serve(conn: Connection, memory_headroom: int) -> None:
    """The worker's main loop: load Graphviz, wall itself in, then answer jobs until told
    to stop, or until it has used half its CPU budget: then its last reply says it is
    retiring, and the window starts a fresh worker (a walled one cannot be given more)."""
    budget = _limit_cpu(CPU_BUDGET_SECONDS)
    wall = wall_in(memory_headroom)
    conn.send(WorkerReady(os.getpid(), wall.memory_limit_bytes is not None, wall.missing))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the window went away
            return
        if not isinstance(job, LayoutJob | SvgJob):
            return
        value = run_job(job)
        retiring = budget is not None and _cpu_used() > budget / 2
        conn.send(Reply(job.job_id, value, retiring))
        if retiring:
            return


def wall_in(memory_headroom: int) -> WallReport:
    """Load what every job needs, then confine this process for good.

    A layout and an SVG of a small graph come first: Graphviz loads its plugins and
    configuration, and the drawing its fonts, on first use (nothing is opened after
    that). Then the address space is capped at what is mapped plus ``memory_headroom``,
    and everything else of :func:`~gui.model.os_wall.apply_os_wall` applies.
    """
    value = TensorData((2,), "float32", [0.5, -1.25])
    warm = Graph(
        nodes=(
            GraphNode("x", "AccumulateGrad", "x", "leaf", var="x", value=value),
            GraphNode("f", "MulBackward0", "MulBackward0", "function", value=value),
            GraphNode("y", "output", "y", "output", value=value),
        ),
        edges=(GraphEdge("x", "f", "data", 0), GraphEdge("f", "y", "output")),
        root="f",
        structure_key="warm-up",
    )
    layout_graph(warm, show_saved=False)
    render_svg(warm, None, {}, None)
    if not sys.platform.startswith("linux"):
        # Elsewhere the wall is at most the file-size limit, which would stop the text of a
        # big graph on its way to Graphviz (a macOS pipe holds 64 KiB; see dot_reader).
        missing = ("the layout worker is walled in on Linux only",)
        return WallReport(None, False, False, (), missing, 0.0)
    return apply_os_wall(memory_headroom)


def run_job(job: LayoutJob | SvgJob) -> GraphLayout | str | JobFailed:
    """Do ``job`` here; Graphviz's exceptions (and running out of memory) become
    :class:`JobFailed`, so the worker keeps serving."""
    try:
        # A big graph's layout or picture is tens of thousands of objects, none garbage:
        # the collector's passes over them were up to half of a 5,000-box layout.
        with collector_paused():
            if isinstance(job, LayoutJob):
                return layout_graph(job.graph, job.show_saved, job.use_dot)
            return render_svg(job.graph, job.step, job.leaf_grads, job.shown_step, job.locked_scale)
    except MemoryError:
        return JobFailed("MemoryError: Graphviz ran out of the memory the layout may use")
    except Exception as exc:
        return JobFailed(f"{type(exc).__name__}: {exc}")


def _limit_cpu(seconds: float) -> float | None:
    """Let the kernel stop this worker once it has used ``seconds`` more CPU in all: the
    backstop for a Graphviz run that never ends after the window has gone. Set once,
    before the wall (behind it no limit can change). The CPU time it ends at, or ``None``
    where there is no such limit (Windows)."""
    if sys.platform == "win32":
        return None
    import resource

    limit = int(_cpu_used() + seconds)
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    except (ValueError, OSError):
        return None
    return limit


def _cpu_used() -> float:
    """CPU seconds this process has used (0 where it cannot tell)."""
    try:
        import resource
    except ImportError:
        return 0.0
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
