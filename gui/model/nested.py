"""Nested lists of numbers (what ``tensor.tolist()`` returns), without torch or numpy.

Sliders address one element of a tensor by its flat (row-major) index; the engine takes
values as nested lists. These helpers convert between the two and build the gradient
presets (ones, zeros, one-hot, scaled) for any shape.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gui.model.result import NestedValues


def shape_of(values: NestedValues) -> tuple[int, ...]:
    """The shape of a rectangular nested list (a bare number has shape ``()``)."""
    shape = []
    current = values
    while isinstance(current, list):
        shape.append(len(current))
        if not current:
            break
        current = current[0]
    return tuple(shape)


def numel(shape: Sequence[int]) -> int:
    """How many elements a tensor of ``shape`` has."""
    return math.prod(shape)


def flatten(values: NestedValues) -> list[float]:
    """Every number in row-major order."""
    if not isinstance(values, list):
        return [values]
    out: list[float] = []
    stack = [values]
    # Iterative, row-major: push children reversed so the first is handled first.
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def unflatten(flat: Sequence[float], shape: Sequence[int]) -> NestedValues:
    """Numbers in row-major order back into a nested list of ``shape``."""
    if len(flat) != numel(shape):
        raise ValueError(f"{len(flat)} numbers do not fill shape {tuple(shape)}")
    if not shape:
        return flat[0]

    def build(offset: int, dims: Sequence[int]) -> NestedValues:
        if len(dims) == 1:
            return list(flat[offset : offset + dims[0]])
        stride = numel(dims[1:])
        return [build(offset + i * stride, dims[1:]) for i in range(dims[0])]

    return build(0, shape)


def full(shape: Sequence[int], value: float) -> NestedValues:
    """A nested list of ``shape`` filled with ``value``."""
    return unflatten([value] * numel(shape), shape)


def one_hot(shape: Sequence[int], index: int) -> NestedValues:
    """Zeros of ``shape`` with a 1 at flat position ``index`` (the basis vector e_i)."""
    flat = [0.0] * numel(shape)
    flat[index] = 1.0
    return unflatten(flat, shape)


def scaled(values: NestedValues, factor: float) -> NestedValues:
    """Every number multiplied by ``factor``."""
    return unflatten([v * factor for v in flatten(values)], shape_of(values))


def with_element(values: NestedValues, index: int, value: float) -> NestedValues:
    """A copy of ``values`` with the number at flat position ``index`` replaced."""
    flat = flatten(values)
    flat[index] = value
    return unflatten(flat, shape_of(values))


def index_label(shape: Sequence[int], index: int) -> str:
    """How Python indexes flat element ``index`` of a tensor of ``shape``: ``[1]``, ``[0, 2]``."""
    if not shape:
        return ""
    parts = []
    for dim in reversed(shape):
        index, position = divmod(index, dim) if dim else (0, 0)
        parts.append(str(position))
    return "[" + ", ".join(reversed(parts)) + "]"
