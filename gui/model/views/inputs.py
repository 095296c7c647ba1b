"""What the inputs panel shows: a group per leaf tensor, and its numbers as flat lists.

A leaf is a tensor the program made with ``requires_grad=True``. The panel rebuilds its
groups only when :func:`structure` changes; every other snapshot just feeds them numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from gui.model import nested
from gui.model.result import NestedValues, RunResult
from gui.model.views.arrays import as_array, is_real

Structure = tuple[tuple[str, tuple[int, ...], bool], ...]


def flat_numbers(values: NestedValues) -> list[float]:
    """The real numbers of ``values`` in row-major order, as floats.

    Anything else (complex numbers) is left out, so a slider never gets a value it cannot
    show.
    """
    array = as_array(values)
    if is_real(array):
        return array.astype(float).ravel().tolist()
    # Complex numbers (maybe mixed with a float a slider put in), None from a file, a ragged
    # list: element by element, keeping only the real numbers.
    return [float(v) for v in nested.flatten(values) if isinstance(v, int | float)]


def structure(result: RunResult | None) -> Structure:
    """What decides the groups: the leaves, their shapes, and whether numbers came back."""
    if result is None:
        return ()
    out = []
    for name in result.leaves:
        info = result.tensors.get(name)
        if info is not None:
            out.append((name, info.value.shape, info.value.values is not None))
    return tuple(out)


def constants(result: RunResult | None) -> Sequence[str]:
    """The named tensors that are leaves without ``requires_grad``: no slider, no gradient."""
    if result is None:
        return ()
    return [n for n, t in result.tensors.items() if t.is_leaf and not t.requires_grad]
