"""The two numbers the function view reads from one run: ``f`` and ``df/dx_i``.

``f`` is the output when it is one number, else ``v . y`` with ``v`` the gradient argument
of the run's last backward call (the scalar whose derivative that call computes). Its
derivative with respect to element ``i`` of a leaf is what that call added to the leaf's
``.grad`` there (or what ``torch.autograd.grad`` returned). Both the engine's sweep
(:mod:`gui.model.engine.sweep`) and the view of the current point
(:mod:`gui.model.views.function_curve`) read them here, so the marker sits on the curve.
Plain data only: no torch.
"""

from __future__ import annotations

import math

from gui.model import nested
from gui.model.result import NestedValues, RunResult, StepRecord, TensorData


def _real(value: object) -> float | None:
    """``value`` as a float, or ``None`` for anything but a real number."""
    if isinstance(value, bool | int | float):
        return float(value)
    return None


def _flat(values: NestedValues | None) -> list[float | None] | None:
    if values is None:
        return None
    return [_real(v) for v in nested.flatten(values)]


def output_of_interest(result: RunResult) -> float | None:
    """``f`` of ``result``: its output if one number, else ``v . y`` for the last call's ``v``.

    ``None`` when it cannot be told: no output, a complex or summarised output, a non-scalar
    output that no backward call weighted.
    """
    output = result.output_value
    y = _flat(None if output is None else output.values)
    if y is None or any(v is None for v in y):
        return None
    step = result.steps[-1] if result.steps else None
    gradient = None if step is None or step.tensor != result.output else step.gradient
    if gradient is None:
        return y[0] if len(y) == 1 else None
    v = _flat(gradient.values)
    if v is None or len(v) != len(y) or any(e is None for e in v):
        return None
    return math.fsum(a * b for a, b in zip(v, y, strict=True))  # type: ignore[operator]


def _element(data: TensorData | None, index: int) -> float | None:
    flat = _flat(None if data is None else data.values)
    if flat is None or not 0 <= index < len(flat):
        return None
    return flat[index]


def step_slope(step: StepRecord, leaf: str, index: int) -> float | None:
    """What ``step`` contributed to ``d f / d leaf[index]``: the change it made to the
    leaf's ``.grad`` there (or the gradient ``torch.autograd.grad`` returned).

    A leaf the call reached nothing of gets ``0.0`` (torch leaves its ``.grad`` as it was);
    ``None`` when the numbers are not kept (a summarised tensor) or the leaf is unknown.
    """
    if step.call == "grad":
        if leaf not in step.returned:
            return None
        given = step.returned[leaf]
        return 0.0 if given is None else _element(given, index)
    if leaf not in step.grads_after:
        return None
    after = step.grads_after[leaf]
    if after is None:
        return 0.0
    value = _element(after, index)
    before_data = step.grads_before.get(leaf)
    before = 0.0 if before_data is None else _element(before_data, index)
    if value is None or before is None:
        return None
    return value - before


def slope_of_interest(result: RunResult, leaf: str, index: int) -> float | None:
    """``d f / d leaf[index]`` of ``result``: its last backward call's contribution."""
    if not result.steps:
        return None
    return step_slope(result.steps[-1], leaf, index)
