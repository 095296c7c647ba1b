"""Numbers on a slider range's step grid: as many decimals as the step, more when needed."""

from __future__ import annotations

from gui.model.session import InputRange
from gui.model.views.grid_numbers import MAX_DECIMALS, number_text, range_text, step_decimals


def test_a_step_needs_its_own_decimals() -> None:
    assert [step_decimals(s) for s in (1, 0.5, 0.04, 0.002, 0.01, 100)] == [0, 1, 2, 3, 2, 0]
    assert step_decimals(1 / 3) == MAX_DECIMALS
    # Small steps: their first digit decides, not how close they are to zero.
    assert [step_decimals(s) for s in (1e-6, 2e-5, 0.0004, 2.5)] == [6, 5, 4, 1]


def test_a_value_off_the_grid_still_shows_as_it_is() -> None:
    assert number_text(250, 2) == "250.00"
    assert number_text(-1.2095, 3) == "-1.2095"
    assert number_text(-1e-4, 2) == "-0.0001"
    assert number_text(3.7699999999999996, 2) == "3.77"
    assert number_text(0.5, 0) == "0.5"


def test_a_range_reads_as_words() -> None:
    assert range_text(InputRange(-5.0, 5.0, 0.01)) == "-5 to 5, step 0.01"
