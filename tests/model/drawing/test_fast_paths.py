"""The fast paths for flat lists of floats give what the generic walk over nested values
gives (the colour of a box, its cells, a shape's text)."""

from __future__ import annotations

import math
import random
from typing import Any

from gui.model.drawing.colors import diverging_color, dominant_value
from gui.model.drawing.paint import MAX_CELLS, element_cells
from gui.model.result import TensorData
from gui.model.tensor_format import format_shape, iter_values

POOL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, math.inf, -math.inf, math.nan, 3.0, 2, True, 1 + 2j]


def generic_dominant(t: TensorData) -> float | None:
    best = None
    for v in iter_values(t.values):
        if isinstance(v, complex):
            v = abs(v)
        if not isinstance(v, int | float):
            continue
        f = float(v)
        if math.isnan(f):
            return math.nan
        if best is None or abs(f) > abs(best):
            best = f
    return best


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def test_dominant_value_agrees_with_the_generic_walk() -> None:
    rng = random.Random(7)
    for i in range(3000):
        n = rng.randint(0, 5)
        values: Any = [rng.choice(POOL if i % 3 == 0 else POOL[:10]) for _ in range(n)]
        if i % 7 == 0:
            values = [values, values]
        elif n == 1 and i % 2:
            values = values[0]
        t = TensorData((n,), "float32", values)
        assert same(dominant_value(t), generic_dominant(t)), values


def test_element_cells_of_floats_colour_each_element() -> None:
    values = [float(i) - 40.0 for i in range(MAX_CELLS + 5)]
    cells = element_cells(TensorData((len(values),), "float32", values), 10.0)
    assert cells is not None
    assert cells.colors == tuple(diverging_color(v, 10.0) for v in values[:MAX_CELLS])
    assert cells.more == 5


def test_format_shape_of_any_sequence() -> None:
    assert format_shape(()) == "scalar"
    assert format_shape((3,)) == "(3,)"
    assert format_shape([2, 2]) == "(2, 2)"
