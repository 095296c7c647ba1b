"""Arithmetic on a tensor's numbers with numpy, for re-evaluating a local rule.

Only what the local rules need: elementwise maps with numpy broadcasting, summing a
broadcast result back to an input's shape, 2-D matrix products, reordering dims, stacking.
Every function returns ``None`` when it cannot do its job (a missing operand, shapes that do
not fit, too much work), and the caller then shows torch's numbers without the working.

The scalar helpers (:func:`fdiv`, :func:`fpow`, :func:`flog`) follow Python's float
arithmetic where it differs from IEEE's: ``x / 0`` is an infinity with the sign of ``x``
whatever the sign of the zero (``nan`` for ``0 / 0``), a power that overflows or divides by
zero is ``+inf``; a negative base to a fractional power is ``nan``. numpy's warnings about
these are silenced: an infinity or a ``nan`` in the working is part of the explanation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gui.model import nested
from gui.model.result import NestedValues, StepRecord, TensorData

# The most elements (multiply-adds for a matrix product) a rule is re-evaluated on. Above it
# the pane shows torch's numbers without the working or the check, so a slider tick stays
# cheap; numpy could manage more, but the working of a tensor that big reads as ⟨summaries⟩.
RECOMPUTE_LIMIT = 256

Shape = tuple[int, ...]
Vec = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Arr:
    """A tensor's numbers as a read-only float64 array (real numbers only)."""

    values: Vec

    @property
    def shape(self) -> Shape:
        return tuple(self.values.shape)

    @property
    def size(self) -> int:
        return int(self.values.size)

    def nested(self) -> NestedValues:
        """The numbers as nested lists of Python floats (a bare float for a 0-d array)."""
        return self.values.tolist()


def _make(values: ArrayLike) -> Arr:
    array = np.asarray(values, dtype=np.float64)
    array.flags.writeable = False  # an Arr is a value: operands are shared between terms
    return Arr(array)


def arr(t: TensorData | None, limit: int | None = RECOMPUTE_LIMIT) -> Arr | None:
    """``t``'s numbers, or ``None`` when it has none, too many (over ``limit``) or not reals."""
    if t is None or t.values is None or (limit is not None and t.numel > limit):
        return None
    try:
        values = np.asarray(t.values)
    except ValueError:  # ragged lists: not a tensor's tolist()
        return None
    if values.dtype.kind not in "iuf" or values.size != t.numel:
        return None  # complex or bool: not worth a second implementation
    return _make(values.reshape(t.shape))


def scalar(v: object) -> Arr | None:
    """A plain number (an exponent, an alpha) as a 0-d array; ``None`` for anything else."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return _make(float(v))


def _broadcast(*shapes: Shape) -> Shape | None:
    """The shape ``shapes`` broadcast to, or ``None`` when they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def fmap(f: Callable[..., ArrayLike], *arrays: Arr | None) -> Arr | None:
    """``f`` applied to ``arrays`` broadcast against each other.

    ``f`` gets float64 arrays of the broadcast shape and may return a plain number for a
    constant; numpy's floating-point warnings are silenced while it runs.
    """
    present = [a for a in arrays if a is not None]
    if not present or len(present) < len(arrays):
        return None
    shape = _broadcast(*(a.shape for a in present))
    if shape is None or nested.numel(shape) > RECOMPUTE_LIMIT:
        return None
    operands = np.broadcast_arrays(*(a.values for a in present))
    with np.errstate(all="ignore"):
        result = f(*operands)
    return _make(np.broadcast_to(np.asarray(result, dtype=np.float64), shape))


def expand(a: Arr | None, shape: Shape) -> Arr | None:
    """``a`` broadcast to ``shape`` (``a.expand(shape)``)."""
    if a is None or _broadcast(a.shape, shape) != shape:
        return None
    if nested.numel(shape) > RECOMPUTE_LIMIT:
        return None
    return _make(np.broadcast_to(a.values, shape))


def sum_to(a: Arr | None, shape: Shape) -> Arr | None:
    """``a`` summed over the dims that broadcasting added or stretched, down to ``shape``."""
    if a is None or a.shape == shape:
        return a
    if _broadcast(shape, a.shape) != a.shape:
        return None
    lead = len(a.shape) - len(shape)
    axes = (*range(lead), *(lead + i for i, n in enumerate(shape) if n == 1))
    with np.errstate(all="ignore"):  # inf + -inf is nan, as in torch
        total = a.values.sum(axis=axes, keepdims=True).reshape(shape)
        return _make(total + 0.0)  # a sum starts from +0.0: no "-0." for a sum of -0.0s


def reshape(a: Arr | None, shape: Shape | None) -> Arr | None:
    """``a`` with the same numbers in row-major order and a new ``shape``."""
    if a is None or shape is None or nested.numel(shape) != a.size:
        return None
    return _make(a.values.reshape(shape))


def matmul(a: Arr | None, b: Arr | None) -> Arr | None:
    """The product of two matrices, ``None`` unless both are 2-D and their sizes fit."""
    if a is None or b is None or len(a.shape) != 2 or len(b.shape) != 2:
        return None
    (n, k), (k2, m) = a.shape, b.shape
    if k != k2 or n * k * m > RECOMPUTE_LIMIT:
        return None
    with np.errstate(all="ignore"):
        return _make(np.matmul(a.values, b.values) + 0.0)  # +0.0: as in sum_to


def transpose(a: Arr | None) -> Arr | None:
    """A matrix's transpose (``None`` unless ``a`` is 2-D)."""
    if a is None or len(a.shape) != 2:
        return None
    return _make(a.values.T)


def permute(a: Arr | None, dims: Sequence[int]) -> Arr | None:
    """``a.permute(dims)``: output dim ``k`` is input dim ``dims[k]``."""
    if a is None or sorted(dims) != list(range(len(a.shape))):
        return None
    return _make(np.transpose(a.values, tuple(dims)))


def stack(parts: Sequence[Arr | None], dim: int) -> Arr | None:
    """``torch.stack(parts, dim)``; ``None`` if a part is missing or the shapes differ."""
    if not parts or any(p is None for p in parts):
        return None
    arrays = [p.values for p in parts if p is not None]
    shape = arrays[0].shape
    if any(x.shape != shape for x in arrays):
        return None
    # The new dim goes where ``shape[:dim]`` ends: torch saves a negative dim as 2**64 - 1,
    # which this way lands at the end, where -1 means it.
    return _make(np.stack(arrays, axis=len(shape[:dim])))


# The helpers below run inside fmap, which silences numpy's floating-point warnings.


def fpow(base: ArrayLike, exponent: ArrayLike) -> Vec:
    """``base ** exponent`` as Python's floats give it: ``+inf`` where finite numbers give
    an infinite magnitude (0 to a negative power, overflow: Python raises there), else
    numpy's power (``nan`` for a negative base to a fractional power)."""
    power = np.power(base, exponent, dtype=np.float64)
    finite = np.isfinite(base) & np.isfinite(exponent)
    raised = finite & np.isinf(np.power(np.abs(base), exponent, dtype=np.float64))
    return np.where(raised, np.inf, power)


def flog(x: ArrayLike) -> Vec:
    """The natural log: ``-inf`` at 0, ``nan`` below 0."""
    return np.log(x, dtype=np.float64)


def fdiv(a: ArrayLike, b: ArrayLike) -> Vec:
    """``a / b``; by zero: ``nan`` for ``0 / 0`` and ``nan / 0``, else an infinity with the
    sign of ``a`` (the sign of a zero ``b`` is not looked at)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    product = a * b
    # ``product or a``: a nonzero product (only nan, from an infinite a) gives the sign.
    sign = np.where(product != 0, product, a)
    by_zero = np.where((a == 0) | np.isnan(a), np.nan, np.copysign(np.inf, sign))
    return np.where(b == 0, by_zero, a / b)


def fmul(a: Vec, b: Vec) -> Vec:
    """``a * b`` (a rule's product of two operands)."""
    return a * b


def agrees(mine: Arr, theirs: TensorData) -> bool | None:
    """Whether ``mine`` equals torch's ``theirs`` up to float32 rounding (``None``: torch's
    numbers are only summarised, so there is nothing to compare)."""
    other = arr(theirs, limit=None)
    if other is None:
        return None
    if other.shape != mine.shape:
        return False
    x, y = mine.values, other.values
    tolerance = 1e-6 * max(1.0, float(np.abs(y[np.isfinite(y)]).max(initial=0.0)))
    with np.errstate(all="ignore"):
        # math.isclose(x, y, rel_tol=1e-4, abs_tol=tolerance), which unlike np.isclose is
        # symmetric and never calls an infinity close to a finite number.
        limit = np.maximum(1e-4 * np.maximum(np.abs(x), np.abs(y)), tolerance)
        near = (x == y) | (np.isfinite(x) & np.isfinite(y) & (np.abs(x - y) <= limit))
    either_nan = np.isnan(x) | np.isnan(y)
    return bool(np.all(np.where(either_nan, np.isnan(x) & np.isnan(y), near)))


def step_contribution(step: StepRecord, leaf: str) -> NestedValues | None:
    """What ``step`` added to ``leaf.grad``: ``grads_after - grads_before``; a ``.grad`` of
    None before the call counts as 0. ``None`` when the numbers are not all known."""
    after = arr(step.grads_after.get(leaf), limit=None)
    if after is None:
        return None
    before_data = step.grads_before.get(leaf)
    if before_data is None:
        return after.nested()
    before = arr(before_data, limit=None)
    if before is None or before.shape != after.shape:
        return None
    with np.errstate(all="ignore"):  # inf - inf is nan
        return _make(after.values - before.values).nested()
