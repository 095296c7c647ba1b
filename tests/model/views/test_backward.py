"""The backward panel's sentences and lists, from real runs."""

from __future__ import annotations

from gui.model.session import Session
from gui.model.views.backward import (
    FIX_TEXT,
    gradient_note,
    intermediates,
    output_choices,
    status_text,
)
from tests.fixtures import load_lesson

NON_SCALAR = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\n"
SCALAR = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x**2).sum()\n"


def test_before_any_run_the_note_says_to_run(session: Session) -> None:
    assert gradient_note(session.snapshot, None) == (
        "Run the code to see what backward differentiates."
    )
    assert output_choices(None) == [(None, "automatic")]
    assert intermediates(None) == []


def test_a_non_scalar_output_needs_a_gradient(session: Session) -> None:
    session.set_code(NON_SCALAR)
    snapshot = session.snapshot
    assert gradient_note(snapshot, None) == (
        "No gradient given: torch needs one for a non-scalar output (y has shape (2,))."
    )
    assert status_text(snapshot) == "Backward calls: 1\nThe last call failed: see the error."
    assert set(snapshot.fixes) <= set(FIX_TEXT)


def test_a_v_of_the_wrong_shape_is_named(session: Session) -> None:
    session.set_code(NON_SCALAR)
    session.set_gradient([1.0, 1.0, 1.0])
    assert gradient_note(session.snapshot, (3,)) == (
        "v has shape (3,) but y has (2,): torch needs them equal. "
        "A preset below starts over with the right shape."
    )


def test_accumulating_and_zeroed_calls_are_told_apart(session: Session) -> None:
    load_lesson(session, 5)
    assert status_text(session.snapshot) == "Backward calls: 2 (accumulating)"
    session.zero_grad()
    assert status_text(session.snapshot) == "Backward calls: 2 (accumulating), then .grad zeroed"


def test_code_that_calls_backward_is_named_with_its_line(session: Session) -> None:
    session.set_code(SCALAR + "y.backward()\n")
    assert status_text(session.snapshot).endswith("Your code calls backward itself (line 3).")


def test_choices_and_intermediates_come_from_the_result(session: Session) -> None:
    session.set_code(NON_SCALAR + "z = y.sum()\n")
    result = session.snapshot.result
    assert output_choices(result) == [
        (None, "automatic: z  scalar"),
        ("x", "x  (2,)"),
        ("y", "y  (2,)"),
        ("z", "z  scalar"),
    ]
    assert intermediates(result) == ["y", "z"]
