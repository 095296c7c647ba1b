"""Default slider ranges for any numbers a program or a file can hold: finite and sane.

``default_range`` gave values room by multiplying by 1.5, which overflows past about
1.2e308 (and the ceiling of infinity raised); 1e308 itself rounded up to 2e308, infinite.
A range must always be finite, hold zero, span a finite number and have a step that fits.
"""

from __future__ import annotations

import math

import pytest

from gui.model.session.ranges import MAX_BOUND, DefaultRanges, InputRange, default_range, fits

HUGE = 1.7976931348623157e308
TINY = 5e-324


def sane(value_range: InputRange) -> bool:
    low, high, step = value_range.low, value_range.high, value_range.step
    return (
        all(math.isfinite(v) for v in (low, high, step, high - low))
        and low < 0 < high
        and 0 < step <= high - low
    )


@pytest.mark.parametrize(
    "values",
    [
        [1e308],
        [-1e308],
        [HUGE],
        [-HUGE, HUGE],
        [1.2e308],
        [5e307],
        [1e-307],
        [TINY, -TINY],
        [math.nan],
        [math.inf, -math.inf],
        [[1e308, math.nan], [math.inf, TINY]],
        [],
        None,
        [0.0],
    ],
)
def test_every_default_range_is_finite_and_sane(values: object) -> None:
    value_range = default_range(values)
    assert sane(value_range)


@pytest.mark.parametrize("value", [3e307, 5e307, -5e307])
def test_big_values_still_fit_their_range(value: float) -> None:
    assert fits([value], default_range([value]))


def test_values_past_the_widest_range_get_the_widest_range() -> None:
    assert (
        default_range([1e308]) == default_range([HUGE]) == InputRange(-MAX_BOUND, MAX_BOUND, 5e304)
    )


def test_ordinary_values_keep_their_ranges() -> None:
    assert default_range([1, 2, 3]) == InputRange(-5.0, 5.0, 0.005)
    assert default_range([0.0]) == InputRange(-2.0, 2.0, 0.002)
    assert default_range([1.4]) == InputRange(-5.0, 5.0, 0.005)
    assert default_range([1e10]) == InputRange(-2e10, 2e10, 2e7)


def test_settling_ranges_for_extreme_values_raises_nothing() -> None:
    ranges = DefaultRanges()
    for values in ([1e308], [HUGE, -HUGE], [math.nan], [TINY], [1.0]):
        ranges.settle({"x": values})
        assert sane(ranges.ranges["x"])
