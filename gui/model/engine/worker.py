"""The engine's child process: imports torch once, then runs each program in a pristine copy.

The GUI process starts this module's :func:`serve` (see :mod:`gui.model.engine_process`).
It imports torch, warms it up and then never runs a learner's program itself: on Linux and
macOS it forks a *spare* for each run (:mod:`gui.model.engine.fork_server`), so every
program starts from the same untouched state and leaves nothing behind for the next one,
and the spare walls itself in (:mod:`gui.model.os_wall`) before it reads the program.
Where ``fork`` is missing (Windows) it runs programs itself and puts every process-wide
setting back after each one (:mod:`gui.model.engine.pristine`); that mode is weaker and says
so in its :class:`~gui.model.result.EngineReady` message.

Messages (all pickled through ``multiprocessing`` connections):

- ``conn`` (both ways): this process sends one :class:`~gui.model.result.EngineReady`, then
  an :class:`~gui.model.result.Answer` per :class:`~gui.model.request.Job` it receives
  (and :class:`~gui.model.result.Fresh` before the answer to a new program); ``None`` from
  the GUI means stop.
- ``control`` (GUI to here): :class:`~gui.model.request.StopJob` asks to kill a run that is
  over its time (answered with a runaway :class:`~gui.model.result.Answer`);
  :class:`~gui.model.request.NewProgram` carries the job of a program other than the last
  (with ``fork``); ``None`` stops.
"""

from __future__ import annotations

import gc
import os
import sys
from multiprocessing.connection import Connection

from gui.model.engine.jobs import (
    MEMORY_HEADROOM_BYTES,
    answer,
    send_answer,
    warm_up,
    warm_up_the_rest,
)
from gui.model.request import Job
from gui.model.result import EngineReady


def can_fork() -> bool:
    """Whether each run can get a forked, pristine copy of this process."""
    return hasattr(os, "fork") and sys.platform in ("linux", "darwin")


def serve(conn: Connection, control: Connection) -> None:
    """The child's main loop: set torch up once, then answer jobs until told to stop."""
    # No collections while torch loads and warms up (the engine's process starts with
    # them off already, see gui.model.engine_process): hundreds of thousands of objects
    # that live as long as the process, scanned again and again for the few thousand that
    # do not (a tenth of the time to the first result).
    gc.disable()
    import torch

    torch.set_num_threads(1)  # tiny tensors: threads cost more than they bring
    if can_fork():
        # The optimizers' part of the allowlist waits until the engine said it is ready
        # (see ForkServer._warm_up_the_rest): the first result does not wait for it.
        from gui.model.engine.allowlist import defer_the_slow_part

        defer_the_slow_part()
    warm_up()
    # Everything alive now lives as long as the process: out of the collector's sight, so
    # collections during a run only look at what the run made. Not collected first: that
    # would scan it all once more to free about a megabyte of import-time leftovers.
    gc.freeze()
    gc.enable()
    if can_fork():
        from gui.model.engine.fork_server import ForkServer

        ForkServer(conn, control).serve()
    else:
        _serve_in_place(conn)


def _serve_in_place(conn: Connection) -> None:
    """Run every job here, restoring process-wide settings after each (no fork)."""
    from gui.model.engine import pristine

    warm_up_the_rest()  # one process for every program: nothing to hurry for
    gc.collect()
    gc.freeze()  # what warming imported (sympy, torch._dynamo) is not walked after each run
    baseline = pristine.capture()
    conn.send(
        EngineReady(
            isolation="reset",
            walls=("memory limit",) if _limit_memory() else (),
            missing=("a fresh process per run", "operating-system sandbox"),
        )
    )
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if not isinstance(job, Job):
            return
        try:
            send_answer(conn, job, answer(job.request))
        finally:
            pristine.restore(baseline)
            gc.collect()


def _limit_memory() -> bool:
    try:
        import resource
    except ImportError:  # Windows: the time limit still applies
        return False
    try:
        with open("/proc/self/status") as status:
            vm = next(int(ln.split()[1]) * 1024 for ln in status if ln.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return False  # macOS has no /proc and does not enforce RLIMIT_AS anyway
    limit = vm + MEMORY_HEADROOM_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return True
