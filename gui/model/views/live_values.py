"""What explore mode shows in place of the input sliders: each leaf's numbers and ``.grad``.

In explore mode (``explore(loss)``) the graph came from the user's own script, so there is
no code to run again with other leaf values: the values are shown, read-only, with one line
that says why (:data:`READ_ONLY_REASON`), rather than as sliders that would pretend to
re-run a forward pass.
"""

from __future__ import annotations

from gui.model.result import RunResult, TensorData
from gui.model.tensor_format import format_shape, format_summary, format_tensor

READ_ONLY_REASON = (
    "Read-only: this graph came from your own script, so there is no code here to run "
    "again with other values. Backward runs on your graph."
)
# Elements printed in full; a bigger tensor (a weight matrix) shows its statistics.
MAX_ELEMENTS = 12


def values_text(result: RunResult | None) -> str:
    """Every leaf as a few lines of plain text: name, shape and dtype, value, ``.grad``."""
    if result is None:
        return ""
    blocks = []
    for name in result.leaves:
        info = result.tensors.get(name)
        if info is None:
            continue
        value = info.value
        blocks.append(
            f"{name}   {format_shape(value.shape)}  {value.dtype}\n"
            f"  value  {_numbers(value)}\n"
            f"  .grad  {_numbers(info.grad)}"
        )
    return "\n\n".join(blocks) if blocks else "The graph has no leaf that requires grad."


def _numbers(t: TensorData | None) -> str:
    """Small tensors in full, bigger ones as statistics (the shape is in the heading)."""
    if t is not None and (t.values is None or t.numel > MAX_ELEMENTS):
        return format_summary(t, with_shape=False)
    return format_tensor(t, MAX_ELEMENTS)
