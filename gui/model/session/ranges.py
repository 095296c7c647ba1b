"""Slider ranges: the ones a user sets, and default ones that hold still while dragging."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from gui.model import nested
from gui.model.result import NestedValues

# The key under which the gradient sliders' range is kept next to the leaves' ranges; not
# an identifier, so it can never clash with a variable name.
GRADIENT_RANGE = "@gradient"


@dataclass(frozen=True)
class InputRange:
    """A slider's range and step for one tensor."""

    low: float
    high: float
    step: float

    def __post_init__(self) -> None:
        values = (self.low, self.high, self.step)
        if not all(math.isfinite(v) for v in values):
            raise ValueError("a range needs finite numbers")
        if not self.low < self.high:
            raise ValueError(f"the low end {self.low:g} must be below the high end {self.high:g}")
        if not 0 < self.step <= self.high - self.low:
            raise ValueError(f"the step {self.step:g} must be positive and fit in the range")


# The widest default range: ±5e307, whose span (1e308) is still a finite number. A value
# beyond it gets this range and the slider pins at its end (the value itself is kept).
MAX_BOUND = 5e307
# The smallest default step: finer steps are below what a slider can show anyway.
MIN_STEP = 1e-300


def _nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 5 × 10^k that is at least ``value``, within
    [:data:`MIN_STEP`, :data:`MAX_BOUND`] (NaN: the least)."""
    if not value >= MIN_STEP:  # also NaN
        return MIN_STEP
    if value >= MAX_BOUND:  # also inf
        return MAX_BOUND
    exponent = math.floor(math.log10(value))
    for mantissa in (1.0, 2.0, 5.0, 10.0):
        candidate = mantissa * 10.0**exponent
        if candidate >= value * (1 - 1e-12):
            return min(candidate, MAX_BOUND)
    return min(10.0 ** (exponent + 1), MAX_BOUND)


def default_range(values: NestedValues | None) -> InputRange:
    """A symmetric range that holds ``values`` with room to move: [1, 2, 3] gets ±5 by 0.005.

    Finite and sane for any numbers: non-finite ones are left out, and a value too big for
    room beyond it (1.5 times 1e308 is infinite) gets the widest range, ±:data:`MAX_BOUND`.
    """
    finite = [
        abs(float(v))
        for v in (nested.flatten(values) if values is not None else [])
        if isinstance(v, int | float) and math.isfinite(v)
    ]
    # 1.5 * v overflows past 1.2e308: the ceiling of the largest value, then the room.
    largest = max([2.0 / 1.5, *finite])
    bound = _nice_ceiling(1.5 * min(largest, MAX_BOUND))
    return InputRange(-bound, bound, _nice_ceiling(bound / 1000))


def fits(values: NestedValues | None, value_range: InputRange) -> bool:
    """Whether every finite number of ``values`` lies in ``value_range``."""
    flat = nested.flatten(values) if values is not None else []
    return all(
        value_range.low <= v <= value_range.high
        for v in flat
        if isinstance(v, int | float) and math.isfinite(v)
    )


class DefaultRanges:
    """Default slider ranges, kept fixed while each tensor's values fit in them.

    A range recomputed from every new value would rescale the slider under the mouse while
    it is dragged; a value typed beyond the range gets a new range that holds it.
    """

    def __init__(self) -> None:
        self._ranges: dict[str, InputRange] = {}

    @property
    def ranges(self) -> Mapping[str, InputRange]:
        return self._ranges

    def settle(self, current: Mapping[str, NestedValues | None]) -> None:
        """Keep each kept range that still holds the tensor's ``current`` values."""
        for name, values in current.items():
            kept = self._ranges.get(name)
            if kept is None or not fits(values, kept):
                self._ranges[name] = default_range(values)

    def forget(self, names: set[str] | None = None) -> None:
        """Drop the ranges of ``names`` (all when ``None``): new values get new ranges."""
        if names is None:
            self._ranges.clear()
        for name in names or ():
            self._ranges.pop(name, None)
