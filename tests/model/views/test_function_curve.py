"""What the function view draws: the point on the curve, the tangent whose slope is
autograd's gradient, and the finite difference that agrees with it for a small ``h`` and
not for ``h = 1``."""

from __future__ import annotations

import math

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.engine.sweep import sweep_program
from gui.model.request import Program
from gui.model.session import Session
from gui.model.session.document import Document
from gui.model.views.function_curve import (
    agreement,
    element_label,
    function_curve,
    tangent_line,
    value_range,
)

CUBE = "x = torch.tensor([[1.5]], requires_grad=True)\ny = (x ** 3).sum()\n"


def shown(code: str) -> Session:
    session = Session(run_program, sweep=sweep_program)
    session.load(Document(Program(code=code)))
    session.set_function_view_shown(True)
    return session


def test_the_tangent_slope_is_the_autograd_gradient_at_the_point() -> None:
    session = shown(CUBE)
    session.set_input("x", 0, 1.25)
    frame = function_curve(session.snapshot)
    x = torch.tensor([[1.25]], requires_grad=True)
    y = (x**3).sum()
    y.backward()
    assert x.grad is not None
    assert frame.element == "x[0, 0]" and frame.f_label == "y"
    assert frame.point == (1.25, y.item())
    assert frame.slope == x.grad.item()
    assert frame.tangent is not None
    (xa, ya), (xb, yb) = frame.tangent
    assert (yb - ya) / (xb - xa) == pytest.approx(x.grad.item())
    # The tangent passes through the point, and the curve is the same function.
    assert ya + (1.25 - xa) * (yb - ya) / (xb - xa) == pytest.approx(y.item())
    assert frame.values == tuple(pytest.approx(x**3, rel=1e-6) for x in frame.xs)
    assert frame.slopes == tuple(pytest.approx(3 * x * x, rel=1e-6) for x in frame.xs)


def test_the_finite_difference_agrees_for_a_small_h_and_not_for_h_one() -> None:
    session = shown(CUBE)
    session.set_input("x", 0, 1.5)
    session.set_function_h(1e-2)
    small = function_curve(session.snapshot)
    assert small.finite_difference == pytest.approx(3 * 1.5**2 + 1e-4, rel=1e-3)
    assert small.agrees is True and "agree" in small.check
    session.set_function_h(1.0)
    large = function_curve(session.snapshot)
    # (f(x+1) - f(x-1)) / 2 of x^3 is 3x^2 + 1: the secant, not the tangent.
    assert large.finite_difference == pytest.approx(3 * 1.5**2 + 1.0)
    assert large.agrees is False and "secant" in large.check


def test_a_tiny_h_blames_float32_rounding() -> None:
    session = shown("x = torch.tensor([300.0], requires_grad=True)\ny = (x ** 3).sum()\n")
    session.set_function_h(1e-6)
    frame = function_curve(session.snapshot)
    assert frame.agrees is False and "float32" in frame.check


def test_a_vector_output_plots_v_dot_y() -> None:
    session = shown("x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x ** 2\n")
    session.set_gradient([2.0, 1.0])
    frame = function_curve(session.snapshot)
    assert frame.f_label == "v · y"
    assert frame.point == (1.0, 2.0 * 1.0 + 1.0 * 4.0)
    assert frame.slope == 4.0


def test_failed_samples_are_gaps_with_the_reason() -> None:
    code = (
        "x = torch.tensor([1.0], requires_grad=True)\n"
        "if x[0] < 0:\n"
        "    raise ValueError('only x >= 0 here')\n"
        "y = x.sum() ** 2\n"
    )
    frame = function_curve(shown(code).snapshot)
    gaps = [v for x, v in zip(frame.xs, frame.values, strict=True) if x < 0]
    assert gaps and all(math.isnan(v) for v in gaps)
    assert any("only x >= 0 here" in note for note in frame.notes)


def test_helpers() -> None:
    assert element_label("w", 3, (2, 2)) == "w[1, 1]"
    assert element_label("b", 0, ()) == "b"
    assert tangent_line(1.0, 2.0, 3.0, 0.0, 10.0) == ((-1.0, -4.0), (3.0, 8.0))
    assert agreement(3.0001, 3.0) is True and agreement(4.0, 3.0) is False
    assert agreement(None, 3.0) is None
    assert value_range([1.0, float("nan"), 3.0]) == pytest.approx((0.84, 3.16))
    assert value_range([]) == (-1.0, 1.0)


def test_code_that_always_fails_says_so_over_the_plot() -> None:
    session = shown(CUBE)
    session.set_code(CUBE + "z = y + undefined_name\n")
    session.settle_function_view()
    frame = function_curve(session.snapshot)
    assert frame.message.startswith("Every sample failed: ")
    assert "undefined_name" in frame.message
