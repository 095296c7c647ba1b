"""A lesson's steps applied to the session's state: pure functions, no running.

The state at step ``index`` (from 0) is the lesson's starting state with steps ``0`` to
``index`` applied in order (:func:`state_at`), so going back is exact: step 2 is the same
state however it was reached. The rules are the format's ("How steps apply" in
``docs/session-format.md``): a step's ``code`` starts the program over, ``values`` merge,
``gradient`` sets the last backward call's ``v``, ``backward`` presses Backward; ``select``
and ``view`` stay until a later step sets them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from gui.model.result import Graph
from gui.model.session import steps as backward_steps
from gui.model.session.document import Document
from gui.model.session.lesson import LessonPosition, LessonStep
from gui.model.session.state import SessionState

# Code that calls backward itself (then a step's Backward press adds one call after the
# code's own, as the Backward button does). Read from the text: a step is applied before
# anything runs. A false positive (the word in a comment) only adds the automatic call.
_CALLS_BACKWARD = re.compile(r"\.backward\s*\(|\bautograd\s*\.\s*(?:backward|grad)\s*\(")


def apply_step(state: SessionState, step: LessonStep) -> SessionState:
    """``state`` after one step's changes to the program (selection and view aside)."""
    if step.code is not None:
        state = replace(
            state.with_program(code=step.code, values={}, output=None, steps=None),
            zero_after=False,
            one_off_zero=None,
        )
    if step.values is not None:
        state = state.with_program(values={**state.program.values, **step.values})
    if step.sets_gradient:
        state = backward_steps.edit_last(state, gradient=step.gradient)
    if step.backward:
        state = backward_steps.press_backward(state, code_calls_backward(state.program.code))
    return state


def state_at(start: SessionState, steps: Sequence[LessonStep], index: int) -> SessionState:
    """The state at step ``index``: ``start`` with steps ``0..index`` applied in order."""
    _check_index(steps, index)
    state = start
    for step in steps[: index + 1]:
        state = apply_step(state, step)
    return state


def selection_at(steps: Sequence[LessonStep], index: int) -> tuple[bool, str | None]:
    """Whether any step up to ``index`` set a selection, and the last one set."""
    _check_index(steps, index)
    for step in reversed(steps[: index + 1]):
        if step.sets_select:
            return True, step.select
    return False, None


def position_at(steps: Sequence[LessonStep], index: int) -> LessonPosition:
    """What the step bar shows at step ``index``: its number, note and the view asked for."""
    _check_index(steps, index)
    view = next((s.view for s in reversed(steps[: index + 1]) if s.view is not None), None)
    return LessonPosition(index, len(steps), steps[index].note, view)


def code_calls_backward(code: str) -> bool:
    """Whether ``code`` calls backward itself (read from its text; see the module)."""
    return _CALLS_BACKWARD.search(code) is not None


def node_for(graph: Graph | None, name: str) -> str | None:
    """The key of the node a step's ``select`` names: a node key as it is, else the node
    of that variable (a leaf before a function of the same name), else ``None``."""
    if graph is None:
        return None
    nodes = graph.nodes
    if any(node.key == name for node in nodes):
        return name
    named = [n for n in nodes if name in (n.var, n.label) and n.kind in ("leaf", "function")]
    named.sort(key=lambda n: n.kind != "leaf")
    if named:
        return named[0].key
    output = [n for n in nodes if name in (n.var, n.label)]
    return output[0].key if output else None


def step_problem(count: int, number: int) -> str | None:
    """Why a lesson of ``count`` steps has no step ``number`` (from 1), or ``None``."""
    if count == 0:
        return f"--step {number}: this session has no lesson steps"
    if not 1 <= number <= count:
        plural = "step" if count == 1 else f"steps (1 to {count})"
        return f"--step {number}: the lesson has {count} {plural}"
    return None


def document_to_save(start: SessionState, index: int, state: SessionState) -> Document:
    """What saving a lesson at step ``index`` writes, so that it opens as it was saved.

    Unedited (``state`` is what the steps make), the lesson as it was: its starting
    program and its steps. Edited, the window as it is, with the prompts but without the
    steps: opening applies step 1, which would replace the edits.
    """
    document = state.document
    steps = start.document.lesson.steps
    if state.program == state_at(start, steps, index).program:
        return replace(document, program=start.program)
    return replace(document, lesson=replace(document.lesson, steps=()))


def document_at(document: Document, number: int | None = None) -> Document:
    """``document`` as the window shows it at step ``number`` (from 1; ``None``: as it
    opens, at step 1 of a lesson with steps), for runs without a window.

    Raises ``ValueError`` (:func:`step_problem`'s sentence) for a step it does not have.
    """
    steps = document.lesson.steps
    if number is None:
        if not steps:
            return document
        number = 1
    problem = step_problem(len(steps), number)
    if problem is not None:
        raise ValueError(problem)
    state = state_at(SessionState(document), steps, number - 1)
    return replace(document, program=state.program)


def _check_index(steps: Sequence[LessonStep], index: int) -> None:
    if not 0 <= index < len(steps):
        raise IndexError(f"step {index + 1} of a lesson of {len(steps)} steps")
