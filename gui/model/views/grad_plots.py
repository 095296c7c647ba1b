"""What the gradient plots panel needs besides the bars and histories: each leaf's shape,
which decides when its plots are built anew."""

from __future__ import annotations

from gui.model.result import RunResult


def leaf_shape(result: RunResult | None, leaf: str) -> tuple[int, ...]:
    """The shape of ``leaf`` in ``result`` (``()`` when there is no such tensor)."""
    info = None if result is None else result.tensors.get(leaf)
    return () if info is None else tuple(info.value.shape)
