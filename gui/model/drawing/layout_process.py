"""The window's handle on the layout worker: Graphviz in a process of its own.

:class:`LayoutProcess` owns one long-lived child (:mod:`.layout_worker`), started with
``spawn``. A request waits on a pipe, which lets go of the GIL, so however long Graphviz
takes the window keeps painting. Each request has a time limit; a worker that is over it,
that crashed or ran out of memory is killed (if need be) and a fresh one started, and the
request fails with an :class:`~gui.model.result.Explanation` saying so in plain words
(:class:`LayoutUnavailable`). A request whose ``cancelled`` check turns true while it waits
(the user changed the code: the graph is outdated) is abandoned at once, the busy worker
killed and restarted (:class:`LayoutCancelled`); :meth:`LayoutProcess.interrupt` wakes the
waiting request so it checks.

Thread-safe: one request at a time (a lock), from any thread; :meth:`interrupt` from any
other. Only plain data crosses: a :class:`~gui.model.result.Graph` goes in, a
:class:`~.layout.GraphLayout` or SVG text comes back.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import pickle
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from gui.model import result, wire
from gui.model.child_start import main_module_hidden
from gui.model.drawing import layout, layout_worker, worker_start
from gui.model.drawing.layout import GraphLayout
from gui.model.drawing.layout_worker import (
    JobFailed,
    LayoutJob,
    Reply,
    SvgJob,
    WorkerReady,
)
from gui.model.result import Explanation, Graph, StepRecord, TensorData

# What the layout worker may send back: its replies, the layouts and the result types in them.
LAYOUT_MESSAGES = (layout_worker, layout, result)

# The child's main module, by name: tests swap in one that misbehaves on purpose.
LAYOUT_WORKER = "gui.model.drawing.layout_worker"
# A layout within the limits (gui.model.drawing.limits) takes well under a second (dot)
# or about one (the app's own, 5,000+ boxes); five leave room for a busy machine and
# still end a hang quickly.
LAYOUT_TIME_LIMIT_SECONDS = 5.0
# An SVG draws every label and edge label too: a few times a layout's work.
SVG_TIME_LIMIT_SECONDS = 20.0
# Memory the worker may map beyond what it holds once pygraphviz is loaded (~300 MB of
# address space, ~40 MB resident). A layout within the limits needs a few tens of MB; an
# SVG of a big loop once took 19 GB.
LAYOUT_MEMORY_HEADROOM_BYTES = 1024**3
STARTUP_TIMEOUT_SECONDS = 60.0
# The most one reply may hold: an SVG of the biggest graph drawn is some megabytes; a
# length past this (the worker lays out a stranger's graph in native code) is not read.
MAX_REPLY_BYTES = 256 * 1024**2

LAYOUT_TIMEOUT = "layout-timeout"
LAYOUT_CRASHED = "layout-crashed"
LAYOUT_ERROR = "layout-error"


class LayoutUnavailable(Exception):
    """The graph cannot be drawn; ``explanation`` says why, in plain words."""

    def __init__(self, explanation: Explanation) -> None:
        super().__init__(explanation.message)
        self.explanation = explanation


class LayoutCancelled(Exception):
    """The request was given up: newer code made its graph outdated."""


def never() -> bool:
    """The ``cancelled`` check of a request nothing can cancel."""
    return False


class LayoutProcess:
    """One killable worker process that lays graphs out and draws them as SVG.

    Parameters
    ----------
    time_limit
        Seconds a layout may take before the worker is stopped.
    svg_time_limit
        The same for an SVG.
    memory_headroom
        Bytes the worker may map beyond what it needs idle.
    entry
        The worker's module (with a ``serve(conn, memory_headroom)`` function).
    """

    def __init__(
        self,
        time_limit: float = LAYOUT_TIME_LIMIT_SECONDS,
        svg_time_limit: float = SVG_TIME_LIMIT_SECONDS,
        memory_headroom: int = LAYOUT_MEMORY_HEADROOM_BYTES,
        entry: str = LAYOUT_WORKER,
    ) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._time_limit = time_limit
        self._svg_time_limit = svg_time_limit
        self._memory_headroom = memory_headroom
        self._entry = entry
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._ready: WorkerReady | None = None
        self._next_id = 0
        # Wakes a waiting request (interrupt). A socket pair, non-blocking both ends: the
        # GUI thread never waits to write, and any number of wakes is just bytes to drain.
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._wake_writer.setblocking(False)
        self.restarts = 0  # workers killed or found dead and replaced (for tests and figures)

    @property
    def pid(self) -> int | None:
        """The worker's process id (``None`` before it started)."""
        process = self._process
        return None if process is None else process.pid

    @property
    def walls_missing(self) -> tuple[str, ...] | None:
        """What the worker's operating-system wall lacks on this platform, one sentence per
        layer (``None`` until a worker has said it is ready; see :mod:`.layout_worker`)."""
        ready = self._ready
        return None if ready is None else ready.missing

    def start(self) -> None:
        """Start the worker now (it loads Graphviz while the window starts); idempotent."""
        with self._lock:
            self._ensure_started()

    def layout(
        self,
        graph: Graph,
        show_saved: bool,
        cancelled: Callable[[], bool] = never,
        use_dot: bool | None = None,
    ) -> GraphLayout:
        """:func:`~.layout.layout_graph` in the worker (``use_dot`` as there).

        Raises :class:`LayoutUnavailable` (over time, crashed, out of memory, Graphviz
        refused) or :class:`LayoutCancelled` (``cancelled()`` turned true meanwhile).
        """
        sent = layout.layout_input(graph, show_saved)
        value = self._request(
            lambda job_id: LayoutJob(job_id, sent, show_saved, self._time_limit, use_dot),
            self._time_limit,
            cancelled,
        )
        if not isinstance(value, GraphLayout):
            raise TypeError(f"the layout worker answered {type(value).__name__}")
        compact = layout.drawn_compact(graph, show_saved)
        if value.compact is not compact:
            # How the window draws a graph is its own decision: a worker (laying out a
            # stranger's labels in native code) that said "not compact" for 10,000 boxes
            # had the window make all their items before the first picture, and label
            # every edge (red team, round 17).
            value = replace(value, compact=compact)
        return value

    def svg(
        self,
        graph: Graph,
        step: StepRecord | None,
        leaf_grads: Mapping[str, TensorData | None],
        shown_step: StepRecord | None = None,
        cancelled: Callable[[], bool] = never,
        locked_scale: float | None = None,
    ) -> str:
        """:func:`~.svg.render_svg` in the worker; raises like :meth:`layout`."""
        grads = dict(leaf_grads)
        limit = self._svg_time_limit
        value = self._request(
            lambda job_id: SvgJob(job_id, graph, step, grads, shown_step, limit, locked_scale),
            self._svg_time_limit,
            cancelled,
        )
        if not isinstance(value, str):
            raise TypeError(f"the layout worker answered {type(value).__name__}")
        return value

    def interrupt(self) -> None:
        """Make a waiting request check its ``cancelled`` now (any thread, never blocks)."""
        with contextlib.suppress(OSError):  # full: a wake is pending anyway
            self._wake_writer.send(b"!")

    def close(self) -> None:
        """Stop the worker for good (this handle cannot be used afterwards)."""
        with self._lock:
            conn = self._conn
            if conn is not None:
                with contextlib.suppress(OSError):
                    conn.send(None)
            self._stop(wait_seconds=1.0)
            self._wake_reader.close()
            self._wake_writer.close()

    # -- one request ---------------------------------------------------------------------

    def _request(
        self,
        job: Callable[[int], LayoutJob | SvgJob],
        time_limit: float,
        cancelled: Callable[[], bool],
    ) -> GraphLayout | str:
        with self._lock:
            self._drain_wakes()  # wakes meant for earlier requests
            if cancelled():
                raise LayoutCancelled
            self._ensure_started()
            if self._ready is None:
                ready = self._wait_for(None, time.monotonic() + STARTUP_TIMEOUT_SECONDS, cancelled)
                assert isinstance(ready, WorkerReady)
                self._ready = ready
            self._next_id += 1
            assert self._conn is not None
            try:
                self._conn.send(job(self._next_id))
            except OSError as exc:  # it died while idle: a fresh one, and report this one
                raise self._failed(LAYOUT_CRASHED, str(exc)) from exc
            reply = self._wait_for(self._next_id, time.monotonic() + time_limit, cancelled)
            assert isinstance(reply, Reply)
            if reply.retiring:  # it has used its CPU budget: a fresh one warms up meanwhile
                self._restart()
            if isinstance(reply.value, JobFailed):
                raise LayoutUnavailable(_explain(LAYOUT_ERROR, reply.value.message))
            return reply.value

    def _wait_for(
        self, job_id: int | None, deadline: float, cancelled: Callable[[], bool]
    ) -> WorkerReady | Reply:
        """The worker's next message about ``job_id`` (``None``: its ready message).

        Raises :class:`LayoutCancelled` or :class:`LayoutUnavailable`, with the worker
        killed and a fresh one starting.
        """
        conn = self._conn
        assert conn is not None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 and job_id is None:
                raise self._failed(LAYOUT_CRASHED, "it did not start in time")
            if remaining <= 0:
                raise self._failed(LAYOUT_TIMEOUT, "")
            ready = wait([conn, self._wake_reader], remaining)
            if self._wake_reader in ready:
                self._drain_wakes()
                if cancelled():
                    if job_id is not None:  # busy with an outdated graph: stop it now
                        self._restart()
                    raise LayoutCancelled  # still starting: the next request finds it ready
            if conn not in ready:
                continue
            try:
                # Read as carefully as the engine's answers: the graph Graphviz lays out
                # comes from a stranger's program, and its labels reach native code there.
                # An SVG is one long text (the layout worker's pictures go to Qt's SVG
                # renderer, not to a text layout): only its byte size bounds it.
                reply = conn.recv_bytes(MAX_REPLY_BYTES)
                message = wire.loads(reply, LAYOUT_MESSAGES, max_text=None)
            except (EOFError, OSError, pickle.UnpicklingError) as exc:
                raise self._failed(LAYOUT_CRASHED, self._exit_detail() or str(exc)) from exc
            if job_id is None and isinstance(message, WorkerReady):
                return message
            if isinstance(message, Reply) and message.job_id == job_id:
                return message

    def _failed(self, kind: str, detail: str) -> LayoutUnavailable:
        """Replace the worker and say, in plain words, what happened to the request."""
        self._restart()
        return LayoutUnavailable(_explain(kind, detail))

    # -- the worker's life --------------------------------------------------------------

    def _ensure_started(self) -> None:
        process = self._process
        if process is not None and process.is_alive():
            return
        if process is not None:  # found dead between requests: replace it quietly
            self._stop(wait_seconds=0.0)
            self.restarts += 1
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=worker_start.start,
            args=(self._entry, child, self._memory_headroom),
            daemon=True,
            name="autograd-layout",
        )
        with main_module_hidden():  # explore() runs inside a user's script: never re-run it
            process.start()
        child.close()
        self._process, self._conn, self._ready = process, parent, None

    def _restart(self) -> None:
        """Kill the worker and start a fresh one (it warms up while the window goes on)."""
        self._stop(wait_seconds=0.0)
        self.restarts += 1
        self._ensure_started()

    def _stop(self, wait_seconds: float) -> None:
        process, conn = self._process, self._conn
        if process is not None:
            process.join(timeout=wait_seconds)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)
            with contextlib.suppress(ValueError):
                process.close()
        if conn is not None:
            conn.close()
        self._process, self._conn, self._ready = None, None, None

    def _exit_detail(self) -> str:
        """How the worker ended (it has, or is about to: give it a moment)."""
        process = self._process
        if process is None:
            return ""
        process.join(timeout=1.0)
        code = process.exitcode
        if code is None:
            return ""
        if code < 0:
            return f"it was stopped by signal {-code}"
        return f"it exited with status {code}"

    def _drain_wakes(self) -> None:
        with contextlib.suppress(OSError):  # BlockingIOError: nothing (more) to read
            while self._wake_reader.recv(4096):
                pass


def _explain(kind: str, detail: str) -> Explanation:
    if kind == LAYOUT_TIMEOUT:
        return Explanation(
            kind=kind,
            message="Graphviz took too long to lay out this graph, so it was stopped.",
            explanation="The graph is not drawn; every number in the other panels is still "
            "right. Graphs with many boxes, or tensors reused across many loop iterations, "
            "take Graphviz a long time to place.",
            fix="Make the graph smaller: fewer loop iterations or fewer layers.",
            severity="warning",
        )
    if kind == LAYOUT_CRASHED:
        return Explanation(
            kind=kind,
            message="The process that lays the graph out (Graphviz) stopped"
            + (f": {detail}." if detail else "."),
            explanation="Graphviz crashed or ran out of the memory it may use while placing "
            "this graph. It has been restarted; the graph is not drawn, and every number in "
            "the other panels is still right.",
            fix="Make the graph smaller, or change the code and run again.",
            severity="warning",
        )
    return Explanation(
        kind=LAYOUT_ERROR,
        message=detail,
        explanation="Graphviz could not lay out this graph, so it is not drawn.",
        fix="Simplify the program; the numbers in the other panels are still right.",
        severity="warning",
    )


@functools.cache
def shared_layout_process() -> LayoutProcess:
    """The one layout worker of this process, started at first use."""
    process = unstarted_layout_process()
    process.start()
    return process


@functools.cache
def unstarted_layout_process() -> LayoutProcess:
    """The same worker as :func:`shared_layout_process`, not started yet: its first request
    or :meth:`LayoutProcess.start` starts it. The window starts it once it has shown itself,
    so loading Graphviz does not compete with Qt and torch for the machine's first second
    (the first layout is needed only when the engine's first result is back)."""
    return LayoutProcess()
