"""The bars' numbers: before + added = after per element, equal to plain torch; and the
comparisons both plots make (nan equals nan, complex as magnitude, zeroed or not)."""

from __future__ import annotations

import math

import pytest

from gui.model.result import TensorData, TensorSummary
from gui.model.session import Session
from gui.model.views.grad_bars import MAX_BARS, bar_data, floats, is_zeroed, same_grad
from tests.fixtures import V1, V2, X5, cube_grad, load_lesson


def t(values: object, shape: tuple[int, ...] = (2,), dtype: str = "float32") -> TensorData:
    return TensorData(shape, dtype, values)


def test_floats_flatten_every_kind_of_number() -> None:
    assert floats(t([[1.5, -2.0], [3.0, 0.0]], (2, 2))) == [1.5, -2.0, 3.0, 0.0]
    assert floats(t([1, 2], dtype="int64")) == [1.0, 2.0]
    assert floats(t([True, False], dtype="bool")) == [1.0, 0.0]
    assert floats(t([3 + 4j, -1j], dtype="complex64")) == [5.0, 1.0]
    assert floats(t(2.5, ())) == [2.5]
    assert floats(t([[], []], (2, 0))) == []
    assert floats(None) is None
    assert floats(t(None, (9,))) is None


def test_floats_keep_nan_for_what_is_not_a_number() -> None:
    values = floats(t([1.0, None]))
    assert values is not None and values[0] == 1.0 and math.isnan(values[1])


def test_same_grad_treats_nan_as_equal_and_none_as_none() -> None:
    assert same_grad(t([math.nan, 1.0]), t([math.nan, 1.0]))
    assert not same_grad(t([math.nan, 1.0]), t([math.nan, 2.0]))
    assert not same_grad(t([1.0, 2.0]), t([1.0, 2.0, 3.0], (3,)))
    assert same_grad(None, None) and not same_grad(None, t([0.0, 0.0]))
    summary = TensorSummary(0.0, 1.0, 0.5, 1.0)
    assert same_grad(t(None, (9,)), t(None, (9,))) and not same_grad(
        t(None, (9,)), TensorData((9,), "float32", None, summary)
    )


def test_is_zeroed_for_zeros_none_and_summaries() -> None:
    assert is_zeroed(None) and is_zeroed(t([0.0, -0.0]))
    assert not is_zeroed(t([0.0, math.nan])) and not is_zeroed(t([0.0, 1e-30]))
    assert is_zeroed(TensorData((9,), "float32", None, TensorSummary(0.0, 0.0, 0.0, 0.0)))
    assert not is_zeroed(TensorData((9,), "float32", None, TensorSummary(-1.0, 0.0, 0.0, 1.0)))


def test_lesson_5_bars_split_the_second_call_from_the_first(session: Session) -> None:
    snapshot = load_lesson(session, 5)
    first = cube_grad(X5, V1).flatten().tolist()
    both = cube_grad(X5, V1, V2).flatten().tolist()
    data = bar_data(snapshot, "x")
    assert data.title == "x.grad after backward 2 of 2"
    assert data.before == pytest.approx(first, rel=1e-5, abs=1e-6)
    assert data.after == pytest.approx(both, rel=1e-5, abs=1e-6)
    assert data.added == tuple(a - b for a, b in zip(data.after, data.before, strict=True))
    session.select_step(0)
    data = bar_data(session.snapshot, "x")
    assert data.title == "x.grad after backward 1 of 2"
    assert data.before == (0.0, 0.0, 0.0, 0.0) and data.added == data.after


def test_zeroing_after_the_last_call_shows_zero(session: Session) -> None:
    load_lesson(session, 5)
    session.zero_grad()
    data = bar_data(session.snapshot, "x")
    assert data.title == "x.grad zeroed after backward 2"
    assert data.after == (0.0, 0.0, 0.0, 0.0) and data.added == (0.0, 0.0, 0.0, 0.0)


def test_big_and_summarised_leaves(session: Session) -> None:
    session.set_code("x = torch.linspace(-3, 3, 100).requires_grad_()\ny = (x * 2).sum()\n")
    data = bar_data(session.snapshot, "x")
    assert len(data.after) == MAX_BARS and data.note == f"first {MAX_BARS} of 100 elements"
    assert data.after == (2.0,) * MAX_BARS
    session.set_code("x = torch.ones(5000, requires_grad=True)\ny = (3 * x).sum()\n")
    data = bar_data(session.snapshot, "x")
    assert data.after == () and data.message is not None
    assert data.message.splitlines()[0] == "x.grad has 5000 elements"


def test_a_leaf_without_grad_says_none(session: Session) -> None:
    session.set_code("x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\n")
    assert bar_data(session.snapshot, "x").message == "x.grad is None"
