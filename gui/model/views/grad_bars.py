"""What the bars of one leaf's ``.grad`` show: what was already there, what a backward added.

Per element, ``before`` + ``added`` = ``after`` for the backward call the snapshot shows (or,
when ``.grad`` changed after the last call, e.g. "Zero grad", what it holds now). Also the
small comparisons both gradient plots make: a gradient's numbers as floats, whether two
gradients hold the same numbers, whether one was zeroed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gui.model import nested
from gui.model.result import TensorData
from gui.model.session import Snapshot
from gui.model.tensor_format import format_number
from gui.model.views.arrays import as_array, is_real

MAX_BARS = 64


def float_array(data: TensorData | None) -> np.ndarray | None:
    """A tensor's numbers in row-major order as a flat float array (complex: magnitude);
    ``None`` when there are none (no gradient, or a tensor only summarised)."""
    if data is None or data.values is None:
        return None
    array = as_array(data.values)
    if is_real(array):
        return array.astype(float).ravel()
    if array is not None and array.dtype.kind == "c":
        return np.abs(array).ravel()
    # Anything else (objects, ragged lists): element by element, nan where not a number.
    return np.array([_as_float(v) for v in nested.flatten(data.values)], dtype=float)


def floats(data: TensorData | None) -> list[float] | None:
    """:func:`float_array` as a list of Python floats."""
    array = float_array(data)
    return None if array is None else array.tolist()


def _as_float(v: object) -> float:
    if isinstance(v, complex):
        return abs(v)
    if isinstance(v, bool | int | float):
        return float(v)
    return math.nan


def same_grad(a: TensorData | None, b: TensorData | None) -> bool:
    """Whether two gradients hold the same numbers (nan equals nan here)."""
    if a is None or b is None:
        return a is b
    if a.values is None or b.values is None:
        return a == b
    if a.values == b.values:  # the usual answer (a call's grad before = the last one's after)
        return True
    fa, fb = float_array(a), float_array(b)
    return fa is not None and fb is not None and np.array_equal(fa, fb, equal_nan=True)


def is_zeroed(data: TensorData | None) -> bool:
    """Whether a gradient is all zeros or gone (``None``), as zeroing leaves it."""
    if data is None:
        return True
    values = float_array(data)
    if values is None:
        s = data.summary
        return s is not None and s.minimum == 0 and s.maximum == 0
    return not values.any()


@dataclass(frozen=True)
class BarData:
    """What the bars of one leaf show: per element, ``before`` + ``added`` = ``after``.

    ``message`` replaces the bars (``"x.grad is None"``); ``note`` says what the bars leave
    out (``"first 64 of 100 elements"``).
    """

    title: str
    before: tuple[float, ...] = ()
    added: tuple[float, ...] = ()
    after: tuple[float, ...] = ()
    message: str | None = None
    note: str | None = None


def bar_data(snapshot: Snapshot, leaf: str) -> BarData:
    """The bars of ``leaf`` for the step the snapshot shows (the selected one, else the last;
    if ``.grad`` changed after the last step, e.g. "Zero grad", the latest shows that)."""
    result = snapshot.result
    step = snapshot.shown_step
    final = snapshot.leaf_grads.get(leaf)
    if result is None or step is None:
        return _bars(f"{leaf}.grad", leaf, None, final)
    count = len(result.steps)
    selected = snapshot.selected_step
    latest = selected is None or not 0 <= selected < count
    number = count if latest or selected is None else selected + 1
    before, after = step.grads_before.get(leaf), step.grads_after.get(leaf)
    if step.error is not None:
        title = f"{leaf}.grad: backward {number} of {count} failed"
    else:
        title = f"{leaf}.grad after backward {number} of {count}"
    if latest and not same_grad(final, after):
        # Something after the last call changed .grad ("Zero grad", x.grad.zero_()).
        what = "zeroed" if is_zeroed(final) else "changed"
        title = f"{leaf}.grad {what} after backward {count}"
        before, after = final, final
    return _bars(title, leaf, before, after)


def _bars(title: str, leaf: str, before: TensorData | None, after: TensorData | None) -> BarData:
    if after is None:
        return BarData(title, message=f"{leaf}.grad is None")
    values = float_array(after)
    if values is None:
        lines = [f"{leaf}.grad has {after.numel} elements"]
        s = after.summary
        if s is not None:
            lines += [f"min {format_number(s.minimum)}   max {format_number(s.maximum)}"]
            lines += [f"mean {format_number(s.mean)}   norm {format_number(s.norm)}"]
        return BarData(title, message="\n".join(lines))
    old = float_array(before)
    if old is None or len(old) != len(values):
        old = np.zeros(len(values))
    note = None
    if len(values) > MAX_BARS:
        note = f"first {MAX_BARS} of {len(values)} elements"
        values, old = values[:MAX_BARS], old[:MAX_BARS]
    # inf - inf is nan, and a gradient that overflowed stays inf: said by the bars (nan:
    # no bar), not by numpy's warnings.
    with np.errstate(invalid="ignore", over="ignore"):
        added = values - old
    return BarData(
        title, tuple(old.tolist()), tuple(added.tolist()), tuple(values.tolist()), note=note
    )
