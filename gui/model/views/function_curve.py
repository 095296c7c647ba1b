"""What the function view draws, as plain numbers: the curves ``f`` and ``df/dx_i`` over
the swept element's range, the current point with its tangent, and the finite-difference
check of the slope beside the autograd value.

``f`` is the output (or ``v . y`` for a non-scalar output) and ``df/dx_i`` autograd's
gradient, both read from the engine's sweep (:mod:`gui.model.engine.sweep`); the point and
its slope come from the run on screen, read the same way (:mod:`gui.model.sweep_values`),
so the marker sits on the curve and the tangent's slope *is* ``x.grad[i]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from gui.model import nested
from gui.model.result import SweepResult
from gui.model.session.function_view import central_difference
from gui.model.session.snapshot import Snapshot
from gui.model.sweep_values import output_of_interest, slope_of_interest
from gui.model.tensor_format import format_short
from gui.model.visible_text import visible_controls

# The finite difference "agrees" within this share of the slope (or of 1, near zero).
AGREEMENT = 1e-2
# The tangent is drawn over this share of the range on each side of the point.
TANGENT_REACH = 0.2
# float32 keeps about this relative precision: f(x+h) - f(x-h) loses it all below.
FLOAT32_EPSILON = 1.2e-7
NAN = float("nan")


@dataclass(frozen=True)
class FunctionCurve:
    """One frame of the function view (see the module docstring).

    Gaps (a sample that failed) are NaN in ``values``/``slopes``/``curvatures``;
    ``curvatures`` is empty when there is no second-derivative curve.
    """

    element: str = ""
    f_label: str = "f"
    xs: tuple[float, ...] = ()
    values: tuple[float, ...] = ()
    slopes: tuple[float, ...] = ()
    curvatures: tuple[float, ...] = ()
    x_range: tuple[float, float] = (0.0, 1.0)
    point: tuple[float, float] | None = None
    slope: float | None = None
    tangent: tuple[tuple[float, float], tuple[float, float]] | None = None
    finite_difference: float | None = None
    h: float = 1e-3
    agrees: bool | None = None
    check: str = ""
    message: str = ""
    notes: tuple[str, ...] = ()
    stale: bool = False


def element_label(leaf: str, index: int, shape: tuple[int, ...]) -> str:
    """How Python names the element: ``x[1, 0]``, ``w[2]``, ``b`` for a 0-d tensor."""
    return leaf + nested.index_label(shape, index)


def _numbers(values: Iterable[float | None]) -> tuple[float, ...]:
    return tuple(NAN if v is None else float(v) for v in values)


def tangent_line(
    x0: float, f0: float, slope: float, low: float, high: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The tangent at ``(x0, f0)``: ``f0 + slope (x - x0)``, over a part of the range
    around the point (a whole-range line would set the plot's scale)."""
    reach = (high - low) * TANGENT_REACH
    a, b = x0 - reach, x0 + reach
    return (a, f0 + slope * (a - x0)), (b, f0 + slope * (b - x0))


def agreement(finite: float | None, slope: float | None) -> bool | None:
    """Whether the finite difference matches autograd's slope (``None``: one is missing)."""
    if finite is None or slope is None or not (math.isfinite(finite) and math.isfinite(slope)):
        return None
    return abs(finite - slope) <= AGREEMENT * max(1.0, abs(slope))


def check_text(finite: float | None, slope: float | None, h: float, f0: float | None) -> str:
    """The sentence under the two slopes: do they agree, and if not, why."""
    agrees = agreement(finite, slope)
    if finite is None or slope is None or agrees is None:
        return ""
    gap = format_short(abs(finite - slope))
    if agrees:
        return f"They agree (within {gap})."
    scale = abs(f0) if f0 is not None and math.isfinite(f0) else 1.0
    if FLOAT32_EPSILON * max(scale, 1e-30) / h > AGREEMENT * max(1.0, abs(slope)):
        return f"Off by {gap}: h is so small that float32 rounding of f swamps the difference."
    return f"Off by {gap}: h is too large, the secant is not the tangent."


def check_detail(agrees: bool | None) -> str:
    """The longer story behind :func:`check_text` (a tooltip)."""
    if agrees is None:
        return ""
    if agrees:
        return (
            "autograd gives the exact slope at the point; the finite difference estimates it "
            "from two runs of the program, at x - h and x + h."
        )
    return (
        "A large h measures the secant through x - h and x + h: where the curve bends, that "
        "is not the tangent. A tiny h subtracts two nearly equal float32 numbers (about 7 "
        "significant digits each): rounding dominates. In between, they agree."
    )


def _point(snapshot: Snapshot, leaf: str, index: int) -> tuple[float | None, float | None]:
    """The current element value and ``f`` there, from the run on screen."""
    value = snapshot.leaf_value(leaf)
    flat = [] if value is None else nested.flatten(value)
    x0 = flat[index] if index < len(flat) else None
    result = snapshot.result
    f0 = None if result is None else output_of_interest(result)
    x = float(x0) if isinstance(x0, int | float) else None
    return x, f0


def _f_label(snapshot: Snapshot) -> str:
    name = (snapshot.result.output if snapshot.result is not None else None) or "y"
    shape = snapshot.output_shape
    if shape is not None and nested.numel(shape) == 1:
        return name
    return f"v · {name}"


def _first_line(text: str) -> str:
    """The first line of a program's own text (an exception's), its controls as escapes."""
    lines = text.strip().splitlines()
    return visible_controls(lines[0] if lines else text)


def _probe_slope(probe: SweepResult | None, h: float) -> float | None:
    if probe is None or len(probe.values) != 2:
        return None
    return central_difference(probe.values[0], probe.values[1], h)


def function_curve(snapshot: Snapshot) -> FunctionCurve:
    """The function view's frame for ``snapshot``."""
    view = snapshot.function
    if view.leaf is None:
        return FunctionCurve(message="No leaf tensor that requires grad: nothing to sweep yet.")
    leaf, index, h = view.leaf, view.index, view.h
    info = None if snapshot.result is None else snapshot.result.tensors.get(leaf)
    shape = tuple(info.value.shape) if info is not None else ()
    low, high = snapshot.range_for(leaf).low, snapshot.range_for(leaf).high
    x0, f0 = _point(snapshot, leaf, index)
    result = snapshot.result
    slope = None if result is None else slope_of_interest(result, leaf, index)
    point = (x0, f0) if x0 is not None and f0 is not None else None
    tangent = None
    if point is not None and slope is not None and math.isfinite(slope):
        tangent = tangent_line(point[0], point[1], slope, low, high)
    finite = _probe_slope(view.probe, h) if view.probe_current else None
    curve = view.curve
    notes: list[str] = []
    message = ""
    if curve is None:
        message = "Sweeping the range…" if view.sweeping else "No curve yet."
    elif curve.error is not None and all(v is None for v in curve.values):
        message = f"Every sample failed: {_first_line(curve.error.message)}"
    else:
        if curve.error is not None:
            notes.append(f"Some samples failed (gaps): {_first_line(curve.error.message)}")
        if curve.note is not None:
            notes.append(curve.note)
    curvatures = () if curve is None else _numbers(curve.curvatures)
    if curvatures and all(math.isnan(v) for v in curvatures):
        curvatures = ()
    return FunctionCurve(
        element=element_label(leaf, index, shape),
        f_label=_f_label(snapshot),
        xs=() if curve is None else tuple(curve.xs),
        values=() if curve is None else _numbers(curve.values),
        slopes=() if curve is None else _numbers(curve.slopes),
        curvatures=curvatures,
        x_range=(low, high),
        point=point,
        slope=slope,
        tangent=tangent,
        finite_difference=finite,
        h=h,
        agrees=agreement(finite, slope),
        check=check_text(finite, slope, h, f0),
        message=message,
        notes=tuple(notes),
        stale=curve is not None and not view.curve_current,
    )


def value_range(values: Iterable[float], extra: Iterable[float] = ()) -> tuple[float, float]:
    """A y range holding every finite number of ``values`` and ``extra``, with a margin."""
    finite = [v for v in (*values, *extra) if math.isfinite(v)]
    if not finite:
        return -1.0, 1.0
    low, high = min(finite), max(finite)
    if high - low < 1e-12 * max(1.0, abs(high)):
        pad = max(1.0, abs(high)) * 0.1
        return low - pad, high + pad
    pad = (high - low) * 0.08
    return low - pad, high + pad
