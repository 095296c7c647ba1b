"""The backward panel's sentences and lists, from real runs."""

from __future__ import annotations

from gui.model import nested
from gui.model.session import Session, Snapshot
from gui.model.tensor_format import format_tensor
from gui.model.views.backward import (
    FIX_TEXT,
    FIX_TEXT_CHARS,
    RETAIN_NOTES,
    fix_text,
    fix_tooltip,
    gradient_note,
    intermediates,
    output_choices,
    output_note,
    result_facts,
    retain_graph_note,
    shown,
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


def test_the_codes_own_non_scalar_backward_gets_its_fixes_and_a_note(session: Session) -> None:
    session.set_code(NON_SCALAR + "y.backward()\n")
    snapshot = session.snapshot
    assert snapshot.fixes == ("sum", "mean", "ones_like")
    assert [fix_text(snapshot, kind) for kind in snapshot.fixes] == [
        "Line 3: y.sum().backward()",
        "Line 3: y.mean().backward()",
        "Line 3: y.backward(torch.ones_like(y))",
    ]
    assert gradient_note(snapshot, None) == (
        "Your code's backward (line 3) gives no gradient, and y has shape (2,): torch needs "
        "one for a non-scalar output. A fix below rewrites that line."
    )


def test_the_sessions_own_call_gets_the_session_fixes(session: Session) -> None:
    session.set_code(NON_SCALAR)
    snapshot = session.snapshot
    assert [fix_text(snapshot, kind) for kind in snapshot.fixes] == [
        "Use y.sum()",
        "Use y.mean()",
        "gradient = torch.ones_like(y)",
    ]


def test_the_retain_graph_note_follows_the_choice(session: Session) -> None:
    session.set_code(SCALAR)
    assert retain_graph_note(session.snapshot) == RETAIN_NOTES[None]
    assert "Automatic" in RETAIN_NOTES[None]
    session.set_options(retain_graph=False)
    assert retain_graph_note(session.snapshot) == RETAIN_NOTES[False]
    session.set_options(retain_graph=True)
    assert retain_graph_note(session.snapshot) == RETAIN_NOTES[True]


def test_a_failed_call_after_others_is_numbered(session: Session) -> None:
    session.set_code(SCALAR)
    session.set_options(retain_graph=False)
    session.backward()
    assert status_text(session.snapshot) == (
        "Backward calls: 2 (accumulating)\nThe last call (call 2) failed: see the error."
    )


def test_a_long_fix_is_cut_on_the_button_and_whole_in_the_tooltip(session: Session) -> None:
    name = "a_rather_long_name_for_a_tensor"
    session.set_code(
        f"x = torch.tensor([1., 2.], requires_grad=True)\n{name} = x * 2\n{name}.backward()\n"
    )
    snapshot = session.snapshot
    whole = f"Line 3: {name}.backward(torch.ones_like({name}))"
    assert fix_tooltip(snapshot, "ones_like") == whole
    assert fix_text(snapshot, "ones_like") == whole[: FIX_TEXT_CHARS - 1] + "…"


# -- what the panel may skip ------------------------------------------------------------


def texts(snapshot: Snapshot) -> tuple[object, ...]:
    """Everything the backward panel writes from a result."""
    result = snapshot.result
    return (
        output_choices(result),
        output_note(snapshot),
        gradient_note(snapshot, snapshot.output_shape),
        status_text(snapshot),
        intermediates(result),
        [
            (n, format_tensor(result.tensors[n].grad, 4))
            for n in intermediates(result)
            if result is not None
        ],
    )


def test_a_result_that_differs_in_numbers_only_has_the_same_facts(session: Session) -> None:
    for number in (0, 3, 4, 5):
        load_lesson(session, number)
        before = session.snapshot
        leaf = before.leaves[0]
        flat = nested.flatten(before.leaf_value(leaf))
        session.set_input(leaf, 0, flat[0] + 0.25)
        after = session.snapshot
        assert after.result is not before.result
        assert result_facts(after.result) == result_facts(before.result), number
        assert texts(after) == texts(before), number


def test_facts_follow_what_the_panel_shows(session: Session) -> None:
    load_lesson(session, 4)
    first = result_facts(session.snapshot.result)
    session.set_retain_grad("y", True)  # y's .grad is shown beside its box
    retained = result_facts(session.snapshot.result)
    assert retained != first
    session.set_input("x", 0, 0.5)
    assert result_facts(session.snapshot.result) != retained  # the .grad shown changed
    session.backward()  # one more call: the status counts it
    assert result_facts(session.snapshot.result) != retained
    session.set_code(NON_SCALAR)  # an error: the fixes read the whole result
    assert session.snapshot.result is not None and session.snapshot.error is not None
    assert result_facts(session.snapshot.result) is None
    assert result_facts(None) == ()


def test_shown_ignores_the_leaf_values_only(session: Session) -> None:
    load_lesson(session, 3)
    first = shown(session.snapshot)
    session.set_live(False)
    session.set_input("x", 0, 0.5)  # not run: the result stays, the values change
    changed = shown(session.snapshot)
    assert not changed.same_as(first)  # live went off
    session.set_input("x", 0, 0.75)
    assert shown(session.snapshot).same_as(changed)
    session.set_gradient([[0.5]])
    assert not shown(session.snapshot).same_as(changed)
