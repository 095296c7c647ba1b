"""The graph panel's step list and captions, from the lessons."""

from __future__ import annotations

from gui.model.session import Session
from gui.model.views.graph_caption import (
    EMPTY_TEXT,
    caption_text,
    empty_text,
    failure_text,
    step_labels,
)
from tests.fixtures import load_lesson


def test_no_graph_yet_or_a_stopped_program(session: Session) -> None:
    assert empty_text(session.snapshot) == EMPTY_TEXT
    assert step_labels(session.snapshot) == ["no backward yet"]
    session.set_code("x = (\n")
    assert empty_text(session.snapshot).startswith("No graph to draw: the program stopped.\n")


def test_one_entry_per_backward_call(session: Session) -> None:
    snapshot = load_lesson(session, 5)
    assert step_labels(snapshot) == ["latest step", "step 1 of 2", "step 2 of 2"]
    assert snapshot.paint is not None
    meaning = ".grad on leaves (accumulated) · grad in on the rest (step 2) · a cell per element"
    assert caption_text(snapshot, snapshot.paint, False) == (
        f"{meaning} · edge label: gradient flowing back"
    )
    assert caption_text(snapshot, snapshot.paint, True) == meaning
    assert failure_text(snapshot) == ""


def test_a_failed_step_is_named_in_one_line(session: Session) -> None:
    snapshot = load_lesson(session, 7)
    assert step_labels(snapshot)[1:] == ["step 1 of 1 (failed)"]
    text = failure_text(snapshot)
    assert text.startswith("Backward step 1 failed: Mismatch in shape")
    assert "\n" not in text and len(text) <= len("Backward step 1 failed: ") + 90


def test_a_long_loop_names_each_kept_call_by_its_number(session: Session) -> None:
    session.set_code(
        "w = torch.tensor([1.], requires_grad=True)\n"
        "for i in range(250):\n"
        "    (w * 2).sum().backward()\n"
    )
    labels = step_labels(session.snapshot)
    assert len(labels) == 1 + 200
    assert labels[1] == "step 1 of 250" and labels[100] == "step 100 of 250"
    assert labels[101] == "step 151 of 250" and labels[-1] == "step 250 of 250"
