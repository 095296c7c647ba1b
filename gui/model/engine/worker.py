"""The engine's child process: imports torch once, then runs programs on request.

It lives in its own process so that runaway code (an endless loop, a giant tensor, deep
recursion) can be stopped by killing it, without touching the app. It also caps its own
address space so a huge allocation fails inside torch instead of exhausting the machine.
"""

from __future__ import annotations

import gc
import pickle
from multiprocessing.connection import Connection

from gui.model import explain
from gui.model.request import Program, RunRequest, failed_result
from gui.model.result import Explanation, RunResult

# Room for tensors on top of what importing torch already reserved. Big enough for any
# teaching example, small enough that ``torch.zeros(10**5, 10**5)`` fails at once.
MEMORY_HEADROOM_BYTES = 3 * 1024**3
IDLE_BEFORE_COLLECT_SECONDS = 0.05
COLLECT_EVERY_RUNS = 500
WARM_UP_PROGRAM = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\n"


def _limit_memory() -> None:
    try:
        import resource
    except ImportError:  # Windows: the time limit still applies
        return
    try:
        with open("/proc/self/status") as status:
            vm = next(int(ln.split()[1]) * 1024 for ln in status if ln.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return  # macOS has no /proc and does not enforce RLIMIT_AS anyway
    limit = vm + MEMORY_HEADROOM_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _answer(request: RunRequest) -> RunResult:
    """The engine's result, or the engine's own failure reported as a result.

    Problems in the user's code are already results; this only catches the engine's bugs
    (and allocation failures while copying results), so the child keeps serving.
    """
    from gui.model.engine.run import run_program

    try:
        return run_program(request)
    except MemoryError:
        return failed_result(request, explain.explain_runaway("memory"))
    except Exception as exc:
        return failed_result(request, internal_error(exc))


def internal_error(exc: BaseException) -> Explanation:
    """The engine itself failed: say so plainly, with the exception, and keep going."""
    return Explanation(
        kind="engine-error",
        message=f"{type(exc).__name__}: {exc}",
        explanation="Autograd Explorer failed while recording this program; this is a bug in "
        "the app, not in your code.",
        fix="Try a simpler version of the program, and please report the message.",
        exception=type(exc).__name__,
    )


def serve(conn: Connection) -> None:
    """Answer :class:`RunRequest` messages with :class:`RunResult` until told to stop."""
    import torch

    torch.set_num_threads(1)  # tiny tensors: threads cost more than they bring
    _limit_memory()
    # torch imports more of itself (sympy among it) on the first backward call: pay for that
    # now, while the app starts, not out of the first program's time limit.
    _answer(RunRequest(Program(code=WARM_UP_PROGRAM)))
    # Collector pauses made one run in twenty several times slower (a dragged slider
    # stutters). Reference counting frees almost everything a run makes, so the cycle
    # collector runs only when the app pauses between requests, or every so many runs.
    gc.freeze()
    gc.disable()
    conn.send("ready")
    runs = 0
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        result = _answer(request)
        try:
            conn.send(result)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            # Connection.send pickles before writing, so the pipe is still clean here.
            conn.send(failed_result(request, internal_error(exc)))
        runs += 1
        if runs % COLLECT_EVERY_RUNS == 0 or not conn.poll(IDLE_BEFORE_COLLECT_SECONDS):
            gc.collect()
