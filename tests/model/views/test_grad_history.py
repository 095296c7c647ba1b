"""The history plot's points: ``.grad`` after each call, drops where it was zeroed, and
which step a click asks for."""

from __future__ import annotations

import math

import pytest

from gui.model.session import Session
from gui.model.views.grad_history import (
    MAX_CURVES,
    HistoryData,
    history_data,
    per_element,
    step_for_click,
)
from tests.fixtures import V1, V2, X5, cube_grad, load_lesson


def test_small_leaves_get_a_curve_per_element() -> None:
    assert per_element((2, 2)) and per_element((MAX_CURVES,))
    assert not per_element((MAX_CURVES + 1,))


def test_lesson_5_has_a_point_per_call(session: Session) -> None:
    snapshot = load_lesson(session, 5)
    data = history_data(snapshot, "x", (2, 2))
    first = cube_grad(X5, V1).flatten().tolist()
    both = cube_grad(X5, V1, V2).flatten().tolist()
    assert data.xs == (1, 2) and data.steps == 2 and data.end == 2.0 and data.shown == 2.0
    for k, series in enumerate(data.series):
        assert series == pytest.approx((first[k], both[k]), rel=1e-5, abs=1e-6)


def test_zeroing_drops_the_line_at_the_half_step(session: Session) -> None:
    load_lesson(session, 5)
    session.zero_grad()
    data = history_data(session.snapshot, "x", (2, 2))
    assert data.xs == (1, 2, 2.5) and data.zeroed == (2.5,) and data.end == 2.5
    assert all(series[-1] == 0.0 for series in data.series)


def test_big_leaves_plot_the_norm(session: Session) -> None:
    session.set_code("x = torch.ones(5000, requires_grad=True)\ny = (3 * x).sum()\n")
    ((norm,),) = history_data(session.snapshot, "x", (5000,)).series
    assert norm == pytest.approx(3 * math.sqrt(5000), rel=1e-5)


def test_a_click_asks_for_the_nearest_step_and_the_last_means_latest() -> None:
    data = HistoryData(xs=(1, 2, 3), steps=3, end=3.0)
    assert [step_for_click(x, data) for x in (0.2, 1.4, 1.6, 2.9, 9.0)] == [0, 0, 1, None, None]
    zeroed = HistoryData(xs=(1, 2, 2.5), steps=2, end=2.5)
    assert [step_for_click(x, zeroed) for x in (1.9, 2.2, 2.3)] == [1, 1, None]
