"""What the history plot of one leaf shows: ``.grad`` after each backward call.

x is the backward call's number (1, 2, ...), y the value ``.grad`` held after it: one curve
per element for small leaves, the norm for bigger ones. Where ``.grad`` changed between two
calls (zeroed, typically) a point at the half step shows the drop, with a "zeroed" marker;
failed calls get a marker too; ``shown`` is the step the other views show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gui.model import nested
from gui.model.result import TensorData
from gui.model.session import Snapshot
from gui.model.views.grad_bars import floats, is_zeroed, same_grad

MAX_CURVES = 8


@dataclass(frozen=True)
class HistoryData:
    """The points of one leaf's history; ``series[k][j]`` is curve ``k`` at ``xs[j]``.

    ``steps`` is the number of backward calls; ``zeroed`` and ``failed`` are x positions of
    the marker lines; ``shown`` is the x of the step the other views show.
    """

    xs: tuple[float, ...] = ()
    series: tuple[tuple[float, ...], ...] = ()
    steps: int = 0
    zeroed: tuple[float, ...] = ()
    failed: tuple[float, ...] = ()
    shown: float | None = None
    end: float = 0.0  # the last x plotted: steps, or steps + 0.5 after a final zeroing


def per_element(shape: tuple[int, ...]) -> bool:
    """One curve per element (small leaves) rather than the norm."""
    return nested.numel(shape) <= MAX_CURVES


def _point(data: TensorData | None, curves: int, elements: bool) -> list[float]:
    values = floats(data)
    if elements:
        if values is None or len(values) != curves:
            return [math.nan] * curves
        return values
    if values is not None:
        # Python's left-to-right sum, not numpy's pairwise one: the norm keeps every digit
        # it always had, so a plotted point never moves by a rounding.
        return [math.sqrt(sum(v * v for v in values))]
    if data is not None and data.summary is not None:
        return [data.summary.norm]
    return [math.nan]


def history_data(snapshot: Snapshot, leaf: str, shape: tuple[int, ...]) -> HistoryData:
    """The history of ``leaf`` (of ``shape``) over the snapshot's backward calls."""
    result = snapshot.result
    steps = () if result is None else result.steps
    elements = per_element(shape)
    curves = nested.numel(shape) if elements else 1
    xs: list[float] = []
    points: list[list[float]] = []
    zeroed: list[float] = []
    failed: list[float] = []
    previous: TensorData | None = None
    for number, step in enumerate(steps, start=1):
        before = step.grads_before.get(leaf)
        if number > 1 and not same_grad(before, previous):
            xs.append(number - 0.5)
            points.append(_point(before, curves, elements))
        if step.zero_grad and number > 1:
            zeroed.append(number - 0.5)
        previous = step.grads_after.get(leaf)
        xs.append(number)
        points.append(_point(previous, curves, elements))
        if step.error is not None:
            failed.append(number)
    count = len(steps)
    end = float(count)
    final = snapshot.leaf_grads.get(leaf)
    if count and not same_grad(final, previous):  # changed after the last call
        end = count + 0.5
        xs.append(end)
        points.append(_point(final, curves, elements))
        if is_zeroed(final):
            zeroed.append(end)
    return HistoryData(
        xs=tuple(xs),
        series=tuple(tuple(p[k] for p in points) for k in range(curves)),
        steps=count,
        zeroed=tuple(zeroed),
        failed=tuple(failed),
        shown=_shown_x(snapshot, count, end),
        end=end,
    )


def _shown_x(snapshot: Snapshot, count: int, end: float) -> float | None:
    if not count:
        return None
    selected = snapshot.selected_step
    if selected is None or not 0 <= selected < count:
        return end
    return float(selected + 1)


def step_for_click(x: float, data: HistoryData) -> int | None:
    """The step index a click at ``x`` asks for; ``None`` means "the latest"."""
    if data.end > data.steps and x > data.steps + 0.25:
        return None
    number = min(max(round(x), 1), data.steps)
    if number == data.steps and data.end == data.steps:
        return None
    return number - 1
