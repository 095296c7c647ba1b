"""Every shipped lesson runs as its notes say: the numbers in its text are the app's numbers.

A class reads a lesson's notes next to the window: "x.grad = 35.11" must be what the window
shows for the lesson (as set, or with the default gradient argument it contrasts with),
written the way the window writes it (4 significant digits, torch style), or an input
value exactly as the lesson sets it.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gui.model import nested
from gui.model.engine.run import run_program
from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS, RunRequest
from gui.model.result import RunResult, TensorData
from gui.model.session import load_session
from gui.model.session.lesson_steps import state_at
from gui.model.session.state import SessionState
from gui.model.tensor_format import format_number
from gui.resources import lesson_paths

# A decimal number as written in prose: "35.11", "-0.4230", "[[43.40, 0], ...".
DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+")
SIGNIFICANT_FOR_A_CHECK = 3


def tensors_of(result: RunResult) -> Iterator[TensorData]:
    """Every tensor a run shows: values, gradients, graph values, flows, seeds."""
    for info in result.tensors.values():
        yield info.value
        if info.grad is not None:
            yield info.grad
    if result.graph is not None:
        yield from (n.value for n in result.graph.nodes if n.value is not None)
    for step in result.steps:
        if step.gradient is not None:
            yield step.gradient
        yield from (t for t in step.grads_after.values() if t is not None)
        for flow in step.flows.values():
            yield from (t for t in (*flow.arriving, *flow.leaving) if t is not None)


def shown_numbers(result: RunResult) -> set[str]:
    shown = set()
    for t in tensors_of(result):
        if t.values is not None:
            shown |= {format_number(v) for v in nested.flatten(t.values)}
    return shown


def significant_digits(text: str) -> int:
    return len(text.lstrip("-").replace(".", "").lstrip("0"))


@pytest.mark.slow
@pytest.mark.parametrize("path", lesson_paths(), ids=lambda p: p.stem)
def test_numbers_in_a_lessons_notes_are_the_apps(path: Path) -> None:
    document = load_session(path)
    shown = shown_numbers(run_program(document.request()))
    # Notes may contrast the lesson's gradient argument with the default one (backward(1)).
    default = dataclasses.replace(document.program, steps=None)
    shown |= shown_numbers(run_program(RunRequest(default)))
    typed = {
        float(v) for values in document.program.values.values() for v in nested.flatten(values)
    }
    text = f"{document.title}\n{document.notes}"
    for written in DECIMAL.findall(text):
        if significant_digits(written) < SIGNIFICANT_FOR_A_CHECK:
            continue  # "0.1", "2.0": a setting or a constant, not a computed number
        if any(math.isclose(float(written), v, rel_tol=0, abs_tol=1e-12) for v in typed):
            continue  # an input value, as the lesson sets it
        assert written in shown, (
            f"{path.name}: the notes say {written}, which is not a number the app shows "
            f"for this lesson (nearest: {nearest(written, shown)})"
        )


def nearest(written: str, shown: set[str]) -> str:
    target = float(written)
    candidates = [s for s in shown if re.fullmatch(r"-?\d+\.?\d*(e[-+]\d+)?", s)]
    return min(candidates, key=lambda s: abs(float(s) - target), default="none")


def lesson_steps_with_notes() -> list[tuple[Path, int]]:
    """(lesson, step index) for every step note of every shipped lesson."""
    return [
        (path, index)
        for path in lesson_paths()
        for index, step in enumerate(load_session(path).lesson.steps)
        if step.note
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "index"), lesson_steps_with_notes(), ids=lambda v: getattr(v, "stem", str(v))
)
def test_numbers_in_a_step_note_are_the_apps_at_that_step(path: Path, index: int) -> None:
    # A step's note sits beside the window as it is after that step: its numbers are the
    # app's for the state the steps so far make (code, values, gradient, presses).
    document = load_session(path)
    state = state_at(SessionState(document), document.lesson.steps, index)
    shown = shown_numbers(run_program(state.request(DEFAULT_TIME_LIMIT_SECONDS)))
    typed = {float(v) for values in state.program.values.values() for v in nested.flatten(values)}
    note = document.lesson.steps[index].note or ""
    for written in DECIMAL.findall(note):
        if significant_digits(written) < SIGNIFICANT_FOR_A_CHECK:
            continue
        if any(math.isclose(float(written), v, rel_tol=0, abs_tol=1e-12) for v in typed):
            continue
        assert written in shown, (
            f"{path.name}, step {index + 1}: the note says {written}, which is not a number "
            f"the app shows at that step (nearest: {nearest(written, shown)})"
        )
