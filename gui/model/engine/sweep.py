"""Run one program at many values of one leaf element: the function view's curves.

Calculus taught the learner that a derivative is a function; autograd hands them numbers
at one point. The sweep shows the function behind those numbers: the program runs once per
sample, each time the ordinary way (:func:`~gui.model.engine.run.run_program`: the same
checks, guard, allowlist and namespace, a fresh one per sample), with the element set to
the sample's value, and each run's ``f`` and ``df/dx_i`` are kept
(:mod:`gui.model.sweep_values`). Between samples the process-wide settings are put back
(:mod:`.pristine`) and the run's leftovers collected, as between two jobs, so no sample
sees anything of another. The whole sweep shares one time limit: it stops early, with a
note, rather than be killed with nothing to show.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field, replace

import torch

from gui.model import nested
from gui.model.engine import pristine
from gui.model.engine.budget import MAX_RESULT_BYTES, size_of
from gui.model.engine.program_code import in_autograd as program_code_in_autograd
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest, SweepRequest
from gui.model.result import Explanation, SweepResult, failed_sweep
from gui.model.sweep_values import output_of_interest, slope_of_interest

# More samples than a curve a few hundred pixels wide can show cost time for nothing.
MAX_SAMPLES = 201
# The share of the time limit the samples may use: the rest is for answering, so a sweep
# stopped early still arrives before the engine would be stopped.
TIME_SHARE = 0.8


class SecondDerivative:
    """Looks at a finished sample's live leaf: ``d/dx_i`` of ``x.grad[i]``, by autograd.

    ``x.grad`` carries a graph only when the backward call ran with ``create_graph=True``;
    differentiating it again runs autograd on the program's graph, which the engine does
    only when the program put none of its own code inside autograd (the Jacobian's rule,
    :mod:`.backward`: a hook or a custom Function would run once more than in torch).
    """

    def __init__(self, leaf: str, index: int) -> None:
        self.leaf = leaf
        self.index = index
        self.value: float | None = None
        self.note: str | None = None

    def __call__(self, output: torch.Tensor | None, leaves: dict[str, torch.Tensor]) -> None:
        tensor = leaves.get(self.leaf)
        if tensor is None:
            self.note = f"{self.leaf} is not a leaf that requires grad in this run"
            return
        if program_code_in_autograd():
            self.note = (
                "the program runs its own code inside autograd (a hook or a custom "
                "Function): no second derivative is taken, so it runs as often as in torch"
            )
            return
        grad = tensor.grad
        if grad is None or not grad.requires_grad:
            self.note = (
                f"{self.leaf}.grad has no graph: the backward call did not use create_graph=True"
            )
            return
        if grad.is_complex():
            self.note = "complex tensors have no second-derivative curve"
            return
        try:
            (again,) = torch.autograd.grad(
                grad.reshape(-1)[self.index], tensor, retain_graph=True, allow_unused=True
            )
        except RuntimeError as exc:
            self.note = f"torch could not differentiate it again: {exc}".split("\n")[0]
            return
        self.value = 0.0 if again is None else float(again.detach().reshape(-1)[self.index])


def _sample_program(request: SweepRequest, base: object, x: float) -> Program:
    values = {**request.program.values, request.leaf: nested.with_element(base, request.index, x)}
    return replace(request.program, values=values)


@dataclass
class _Curves:
    """The samples run so far."""

    xs: list[float] = field(default_factory=list)
    values: list[float | None] = field(default_factory=list)
    slopes: list[float | None] = field(default_factory=list)
    curvatures: list[float | None] = field(default_factory=list)
    error: Explanation | None = None
    note: str | None = None


def sweep_program(request: SweepRequest) -> SweepResult:
    """Run ``request.program`` once per sample and return the curves (see the module)."""
    started = time.perf_counter()
    leaf, index = request.leaf, request.index
    base = request.program.values.get(leaf)
    if base is None:
        return failed_sweep(leaf, index, None, note=f"the values of {leaf} are not known yet")
    if not 0 <= index < len(nested.flatten(base)):
        return failed_sweep(leaf, index, None, note=f"{leaf} has no element {index}")
    # What lived before the sweep is out of the collector's sight while it runs (as the
    # fork server freezes it between jobs): collecting after each sample then looks only
    # at what the sample made (~0.1 ms instead of ~150 ms for all of torch's objects).
    # In the fork server's process everything is frozen already (it freezes after each
    # job): left frozen, or its next collection would walk all of torch again.
    was_frozen = gc.get_freeze_count() > 0
    gc.freeze()
    try:
        curves = _run_samples(request, base, started)
    finally:
        if not was_frozen:
            gc.unfreeze()
    answer = SweepResult(
        leaf=leaf,
        index=index,
        xs=tuple(curves.xs),
        values=tuple(curves.values),
        slopes=tuple(curves.slopes),
        curvatures=tuple(curves.curvatures) if request.second_derivative else (),
        error=curves.error,
        note=curves.note,
        done=len(curves.xs),
        elapsed_seconds=time.perf_counter() - started,
    )
    if size_of(answer) > MAX_RESULT_BYTES:  # only a huge explanation could: keep the why
        return failed_sweep(leaf, index, None, note="the curves were too big to send")
    return answer


def _run_samples(request: SweepRequest, base: object, started: float) -> _Curves:
    """One ordinary run per sample, until the samples or the time run out."""
    samples = request.samples[:MAX_SAMPLES]
    baseline = pristine.capture()
    curves = _Curves()
    second_note: str | None = None
    longest = 0.0  # the slowest sample so far: the next may take as long
    left_something = False
    for x in samples:
        if left_something:
            curves.note = (
                f"stopped after {len(curves.xs)} of {len(samples)} samples: the program's "
                "code still ran after a sample ended and changed a setting of the process"
            )
            break
        began = time.perf_counter()
        if began - started + longest > request.time_limit * TIME_SHARE:
            curves.note = (
                f"stopped after {len(curves.xs)} of {len(samples)} samples: the time limit "
                f"({request.time_limit:g} s) is for the whole curve (Run > Time Limit)"
            )
            break
        second = (
            SecondDerivative(request.leaf, request.index) if request.second_derivative else None
        )
        sample = RunRequest(_sample_program(request, base, x), time_limit=request.time_limit)
        try:
            result = run_program(sample, inspect=second)
        finally:
            left_something = not pristine.put_back(baseline)
        longest = max(longest, time.perf_counter() - began)
        curves.xs.append(x)
        if result.error is not None:
            curves.error = curves.error or result.error
            curves.values.append(None)
            curves.slopes.append(None)
            curves.curvatures.append(None)
            continue
        curves.values.append(output_of_interest(result))
        curves.slopes.append(slope_of_interest(result, request.leaf, request.index))
        if second is not None:
            curves.curvatures.append(second.value)
            second_note = second_note or second.note
    curves.note = curves.note or second_note
    return curves
