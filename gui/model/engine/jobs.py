"""One job in the engine's child: run a request, answer it, and the warm-up before any.

Shared by both ways the child serves jobs (:mod:`.fork_server` and, without ``fork``,
:mod:`.worker` itself).
"""

from __future__ import annotations

import pickle
from multiprocessing.connection import Connection

from gui.model import explain
from gui.model.request import Job, Program, RunRequest
from gui.model.result import Answer, Explanation, RunResult, failed_result

# Room for tensors on top of what importing torch already reserved. Big enough for any
# teaching example, small enough that ``torch.zeros(10**5, 10**5)`` fails at once.
MEMORY_HEADROOM_BYTES = 3 * 1024**3
WARM_UP_PROGRAM = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (2 * x) ** 3\n"
    "z = torch.sin(y).sum() + y.mean()\n"
    "print(z)\n"
)


def answer(request: RunRequest) -> RunResult:
    """The engine's result, or the engine's own failure reported as a result.

    Problems in the user's code are already results; this only catches the engine's bugs
    (and allocation failures while copying results).
    """
    from gui.model.engine.run import run_program

    try:
        return run_program(request)
    except MemoryError:
        return failed_result(explain.explain_runaway("memory"), seed=request.program.seed)
    except Exception as exc:
        return failed_result(internal_error(exc), seed=request.program.seed)


def send_answer(conn: Connection, job: Job, result: RunResult) -> None:
    """Send ``result``; a result that cannot be pickled becomes an engine error instead."""
    try:
        conn.send(Answer(job.run_id, result))
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as exc:
        # Connection.send pickles before writing, so the pipe is still clean here.
        conn.send(
            Answer(job.run_id, failed_result(internal_error(exc), seed=job.request.program.seed))
        )


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


def warm_up() -> None:
    """Run a small program: torch imports parts of itself (sympy among them) on the first
    backward call, and a fresh copy of the process touches its memory on the first run.
    Paying for both here keeps them out of the learner's first run and its time limit."""
    answer(RunRequest(Program(code=WARM_UP_PROGRAM)))
