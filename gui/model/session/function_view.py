"""The function view's state: which element is swept, the finite-difference ``h``, and
the sweeps asked of the engine (the curves over the slider's range, and the two probes
``f(x - h)``, ``f(x + h)`` of the slope check).

"I expected a function back": autograd gives ``x.grad`` at one point; the view shows the
function and its derivative around it. Dragging the swept element's own slider only moves
the point (the curve request leaves that element out), anything else that changes the
program (code, another element, ``v``, the options) makes a new curve. Sweeps are asked for
only while the view is on screen, one at a time, when no run is in flight: a slider tick's
run always goes first, a new curve for the element on screen waits until the sliders stop
moving (the old one stays, marked outdated), and an answer to a request that is no longer
wanted is dropped.
Plain data and pure functions, plus :class:`FunctionSweeps`, which the session holds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Protocol

from gui.model import nested
from gui.model.request import BackwardStep, Program, SweepRequest
from gui.model.result import NestedValues, SweepResult, failed_sweep
from gui.model.session.ranges import InputRange

SAMPLES = 41
DEFAULT_H = 1e-3
MIN_H = 1e-6
MAX_H = 1.0
# A new curve for the element already shown waits until the state has not changed for this
# long (the view's timer then asks again, :meth:`FunctionSweeps.next_request`): sweeping
# after every tick of another slider would hold the next tick's run up behind each sweep.
SETTLE_SECONDS = 0.3
# Elements offered in the picker: beyond this, a leaf is a weight matrix nobody sweeps
# one number of by scrolling a list.
MAX_CHOICES = 256
# The curve over the slider's range and the finite difference's probe a state needs.
Wanted = tuple[SweepRequest | None, SweepRequest | None]


@dataclass(frozen=True)
class FunctionView:
    """What the function view shows, as the snapshot carries it.

    ``leaf``/``index`` is the element swept (``None``: there is no leaf); ``curve`` the
    sweep over its range, ``curve_current`` whether it is for the program as it is now;
    ``probe`` the sweep at ``x - h`` and ``x + h`` (current or not: ``probe_current``).
    ``choices`` lists the elements a learner can pick: (leaf, flat index).
    """

    leaf: str | None = None
    index: int = 0
    h: float = DEFAULT_H
    shown: bool = False
    curve: SweepResult | None = None
    curve_current: bool = False
    probe: SweepResult | None = None
    probe_current: bool = False
    choices: tuple[tuple[str, int], ...] = ()
    sweeping: bool = False


def element_choices(
    leaves: tuple[str, ...], values: dict[str, NestedValues | None]
) -> tuple[tuple[str, int], ...]:
    """Every (leaf, flat index) a learner may sweep, leaf by leaf, at most
    :data:`MAX_CHOICES` in all."""
    out: list[tuple[str, int]] = []
    for leaf in leaves:
        value = values.get(leaf)
        if value is None:
            continue
        count = nested.numel(nested.shape_of(value))
        out.extend((leaf, i) for i in range(min(count, MAX_CHOICES - len(out))))
        if len(out) >= MAX_CHOICES:
            break
    return tuple(out)


def resolve_element(
    choice: tuple[str, int] | None, choices: tuple[tuple[str, int], ...]
) -> tuple[str, int] | None:
    """The element swept: the chosen one while the program still has it, else the first
    element of the first leaf (``None``: no leaf)."""
    if choice is not None and choice in choices:
        return choice
    return choices[0] if choices else None


def sample_points(value_range: InputRange, count: int = SAMPLES) -> tuple[float, ...]:
    """``count`` evenly spaced values from the range's low end to its high end."""
    low, high = value_range.low, value_range.high
    return tuple(low + (high - low) * k / (count - 1) for k in range(count))


def sweep_steps(steps: tuple[BackwardStep, ...] | None) -> tuple[BackwardStep, ...] | None:
    """The backward calls each sample makes: one, with the current ``v`` and grads zeroed
    first, so ``x.grad`` is this call's derivative alone; none or ``None`` (the code's own
    calls, else one implicit call) as the session runs it."""
    if not steps:
        return steps
    last = steps[-1]
    return (BackwardStep(gradient=last.gradient, zero_grad=True, create_graph=last.create_graph),)


def _request(
    program: Program,
    leaf: str,
    index: int,
    leaf_value: NestedValues,
    samples: tuple[float, ...],
    second: bool,
    time_limit: float,
) -> SweepRequest:
    # The element's own value is the first sample's: what it is now does not matter, so
    # moving its slider leaves the request (and the curve) as it is.
    values = {**program.values, leaf: nested.with_element(leaf_value, index, samples[0])}
    swept = Program(
        code=program.code,
        values=values,
        output=program.output,
        steps=sweep_steps(program.steps),
        seed=program.seed,
        retain_grad=program.retain_grad,
    )
    return SweepRequest(swept, leaf, index, samples, second, time_limit)


def curve_request(
    program: Program,
    leaf: str,
    index: int,
    leaf_value: NestedValues,
    value_range: InputRange,
    time_limit: float,
) -> SweepRequest:
    """The sweep of the whole slider range; with the second derivative when the (last)
    backward call has ``create_graph`` on."""
    steps = program.steps
    second = steps is not None and len(steps) > 0 and steps[-1].create_graph
    points = sample_points(value_range)
    return _request(program, leaf, index, leaf_value, points, second, time_limit)


def probe_request(
    program: Program,
    leaf: str,
    index: int,
    leaf_value: NestedValues,
    h: float,
    time_limit: float,
) -> SweepRequest | None:
    """The two runs of the finite difference, ``x - h`` and ``x + h`` (``None`` when the
    element's value is not a finite number)."""
    x = nested.flatten(leaf_value)[index]
    if not isinstance(x, int | float) or not math.isfinite(x):
        return None
    points = (float(x) - h, float(x) + h)
    return _request(program, leaf, index, leaf_value, points, False, time_limit)


def central_difference(f_minus: float | None, f_plus: float | None, h: float) -> float | None:
    """``(f(x + h) - f(x - h)) / 2h``: the slope a learner would estimate by hand."""
    if f_minus is None or f_plus is None or h <= 0:
        return None
    return (f_plus - f_minus) / (2 * h)


def clamp_h(h: float) -> float:
    """``h`` within :data:`MIN_H` .. :data:`MAX_H` (a slider cannot go further)."""
    if not math.isfinite(h):
        return DEFAULT_H
    return min(MAX_H, max(MIN_H, h))


class FunctionSweeps:
    """The session's part of the function view: the choice and the sweeps' bookkeeping.

    :meth:`next_request` says what to ask the engine for next (or nothing);
    :meth:`started` and :meth:`finished` keep track of the one sweep in flight.
    """

    def __init__(self) -> None:
        self.choice: tuple[str, int] | None = None
        self.h = DEFAULT_H
        self.shown = False
        self._in_flight: SweepRequest | None = None
        self._generation = -1  # the state last seen, and when it changed
        self._changed_at = 0.0
        self._curve: tuple[SweepRequest, SweepResult] | None = None
        self._probe: tuple[SweepRequest, SweepResult] | None = None

    @property
    def in_flight(self) -> bool:
        return self._in_flight is not None

    def wanted(
        self,
        program: Program,
        element: tuple[str, int] | None,
        leaf_value: NestedValues | None,
        value_range: InputRange | None,
        time_limit: float,
    ) -> Wanted:
        """The curve and the probe the view needs for this state."""
        if element is None or leaf_value is None or value_range is None:
            return None, None
        leaf, index = element
        curve = curve_request(program, leaf, index, leaf_value, value_range, time_limit)
        probe = probe_request(program, leaf, index, leaf_value, self.h, time_limit)
        return curve, probe

    def next_request(
        self, wanted: Wanted, generation: int, settled: bool = False
    ) -> SweepRequest | None:
        """The sweep to start now: the curve first, then the probe; ``None`` when the view
        is hidden, one is in flight, or both are what the view has.

        A new curve for the element on screen is held back while the state (its
        ``generation``) changed less than :data:`SETTLE_SECONDS` ago, unless ``settled``
        (the view's timer: the user stopped); the old curve stays, marked outdated.
        """
        now = time.monotonic()
        if generation != self._generation:
            self._generation, self._changed_at = generation, now
        if not self.shown or self._in_flight is not None:
            return None
        curve, probe = wanted
        have = self._curve
        if curve is not None and (have is None or have[0] != curve):
            replacing = have is not None and (have[0].leaf, have[0].index) == (
                curve.leaf,
                curve.index,
            )
            if settled or not replacing or now - self._changed_at >= SETTLE_SECONDS:
                return curve
        if probe is not None and (self._probe is None or self._probe[0] != probe):
            return probe
        return None

    def started(self, request: SweepRequest) -> None:
        self._in_flight = request

    def finished(self, result: SweepResult, wanted: Wanted) -> bool:
        """Keep ``result`` if its request is still wanted (else drop it); whether kept."""
        request, self._in_flight = self._in_flight, None
        if request is None:
            return False
        if not answers(result, request):
            result = failed_sweep(request.leaf, request.index, None, note=MISMATCHED_ANSWER)
        curve, probe = wanted
        if request == curve:
            self._curve = (request, result)
            return True
        if request == probe:
            self._probe = (request, result)
            return True
        return False

    def forget(self) -> None:
        """A new document: nothing of the last one's curves is kept."""
        self.choice = None
        self._curve = None
        self._probe = None

    def view(
        self,
        element: tuple[str, int] | None,
        choices: tuple[tuple[str, int], ...],
        wanted: Wanted,
    ) -> FunctionView:
        """The snapshot's :class:`FunctionView` for this state."""
        leaf, index = element if element is not None else (None, 0)
        curve = None if self._curve is None else self._curve[1]
        probe = None if self._probe is None else self._probe[1]
        same_element = curve is not None and (curve.leaf, curve.index) == element
        return FunctionView(
            leaf=leaf,
            index=index,
            h=self.h,
            shown=self.shown,
            curve=curve if same_element else None,
            curve_current=self._curve is not None and self._curve[0] == wanted[0],
            probe=probe,
            probe_current=self._probe is not None and self._probe[0] == wanted[1],
            choices=choices,
            sweeping=self._in_flight is not None,
        )


# The answer came from the engine's process, which runs the program: trusted for numbers,
# not for a shape that makes the window draw a hundred thousand points on every paint.
MISMATCHED_ANSWER = "the engine's answer did not match the sweep asked for; it is not drawn"


def answers(result: SweepResult, request: SweepRequest) -> bool:
    """Whether ``result`` is shaped as an answer to ``request``: its element, at most one
    sample per value asked for, and one number (or gap) per sample in each curve."""
    count = len(result.xs)
    return (
        (result.leaf, result.index) == (request.leaf, request.index)
        and count <= len(request.samples)
        and len(result.values) == len(result.slopes) == count
        and len(result.curvatures) in (0, count)
    )


class SnapshotView(Protocol):
    """What the function view reads of a :class:`~.snapshot.Snapshot` (named here without
    importing it: the snapshot holds a :class:`FunctionView`)."""

    @property
    def leaves(self) -> tuple[str, ...]: ...

    @property
    def program(self) -> Program: ...

    @property
    def time_limit(self) -> float: ...

    @property
    def generation(self) -> int: ...

    def leaf_value(self, name: str) -> NestedValues | None: ...

    def range_for(self, name: str) -> InputRange: ...


def _element_and_wanted(
    sweeps: FunctionSweeps, snapshot: SnapshotView
) -> tuple[tuple[tuple[str, int], ...], tuple[str, int] | None, Wanted]:
    """The elements on offer, the one swept and the sweeps it needs, for ``snapshot``."""
    values = {leaf: snapshot.leaf_value(leaf) for leaf in snapshot.leaves}
    choices = element_choices(snapshot.leaves, values)
    element = resolve_element(sweeps.choice, choices)
    if element is None:
        return choices, None, (None, None)
    leaf = element[0]
    wanted = sweeps.wanted(
        snapshot.program, element, values[leaf], snapshot.range_for(leaf), snapshot.time_limit
    )
    return choices, element, wanted


def function_view_for(sweeps: FunctionSweeps, snapshot: SnapshotView) -> FunctionView:
    """The :class:`FunctionView` of ``snapshot`` (empty while the view is hidden: a slider
    tick then costs nothing here)."""
    if not sweeps.shown:
        return FunctionView(h=sweeps.h)
    choices, element, wanted = _element_and_wanted(sweeps, snapshot)
    return sweeps.view(element, choices, wanted)


def next_sweep(
    sweeps: FunctionSweeps, snapshot: SnapshotView, settled: bool = False
) -> SweepRequest | None:
    """The sweep to start now for ``snapshot`` (see :meth:`FunctionSweeps.next_request`)."""
    if not sweeps.shown or sweeps.in_flight:
        return None
    wanted = _element_and_wanted(sweeps, snapshot)[2]
    return sweeps.next_request(wanted, snapshot.generation, settled)


def finished_sweep(sweeps: FunctionSweeps, snapshot: SnapshotView, result: SweepResult) -> bool:
    """Take a sweep's answer: kept if still wanted for ``snapshot``, else dropped."""
    return sweeps.finished(result, _element_and_wanted(sweeps, snapshot)[2])
