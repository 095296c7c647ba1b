"""One job in the engine's child: the engine's own failures become results, never crashes."""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gui.model.engine import budget, jobs
from gui.model.engine.run import run_program
from gui.model.request import Job, Program, RunRequest
from gui.model.result import Answer

ROOT = Path(__file__).resolve().parents[3]


def test_an_engine_failure_is_reported_as_a_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(request: RunRequest) -> None:
        raise ValueError("boom")

    monkeypatch.setattr("gui.model.engine.run.run_program", broken)
    result = jobs.answer(RunRequest(Program(code="x = 1\n", seed=7)))
    assert result.error is not None and result.error.kind == "engine-error"
    assert "boom" in result.error.message
    assert result.seed == 7


def test_a_result_goes_to_the_window_as_the_bytes_the_budget_measured() -> None:
    """Pickled once: the answer carries the very bytes ``bounded`` measured the result by,
    and the window's ``recv`` gets the result back whole."""
    import multiprocessing

    request = RunRequest(
        Program(code="x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * x\n")
    )
    result = run_program(request)
    measured = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    window, engine = multiprocessing.Pipe()
    jobs.send_answer(engine, Job(5, request), result)
    sent = window.recv_bytes()
    assert measured in sent
    answer = pickle.loads(sent)
    assert isinstance(answer, Answer) and answer.run_id == 5 and answer.result == result


def test_the_measured_bytes_are_used_once_and_only_for_that_result() -> None:
    request = RunRequest(Program(code="x = torch.tensor([1.0], requires_grad=True)\n"))
    result = run_program(request)
    assert budget.take_pickled(result) == pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    assert budget.take_pickled(result) is None  # let go of once taken
    older, _newer = run_program(request), run_program(request)
    assert budget.take_pickled(older) is None  # another result was measured since


def test_a_result_cut_down_is_sent_as_what_it_became() -> None:
    """Cut to fit, a result is measured again: those bytes are its own. Given a note after
    the last measuring (backward calls left out), it is pickled afresh when sent."""
    import multiprocessing

    code = "x = torch.ones(8, 8, requires_grad=True)\nfor i in range(30):\n    (x * i).sum().backward()\n"
    request = RunRequest(Program(code=code))
    full = run_program(request)
    fitted = budget.bounded(full, limit=budget.size_of(full) // 3)
    assert fitted is not full and not fitted.steps_left_out
    assert budget.take_pickled(fitted) == pickle.dumps(fitted, protocol=pickle.HIGHEST_PROTOCOL)
    noted = budget.bounded(full, limit=8_000)
    assert noted.steps_left_out and budget.take_pickled(noted) is None
    window, engine = multiprocessing.Pipe()
    jobs.send_answer(engine, Job(6, request), noted)
    answer = window.recv()
    assert isinstance(answer, Answer) and answer.result == noted


def test_a_result_that_cannot_be_pickled_becomes_an_engine_error() -> None:
    import multiprocessing

    request = RunRequest(Program(code="x = 1\n", seed=3))
    result = dataclasses.replace(run_program(request), printed=(lambda: None,))  # type: ignore[arg-type]
    window, engine = multiprocessing.Pipe()
    jobs.send_answer(engine, Job(7, request), result)
    answer = window.recv()
    assert isinstance(answer, Answer) and answer.run_id == 7
    assert answer.result.error is not None and answer.result.error.kind == "engine-error"
    assert answer.result.seed == 3


@pytest.mark.parametrize("shape", ["()", "(1,)", "(1, 1)"])
def test_a_one_element_output_has_the_jacobian_torch_computes(shape: str) -> None:
    """One-element outputs take torch's own seed of ones (no seed tensor passed): the
    Jacobian row is still d out / d leaf, and ``J^T v`` matches ``.grad`` for a given v."""
    code = (
        "x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)\n"
        f"y = (x ** 3).sum().reshape({shape})\n"
        "y.backward(torch.full_like(y, 2.0))\n"
    )
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is None, result.error
    (check,) = result.steps[0].jacobians
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    (row,) = torch.autograd.grad((x**3).sum(), x)
    assert check.matrix == [row.tolist()]
    assert check.matches and check.vjp == (2 * row).tolist()


def test_the_warm_up_before_the_first_result_leaves_sympy_for_later() -> None:
    """What the engine warms before it says it is ready, and the first run of a program
    with a scalar output (Jacobian included), never import torch's symbolic shapes
    (sympy, 0.3-0.5 s of start-up); the warm-up after ready does."""
    script = (
        "import sys, torch\n"
        "from gui.model.engine.allowlist import defer_the_slow_part\n"
        "defer_the_slow_part()\n"  # as the engine's process starts: before the run module
        "from gui.model.engine import jobs\n"
        "from gui.model.engine.run import run_program\n"
        "from gui.model.request import Program, RunRequest\n"
        "jobs.warm_up()\n"
        "code = 'w = torch.tensor([0.5, -0.3], requires_grad=True)\\n"
        "y = torch.tanh((w * 2).sum())\\n'\n"
        "result = run_program(RunRequest(Program(code=code)))\n"
        "assert result.error is None and result.steps[0].jacobians, result\n"
        "print('sympy' in sys.modules)\n"
        "jobs.warm_up_the_rest()\n"
        "print('sympy' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "True"]
