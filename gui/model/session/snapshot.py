"""What the panels render: one frozen :class:`Snapshot` of the session per change.

A snapshot holds the session's state (code, leaf values, slider ranges, backward calls) and
the last result, plus derived views the panels share (the step the graph shows, each
leaf's ``.grad``, the one colour scale of the picture), computed once per snapshot.
Plain data only: no Qt, no torch.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from gui.model import nested
from gui.model.drawing.layout import GraphLayout
from gui.model.drawing.paint import Gradients, gradients, step_for_graph
from gui.model.request import BackwardStep
from gui.model.result import Explanation, Graph, NestedValues, RunResult, StepRecord, TensorData

# The key under which the gradient sliders' range is kept next to the leaves' ranges; not
# an identifier, so it can never clash with a variable name.
GRADIENT_RANGE = "@gradient"
FixKind = Literal["sum", "mean", "ones_like", "retain_graph"]
Preset = Literal["ones", "zeros", "one_hot", "scale"]
# The one-click fixes offered for an error a session backward call ran into.
FIXES: dict[str, tuple[FixKind, ...]] = {
    "non-scalar-backward": ("sum", "mean", "ones_like"),
    "backward-twice": ("retain_graph",),
}


@dataclass(frozen=True)
class InputRange:
    """A slider's range and step for one tensor."""

    low: float
    high: float
    step: float

    def __post_init__(self) -> None:
        values = (self.low, self.high, self.step)
        if not all(math.isfinite(v) for v in values):
            raise ValueError("a range needs finite numbers")
        if not self.low < self.high:
            raise ValueError(f"the low end {self.low:g} must be below the high end {self.high:g}")
        if not 0 < self.step <= self.high - self.low:
            raise ValueError(f"the step {self.step:g} must be positive and fit in the range")


def _nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 5 × 10^k that is at least ``value``."""
    exponent = math.floor(math.log10(value))
    for mantissa in (1.0, 2.0, 5.0, 10.0):
        candidate = mantissa * 10.0**exponent
        if candidate >= value * (1 - 1e-12):
            return candidate
    return 10.0 ** (exponent + 1)


def default_range(values: NestedValues | None) -> InputRange:
    """A symmetric range that holds ``values`` with room to move: [1, 2, 3] gets ±5 by 0.005."""
    finite = [
        abs(float(v))
        for v in (nested.flatten(values) if values is not None else [])
        if isinstance(v, int | float) and math.isfinite(v)
    ]
    bound = _nice_ceiling(max([2.0, *(1.5 * v for v in finite)]))
    return InputRange(-bound, bound, _nice_ceiling(bound / 1000))


@dataclass(frozen=True)
class Snapshot:
    """Everything the panels show, frozen: the state and the last result.

    ``result`` is what the panels draw: the newest result that has a graph (so broken code
    leaves the last good picture on screen) or the newest result if none had one. ``error``
    and ``warnings`` always belong to the newest run. ``stale`` says that ``result`` does not
    reflect the current state (a run is pending, the code is broken, or live is off).
    ``changes`` names what differs from the previous snapshot, so panels can skip work.
    """

    generation: int
    changes: frozenset[str]
    code: str
    values: Mapping[str, NestedValues]
    ranges: Mapping[str, InputRange]
    output: str | None
    steps: tuple[BackwardStep, ...] | None
    zero_after: bool
    one_off_zero: int | None
    retain_grad: tuple[str, ...]
    live: bool
    seed: int
    result: RunResult | None
    layout: GraphLayout | None
    error: Explanation | None
    warnings: tuple[Explanation, ...]
    stale: bool
    running: bool
    selected_node: str | None
    selected_step: int | None
    show_saved: bool
    path: str | None
    title: str | None
    notes: str | None
    modified: bool
    # Shared by every snapshot of the same shown result: the few expensive views derived
    # from it are computed once, not again for each slider tick's change snapshot.
    derived: dict[object, object] = field(default_factory=dict, compare=False, repr=False)

    # -- derived views, for panels ---------------------------------------------------

    @property
    def graph(self) -> Graph | None:
        return None if self.result is None else self.result.graph

    @property
    def leaves(self) -> tuple[str, ...]:
        return () if self.result is None else self.result.leaves

    def leaf_value(self, name: str) -> NestedValues | None:
        """A leaf's current numbers: the user's override, else what the program made."""
        if name in self.values:
            return self.values[name]
        info = None if self.result is None else self.result.tensors.get(name)
        return None if info is None else info.value.values

    def range_for(self, name: str) -> InputRange:
        """The slider range of a leaf (or of the gradient, :data:`GRADIENT_RANGE`)."""
        if name in self.ranges:
            return self.ranges[name]
        if name == GRADIENT_RANGE:
            return default_range(self.current_step.gradient)
        return default_range(self.leaf_value(name))

    @property
    def zero_each(self) -> bool:
        """The "zero grads before each backward" option (a one-off "Zero grad" press that
        zeroed before the last call does not count)."""
        return self.current_step.zero_grad and self.one_off_zero != len(self.steps or ()) - 1

    @property
    def current_step(self) -> BackwardStep:
        """The step the gradient and option controls edit: the last one."""
        return self.steps[-1] if self.steps else BackwardStep()

    @property
    def output_value(self) -> TensorData | None:
        return None if self.result is None else self.result.output_value

    @property
    def output_shape(self) -> tuple[int, ...] | None:
        value = self.output_value
        return None if value is None else value.shape

    @property
    def shown_step(self) -> StepRecord | None:
        """The backward step whose gradients the graph shows (the chosen one, else the last)."""
        steps = () if self.result is None else self.result.steps
        if not steps:
            return None
        if self.selected_step is not None and 0 <= self.selected_step < len(steps):
            return steps[self.selected_step]
        return steps[-1]

    @cached_property
    def graph_step(self) -> StepRecord | None:
        """The step whose gradients the graph shows: :attr:`shown_step` if it ran on this
        graph (a backward the code made on another tensor has other nodes), else none."""
        if self.result is None:
            return None
        if self.selected_step is None:
            return step_for_graph(self.result)
        step = self.shown_step
        graph = self.result.graph
        if step is None or step.graph is None or graph is None:
            return None
        return step if step.graph.structure_key == graph.structure_key else None

    @property
    def paint(self) -> Gradients | None:
        """Every gradient the graph shows and the one colour scale for them, resolved once
        per result and step for all panels (so a value has the same colour everywhere)."""
        graph = self.graph
        if graph is None:
            return None
        key = ("paint", self.selected_step)
        if key not in self.derived:
            self.derived[key] = gradients(graph, self.graph_step, self.leaf_grads)
        painted = self.derived[key]
        assert isinstance(painted, Gradients)
        return painted

    @cached_property
    def leaf_grads(self) -> dict[str, TensorData | None]:
        """Each leaf's ``.grad`` after the whole run."""
        if self.result is None:
            return {}
        return {
            name: info.grad
            for name, info in self.result.tensors.items()
            if name in self.result.leaves
        }

    @property
    def code_calls_backward(self) -> bool:
        return self.result is not None and any(s.source == "code" for s in self.result.steps)

    @property
    def fixes(self) -> tuple[FixKind, ...]:
        """The one-click fixes that answer the newest error, if any.

        Only errors of the session's own backward calls: the app cannot rewrite a
        ``backward`` the user's code makes (the explanation's fix says what to change).
        """
        if self.error is None or self.result is None or not self.result.steps:
            return ()
        failed = self.result.steps[-1]
        if failed.error is None or failed.source != "session":
            return ()
        return FIXES.get(self.error.kind, ())


def fits(values: NestedValues | None, value_range: InputRange) -> bool:
    """Whether every finite number of ``values`` lies in ``value_range``."""
    flat = nested.flatten(values) if values is not None else []
    return all(
        value_range.low <= v <= value_range.high
        for v in flat
        if isinstance(v, int | float) and math.isfinite(v)
    )
