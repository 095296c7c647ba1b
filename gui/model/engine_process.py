"""The GUI process's handle on the engine: a child process that runs programs with torch.

:class:`EngineProcess` owns one child (:mod:`gui.model.engine.worker`), started with
``spawn``. Each request is checked here first (refused code never reaches the child), then
sent as a numbered :class:`~gui.model.request.Job`. Where the child forks a walled-in copy
of itself per run, it also enforces the time limit and answers for a run it had to stop or
that crashed; this side only waits, with a margin. Where it cannot (no ``fork``), or when
the child does not answer at all, this side kills the child, reports the run as stopped and
starts a fresh child in the background. This module never imports torch or the engine,
and loads the error explanations (numpy, the rule tables) only when it first needs one: the
app starts the child before anything else (:mod:`gui.app`), and every moment before the
child exists is added to the wait for the first result.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import multiprocessing
import pickle
import secrets
import sys
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from gui.model import safety, wire
from gui.model.request import Job, NewProgram, RunRequest, StopJob, SweepRequest
from gui.model.result import (
    Answer,
    EngineReady,
    EngineResult,
    Explanation,
    Fresh,
    RunResult,
    SweepResult,
    failed_result,
    failed_sweep,
)

STARTUP_TIMEOUT_SECONDS = 120.0
# When the child enforces time limits itself, how much longer this side waits before it
# decides the child is stuck: forking the next copy and unpickling take a moment.
ANSWER_MARGIN_SECONDS = 5.0
# How long a child that was asked to stop a run may take to say it did.
STOP_MARGIN_SECONDS = 5.0
# The most one message from the engine may hold (a result is cut to 3 MB before it is
# sent), and how long reading one may take once it has begun to arrive.
MAX_MESSAGE_BYTES = 64 * 1024**2
READ_TIMEOUT_SECONDS = 10.0


@functools.lru_cache(maxsize=64)
def refusal(code: str) -> Explanation | None:
    """Why ``code`` may not run, or ``None`` if it passes the safety checks.

    Cached: a slider drag sends the same code hundreds of times, and the check is a full
    AST walk (about a millisecond).
    """
    try:
        safety.check_source(code)
    except safety.CodeRefused as refused:
        from gui.model import explain

        return explain.explain_refusal(
            refused.message,
            refused.construct,
            line=refused.line,
            column=refused.column,
            kind=refused.kind,
        )
    return None


def explain_crash(detail: str) -> Explanation:
    """The engine's process failed, in plain words."""
    from gui.model.explain import explain_engine_crash

    return explain_engine_crash(detail)


def explain_refused_answer(exc: Exception) -> Explanation:
    """The engine answered, but the window's reader (:mod:`gui.model.wire`) refused what
    the answer held: the program is not at fault, and the engine was replaced."""
    return Explanation(
        kind="engine-crashed",
        message=f"The window refused the engine's answer: {exc}.",
        explanation="The engine ran your code, but its answer held something the window "
        "does not read, so the window stopped that engine and started a fresh one. This is "
        "a gap in Autograd Explorer, not a mistake in your code.",
        fix="Please report it with your code. To go on, change the line that makes the "
        "unusual value the message names.",
    )


# The child's main module, named rather than imported: the GUI process never loads the
# engine package (nor torch); only the child does.
ENGINE_WORKER = "gui.model.engine.worker"


def _child_main(conn: Connection, control: Connection) -> None:
    # No collections while the engine and torch load (the worker turns them back on).
    gc.disable()
    try:
        importlib.import_module(ENGINE_WORKER).serve(conn, control)
    except (ImportError, MemoryError, OSError) as exc:
        # torch cannot load here (a broken install, too little memory): say so in one line
        # to the window, which shows it, instead of a traceback on the terminal.
        with contextlib.suppress(OSError):
            conn.send(f"the engine could not start: {type(exc).__name__}: {exc}")
        sys.exit(3)
    finally:
        gc.enable()


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
        self._control: Connection | None = None
        self._ready: EngineReady | None = None
        self._next_id = 0
        # The code of the last job sent, and the nonce of the server's Fresh still awaited
        # after a new program (see _send).
        self._program: str | None = None
        self._fresh: int | None = None
        self._watchdog = ReadWatchdog(READ_TIMEOUT_SECONDS)

    @property
    def ready(self) -> EngineReady | None:
        """What the child said when it came up (isolation, walls), once it has."""
        return self._ready

    def start(self) -> None:
        """Start the child now (it imports torch, which takes a moment); idempotent."""
        with self._lock:
            self._ensure_started()

    def _ensure_started(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        parent, child = self._context.Pipe()
        control_read, control_write = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_child_main, args=(child, control_read), daemon=True, name="autograd-engine"
        )
        process.start()
        child.close()
        control_read.close()
        self._process, self._conn, self._control = process, parent, control_write
        self._ready = None

    def _wait_ready(self) -> EngineReady:
        assert self._conn is not None
        if self._ready is not None:
            return self._ready
        if not self._conn.poll(STARTUP_TIMEOUT_SECONDS):
            raise RuntimeError("the engine process did not start")
        message = self._receive()
        if isinstance(message, str):
            raise RuntimeError(message)
        if not isinstance(message, EngineReady):
            raise RuntimeError(f"unexpected message from the engine process: {message!r}")
        self._ready = message
        return message

    def run(self, request: RunRequest) -> RunResult:
        """Run ``request`` with its time limit; never raises for problems in the user's code."""
        result = self._exchange(request)
        if isinstance(result, RunResult):
            return result
        return failed_result(explain_crash("The engine answered a run with a sweep."))

    def sweep(self, request: SweepRequest) -> SweepResult:
        """Run a sweep (the function view's curves) within its time limit, as one job."""
        result = self._exchange(request)
        if isinstance(result, SweepResult):
            return result
        # Stopped, crashed or refused before it ran: the engine said why, as a run.
        return failed_sweep(request.leaf, request.index, result.error)

    def _exchange(self, request: RunRequest | SweepRequest) -> EngineResult:
        """Send ``request`` as a job and wait for its answer, within its time limit; a
        failure of the engine (or code refused before it is sent) comes back as a run."""
        seed = request.program.seed
        refused = refusal(request.program.code)
        if refused is not None:
            return failed_result(refused, seed=seed)
        with self._lock:
            self._ensure_started()
            try:
                ready = self._wait_ready()
            except (EOFError, OSError, RuntimeError, pickle.UnpicklingError) as exc:
                self._kill()
                return failed_result(explain_crash(str(exc)), seed=seed)
            self._next_id += 1
            job = Job(self._next_id, request)
            started = time.monotonic()
            enforced = ready.isolation == "fork"
            # The first process of an engine hands a program it refuses to a warm one,
            # which runs it again from the start (see engine.fork_server): twice the limit.
            margin = ANSWER_MARGIN_SECONDS + request.time_limit if enforced else 0.0
            try:
                self._send(job, enforced)
                answer = self._answer(job, started + request.time_limit + margin)
                if answer is None and enforced:
                    assert self._control is not None
                    self._control.send(StopJob(job.run_id))
                    answer = self._answer(job, time.monotonic() + STOP_MARGIN_SECONDS)
            except (EOFError, OSError):
                self._kill()
                return failed_result(
                    explain_crash("The engine process ended unexpectedly."),
                    seed=seed,
                )
            except (pickle.UnpicklingError, AttributeError, TypeError) as exc:
                # The answer came but the window's reader refused it: said as it is (a
                # value the reader does not take yet is a bug to report, not a crash).
                self._kill()
                return failed_result(explain_refused_answer(exc), seed=seed)
            if answer is not None:
                return answer.result
            elapsed = time.monotonic() - started
            self._kill()
            self._ensure_started()  # warm a fresh child for the next request
            from gui.model.explain import explain_runaway

            runaway = explain_runaway("time", seconds=request.time_limit)
            return failed_result(runaway, seed=seed, elapsed=elapsed)

    def _send(self, job: Job, enforced: bool) -> None:
        """Send ``job``: to the process that runs the current program, or, when it is a
        new program and each gets its own process, to the server (see
        :class:`~gui.model.request.NewProgram`), never where the last one reads."""
        assert self._conn is not None
        code = job.request.program.code
        if enforced and self._program is not None and code != self._program:
            assert self._control is not None
            self._fresh = secrets.randbits(62)
            self._control.send(NewProgram(job, self._fresh))
        else:
            self._conn.send(job)
        self._program = code

    def _answer(self, job: Job, deadline: float) -> Answer | None:
        """The answer to ``job``, skipping late answers to earlier jobs and, after a new
        program was sent, everything before the server's :class:`Fresh` (the last program's
        process could have written it); ``None`` at the deadline."""
        assert self._conn is not None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._conn.poll(remaining):
                return None
            message = self._receive()
            if self._fresh is not None:
                if isinstance(message, Fresh) and message.nonce == self._fresh:
                    self._fresh = None
                continue
            if isinstance(message, Answer) and message.run_id == job.run_id:
                if not isinstance(message.result, RunResult | SweepResult):
                    raise TypeError("the engine answered something that is not a result")
                return message

    def _receive(self) -> object:
        """The next message (``poll`` said one is coming), read with the careful reader.

        Bounded by :data:`MAX_MESSAGE_BYTES` (past it: ``OSError``), and by the watchdog: a
        sender that stops halfway through a message (only a program past the Python wall
        could make the engine do that) would hold this read forever, so the engine's
        process is killed and the read ends.
        """
        assert self._conn is not None
        self._watchdog.watch(self._process)
        try:
            data = self._conn.recv_bytes(MAX_MESSAGE_BYTES)
        finally:
            self._watchdog.watch(None)
        return wire.loads(data)

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(timeout=5)
        for end in (self._conn, self._control):
            if end is not None:
                end.close()
        self._process, self._conn, self._control, self._ready = None, None, None, None
        self._program, self._fresh = None, None

    def close(self) -> None:
        """Stop the child process."""
        with self._lock:
            process = self._process
            if process is not None and process.is_alive():
                for end in (self._control, self._conn):
                    with contextlib.suppress(OSError):
                        if end is not None:
                            end.send(None)
                process.join(timeout=2)
            self._kill()
            self._watchdog.stop()


class ReadWatchdog:
    """Kills the engine's process when one read of a message lasts over ``limit`` seconds.

    One thread per engine (from its first read until :meth:`stop`), waking a few times a
    second; a read costs two attribute writes. Killing the engine's process (its copies
    die with it) closes every other end of the pipe, so the blocked read ends with
    ``EOFError``.
    """

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self._watched: tuple[float, BaseProcess] | None = None
        self._stopped: threading.Event | None = None

    def watch(self, process: BaseProcess | None) -> None:
        """Watch a read from ``process`` starting now; ``None``: the read is over."""
        self._watched = None if process is None else (time.monotonic(), process)
        if process is not None and self._stopped is None:
            self._stopped = threading.Event()
            threading.Thread(
                target=self._serve, args=(self._stopped,), name="engine-read-watchdog", daemon=True
            ).start()

    def stop(self) -> None:
        """End the thread (a later read starts another)."""
        if self._stopped is not None:
            self._stopped.set()
            self._stopped = None

    def _serve(self, stopped: threading.Event) -> None:
        while not stopped.wait(min(0.5, self.limit / 4)):
            watched = self._watched
            if watched is not None and time.monotonic() - watched[0] > self.limit:
                with contextlib.suppress(Exception):
                    watched[1].kill()
