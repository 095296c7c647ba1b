"""The numbers a colour scale covers, found in bulk for a big graph's gradients.

The colour scale (:func:`gui.model.drawing.paint.colour_scale`) is the largest finite
:func:`~gui.model.drawing.colors.dominant_value` over every gradient a picture shows. On a
5,000-function graph that is tens of thousands of tensors, most of them asked for twice (a
node's arriving gradient is also its flow's; an edge's is its target's leaving one), and a
slider tick spent tens of milliseconds in a Python loop over them.

:func:`dominant_values` gives the same scale from far less work: when every number is a
finite ``float``, alone or in a flat list (what a backward pass of float tensors sends),
one pass in C over all of them, and one value for the scale to read. Anything else (a nan,
an inf, an ``int``, nested rows, a summary) takes the per-tensor path, as before.

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterable

from gui.model.drawing.colors import dominant_value
from gui.model.result import TensorData

_FLOATS = frozenset({float})
_VALUES = operator.attrgetter("values")


def dominant_values(tensors: Iterable[TensorData | None]) -> list[float | None]:
    """Values whose largest finite magnitude is that of the tensors' dominant values.

    Not one value per tensor: the list is for a scale (:func:`~.colors.scale_for`), which
    keeps the largest finite magnitude and skips ``None``, nan and inf. A tensor with a nan
    or an inf adds nothing finite to it (its dominant value is that nan or inf), so the bulk
    pass is taken only when every number is a finite ``float``: then the largest magnitude
    of all the numbers is the largest of the tensors' dominant values. Every step of it
    runs in C (``map``, ``compress``, ``chain``); anything else takes the per-tensor path.
    """
    present = list(filter(None, tensors))  # a TensorData is always true
    values = list(map(_VALUES, present))
    rows = list(map(operator.is_, map(type, values), itertools.repeat(list)))
    numbers = list(itertools.compress(values, map(operator.not_, rows)))  # 0-d: floats
    if set(map(type, numbers)) <= _FLOATS:
        numbers.extend(itertools.chain.from_iterable(itertools.compress(values, rows)))
        if set(map(type, numbers)) <= _FLOATS:
            magnitudes: list[float] = list(map(abs, numbers))  # floats only, checked above
            # A finite sum: no nan, no inf (a sum of finite numbers that overflows takes
            # the per-tensor path: slower, the same scale).
            if math.isfinite(sum(magnitudes)):
                return [max(magnitudes)] if magnitudes else []
    return [dominant_value(t) for t in present]
