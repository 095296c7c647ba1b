"""What the inputs panel shows: a group per leaf tensor, and its numbers as flat lists.

A leaf is a tensor the program made with ``requires_grad=True``. The panel rebuilds its
groups only when :func:`structure` changes; every other snapshot just feeds them numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from gui.model import nested
from gui.model.result import NestedValues, RunResult, TensorData
from gui.model.tensor_format import format_tensor
from gui.model.views.arrays import as_array, is_real

Structure = tuple[tuple[str, tuple[int, ...], bool], ...]

LIVE_OFF_NOTE = "  (from the last run: live is off)"


def grad_text(name: str, grad: TensorData | None, stale_live_off: bool = False) -> str:
    """A leaf's ``.grad`` line: ``"x.grad = [6., 8., 20.]"``; ``stale_live_off`` (the code
    changed since, and live is off) says the numbers are the last run's."""
    text = f"{name}.grad = {format_tensor(grad)}"
    return text + LIVE_OFF_NOTE if stale_live_off else text


def flat_numbers(values: NestedValues) -> list[float]:
    """The real numbers of ``values`` in row-major order, as floats.

    Anything else (complex numbers) is left out, so a slider never gets a value it cannot
    show.
    """
    flat = nested.flatten(values)
    if all(type(v) is float for v in flat):
        return flat  # the usual case (tensor.tolist() of a float tensor), without numpy
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
