"""The gradient plots are rebuilt when a leaf's shape changes: its shape from the result.
And the axes both plots share: round ticks, labels that fit, ranges that hold still."""

from __future__ import annotations

import math

import pytest

from gui.model.session import Session
from gui.model.views.grad_plots import (
    LOCKED_MARGIN,
    MAX_TICKS,
    StickyRange,
    label_stride,
    leaf_shape,
    locked_range,
    nice_step,
    nice_stride,
    nice_ticks,
)


def test_a_leafs_shape_or_nothing(session: Session) -> None:
    assert leaf_shape(None, "x") == ()
    session.set_code("x = torch.ones(2, 3, requires_grad=True)\ny = x.sum()\n")
    assert leaf_shape(session.snapshot.result, "x") == (2, 3)
    assert leaf_shape(session.snapshot.result, "missing") == ()


# -- the axes both plots share ----------------------------------------------------------------


def test_nice_steps_are_1_2_2_5_5_times_a_power_of_ten() -> None:
    assert [nice_step(v) for v in (0.7, 1.0, 1.2, 2.1, 3.0, 6.0, 19.0, 21.0)] == [
        1.0,
        1.0,
        2.0,
        2.5,
        5.0,
        10.0,
        20.0,
        25.0,
    ]
    assert nice_step(0.00031) == 0.0005
    assert nice_step(0.30000000000000004) == 0.5
    assert nice_step(4e5) == 5e5


def test_nice_ticks_are_round_include_zero_and_stay_inside() -> None:
    assert nice_ticks(-52.5, 52.5, 16.7) == (-40.0, -20.0, 0.0, 20.0, 40.0)
    assert nice_ticks(-3.2, 40.4, 6.9) == (0.0, 10.0, 20.0, 30.0, 40.0)
    # No float noise for the labels to show: 0.3, not 0.30000000000000004.
    assert nice_ticks(-0.05, 0.45, 0.1) == (0.0, 0.1, 0.2, 0.3, 0.4)
    assert nice_ticks(1.0, 2.0, 0.5) == (1.0, 1.5, 2.0)  # the ends count when on a step
    assert all(str(v) != "-0.0" for v in nice_ticks(-1.0, 1.0, 0.4))


def test_nice_ticks_refuse_nonsense_and_never_flood() -> None:
    assert nice_ticks(1.0, 1.0, 0.1) == ()
    assert nice_ticks(0.0, math.inf, 0.1) == ()
    assert nice_ticks(0.0, 1.0, 0.0) == ()
    assert nice_ticks(0.0, 1.0, math.nan) == ()
    assert len(nice_ticks(-1e6, 1e6, 1e-9)) <= MAX_TICKS + 1
    # Denormal and huge numbers still get ticks (10.0**-320 would overflow).
    assert nice_ticks(-1e-310, 3e-310, 1e-310)[1] == 0.0
    assert len(nice_ticks(-1e306, 1e306, 4e305)) == 5


def test_label_stride_labels_all_that_fit_else_round_steps() -> None:
    assert label_stride(4, 50.0, 300.0) == 1  # 4 labels of 50 px in 300 px
    assert label_stride(4, 80.0, 300.0) == 2
    assert label_stride(64, 40.0, 300.0) == 10  # [0], [10], [20]...
    assert label_stride(1, 500.0, 10.0) == 1
    assert [nice_stride(n) for n in (1, 3, 6, 11, 30)] == [1, 5, 10, 20, 50]


def test_the_locked_range_is_the_scale_and_a_margin() -> None:
    low, high = locked_range(40.0)
    assert low == -high and high == pytest.approx(40 * (1 + LOCKED_MARGIN))


def test_a_sticky_range_holds_still_grows_with_room_and_shrinks_late() -> None:
    sticky = StickyRange()
    first = sticky.fit([3.5])
    assert first is not None and first[0] < 0 < 3.5 < first[1]
    assert sticky.fit([3.6]) is None  # a slider tick: the axis stays
    grown = sticky.fit([10.0])
    assert grown is not None and grown[1] > 10.0 * 1.3  # room to drag on
    assert sticky.fit([5.0]) is None  # still more than a third of the range
    shrunk = sticky.fit([0.5])
    assert shrunk is not None and 0.5 < shrunk[1] < 1.0
    assert StickyRange().fit([]) == StickyRange().fit([0.0]) == pytest.approx((-1.3, 1.3))
    assert StickyRange().fit([math.nan, -math.inf, 2.0]) == pytest.approx((-0.16, 2.3))


def test_a_sticky_range_of_huge_numbers_stays_finite() -> None:
    low, high = StickyRange().fit([1e308, -1e308]) or (math.nan, math.nan)
    assert math.isfinite(low) and math.isfinite(high) and low < 0 < high
