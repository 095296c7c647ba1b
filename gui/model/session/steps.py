"""The session's backward calls: what each button and control does to them.

A run is the user's program replayed from scratch, followed by the session's backward calls
(``program.steps``). The gradient and option controls edit the *last* call; "Backward" adds
another (so ``.grad`` accumulates, as in torch) and "Zero grad" zeroes every leaf's ``.grad``
after the calls. Pure functions from one :class:`SessionState` to the next.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from gui.model import nested
from gui.model.request import BackwardStep
from gui.model.result import NestedValues
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
    """Differentiate ``name`` instead: a different tensor has a different shape, so every
    gradient goes back to implicit."""
    steps = state.program.steps
    implicit = None if steps is None else tuple(replace(st, gradient=None) for st in steps)
    return state.with_program(output=name, steps=implicit)


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


def clear(state: SessionState) -> SessionState:
    """Back to a single backward call with the current gradient and options."""
    steps = state.program.steps
    last = replace(current_step(steps), zero_grad=zeroes_each(steps, state.one_off_zero))
    return replace(state.with_program(steps=(last,)), zero_after=False, one_off_zero=None)


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


def without_outgrown_gradients(
    steps: tuple[BackwardStep, ...] | None,
    old_shape: tuple[int, ...] | None,
    new_shape: tuple[int, ...] | None,
) -> tuple[BackwardStep, ...] | None:
    """The steps with gradients that fitted the output's old shape back to implicit, when
    edited code changed that shape (a leftover [[1, 0], [1, 0]] would only raise a shape
    error about a tensor the user no longer has); ``None`` when nothing changes. Gradients
    that never fitted (an old tutorial's ``[1, 0]``) stay: their error is the lesson."""
    if not steps or old_shape is None or new_shape is None or old_shape == new_shape:
        return None
    kept = tuple(
        replace(st, gradient=None)
        if st.gradient is not None and nested.shape_of(st.gradient) == old_shape
        else st
        for st in steps
    )
    return None if kept == steps else kept
