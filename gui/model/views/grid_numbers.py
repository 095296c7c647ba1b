"""Numbers on a slider range's step grid: how many decimals a step needs, how a value reads
in a number box (:func:`number_text`), and how a range reads (:func:`range_text`)."""

from __future__ import annotations

from gui.model.session import InputRange
from gui.model.tensor_format import INPUT_MAX_DECIMALS, format_input

MAX_DECIMALS = INPUT_MAX_DECIMALS


def step_decimals(step: float) -> int:
    """How many decimals a value on a grid of ``step`` needs: 0.04 -> 2, 0.002 -> 3."""
    step = abs(step)
    for decimals in range(MAX_DECIMALS + 1):
        scaled = step * 10**decimals
        # A whole number of at least one: 1e-6 is not "0 decimals" (it is near 0, not 1).
        if round(scaled) >= 1 and abs(scaled - round(scaled)) <= 1e-6 * scaled:
            return decimals
    return MAX_DECIMALS


def number_text(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, or more when fewer would change it: a value
    the slider grid cannot hit (-1.2095 on a 0.004 grid) still shows as it is
    (:func:`~gui.model.tensor_format.format_input`)."""
    return format_input(value, decimals)


def range_text(value_range: InputRange) -> str:
    """``"-5 to 5, step 0.01"``."""
    return f"{value_range.low:g} to {value_range.high:g}, step {value_range.step:g}"
