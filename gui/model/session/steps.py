"""The session's backward calls: what each button and control does to them.

A run is the user's program replayed from scratch, followed by the session's backward calls
(``program.steps``). The gradient and option controls edit the *last* call; "Backward" adds
another (so ``.grad`` accumulates, as in torch) and "Zero grad" zeroes every leaf's ``.grad``
after the calls. Pure functions from one :class:`SessionState` to the next.

Calls are made for one output: when edited code differentiates another tensor, one of
another shape, or starts or stops calling ``backward`` itself, the calls no longer fit, and
:func:`refit` puts them back to one call with an implicit gradient rather than let hidden
leftovers raise an error about a program the user no longer has.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from gui.model import nested
from gui.model.request import BackwardStep
from gui.model.result import NestedValues, RunResult
from gui.model.session.state import SessionState

Preset = Literal["ones", "zeros", "one_hot", "scale"]


def current_step(steps: tuple[BackwardStep, ...] | None) -> BackwardStep:
    """The step the gradient and option controls edit: the last one."""
    return steps[-1] if steps else BackwardStep()


def zeroes_each(steps: tuple[BackwardStep, ...] | None, one_off_zero: int | None) -> bool:
    """The "zero grads before each backward" option (a one-off "Zero grad" press that
    zeroed before the last call does not count)."""
    return current_step(steps).zero_grad and one_off_zero != len(steps or ()) - 1


def edit_last(state: SessionState, **fields: Any) -> SessionState:
    """The last backward call with ``fields`` (gradient, retain_graph...) changed."""
    steps = state.program.steps or (BackwardStep(),)
    last = replace(steps[-1], **fields)
    one_off = None if "zero_grad" in fields else state.one_off_zero  # the user's own choice now
    return replace(state.with_program(steps=(*steps[:-1], last)), one_off_zero=one_off)


def with_output(state: SessionState, name: str | None) -> SessionState:
    """Differentiate ``name`` instead: the calls were made for another tensor, so they go
    back to one call with an implicit gradient (see :func:`refit`)."""
    return reset(state.with_program(output=name))


def reset(state: SessionState) -> SessionState:
    """One call with an implicit gradient and the current options, nothing pending: what
    is left of calls that no longer fit the output. Without calls (``None``) it stays so."""
    steps = state.program.steps
    if steps is None:
        return replace(state, zero_after=False, one_off_zero=None)
    last = replace(
        current_step(steps), gradient=None, zero_grad=zeroes_each(steps, state.one_off_zero)
    )
    return replace(state.with_program(steps=(last,)), zero_after=False, one_off_zero=None)


def press_backward(state: SessionState, code_calls_backward: bool) -> SessionState:
    """One more backward call with the current gradient and options. Gradients accumulate
    unless zeroing is on or "Zero grad" came first."""
    base = state.program.steps
    if base is None:
        base = () if code_calls_backward else (BackwardStep(),)
    last = current_step(base)
    # "Zero grads before each backward" carries over to the new call; a one-off
    # "Zero grad" press zeroes before the new call only, then calls accumulate again.
    keeps_zeroing = last.zero_grad and state.one_off_zero != len(base) - 1
    new = replace(last, zero_grad=bool(state.zero_after or keeps_zeroing))
    return replace(
        state.with_program(steps=(*base, new)),
        zero_after=False,
        one_off_zero=len(base) if state.zero_after and not keeps_zeroing else None,
    )


def press_zero_grad(state: SessionState) -> SessionState:
    """Zero every leaf's ``.grad`` after the calls, as ``x.grad.zero_()`` would."""
    return replace(state, zero_after=True)


def clear(state: SessionState, code_calls_backward: bool = False) -> SessionState:
    """Back to a single backward call with the current gradient and options; none at all
    when the code calls backward itself (its own calls are the ones to keep)."""
    steps = state.program.steps
    if code_calls_backward:
        return replace(state.with_program(steps=None), zero_after=False, one_off_zero=None)
    last = replace(current_step(steps), zero_grad=zeroes_each(steps, state.one_off_zero))
    return replace(state.with_program(steps=(last,)), zero_after=False, one_off_zero=None)


def can_clear(state: SessionState, code_calls: int) -> bool:
    """Whether "Clear steps" changes anything: more than one call (the session's, or the
    session's after the code's ``code_calls``) or a pending "Zero grad"."""
    steps = state.program.steps
    session_calls = len(steps) if steps is not None else (0 if code_calls else 1)
    return state.zero_after or session_calls > 1 or (session_calls > 0 and code_calls > 0)


def preset_gradient(
    preset: Preset,
    shape: tuple[int, ...],
    current: NestedValues | None,
    index: int = 0,
    factor: float = 1,
) -> NestedValues:
    """The gradient argument a preset button fills in: ones, zeros, the basis vector
    e_index, or the current gradient (implicit: ones) scaled by ``factor``."""
    if preset == "ones":
        return nested.full(shape, 1.0)
    if preset == "zeros":
        return nested.full(shape, 0.0)
    if preset == "one_hot":
        return nested.one_hot(shape, index)
    base = current if current is not None else nested.full(shape, 1.0)
    return nested.scaled(base, factor)


@dataclass(frozen=True)
class OutputKey:
    """What a session's calls were made for: the output's name and shape, and whether the
    code calls ``backward`` itself (then the session's calls come after the code's)."""

    name: str | None
    shape: tuple[int, ...] | None
    code_calls_backward: bool


def output_key(result: RunResult) -> OutputKey | None:
    """``result``'s :class:`OutputKey`, or ``None`` when its code did not run to the end
    (broken while being typed): such a run says nothing about what the calls fit."""
    error = result.error
    if error is not None and error.kind != "unknown-output":
        failed = result.steps[-1] if result.steps else None
        if failed is None or failed.source != "session" or failed.error is None:
            return None  # the code's own error (or its own backward's): it did not finish
    shape = None if result.output_value is None else result.output_value.shape
    code_calls = any(s.source == "code" for s in result.steps)
    return OutputKey(result.output, shape, code_calls)


def refit(
    state: SessionState, old: OutputKey | None, new: OutputKey, unknown_output: bool = False
) -> SessionState:
    """``state`` with calls that do not fit the output any more put back (see the module
    docstring): one call with an implicit gradient, none when the code now calls backward
    itself. A chosen ``output`` the code no longer defines (``unknown_output``) goes back
    to automatic. Unchanged when the output is the same one (``old`` is ``None`` for the
    first run after a load: the file's calls are what it asks for)."""
    if unknown_output and state.program.output is not None:
        state = state.with_program(output=None)
    if old is None or old == new:
        return state
    if new.code_calls_backward and not old.code_calls_backward:
        return replace(state.with_program(steps=None), zero_after=False, one_off_zero=None)
    return reset(state)
