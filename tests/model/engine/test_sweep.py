"""The function view's sweep: the program run once per sample, the ordinary way, its ``f``
and ``df/dx_i`` equal to plain torch's at every sample, gaps where a sample fails, the time
limit for the whole sweep, and nothing left behind for the next run."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
import torch

from gui.model import wire
from gui.model.engine import pristine
from gui.model.engine.jobs import answer
from gui.model.engine.run import run_program
from gui.model.engine.sweep import sweep_program
from gui.model.request import BackwardStep, Program, RunRequest, SweepRequest
from gui.model.result import Answer, SweepResult
from tests.fixtures import CUBE_FUNCTION_CODE, MLP_CODE

XS = (-2.0, -1.25, -0.5, 0.0, 0.75, 1.5, 3.0)


def sweep(
    code: str,
    leaf: str,
    value: object,
    index: int = 0,
    steps: tuple[BackwardStep, ...] | None = None,
    second: bool = False,
    xs: tuple[float, ...] = XS,
    time_limit: float = 10.0,
) -> SweepResult:
    program = Program(code=code, values={leaf: value}, steps=steps)
    return sweep_program(SweepRequest(program, leaf, index, xs, second, time_limit))


def test_a_scalar_cube_matches_torch_at_every_sample() -> None:
    result = sweep("x = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n", "x", 2.0)
    assert result.xs == XS and result.done == len(XS) and result.error is None
    for x, f, df in zip(result.xs, result.values, result.slopes, strict=True):
        t = torch.tensor(x, requires_grad=True)
        y = t**3
        y.backward()
        assert t.grad is not None
        assert f == y.item()
        assert df == t.grad.item()


def test_a_vector_output_is_weighted_by_v() -> None:
    v = [0.5, -1.0, 2.0]
    code = "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = 2 * x ** 2 + x[0] * x\n"
    steps = (BackwardStep(gradient=v),)
    result = sweep(code, "x", [1.0, 2.0, 3.0], index=1, steps=steps)
    for x, f, df in zip(result.xs, result.values, result.slopes, strict=True):
        t = torch.tensor([1.0, x, 3.0], requires_grad=True)
        y = 2 * t**2 + t[0] * t
        y.backward(torch.tensor(v))
        assert t.grad is not None
        assert f == pytest.approx((torch.tensor(v) * y.detach()).sum().item(), rel=1e-6)
        assert df == pytest.approx(t.grad[1].item(), rel=1e-6)


def test_sin_matches_torch() -> None:
    code = (
        "x = torch.tensor([[0.3, 1.0], [2.0, -1.0]], requires_grad=True)\ny = torch.sin(x).sum()\n"
    )
    result = sweep(code, "x", [[0.3, 1.0], [2.0, -1.0]], index=2)
    for x, f, df in zip(result.xs, result.values, result.slopes, strict=True):
        t = torch.tensor([[0.3, 1.0], [x, -1.0]], requires_grad=True)
        y = torch.sin(t).sum()
        y.backward()
        assert t.grad is not None
        assert f == pytest.approx(y.item(), rel=1e-6, abs=1e-6)
        assert df == pytest.approx(t.grad[1, 0].item(), rel=1e-6, abs=1e-6)


def test_two_leaves_sweep_one_and_keep_the_other() -> None:
    code = (
        "a = torch.tensor([0.5, -1.5], requires_grad=True)\n"
        "b = torch.tensor([2.0], requires_grad=True)\n"
        "out = (a * b ** 2 + torch.exp(a)).sum()\n"
    )
    program = Program(code=code, values={"a": [0.5, -1.5], "b": [2.0]})
    result = sweep_program(SweepRequest(program, "b", 0, XS))
    for x, f, df in zip(result.xs, result.values, result.slopes, strict=True):
        a = torch.tensor([0.5, -1.5], requires_grad=True)
        b = torch.tensor([x], requires_grad=True)
        out = (a * b**2 + torch.exp(a)).sum()
        out.backward()
        assert b.grad is not None
        assert f == pytest.approx(out.item(), rel=1e-6, abs=1e-6)
        assert df == pytest.approx(b.grad.item(), rel=1e-6, abs=1e-6)


def test_the_second_derivative_is_torchs_double_backward() -> None:
    code = "x = torch.tensor([0.7, 1.1], requires_grad=True)\ny = (torch.sin(x) * x ** 3).sum()\n"
    steps = (BackwardStep(zero_grad=True, create_graph=True),)
    result = sweep(code, "x", [0.7, 1.1], index=1, steps=steps, second=True)
    assert result.note is None
    assert len(result.curvatures) == len(XS)
    for x, d2 in zip(result.xs, result.curvatures, strict=True):
        t = torch.tensor([0.7, x], requires_grad=True)
        y = (torch.sin(t) * t**3).sum()
        (g,) = torch.autograd.grad(y, t, create_graph=True)
        (h,) = torch.autograd.grad(g[1], t)
        assert d2 == pytest.approx(h[1].item(), rel=1e-5, abs=1e-5)


def test_no_second_derivative_without_create_graph_says_why() -> None:
    code = "x = torch.tensor([0.7], requires_grad=True)\ny = (x ** 3).sum()\n"
    result = sweep(code, "x", [0.7], second=True, steps=(BackwardStep(),))
    assert result.curvatures == (None,) * len(XS)
    assert result.note is not None and "create_graph" in result.note


def test_log_of_a_negative_is_nan_and_a_raise_is_a_gap_with_its_explanation() -> None:
    logged = sweep(
        "x = torch.tensor([1.0], requires_grad=True)\ny = torch.log(x).sum()\n", "x", [1.0]
    )
    negative = [f for x, f in zip(logged.xs, logged.values, strict=True) if x < 0]
    assert negative and all(f != f for f in negative)  # NaN
    assert logged.values[-1] == pytest.approx(torch.log(torch.tensor(3.0)).item())

    code = (
        "x = torch.tensor([1.0], requires_grad=True)\n"
        "if x[0] < 0:\n"
        "    raise ValueError('x must not be negative here')\n"
        "y = (x ** 2).sum()\n"
    )
    result = sweep(code, "x", [1.0])
    for x, f, df in zip(result.xs, result.values, result.slopes, strict=True):
        if x < 0:
            assert f is None and df is None
        else:
            assert f == pytest.approx(x * x) and df == pytest.approx(2 * x)
    assert result.error is not None and "must not be negative" in result.error.message
    assert result.error.line == 3


def test_the_time_limit_is_for_the_whole_sweep() -> None:
    code = (
        "x = torch.tensor([1.0], requires_grad=True)\n"
        "t = 0\n"
        "for i in range(30000):\n"
        "    t = t + i\n"
        "y = (x ** 2).sum()\n"
    )
    xs = tuple(float(k) for k in range(200))
    result = sweep(code, "x", [1.0], xs=xs, time_limit=0.3)
    assert 0 < result.done < len(xs)
    assert len(result.values) == result.done
    assert result.note is not None and "stopped after" in result.note
    assert result.elapsed_seconds < 0.3 + 0.2


STATEFUL = (
    "torch.set_printoptions(precision=2)\n"
    "torch.set_grad_enabled(True)\n"
    "w = torch.randn(3, requires_grad=True)\n"
    "x = torch.tensor([0.5, 1.0, -1.0], requires_grad=True)\n"
    "y = (w * x).sum() ** 2\n"
    "print(y, w)\n"
)


def _comparable(request: RunRequest) -> object:
    return dataclasses.replace(run_program(request), elapsed_seconds=0.0)


def test_a_sweep_leaves_nothing_behind() -> None:
    request = RunRequest(Program(code=STATEFUL, values={"x": [0.5, 1.0, -1.0]}))
    fresh = _comparable(request)
    settings = pristine.capture()
    result = sweep(STATEFUL, "x", [0.5, 1.0, -1.0], index=2)
    assert result.done == len(XS) and result.error is None
    assert pristine.capture() == settings
    assert _comparable(request) == fresh


def test_a_program_that_calls_backward_itself_counts_its_own_call() -> None:
    code = (
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "loss = (x ** 2).sum() * 3\n"
        "loss.backward()\n"
    )
    result = sweep(code, "x", [1.0, 2.0])
    assert result.slopes == tuple(pytest.approx(6 * x) for x in XS)
    assert result.values == tuple(pytest.approx(3 * (x * x + 4)) for x in XS)


def test_a_two_layer_mlp_with_a_loss_matches_torch() -> None:
    name = "model.0.weight"
    weights = run_program(RunRequest(Program(code=MLP_CODE))).tensors[name].value.values
    result = sweep(MLP_CODE, name, weights, index=5)
    assert result.error is None and result.done == len(XS)
    for x, f, df in zip(result.xs, result.values, result.slopes, strict=True):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
        inputs, target = torch.randn(5, 3), torch.randn(5, 1)
        with torch.no_grad():
            model[0].weight.view(-1)[5] = x
        loss = torch.nn.functional.mse_loss(model(inputs), target)
        loss.backward()
        assert model[0].weight.grad is not None
        assert f == pytest.approx(loss.item(), rel=1e-5, abs=1e-7)
        assert df == pytest.approx(model[0].weight.grad.view(-1)[5].item(), rel=1e-5, abs=1e-7)


def test_a_custom_autograd_function_is_swept_and_not_differentiated_twice() -> None:
    v = [1.0, -1.0, 0.5]
    steps = (BackwardStep(gradient=v, zero_grad=True, create_graph=True),)
    result = sweep(CUBE_FUNCTION_CODE, "x", [1.0, 2.0, -0.5], 1, steps, second=True)
    assert result.error is None
    for x, f, df in zip(result.xs, result.values, result.slopes, strict=True):
        t = torch.tensor([1.0, x, -0.5], requires_grad=True)
        y = (t**3).cumsum(0)
        y.backward(torch.tensor(v))
        assert t.grad is not None
        assert f == pytest.approx((torch.tensor(v) * y.detach()).sum().item(), rel=1e-6)
        assert df == pytest.approx(t.grad[1].item(), rel=1e-6)
    # Its backward is the program's own code: not run a second time for d2f/dx2.
    assert all(c is None for c in result.curvatures)
    assert result.note is not None and "custom" in result.note


def test_the_engine_answers_a_sweep_job_and_the_window_reads_it() -> None:
    program = Program(code="x = torch.tensor([1.0], requires_grad=True)\ny = x.sum() ** 2\n")
    request = SweepRequest(dataclasses.replace(program, values={"x": [1.0]}), "x", 0, XS)
    result = answer(request)
    assert isinstance(result, SweepResult) and result.done == len(XS)
    read = wire.loads(pickle.dumps(Answer(7, result)))
    assert isinstance(read, Answer) and read.result == result
    broken = Answer(7, dataclasses.replace(result, values=("not a number",)))
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(pickle.dumps(broken))


def test_a_refused_program_is_a_sweep_error_not_a_crash() -> None:
    result = sweep("import os\nx = torch.tensor([1.0], requires_grad=True)\n", "x", [1.0])
    assert result.error is not None and result.error.kind == "unsafe-code"
    assert all(v is None for v in result.values)
