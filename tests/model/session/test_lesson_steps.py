"""A lesson's steps: pure state changes, and the session stepping through them.

Going forward then back restores the exact state; a step with ``backward`` adds a call;
the numbers after each step are what plain torch gives when the same code runs the
ordinary way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import Document, Session, Snapshot, load_session
from gui.model.session.file_format import parse_session
from gui.model.session.lesson import LessonPosition, LessonStep
from gui.model.session.lesson_steps import (
    apply_step,
    code_calls_backward,
    document_at,
    position_at,
    selection_at,
    state_at,
    step_problem,
)
from gui.model.session.replay import Replay
from gui.model.session.state import SessionState
from tests.fixtures import approx

CODE = "x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\n"
VECTOR = "x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * x\n"
X = -1.2095
STEPS: list[dict[str, Any]] = [
    {"note": "With v = 1", "select": "x"},
    {"note": "v = 0.1", "gradient": [[0.1]], "view": "jacobian", "select": "y"},
    {"note": "again", "backward": True},
    {"note": "new x", "values": {"x": [[2.0]]}, "view": "plots"},
    {"note": "a vector", "code": VECTOR, "gradient": [1.0, 0.0, 2.0], "select": None},
]


def lesson_document(steps: list[dict[str, Any]] = STEPS) -> Document:
    data = {
        "format": "autograd-explorer/1",
        "code": CODE,
        "values": {"x": [[X]]},
        "prompts": ["Drag the gradient slider"],
        "steps": steps,
    }
    return parse_session(json.dumps(data))


def chain_grad(x: float, *gradients: float) -> float:
    """x.grad of z = (2x)^3 after z.backward(v) for each v, retaining the graph: torch."""
    leaf = torch.tensor([[x]], requires_grad=True)
    z = (2 * leaf) ** 3
    for i, v in enumerate(gradients):
        z.backward(torch.tensor([[v]]), retain_graph=i < len(gradients) - 1)
    assert leaf.grad is not None
    return float(leaf.grad.item())


def grad(snapshot: Snapshot, name: str = "x") -> object:
    data = snapshot.leaf_grads.get(name)
    return None if data is None else data.values


# -- pure ---------------------------------------------------------------------------------


def test_state_at_applies_steps_in_order_from_the_start() -> None:
    document = lesson_document()
    start = SessionState(document)
    steps = document.lesson.steps
    assert state_at(start, steps, 0).program == start.program  # a note and a selection only
    second = state_at(start, steps, 1).program
    assert second.steps == (BackwardStep(gradient=[[0.1]]),)
    third = state_at(start, steps, 2).program
    assert third.steps == (BackwardStep(gradient=[[0.1]]), BackwardStep(gradient=[[0.1]]))
    fourth = state_at(start, steps, 3).program
    assert fourth.values == {"x": [[2.0]]} and fourth.steps == third.steps
    fifth = state_at(start, steps, 4).program
    assert fifth == Program(code=VECTOR, values={}, steps=(BackwardStep(gradient=[1.0, 0.0, 2.0]),))


def test_values_merge_and_code_starts_the_program_over() -> None:
    start = SessionState(Document(Program(code=CODE, values={"x": [[1.0]], "w": [2.0]})))
    merged = apply_step(start, LessonStep(values={"w": [3.0]}))
    assert merged.program.values == {"x": [[1.0]], "w": [3.0]}
    fresh = apply_step(merged, LessonStep(code=VECTOR, values={"x": [4.0, 5.0, 6.0]}))
    assert fresh.program.values == {"x": [4.0, 5.0, 6.0]}
    assert fresh.program.seed == start.program.seed


def test_backward_after_code_that_calls_backward_adds_one_call_after_it() -> None:
    code = "x = torch.tensor([2.], requires_grad=True)\ny = (x * x).sum()\ny.backward()\n"
    assert code_calls_backward(code) and not code_calls_backward(CODE)
    state = apply_step(SessionState(Document(Program(code=code))), LessonStep(backward=True))
    assert state.program.steps == (BackwardStep(),)
    implicit = apply_step(SessionState(Document(Program(code=CODE))), LessonStep(backward=True))
    assert implicit.program.steps == (BackwardStep(), BackwardStep())


def test_selection_and_view_stay_until_a_later_step_sets_them() -> None:
    steps = lesson_document().lesson.steps
    assert selection_at(steps, 0) == (True, "x")
    assert selection_at(steps, 2) == (True, "y")
    assert selection_at(steps, 4) == (True, None)
    assert position_at(steps, 0) == LessonPosition(0, 5, "With v = 1", None)
    assert position_at(steps, 2).view == "jacobian"
    assert position_at(steps, 4).view == "plots"
    assert position_at(steps, 4).label == "Step 5 of 5"
    with pytest.raises(IndexError):
        state_at(SessionState(lesson_document()), steps, 5)


def test_a_step_number_the_lesson_lacks_is_explained() -> None:
    assert step_problem(3, 2) is None
    assert step_problem(3, 4) == "--step 4: the lesson has 3 steps (1 to 3)"
    assert step_problem(1, 2) == "--step 2: the lesson has 1 step"
    assert step_problem(0, 1) == "--step 1: this session has no lesson steps"


# -- the session --------------------------------------------------------------------------


@pytest.fixture
def session() -> Session:
    return Session(run_program)


def test_opening_a_lesson_shows_step_one_and_counts_as_saved(session: Session) -> None:
    session.load(lesson_document(), "/lessons/demo.json")
    snapshot = session.snapshot
    assert snapshot.lesson_step == LessonPosition(0, 5, "With v = 1", None)
    assert not snapshot.modified
    assert snapshot.graph is not None
    leaf = next(n for n in snapshot.graph.nodes if n.kind == "leaf" and n.var == "x")
    assert snapshot.selected_node == leaf.key, "step 1 selects x's node"
    assert grad(snapshot) == approx([[chain_grad(X, 1.0)]])


def test_each_step_gives_the_numbers_plain_torch_gives(session: Session) -> None:
    session.load(lesson_document())
    session.next_lesson_step()
    snapshot = session.snapshot
    assert grad(snapshot) == approx([[chain_grad(X, 0.1)]])  # 35.11 -> 3.511
    assert snapshot.lesson_step is not None and snapshot.lesson_step.view == "jacobian"
    assert snapshot.graph is not None
    y = next(n for n in snapshot.graph.nodes if n.var == "y" and n.kind == "function")
    assert snapshot.selected_node == y.key
    session.next_lesson_step()
    assert session.snapshot.result is not None and session.snapshot.result.step_count == 2
    assert grad(session.snapshot) == approx([[chain_grad(X, 0.1, 0.1)]])  # accumulated
    session.next_lesson_step()
    assert grad(session.snapshot) == approx([[chain_grad(2.0, 0.1, 0.1)]])
    session.next_lesson_step()
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).backward(torch.tensor([1.0, 0.0, 2.0]))
    assert grad(session.snapshot) == approx(x.grad.tolist())  # type: ignore[union-attr]
    assert session.snapshot.selected_node is None
    session.next_lesson_step()  # the last: nothing happens
    assert session.snapshot.lesson_step == LessonPosition(4, 5, "a vector", "plots")


def test_stepping_forward_then_back_restores_the_exact_state(session: Session) -> None:
    session.load(lesson_document())
    states = [session.snapshot.state]
    grads = [grad(session.snapshot)]
    for _ in range(4):
        session.next_lesson_step()
        states.append(session.snapshot.state)
        grads.append(grad(session.snapshot))
    for index in range(3, -1, -1):
        session.previous_lesson_step()
        assert session.snapshot.state == states[index]
        assert grad(session.snapshot) == approx(grads[index])
        assert not session.snapshot.modified
    session.previous_lesson_step()  # the first: nothing happens
    assert session.snapshot.lesson_step is not None and session.snapshot.lesson_step.index == 0
    session.go_to_lesson_step(3)
    assert session.snapshot.state == states[3], "a jump lands where stepping does"


def test_edits_are_replaced_by_a_step_and_a_session_without_steps_has_none(
    session: Session,
) -> None:
    session.load(lesson_document())
    session.set_input("x", 0, 0.5)
    assert session.snapshot.modified
    session.go_to_lesson_step(0)  # the same step again: back to the lesson's own state
    assert session.snapshot.values == {"x": [[X]]} and not session.snapshot.modified
    session.load(Document(Program(code=CODE)))
    assert session.snapshot.lesson_step is None and session.lesson_step_count == 0
    session.next_lesson_step()  # no steps: nothing happens
    with pytest.raises(IndexError):
        session.go_to_lesson_step(0)


def test_a_select_names_a_node_key_or_a_variable_and_an_unknown_one_nothing(
    session: Session,
) -> None:
    session.load(Document(Program(code=CODE)))
    assert session.snapshot.graph is not None
    pow_key = next(n.key for n in session.snapshot.graph.nodes if n.name == "PowBackward0")
    session.load(lesson_document([{"select": "nothing_here"}, {"select": pow_key}]))
    assert session.snapshot.selected_node is None
    session.next_lesson_step()
    assert session.snapshot.selected_node == pow_key


def test_a_step_that_changes_nothing_runs_nothing() -> None:
    runs: list[RunRequest] = []

    def counting(request: RunRequest) -> RunResult:
        runs.append(request)
        return run_program(request)

    session = Session(counting)
    session.load(lesson_document([{"note": "one"}, {"note": "two"}]))
    assert len(runs) == 1
    session.next_lesson_step()
    assert len(runs) == 1 and session.snapshot.lesson_step == LessonPosition(1, 2, "two", None)


def test_saving_a_stepped_lesson_writes_it_as_it_opened(session: Session, tmp_path: Path) -> None:
    document = lesson_document()
    session.load(document)
    session.go_to_lesson_step(3)
    session.save(tmp_path / "as-is.json")
    assert load_session(tmp_path / "as-is.json") == document, "the lesson as it was"


def test_saving_an_edited_lesson_keeps_the_edits_and_drops_the_steps(
    session: Session, tmp_path: Path
) -> None:
    session.load(lesson_document())
    session.go_to_lesson_step(1)
    session.set_input("x", 0, 0.5)
    session.save(tmp_path / "edited.json")
    saved = load_session(tmp_path / "edited.json")
    assert saved.program == session.snapshot.state.program
    assert saved.lesson.steps == () and saved.lesson.prompts == ("Drag the gradient slider",)
    session.load(saved)
    assert session.snapshot.values == {"x": [[0.5]]}, "it opens as it was saved"


def test_a_step_asking_for_the_replay_starts_it_paused_and_going_back_stops_it(
    session: Session,
) -> None:
    session.load(lesson_document([{"view": "replay"}, {"view": "plots"}]))
    assert session.snapshot.replay == Replay(position=0, playing=False)
    session.next_lesson_step()
    assert session.snapshot.replay is None
    session.previous_lesson_step()
    assert session.snapshot.replay == Replay(position=0, playing=False)


def test_runs_without_a_window_see_the_lesson_as_the_window_does() -> None:
    document = lesson_document()
    opened = document_at(document)
    assert opened.program == state_at(SessionState(document), document.lesson.steps, 0).program
    assert document_at(document, 3).program.steps == (
        BackwardStep(gradient=[[0.1]]),
        BackwardStep(gradient=[[0.1]]),
    )
    plain = Document(Program(code=CODE))
    assert document_at(plain) is plain
    with pytest.raises(ValueError, match="--step 6: the lesson has 5 steps"):
        document_at(document, 6)
    with pytest.raises(ValueError, match="no lesson steps"):
        document_at(plain, 1)
