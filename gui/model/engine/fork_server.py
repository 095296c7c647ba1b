"""A fresh, walled-in copy of the engine's process for every program.

The engine's process (the *server*) imports torch once and then never runs a learner's
program. It forks *spares*: copies of itself that warm up (so the memory they touch is
already theirs), apply the operating-system wall (:mod:`gui.model.os_wall`) and wait for orders.

- The *owner* is the one spare that reads jobs from the GUI's connection. It runs a job,
  sends its answer straight to the GUI, puts every process-wide setting back
  (:mod:`.pristine`) and waits for the next job. A slider drag re-runs the same program
  many times a second, so the owner keeps serving jobs of **the same code**: a fork per run
  would cost more than the whole tick (see ``benchmarks/engine_speed.py``).
- A job with **different code** goes to a fresh process. The window sends it to the
  server on the control pipe (:class:`~gui.model.request.NewProgram`), never where the
  owner reads: the server kills the owner, tells the window :class:`~gui.model.result.Fresh`
  (what came before it on the pipe may be the old owner's), and the *standby* (a spare
  forked ahead of time) takes the job and becomes the owner. An owner that reads a job of
  other code anyway hands it back and exits. So a program never runs in a process that
  another program ran in, nor reads another's job: whatever one program changed (gradients
  off, a default dtype, memory it filled, even the engine's own code past the Python wall)
  cannot reach another.
- An owner also retires after :data:`MAX_RUNS_PER_PROCESS` runs or when its memory grew by
  :data:`MAX_GROWTH_BYTES`, and after a run that ran out of memory.

The server watches the owner: past a job's time limit it kills it and answers for it; an
owner that dies without answering (a crash inside a library, the kernel's OOM killer) is
answered for too; then the standby takes over. Only the owner reads the connection and the
GUI sends a job only after the previous one's answer, so the connection is never read or
written by two processes at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import pickle
import resource
import signal
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from gui.model import explain, wire
from gui.model import os_wall as os_wall_module
from gui.model import request as request_module
from gui.model import result as result_module
from gui.model.engine import allowlist as allowlist_module
from gui.model.engine import pristine
from gui.model.engine.jobs import (
    MEMORY_HEADROOM_BYTES,
    answer,
    answer_data,
    internal_error,
    warm_up,
    warm_up_the_rest,
)
from gui.model.os_wall import WallReport, apply_os_wall
from gui.model.paused_collector import collector_paused
from gui.model.request import Job, NewProgram, StopJob
from gui.model.result import (
    Answer,
    EngineReady,
    EngineResult,
    Explanation,
    Fresh,
    failed_result,
)

# A spare that fails this many times in a row (before taking any job) means the sandbox
# cannot start here: the server then answers every job with the reason instead.
MAX_SPARE_FAILURES = 3
# An owner serves at most this many runs of one program, and retires once its peak memory
# grew by this much: long drags stay fast and memory stays bounded.
MAX_RUNS_PER_PROCESS = 1000
MAX_GROWTH_BYTES = 512 * 1024**2
# Errors after which the process is not trusted to serve again (memory may be exhausted).
RETIRING_ERRORS = frozenset({"runaway-code", "engine-error", "engine-crashed"})
_PR_SET_PDEATHSIG = 1
# An owner that has not said "idle" this long after it started answering is stopped: only
# the program's code could keep it (a finaliser that runs in the clean-up after the answer).
AFTER_ANSWER_SECONDS = 2.0


@dataclass
class _Spare:
    """One forked copy, as the server sees it."""

    pid: int
    notes: Connection  # what the spare tells the server; EOF once it has exited
    orders: Connection  # what the server tells it: ("own",) or ("job", Job)
    ready: bool = False
    run_id: int | None = None  # the job it is running, if any
    seed: int = 0
    started: float = 0.0
    time_limit: float = 0.0
    answering: bool = False
    answered: float = 0.0  # when it started answering
    # The job, told only by the first owner (forked before the server finished warming
    # up): should it run out of time, a warm process runs it again (see _stop_owner).
    job: Job | None = None

    @property
    def deadline(self) -> float | None:
        if self.run_id is None:
            return None
        if self.answering:  # sending the answer and cleaning up: nothing of the program's
            return self.answered + AFTER_ANSWER_SECONDS
        return self.started + self.time_limit


class ForkServer:
    """Runs jobs in forked spares; see the module docstring."""

    def __init__(self, conn: Connection, control: Connection) -> None:
        self._conn = conn
        self._control = control
        self._owner: _Spare | None = None
        self._standby: _Spare | None = None
        self._handed_back: Job | None = None  # a job waiting for the standby to be ready
        self._failures = 0
        self._broken: str | None = None  # why spares cannot start, once that is clear
        self._report: WallReport | None = None
        # Whether this process finished warming up (:func:`.jobs.warm_up_the_rest`): only
        # the first spare is forked before, so the window's first result does not wait.
        self._warm = False

    # -- the server's loop -------------------------------------------------------------

    def serve(self) -> None:
        """Announce the engine, then serve until the GUI says stop or goes away."""
        self._refork()
        while self._owner is None and self._broken is None:
            if self._standby is None:
                self._refork()
            else:
                self._handle(self._standby.notes)
        self._conn.send(_ready(self._report))
        self._warm_up_the_rest()
        while self._step():
            pass
        self._shutdown()

    def _warm_up_the_rest(self) -> None:
        """Finish warming up while the first owner serves the window's first run, then fork
        the standby from the warm process. The first owner stays cold: a program it refuses
        is handed to a warm process (see :meth:`_Owner.serve`)."""
        # Should it fail, the list counts as complete all the same: optimizers stay refused,
        # and a refused program is never handed on again (no loop).
        with contextlib.suppress(Exception):
            warm_up_the_rest()
        gc.freeze()  # what warming made lives as long as the process too
        self._warm = True
        self._refork()

    def _step(self) -> bool:
        """Wait for one event and handle it; ``False`` when it is time to stop."""
        watched = [self._control]
        watched += [s.notes for s in (self._owner, self._standby) if s is not None]
        if self._broken is not None:
            watched.append(self._conn)
        deadline = self._owner.deadline if self._owner is not None else None
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready = wait(watched, timeout)
        if not ready:
            self._stop_owner(out_of_time=True)
            return True
        for source in ready:
            if source is self._control and not self._on_control():
                return False
            if source is self._conn and not self._answer_broken():
                return False
            if isinstance(source, Connection) and source is not self._control:
                self._handle(source)
        return True

    def _handle(self, notes: object) -> None:
        """A note from the owner or the standby (or the end of one of them)."""
        for spare in (self._owner, self._standby):
            if spare is not None and spare.notes is notes:
                note = _read_note(spare.notes)
                if note is MALFORMED:
                    # Only a program past the Python wall writes anything else: the process
                    # is stopped and handled as one that ended without saying why.
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(spare.pid, signal.SIGKILL)
                    note = None
                if spare is self._owner:
                    self._on_owner_note(spare, note)
                else:
                    self._on_standby_note(spare, note)
                return

    def _on_control(self) -> bool:
        message = _receive(self._control)
        if isinstance(message, StopJob):
            owner = self._owner
            if owner is not None and owner.run_id == message.run_id:
                self._stop_owner()
            return True
        if isinstance(message, NewProgram):
            self._new_program(message)
            return True
        return False  # None (stop) or the GUI went away (EOF)

    def _new_program(self, order: NewProgram) -> None:
        """A job of new code: the process that ran the last program goes first (it could
        read the window's pipe), then the window hears :class:`Fresh` and the standby runs
        the job (see :class:`~gui.model.request.NewProgram`)."""
        owner = self._owner
        if owner is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(owner.pid, signal.SIGKILL)
            _reap(owner)  # the window had its answer: it sends a job only after one
            self._owner = None
        with contextlib.suppress(OSError):
            self._conn.send(Fresh(order.nonce))
        if self._broken is not None:
            self._answer_job_broken(order.job)
            return
        self._handed_back = order.job
        self._refork()
        self._promote()

    def _on_owner_note(self, owner: _Spare, note: object) -> None:
        kind = note[0] if isinstance(note, tuple) and note else None
        if kind == "took":
            _, owner.run_id, owner.time_limit, owner.seed, owner.job = note  # type: ignore[misc]
            owner.started = time.monotonic()
            owner.answering = False
        elif kind == "answering":
            owner.answering = True
            owner.answered = time.monotonic()
        elif kind == "idle":
            owner.run_id, owner.job = None, None
        elif kind == "handoff":
            self._handed_back = note[1]  # type: ignore[index]
            self._retire_owner()
        elif kind == "retired":
            self._retire_owner()
        else:  # EOF: it exited without saying why (crash, OOM killer, or killed)
            status = _reap(owner)
            self._owner = None
            if owner.run_id is not None and not owner.answering:
                self._answer_for(owner, _crashed(status))
            self._promote()

    def _on_standby_note(self, standby: _Spare, note: object) -> None:
        if isinstance(note, tuple) and note and note[0] == "ready":
            standby.ready = True
            self._failures = 0
            if self._report is None and isinstance(note[1], WallReport):
                self._report = note[1]
            if self._owner is None:
                self._promote()
            return
        _reap(standby)
        self._standby = None
        self._failures += 1
        if self._failures >= MAX_SPARE_FAILURES:
            detail = note[1] if isinstance(note, tuple) and len(note) > 1 else "it exited"
            self._broken = str(detail)
            return
        self._refork()

    def _retire_owner(self) -> None:
        """The owner is leaving on its own (it said so): wait for it and promote."""
        owner = self._owner
        if owner is not None:
            _reap(owner)
        self._owner = None
        self._promote()

    def _promote(self) -> None:
        """The ready standby becomes the owner (with the handed-back job, if any)."""
        standby = self._standby
        if self._owner is not None or standby is None or not standby.ready:
            return
        order = ("job", self._handed_back) if self._handed_back is not None else ("own",)
        self._handed_back = None
        try:
            standby.orders.send(order)
        except OSError:
            return  # it died meanwhile; its EOF note is on its way
        self._owner, self._standby = standby, None
        self._refork()

    def _refork(self) -> None:
        # Before warming is done, only the first owner is forked (cold, so the window's
        # first result comes sooner); the standby waits for the warm process.
        cold_allowed = self._owner is None
        if self._standby is None and self._broken is None and (self._warm or cold_allowed):
            self._standby = self._fork_spare()

    def _stop_owner(self, out_of_time: bool = False) -> None:
        """Kill the owner (over its time, or asked to) and answer for its job.

        The first owner is forked before the server finished warming up: the first time
        a program of it uses what was left for later (a backward seeded with a given
        gradient imports sympy, 0.3-0.5 s), that is charged to its time. A job of it that
        runs out of time is not answered as runaway: a warm process runs it again, with
        its whole time limit (the window waits up to twice the limit for this).
        """
        owner = self._owner
        if owner is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(owner.pid, signal.SIGKILL)
        _reap(owner)
        self._owner = None
        if owner.run_id is not None and not owner.answering:
            if out_of_time and owner.job is not None and self._warm:
                self._handed_back = owner.job
            else:
                self._answer_for(owner, explain.explain_runaway("time", seconds=owner.time_limit))
        self._promote()

    def _answer_for(self, spare: _Spare, error: Explanation) -> None:
        assert spare.run_id is not None
        elapsed = time.monotonic() - spare.started
        result = failed_result(error, seed=spare.seed, elapsed=elapsed)
        with contextlib.suppress(OSError):
            self._conn.send(Answer(spare.run_id, result))

    def _answer_broken(self) -> bool:
        """No spare can start: answer the job with the reason instead of running it."""
        job = _receive(self._conn)
        if not isinstance(job, Job):
            return False
        self._answer_job_broken(job)
        return True

    def _answer_job_broken(self, job: Job) -> None:
        why = RuntimeError(f"the sandbox for programs cannot start: {self._broken}")
        result = failed_result(internal_error(why), seed=job.request.program.seed)
        with contextlib.suppress(OSError):
            self._conn.send(Answer(job.run_id, result))

    def _shutdown(self) -> None:
        for spare in (self._owner, self._standby):
            if spare is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(spare.pid, signal.SIGKILL)
                _reap(spare)

    # -- the spare's side ----------------------------------------------------------------

    def _fork_spare(self) -> _Spare:
        notes_read, notes_write = os.pipe()
        orders_read, orders_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the spare: never returns into the server's loop
            status = 1
            try:
                os.close(notes_read)
                os.close(orders_write)
                notes = Connection(notes_write, readable=False)
                orders = Connection(orders_read, writable=False)
                status = self._be_spare(notes, orders)
            finally:
                os._exit(status)
        os.close(notes_write)
        os.close(orders_read)
        return _Spare(
            pid, Connection(notes_read, writable=False), Connection(orders_write, readable=False)
        )

    def _be_spare(self, notes: Connection, orders: Connection) -> int:
        """Prepare, wait for orders, then serve jobs of one program; the exit status."""
        server = os.getppid()
        self._control.close()  # only the server listens to the GUI's commands
        for other in (self._owner, self._standby):
            if other is not None:
                other.notes.close()
                other.orders.close()
        try:
            _die_with(server)
            warm_up()
            baseline = pristine.capture()
            gc.collect()
            report = apply_os_wall(MEMORY_HEADROOM_BYTES)
            notes.send(("ready", report))
        except BaseException as exc:  # report why, so the server can tell the user
            with contextlib.suppress(Exception):
                notes.send(("failed", f"{type(exc).__name__}: {exc}"))
            return 3
        order = _receive(orders)
        if not isinstance(order, tuple) or not order:
            return 0
        job = order[1] if order[0] == "job" and isinstance(order[1], Job) else None
        return _Owner(self._conn, notes, baseline).serve(job)


class _Owner:
    """A spare's life as the owner: jobs of one program, each from pristine settings."""

    def __init__(self, conn: Connection, notes: Connection, baseline: pristine.Settings):
        self._conn = conn
        self._notes = notes
        self._baseline = baseline
        self._code: str | None = None
        self._runs = 0
        self._peak = _peak_memory()
        # Forked before the server finished warming up (the first owner): it lacks the
        # optimizers' part of the allowlist and the seeded backward's imports.
        self._cold = not allowlist_module.allowlist().is_complete

    def serve(self, job: Job | None) -> int:
        # The run's garbage is collected as it goes (everything older is frozen, so a
        # collection only looks at what the run made).
        gc.enable()
        while True:
            if job is None:
                job = _receive(self._conn)  # type: ignore[assignment]
                if not isinstance(job, Job):
                    return 0  # the GUI is closing
                if self._code is not None and job.request.program.code != self._code:
                    self._notes.send(("handoff", job))  # a new program gets a new process
                    return 0
            request = job.request
            told = job if self._cold else None  # run again warm if it runs out of time
            self._notes.send(("took", job.run_id, request.time_limit, request.program.seed, told))
            result = answer(request)
            if _refused(result) and self._cold:
                # Lacking part of the allowlist (optimizers), this process leaves the
                # verdict to a warm one, so no result depends on which process ran it.
                self._notes.send(("handoff", job))
                return 0
            # Pickled before the collection below, and let go (freed as it is counted, it
            # holds no cycle): a big graph's result is a hundred thousand objects the
            # collection would otherwise walk (80 ms at 5,000 nodes) while the window waits
            # for them; and none walks them while they are pickled (50 ms).
            with collector_paused():
                data = answer_data(job, result)
                error = result.error
                del result
            # The program's leftovers go now, under its time limit: a reference cycle (its
            # namespace, through its functions' globals) can hold a suspended generator
            # whose `finally` is the program's code too.
            gc.collect()
            self._notes.send(("answering",))
            self._conn.send_bytes(data)
            self._code, self._runs, job = request.program.code, self._runs + 1, None
            # Off the tick's path: the GUI is drawing the answer meanwhile.
            pristine.restore(self._baseline)
            gc.collect()
            # What survives lives on with the process (modules a run imported: a first
            # seeded backward imports sympy, 100,000 objects): out of the collector's sight,
            # so the next run's collections look only at what that run makes. Without it
            # every tick of the first owner walked sympy twice (+30 ms).
            gc.freeze()
            if self._should_retire(error):
                self._notes.send(("retired",))
                return 0
            self._notes.send(("idle",))

    def _should_retire(self, error: Explanation | None) -> bool:
        if error is not None and error.kind in RETIRING_ERRORS:
            return True
        if pristine.capture() != self._baseline:
            # Something of the program still ran after its answer (a finaliser made by a
            # finaliser): this process is no longer the same for the next run.
            return True
        grown = _peak_memory() - self._peak
        return self._runs >= MAX_RUNS_PER_PROCESS or grown > MAX_GROWTH_BYTES


def _refused(result: EngineResult) -> bool:
    """Whether the program was refused (by the checks before it ran or the guard in it)."""
    return result.error is not None and result.error.kind == "unsafe-code"


def _ready(report: WallReport | None) -> EngineReady:
    if report is None:
        return EngineReady(isolation="fork", missing=("operating-system sandbox",))
    walls = []
    if report.landlock_abi is not None:
        walls.append(f"landlock ABI {report.landlock_abi}")
    if report.seccomp:
        walls.append("seccomp")
    walls += [name for name, _ in report.rlimits]
    return EngineReady(isolation="fork", walls=tuple(walls), missing=report.missing)


def _receive(source: Connection) -> object:
    """The next message from a trusted side (the window, or the server for a spare), or
    ``None`` when the other side has gone (EOF or a broken pipe)."""
    try:
        return source.recv()
    except (EOFError, OSError):
        return None


# A note that is not one a spare sends: its process ran a program that got past the
# Python wall. Never unpickled with ``pickle`` (see :func:`_read_note`).
MALFORMED = object()
# The messages a note may hold: jobs handed back, and what a spare reports of its walls.
NOTE_MESSAGES = (request_module, result_module, os_wall_module)
# A note holds at most a job (its code and values): far less than this.
MAX_NOTE_BYTES = 64 * 1024**2


def _read_note(source: Connection) -> object:
    """The next note of a spare, ``None`` when it has gone, or :data:`MALFORMED`.

    A spare's notes pipe stays open while it runs programs, so a program that got past
    the Python wall could write on it. The server is outside the operating-system wall:
    it reads the bytes with the window's careful reader (:func:`gui.model.wire.loads`,
    which builds only these message classes and plain data) and accepts only the notes
    a spare sends, with fields of the right types.
    """
    try:
        data = source.recv_bytes(MAX_NOTE_BYTES)
    except EOFError:
        return None
    except OSError:  # too long (or a broken pipe: the spare is gone, killing it is harmless)
        return MALFORMED
    try:
        # (No bound on texts: a job handed back holds the program's code, of any length,
        # and nothing here lays text out.)
        note = wire.loads(data, NOTE_MESSAGES, max_text=None)
    except pickle.UnpicklingError:
        return MALFORMED
    return note if _is_note(note) else MALFORMED


def _is_note(note: object) -> bool:
    if type(note) is not tuple or not note or type(note[0]) is not str:
        return False
    kind, fields = note[0], note[1:]
    if kind in ("answering", "idle", "retired"):
        return not fields
    if kind == "took":
        return (
            len(fields) == 4
            and type(fields[0]) is int
            and type(fields[1]) in (int, float)
            and type(fields[2]) is int
            and (fields[3] is None or isinstance(fields[3], Job))
        )
    if kind == "handoff":
        return len(fields) == 1 and isinstance(fields[0], Job)
    if kind == "ready":
        return len(fields) == 1 and isinstance(fields[0], WallReport)
    if kind == "failed":
        return len(fields) == 1 and type(fields[0]) is str
    return False


def _reap(spare: _Spare) -> int:
    """Wait for ``spare`` to end and close its pipes; its wait status (0 = clean exit)."""
    spare.notes.close()
    spare.orders.close()
    try:
        _, status = os.waitpid(spare.pid, 0)
    except ChildProcessError:
        return 0
    return status


def _peak_memory() -> int:
    """This process's peak resident memory, in bytes (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if os.uname().sysname == "Darwin" else peak * 1024


def _crashed(status: int) -> Explanation:
    if os.WIFSIGNALED(status):
        how = f"it was stopped by signal {signal.Signals(os.WTERMSIG(status)).name}"
    elif os.WIFEXITED(status):
        how = f"it exited with status {os.WEXITSTATUS(status)}"
    else:
        how = f"it ended with wait status {status}"
    return explain.explain_engine_crash(f"The process that ran the program ended early: {how}.")


def _die_with(server: int) -> None:
    """Be killed when the server dies (Linux), so no orphan keeps running a program."""
    libc = ctypes.CDLL(None, use_errno=True)  # the C library the interpreter runs on
    if hasattr(libc, "prctl"):
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != server:  # the server died before the line above took effect
        os._exit(0)
