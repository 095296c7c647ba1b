"""What a tensor record from the engine may claim: numbers that match its shape.

Part of the window's careful reader (:mod:`gui.model.wire`). The field checks see that a
:class:`~gui.model.result.TensorData`'s ``shape`` is a tuple of ints and its ``values``
plain data; but the window sizes boxes and lays out text by the shape, and formats the
values expecting ``tensor.tolist()``'s nesting. A few kilobytes claiming "this tensor has
10**9 numbers, here is one" made the layout build lists of that length (red team, round
9). So a record's dimensions are counted, at most :data:`MAX_DIMS` and none negative, and
its values are either absent (a big tensor: only its summary travels) or exactly what
``tolist()`` gives for its shape, at most :data:`~gui.model.result.FULL_VALUES_LIMIT`
numbers.

The records of one message are checked together, grouped by shape, a level of nesting at
a time with type and length lookups that run in C: a big graph's ten thousand small
tensors cost a few milliseconds.

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

import itertools
import math
import operator
import pickle
from collections.abc import Iterable, Sequence
from typing import Any

from gui.model.result import FULL_VALUES_LIMIT

# torch's own limit on a tensor's dimensions.
MAX_DIMS = 64
# The most outputs one autograd node may claim (``x.unbind()`` of a million rows is one
# node of a million outputs): the window lists at most a few, a claim of 10**9 is a lie.
MAX_OUTPUTS = 2**20
# What one number of ``tolist()`` can be: float, int, bool or complex (by dtype).
_NUMBERS = frozenset({float, int, bool, complex})
# The whole numbers an answer may hold: torch's are 64-bit (an int64 from -2**63, a uint64
# up to 2**64 - 1). A pickle carries 10**5000 in two kilobytes, which Python cannot even
# print (past 4,300 digits `str` raises): the window's first render raised on it (round 11).
LARGEST_INT = 2**64 - 1
SMALLEST_INT = -(2**63)
# The longest text an answer may hold anywhere: explanations and printed chunks are cut to
# MAX_TEXT_CHARS where they are made, names and labels are far shorter. Qt lays a long
# line out in quadratic time: 20 MB of label took the window 7 s (round 11).
MAX_STR_CHARS = 100_000
_IS = operator.is_


def _refuse(what: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(f"the engine sent a TensorData {what}")


def check_atoms(values: Sequence[object], what: str, max_text: int | None = MAX_STR_CHARS) -> None:
    """Refuse whole numbers outside :data:`SMALLEST_INT`..:data:`LARGEST_INT` and texts
    past ``max_text`` characters (``None``: any length) among ``values`` (``what`` they
    are, for the message); the other values are not looked at. In C: type lookups,
    ``max``, ``min``."""
    kinds = list(map(type, values))
    ints: list[Any] = list(itertools.compress(values, map(_IS, kinds, itertools.repeat(int))))
    if ints and (max(ints) > LARGEST_INT or min(ints) < SMALLEST_INT):
        raise pickle.UnpicklingError(f"the engine sent {what} with a number past 64 bits")
    if max_text is None:
        return
    texts: Iterable[Any] = itertools.compress(values, map(_IS, kinds, itertools.repeat(str)))
    if max(map(len, texts), default=0) > max_text:
        raise pickle.UnpicklingError(f"the engine sent {what} with a text too long to show")


def check_plain(values: Iterable[object], what: str) -> None:
    """:func:`check_atoms` of every atom in ``values`` and in the lists and tuples nested
    in them (plain data: a saved attribute's value), level by level."""
    level = list(values)
    while level:
        check_atoms(level, what)
        nested: list[Any] = [v for v in level if type(v) is list or type(v) is tuple]
        level = list(itertools.chain.from_iterable(nested))


def check_output_counts(counts: Sequence[int]) -> None:
    """Refuse nodes that claim fewer than none or more than :data:`MAX_OUTPUTS` outputs
    (the counts are ints: the field checks saw to that)."""
    if counts and (min(counts) < 0 or max(counts) > MAX_OUTPUTS):
        raise pickle.UnpicklingError(
            "the engine sent a GraphNode of more outputs than any op makes"
        )


def check_input_indices(indices: Sequence[int | None]) -> None:
    """Refuse edges whose ``input_index`` (a position in the target's inputs, ``None`` for
    none) is negative or past :data:`MAX_OUTPUTS`: panels index a node's flows with it,
    and ``leaving[-10**9]`` raised on the window's thread for an answer the reader had
    taken (red team, round 10)."""
    given = [i for i in indices if i is not None]
    if given and (min(given) < 0 or max(given) > MAX_OUTPUTS):
        raise pickle.UnpicklingError("the engine sent a GraphEdge of an input no op has")


def check_tensor_values(shapes: Sequence[tuple[int, ...]], values: Sequence[Any]) -> None:
    """Refuse tensor records (``shapes[i]``, ``values[i]``) whose values are not ``None``
    or ``tolist()`` of their shape (at most :data:`FULL_VALUES_LIMIT` numbers), or whose
    shape has a negative dimension or more than :data:`MAX_DIMS` (the shapes' items are
    ints: the field checks saw to that)."""
    if len(shapes) != len(values):
        raise _refuse("table with columns of different lengths")
    if shapes and max(map(len, shapes)) > MAX_DIMS:
        raise _refuse(f"with more than {MAX_DIMS} dimensions")
    flat_dims = list(itertools.chain.from_iterable(shapes))
    if flat_dims and min(flat_dims) < 0:
        raise _refuse("with a negative dimension")
    if flat_dims and max(flat_dims) > LARGEST_INT:
        raise _refuse("with a dimension past 64 bits")
    by_shape: dict[tuple[int, ...], list[Any]] = {}
    for shape, value in zip(shapes, values, strict=True):
        if value is not None:
            by_shape.setdefault(shape, []).append(value)
    for shape, given in by_shape.items():
        if math.prod(shape) > FULL_VALUES_LIMIT:
            raise _refuse(f"with the values of {math.prod(shape):,} numbers")
        _check_nesting(shape, given)


def _check_nesting(shape: tuple[int, ...], level: list[Any]) -> None:
    """Every item of ``level`` is ``tolist()`` of a tensor of ``shape``: lists of exactly
    ``shape[0]`` items each, their items lists of ``shape[1]``..., numbers at the end."""
    for size in shape:
        if not set(map(type, level)) <= {list} or not set(map(len, level)) <= {size}:
            raise _refuse(f"whose values do not have its shape {shape}")
        level = list(itertools.chain.from_iterable(level))
    if not set(map(type, level)) <= _NUMBERS:
        raise _refuse("whose values are not numbers")
    check_atoms(level, "a TensorData")
