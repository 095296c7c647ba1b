"""Arithmetic on tensors as flat lists of Python floats (no numpy in the GUI process).

Only what the local rules need: elementwise maps with numpy-style broadcasting, summing a
broadcast result back to an input's shape, 2-D matrix products, stacking. Every function
returns ``None`` when it cannot do its job (a missing operand, shapes that do not fit, too
much work), and the caller then shows torch's numbers without the working.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gui.model import nested
from gui.model.result import NestedValues, StepRecord, TensorData

# Recomputing in plain Python costs about a microsecond per multiply; above this much work
# the pane shows torch's numbers without the working, so a slider tick stays fast.
RECOMPUTE_LIMIT = 256

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Arr:
    """A tensor's numbers in row-major order, with its shape."""

    flat: tuple[float, ...]
    shape: Shape

    def nested(self) -> NestedValues:
        return nested.unflatten(list(self.flat), self.shape)


def arr(t: TensorData | None, limit: int | None = RECOMPUTE_LIMIT) -> Arr | None:
    """``t``'s numbers, or ``None`` when it has none, too many (over ``limit``) or not reals."""
    if t is None or t.values is None or (limit is not None and t.numel > limit):
        return None
    flat = nested.flatten(t.values)
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in flat):
        return None  # complex or bool: not worth a second implementation
    return Arr(tuple(float(v) for v in flat), tuple(t.shape))


def scalar(v: object) -> Arr | None:
    """A plain number (an exponent, an alpha) as a 0-d array; ``None`` for anything else."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return Arr((float(v),), ())


def _broadcast_shape(shapes: Sequence[Shape]) -> Shape | None:
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(ndim):
        sizes = {s[i - ndim + len(s)] for s in shapes if i - ndim + len(s) >= 0} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _index_map(src: Shape, out: Shape) -> list[int]:
    """For each element of ``out``, the flat index of the ``src`` element broadcast to it."""
    padded = (1,) * (len(out) - len(src)) + src
    strides, step = [], 1
    for d in reversed(padded):
        strides.append(step if d != 1 else 0)
        step *= d
    result = []
    for i in range(nested.numel(out)):
        index = 0
        for dim, stride in zip(reversed(out), strides, strict=True):
            i, position = divmod(i, dim)
            index += position * stride
        result.append(index)
    return result


def fmap(f: Callable[..., float], *arrays: Arr | None) -> Arr | None:
    present = [a for a in arrays if a is not None]
    if len(present) < len(arrays):
        return None
    shape = _broadcast_shape([a.shape for a in present])
    if shape is None or nested.numel(shape) > RECOMPUTE_LIMIT:
        return None
    columns = [[a.flat[k] for k in _index_map(a.shape, shape)] for a in present]
    return Arr(tuple(_safe(f, *xs) for xs in zip(*columns, strict=True)), shape)


def _safe(f: Callable[..., float], *xs: float) -> float:
    try:
        value = f(*xs)
    except ZeroDivisionError:
        return math.inf
    except (ValueError, OverflowError):
        return math.nan
    return math.nan if isinstance(value, complex) else float(value)


def expand(a: Arr | None, shape: Shape) -> Arr | None:
    if a is None or _broadcast_shape([a.shape, shape]) != shape:
        return None
    if nested.numel(shape) > RECOMPUTE_LIMIT:
        return None
    return Arr(tuple(a.flat[k] for k in _index_map(a.shape, shape)), shape)


def sum_to(a: Arr | None, shape: Shape) -> Arr | None:
    if a is None or a.shape == shape or _broadcast_shape([shape, a.shape]) != a.shape:
        return a if a is not None and a.shape == shape else None
    total = [0.0] * nested.numel(shape)
    for value, k in zip(a.flat, _index_map(shape, a.shape), strict=True):
        total[k] += value
    return Arr(tuple(total), shape)


def reshape(a: Arr | None, shape: Shape | None) -> Arr | None:
    if a is None or shape is None or nested.numel(shape) != len(a.flat):
        return None
    return Arr(a.flat, shape)


def matmul(a: Arr | None, b: Arr | None) -> Arr | None:
    if a is None or b is None or len(a.shape) != 2 or len(b.shape) != 2:
        return None
    (n, k), (k2, m) = a.shape, b.shape
    if k != k2 or n * k * m > RECOMPUTE_LIMIT:
        return None
    flat = [sum(a.flat[i * k + j] * b.flat[j * m + c] for j in range(k)) for i in range(n)
            for c in range(m)]  # fmt: skip
    return Arr(tuple(flat), (n, m))


def transpose(a: Arr | None) -> Arr | None:
    if a is None or len(a.shape) != 2:
        return None
    n, m = a.shape
    return Arr(tuple(a.flat[i * m + j] for j in range(m) for i in range(n)), (m, n))


def permute(a: Arr | None, dims: Sequence[int]) -> Arr | None:
    """``a.permute(dims)``: output dim ``k`` is input dim ``dims[k]``."""
    if a is None or sorted(dims) != list(range(len(a.shape))):
        return None
    shape = tuple(a.shape[d] for d in dims)
    strides = [nested.numel(a.shape[d + 1 :]) for d in range(len(a.shape))]
    flat = []
    for i in range(len(a.flat)):
        index = 0
        for k in reversed(range(len(shape))):
            i, position = divmod(i, shape[k])
            index += position * strides[dims[k]]
        flat.append(a.flat[index])
    return Arr(tuple(flat), shape)


def stack(parts: Sequence[Arr | None], dim: int) -> Arr | None:
    if not parts or any(p is None for p in parts):
        return None
    slices = [p for p in parts if p is not None]
    shape = slices[0].shape
    inner = nested.numel(shape[dim:])
    flat = [s.flat[o * inner + i] for o in range(nested.numel(shape[:dim])) for s in slices
            for i in range(inner)]  # fmt: skip
    return Arr(tuple(flat), (*shape[:dim], len(slices), *shape[dim:]))


def fpow(base: float, exponent: float) -> float:
    try:
        value = base**exponent
    except ZeroDivisionError:  # 0 to a negative power
        return math.inf
    except OverflowError:
        return math.inf
    return math.nan if isinstance(value, complex) else value


def flog(x: float) -> float:
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def fdiv(a: float, b: float) -> float:
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a * b or a)
    return a / b


def fmul(a: float, b: float) -> float:
    return a * b


def _close(x: float, y: float, tolerance: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or math.isclose(x, y, rel_tol=1e-4, abs_tol=tolerance)


def agrees(mine: Arr, theirs: TensorData) -> bool | None:
    """Whether ``mine`` equals torch's ``theirs`` up to float32 rounding (``None``: torch's
    numbers are only summarised, so there is nothing to compare)."""
    other = arr(theirs, limit=None)
    if other is None:
        return None
    if other.shape != mine.shape:
        return False
    finite = [abs(v) for v in other.flat if math.isfinite(v)]
    tolerance = 1e-6 * max([1.0, *finite])
    return all(_close(x, y, tolerance) for x, y in zip(mine.flat, other.flat, strict=True))


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
    return Arr(
        tuple(a - b for a, b in zip(after.flat, before.flat, strict=True)), after.shape
    ).nested()
