"""Sweeps through the engine's process: one job, answered as a sweep, within the window's
time limit for the whole job; a sample that never ends is stopped like any run."""

from __future__ import annotations

from dataclasses import replace

from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest, SweepRequest

XS = tuple(float(k) / 4 for k in range(-8, 9))


def test_a_sweep_is_one_job_answered_with_its_curves(engine_process: EngineProcess) -> None:
    code = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x ** 3).sum()\n"
    program = Program(code=code, values={"x": [1.0, 2.0]})
    result = engine_process.sweep(SweepRequest(program, "x", 1, XS))
    assert result.done == len(XS) and result.error is None
    assert result.values == tuple(1.0 + x**3 for x in XS)
    assert result.slopes == tuple(3 * x * x for x in XS)
    # The engine goes on answering ordinary runs.
    run = engine_process.run(RunRequest(program))
    assert run.error is None and run.output == "y"


def test_a_sample_that_never_ends_is_stopped_at_the_time_limit(
    engine_process: EngineProcess,
) -> None:
    code = "x = torch.tensor([1.0], requires_grad=True)\nwhile True:\n    pass\n"
    program = Program(code=code, values={"x": [1.0]})
    result = engine_process.sweep(SweepRequest(program, "x", 0, XS, time_limit=0.5))
    assert result.done == 0 and result.xs == ()
    assert result.error is not None and result.error.kind == "runaway-code"
    after = engine_process.run(
        RunRequest(Program(code="x = torch.ones(2, requires_grad=True)\ny = x.sum()\n"))
    )
    assert after.error is None


def test_refused_code_never_reaches_the_engine(engine_process: EngineProcess) -> None:
    program = Program(code="import os\n", values={"x": [1.0]})
    result = engine_process.sweep(SweepRequest(program, "x", 0, XS))
    assert result.error is not None and result.error.kind == "unsafe-code"


def test_a_run_after_a_sweep_is_the_same_as_before(engine_process: EngineProcess) -> None:
    code = (
        "torch.set_printoptions(precision=2)\n"
        "torch.set_grad_enabled(True)\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "x = torch.tensor([0.5, 1.0, -1.0], requires_grad=True)\n"
        "y = (w * x).sum() ** 2\n"
        "print(y, w)\n"
    )
    program = Program(code=code, values={"x": [0.5, 1.0, -1.0]})
    before = replace(engine_process.run(RunRequest(program)), elapsed_seconds=0.0)
    swept = engine_process.sweep(SweepRequest(program, "x", 2, XS))
    assert swept.done == len(XS) and swept.error is None
    after = replace(engine_process.run(RunRequest(program)), elapsed_seconds=0.0)
    assert after == before
