"""Run programs in a child process that can be killed: the app's guard against runaway code.

:class:`EngineProcess` owns one child (:mod:`gui.model.engine.worker`). Each request is checked
here first (refused code never reaches the child), then sent; if no answer comes within the
request's time limit the child is killed, the run is reported as stopped, and a fresh child
starts in the background for the next request. This module never imports torch.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import multiprocessing
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from gui.model import explain, safety
from gui.model.request import RunRequest, failed_result
from gui.model.result import Explanation, RunResult

STARTUP_TIMEOUT_SECONDS = 120.0


@functools.lru_cache(maxsize=64)
def refusal(code: str) -> Explanation | None:
    """Why ``code`` may not run, or ``None`` if it passes the safety checks.

    Cached: a slider drag sends the same code hundreds of times, and the check is a full
    AST walk (about a millisecond).
    """
    try:
        safety.check_source(code)
    except safety.CodeRefused as refused:
        return explain.explain_refusal(
            refused.message,
            refused.construct,
            line=refused.line,
            column=refused.column,
            kind=refused.kind,
        )
    return None


# The child's main module, named rather than imported: the GUI process never loads the
# engine package (nor torch); only the child does.
ENGINE_WORKER = "gui.model.engine.worker"


def _child_main(conn: Connection) -> None:
    importlib.import_module(ENGINE_WORKER).serve(conn)


class EngineProcess:
    """One killable child process that runs :class:`RunRequest` objects.

    Thread-safe: requests are serialised with a lock, so a GUI may call :meth:`run` from a
    worker thread while the main thread stays responsive.
    """

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._ready = False

    def start(self) -> None:
        """Start the child now (it imports torch, which takes a moment); idempotent."""
        with self._lock:
            self._ensure_started()

    def _ensure_started(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        parent, child = self._context.Pipe()
        process = self._context.Process(
            target=_child_main, args=(child,), daemon=True, name="autograd-engine"
        )
        process.start()
        child.close()
        self._process, self._conn, self._ready = process, parent, False

    def _wait_ready(self) -> None:
        assert self._conn is not None
        if self._ready:
            return
        if not self._conn.poll(STARTUP_TIMEOUT_SECONDS):
            raise RuntimeError("the engine process did not start")
        message = self._conn.recv()
        if message != "ready":
            raise RuntimeError(f"unexpected message from the engine process: {message!r}")
        self._ready = True

    def run(self, request: RunRequest) -> RunResult:
        """Run ``request`` with its time limit; never raises for problems in the user's code."""
        refused = refusal(request.program.code)
        if refused is not None:
            return failed_result(request, refused)
        with self._lock:
            self._ensure_started()
            try:
                self._wait_ready()
            except (EOFError, OSError, RuntimeError) as exc:
                self._kill()
                return failed_result(request, _crashed(str(exc)))
            assert self._conn is not None
            started = time.perf_counter()
            try:
                self._conn.send(request)
                if self._conn.poll(request.time_limit):
                    result: RunResult = self._conn.recv()
                    return result
            except (EOFError, OSError):
                self._kill()
                return failed_result(request, _crashed("the engine process ended unexpectedly"))
            elapsed = time.perf_counter() - started
            self._kill()
            self._ensure_started()  # warm a fresh child for the next request
            return failed_result(request, explain.explain_runaway("time", seconds=elapsed), elapsed)

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._process, self._conn, self._ready = None, None, False

    def close(self) -> None:
        """Stop the child process."""
        with self._lock:
            if self._conn is not None and self._process is not None and self._process.is_alive():
                with contextlib.suppress(OSError):
                    self._conn.send(None)
                self._process.join(timeout=2)
            self._kill()


def _crashed(detail: str) -> Explanation:
    return Explanation(
        kind="engine-crashed",
        message=detail,
        explanation="The process that runs your code stopped without answering "
        "(it may have crashed inside a library).",
        fix="Run again; if it keeps happening, simplify the program to find the line "
        "that causes it.",
    )
