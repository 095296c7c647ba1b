"""The session's part of the function view: which element is swept, when the engine is
asked for a sweep (only while the view is shown, after the run, never again for a drag of
the swept element itself), and dropping an answer that is no longer wanted."""

from __future__ import annotations

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.engine.sweep import sweep_program
from gui.model.request import Program, SweepRequest
from gui.model.result import SweepResult
from gui.model.session import InputRange, Session, function_view
from gui.model.session.document import Document
from gui.model.session.function_view import (
    SAMPLES,
    central_difference,
    element_choices,
    resolve_element,
    sample_points,
)
from tests.fixtures import CUBE_FUNCTION_CODE, HeldDispatcher

CUBES = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x ** 3).sum()\n"


class CountingSweeps:
    """The engine's sweep, in-process, remembering every request."""

    def __init__(self) -> None:
        self.requests: list[SweepRequest] = []

    def __call__(self, request: SweepRequest) -> SweepResult:
        self.requests.append(request)
        return sweep_program(request)

    def curves(self) -> list[SweepRequest]:
        return [r for r in self.requests if len(r.samples) == SAMPLES]


def make(code: str = CUBES, shown: bool = True) -> tuple[Session, CountingSweeps]:
    sweeps = CountingSweeps()
    session = Session(run_program, sweep=sweeps)
    session.load(Document(Program(code=code)))
    session.set_function_view_shown(shown)
    return session, sweeps


def test_the_first_element_of_the_first_leaf_is_swept_over_its_range() -> None:
    session, sweeps = make()
    view = session.snapshot.function
    assert (view.leaf, view.index) == ("x", 0)
    assert view.choices == (("x", 0), ("x", 1))
    assert view.curve is not None and view.curve_current
    low, high = session.snapshot.range_for("x").low, session.snapshot.range_for("x").high
    assert view.curve.xs == sample_points(InputRange(low, high, 0.01))
    for x, f, df in zip(view.curve.xs, view.curve.values, view.curve.slopes, strict=True):
        t = torch.tensor([x, 2.0], requires_grad=True)
        y = (t**3).sum()
        y.backward()
        assert t.grad is not None
        assert (f, df) == (y.item(), t.grad[0].item())
    assert len(sweeps.curves()) == 1


def test_nothing_is_swept_while_the_view_is_hidden() -> None:
    session, sweeps = make(shown=False)
    session.set_input("x", 1, 3.0)
    assert sweeps.requests == []
    session.set_function_view_shown(True)
    assert len(sweeps.curves()) == 1


def test_dragging_the_swept_element_moves_the_point_not_the_curve() -> None:
    session, sweeps = make()
    curve = session.snapshot.function.curve
    for value in (0.5, 1.5, -2.0):
        session.set_input("x", 0, value)
    assert len(sweeps.curves()) == 1
    view = session.snapshot.function
    assert view.curve is curve and view.curve_current
    # The finite difference's two runs follow the point.
    assert view.probe is not None and view.probe_current
    assert view.probe.xs == (-2.0 - view.h, -2.0 + view.h)


def test_another_element_the_code_or_v_makes_a_new_curve_once_they_settle() -> None:
    session, sweeps = make()
    old = session.snapshot.function.curve
    session.set_input("x", 1, 3.0)
    # Held back while sliders move: the old curve stays, marked outdated.
    assert len(sweeps.curves()) == 1
    view = session.snapshot.function
    assert view.curve is old and not view.curve_current
    session.settle_function_view()  # the view's timer: nothing changed for a moment
    assert len(sweeps.curves()) == 2
    curve = session.snapshot.function.curve
    assert curve is not None and curve.values[0] == (-5.0) ** 3 + 27.0
    session.set_code(CUBES.replace("x ** 3", "x ** 2"))
    session.settle_function_view()
    assert len(sweeps.curves()) == 3
    session.select_function_element("x", 1)  # another element: at once
    assert len(sweeps.curves()) == 4
    assert session.snapshot.function.curve is not None
    assert session.snapshot.function.curve.index == 1


def test_v_of_a_vector_output_is_in_the_sweep() -> None:
    session, sweeps = make("x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x ** 2\n")
    session.set_gradient([0.5, -1.0])
    session.settle_function_view()
    last = sweeps.curves()[-1]
    assert last.program.steps is not None
    assert last.program.steps[0].gradient == [0.5, -1.0] and last.program.steps[0].zero_grad
    curve = session.snapshot.function.curve
    assert curve is not None
    assert curve.values == tuple(0.5 * x * x - 4.0 for x in curve.xs)


def test_create_graph_asks_for_the_second_derivative() -> None:
    session, sweeps = make()
    session.set_options(create_graph=True)
    session.settle_function_view()
    assert sweeps.curves()[-1].second_derivative
    curve = session.snapshot.function.curve
    assert curve is not None
    assert curve.curvatures == tuple(6 * x for x in curve.xs)


def test_a_run_goes_before_a_sweep_and_a_late_sweep_is_dropped() -> None:
    held = HeldDispatcher()
    session = Session(run_program, held, sweep=sweep_program)
    session.set_function_view_shown(True)
    session.load(Document(Program(code=CUBES)))
    assert len(held.pending) == 1  # the run; no sweep while it is in flight
    held.finish_one()
    assert len(held.pending) == 1  # now the curve's sweep
    session.set_input("x", 1, 3.0)  # a new run, behind the sweep in the queue
    sweep_value = held.finish_one()
    assert isinstance(sweep_value, SweepResult)
    # That curve was for x[1] = 2: dropped, not shown as the current curve.
    assert session.snapshot.function.curve is None
    held.finish_one()  # the run for x[1] = 3
    assert isinstance(held.finish_one(), SweepResult)  # its curve
    curve = session.snapshot.function.curve
    assert curve is not None and curve.values[0] == (-5.0) ** 3 + 27.0


def test_choices_and_defaults() -> None:
    choices = element_choices(("w", "b"), {"w": [[1.0, 2.0], [3.0, 4.0]], "b": 0.5})
    assert choices == (("w", 0), ("w", 1), ("w", 2), ("w", 3), ("b", 0))
    assert resolve_element(("b", 0), choices) == ("b", 0)
    assert resolve_element(("gone", 0), choices) == ("w", 0)
    assert resolve_element(None, ()) is None


def test_the_central_difference_of_a_cube() -> None:
    # (f(x+h) - f(x-h)) / 2h of x^3 is 3x^2 + h^2: exact for small h, off by 1 at h = 1.
    x = 1.5
    for h, off in ((1e-3, 1e-6), (1.0, 1.0)):
        assert abs(central_difference((x - h) ** 3, (x + h) ** 3, h) - (3 * x * x + off)) < 1e-9
    assert central_difference(None, 1.0, 0.1) is None


def test_a_custom_autograd_function_with_v() -> None:
    session, _ = make(CUBE_FUNCTION_CODE)
    session.set_gradient([1.0, 0.0, 2.0])
    session.settle_function_view()
    curve = session.snapshot.function.curve
    assert curve is not None and curve.error is None
    for x, f, df in zip(curve.xs, curve.values, curve.slopes, strict=True):
        t = torch.tensor([x, 2.0, -0.5], requires_grad=True)
        y = (t**3).cumsum(0)
        y.backward(torch.tensor([1.0, 0.0, 2.0]))
        assert t.grad is not None
        assert f == pytest.approx(y[0].item() + 2 * y[2].item(), rel=1e-6, abs=1e-6)
        assert df == pytest.approx(t.grad[0].item(), rel=1e-6)


def test_a_held_back_curve_goes_once_the_state_is_old_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session, sweeps = make()
    monkeypatch.setattr(function_view, "SETTLE_SECONDS", 0.0)
    session.set_input("x", 1, 3.0)
    assert len(sweeps.curves()) == 2 and session.snapshot.function.curve_current
