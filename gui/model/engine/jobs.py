"""One job in the engine's child: run a request, answer it, and the warm-up before any.

Shared by both ways the child serves jobs (:mod:`.fork_server` and, without ``fork``,
:mod:`.worker` itself).
"""

from __future__ import annotations

import io
import pickle
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler as _ForkingPickler
from typing import Any, overload

from gui.model import explain
from gui.model.engine.budget import take_pickled
from gui.model.request import Job, Program, RunRequest, SweepRequest
from gui.model.result import (
    Answer,
    EngineResult,
    Explanation,
    RunResult,
    SweepResult,
    failed_result,
    failed_sweep,
)

# Room for tensors on top of what importing torch already reserved. Big enough for any
# teaching example, small enough that ``torch.zeros(10**5, 10**5)`` fails at once.
MEMORY_HEADROOM_BYTES = 3 * 1024**3
WARM_UP_PROGRAM = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (2 * x) ** 3\n"
    "z = torch.sin(y).sum() + y.mean()\n"
    "print(z)\n"
)
# What the first result does not wait for: a vector output seeded with a given gradient,
# whose first use imports torch's symbolic-shape checks (sympy, 0.3-0.5 s) and vmap.
WARM_UP_THE_REST_PROGRAM = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * x\n"
    "y.backward(torch.tensor([1.0, -1.0]))\n"
)


@overload
def answer(request: RunRequest) -> RunResult: ...
@overload
def answer(request: SweepRequest) -> SweepResult: ...
def answer(request: RunRequest | SweepRequest) -> EngineResult:
    """The engine's result, or the engine's own failure reported as a result.

    Problems in the user's code are already results; this only catches the engine's bugs
    (and allocation failures while copying results).
    """
    if isinstance(request, SweepRequest):
        return _sweep_answer(request)
    from gui.model.engine.run import run_program

    try:
        return run_program(request)
    except MemoryError:
        return failed_result(explain.explain_runaway("memory"), seed=request.program.seed)
    except Exception as exc:
        return failed_result(internal_error(exc), seed=request.program.seed)


def _sweep_answer(request: SweepRequest) -> SweepResult:
    """The sweep's result, or the engine's own failure as a sweep without samples."""
    from gui.model.engine.sweep import sweep_program

    try:
        return sweep_program(request)
    except MemoryError:
        return failed_sweep(request.leaf, request.index, explain.explain_runaway("memory"))
    except Exception as exc:
        return failed_sweep(request.leaf, request.index, internal_error(exc))


def send_answer(conn: Connection, job: Job, result: EngineResult) -> None:
    """Send ``result`` (see :func:`answer_data`)."""
    conn.send_bytes(answer_data(job, result))


def answer_data(job: Job, result: EngineResult) -> bytes:
    """The bytes that answer ``job`` with ``result``; a result that cannot be pickled
    becomes an engine error instead.

    A result the budget already pickled to measure it (:func:`.budget.take_pickled`: every
    result :func:`~.run.run_program` returns) goes as those bytes, not pickled again.
    """
    answer = Answer(job.run_id, result)
    try:
        pickled = take_pickled(result) if isinstance(result, RunResult) else None
        if pickled is None:
            return bytes(_ForkingPickler.dumps(answer))
        return _answer_bytes(answer, pickled)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as exc:
        failed = failed_result(internal_error(exc), seed=job.request.program.seed)
        return bytes(_ForkingPickler.dumps(Answer(job.run_id, failed)))


def _answer_bytes(answer: Answer, pickled_result: bytes) -> bytes:
    """``answer`` pickled, its result taken from ``pickled_result`` as it is.

    The window's ``Connection.recv`` unpickles it as any other message: the result comes
    back by unpickling those bytes (``pickle.loads``), a copy of them costing nothing.
    """
    buffer = io.BytesIO()
    _ResultAsBytes(buffer, answer.result, pickled_result).dump(answer)
    return buffer.getvalue()


class _ResultAsBytes(pickle.Pickler):
    """Pickles one given object as the call ``pickle.loads(its bytes)``."""

    def __init__(self, file: io.BytesIO, target: object, pickled: bytes) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._target = target
        self._pickled = pickled

    def reducer_override(self, obj: object) -> Any:
        if obj is self._target:
            return pickle.loads, (self._pickled,)
        return NotImplemented


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


def warm_up_the_rest() -> None:
    """What :func:`warm_up` leaves for after the engine says it is ready: the optimizers'
    part of the allowlist (making an optimizer imports ``torch._dynamo``, over a second)
    and the imports of a backward seeded with a given gradient. The window's first result
    does not wait for them. In the one copy of the process made before, a program that
    uses an optimizer is handed to a warm copy, and one that runs out of time (it paid
    for those imports) runs again in a warm copy (see :mod:`.fork_server`)."""
    from gui.model.engine import guard
    from gui.model.engine.allowlist import allowlist

    take_pickled(answer(RunRequest(Program(code=WARM_UP_THE_REST_PROGRAM))))
    allowlist().complete()
    guard.forget_verdicts()


def warm_up() -> None:
    """Run a small program: torch imports parts of itself (sympy among them) on the first
    backward call, and a fresh copy of the process touches its memory on the first run.
    Paying for both here keeps them out of the learner's first run and its time limit."""
    take_pickled(answer(RunRequest(Program(code=WARM_UP_PROGRAM))))  # nothing to send
