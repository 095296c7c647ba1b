"""The one number format: computed numbers with 4 significant digits, round numbers without
trailing zeros, inputs as set; and every view writing numbers through it."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from gui.model.tensor_format import format_input, format_number, format_short

GUI = Path(__file__).resolve().parents[2] / "gui"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (35.10936, "35.11"),
        (-2.419, "-2.419"),
        (5.4056, "5.406"),
        (0.5, "0.5000"),
        (125.0, "125."),
        (1.2345e-4, "1.234e-04"),
        (12345.6, "1.235e+04"),
        (math.nan, "nan"),
        (-math.inf, "-inf"),
    ],
)
def test_computed_numbers_have_four_significant_digits(value: float, text: str) -> None:
    assert format_number(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.5"),
        (2.5, "2.5"),
        (40.0, "40"),
        (-20.0, "-20"),
        (0.30000000000000004, "0.3"),  # an axis tick's float noise is not shown
        (0.015, "0.015"),
        (5e-4, "5e-04"),
        (1.5e4, "15000"),
        (0.0, "0"),
    ],
)
def test_round_numbers_drop_trailing_zeros(value: float, text: str) -> None:
    assert format_short(value) == text


def test_round_numbers_keep_the_four_digit_rounding() -> None:
    # format_short never shows more than format_number: it only drops zeros.
    for v in (35.10936, -2.41912, 1234.5678, 0.000123456):
        assert float(format_short(v)) == float(format_number(v))


def test_inputs_show_as_set() -> None:
    assert format_input(-1.2095, 3) == "-1.2095"  # a lesson's value is never rounded
    assert format_input(0.1, 3) == "0.100"
    assert format_input(2.0, 0) == "2"


def test_views_write_numbers_only_through_tensor_format() -> None:
    """No view formats a number for display by itself (``:.3f``, ``:.4g``): the formats
    left in gui/ are file contents, sizes and messages about settings, listed here."""
    allowed = {
        "model/tensor_format.py",  # the formatter itself
        "model/drawing/svg.py",  # Graphviz attributes (inches, pen widths, positions)
        "model/drawing/layout.py",  # Graphviz attributes
        "model/drawing/placed_svg.py",  # Graphviz attributes (a big graph's positions)
        "model/drawing/colors.py",  # "#rrggbb"
        "model/drawing/dot_reader.py",  # a size in a message
        "model/session/file_format.py",  # sizes and seconds in messages
        "model/session/ranges.py",  # a range's ends in a refusal
        "model/views/grid_numbers.py",  # a slider range's settings ("-2 to 2, step 0.002")
        "model/explain/messages.py",  # seconds
        "model/views/status.py",  # seconds
        "model/views/memory.py",  # sizes in bytes (KiB, MiB)
    }
    pattern = re.compile(r"\{[^{}]*:[-+ #0-9,]*\.[0-9]+[fgeE%]\}|\{[^{}]*:[0-9]*g\}")
    offenders = []
    for path in sorted(GUI.rglob("*.py")):
        relative = path.relative_to(GUI).as_posix()
        if relative in allowed or relative.startswith("model/engine/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) and "pt" not in line:  # "11pt": a font size for Qt
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert not offenders, "numbers formatted outside tensor_format:\n" + "\n".join(offenders)
