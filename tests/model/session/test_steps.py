"""What the backward buttons do to the calls, and which calls still fit edited code."""

from __future__ import annotations

from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.session.document import Document
from gui.model.session.state import SessionState
from gui.model.session.steps import (
    OutputKey,
    can_clear,
    clear,
    output_key,
    press_backward,
    refit,
    with_output,
)
from tests.fixtures import V1, V2

CUBE = "x = torch.randn(2, 2, requires_grad=True)\ny = 2 * x\nz = y ** 3\n"
Z = OutputKey("z", (2, 2), code_calls_backward=False)


def state(steps: tuple[BackwardStep, ...] | None, output: str | None = None) -> SessionState:
    return SessionState(Document(Program(code=CUBE, steps=steps, output=output)))


def key_of(code: str, steps: tuple[BackwardStep, ...] | None = None) -> OutputKey | None:
    return output_key(run_program(RunRequest(Program(code, steps=steps))))


def test_a_press_copies_the_last_call_with_its_retain_graph_choice() -> None:
    pressed = press_backward(state(None), code_calls_backward=False)
    assert pressed.program.steps == (BackwardStep(), BackwardStep()), "automatic stays automatic"
    unticked = state((BackwardStep(retain_graph=False),))
    steps = press_backward(unticked, code_calls_backward=False).program.steps
    assert steps is not None and [s.retain_graph for s in steps] == [False, False]


def test_the_output_key_says_what_the_calls_were_made_for() -> None:
    assert key_of(CUBE, (BackwardStep(gradient=V1),)) == Z
    scalar = key_of("x = torch.tensor(2., requires_grad=True)\nloss = x * 3\n")
    assert scalar == OutputKey("loss", (), False)
    own = key_of("x = torch.tensor(2., requires_grad=True)\nloss = x * 3\nloss.backward()\n")
    assert own == OutputKey("loss", (), True)
    assert key_of("a = 1\n") == OutputKey(None, None, False), "the output is gone"
    # A session call's error still ran the whole code: its key counts.
    assert key_of(CUBE) == Z


def test_code_that_did_not_run_to_the_end_says_nothing() -> None:
    assert key_of("x = torch.randn(2, 2, requires_grad=True)\ny = 2 * xx\n") is None
    assert key_of("x = torch.randn(2, 2, requires_grad=True)\ny = (2 * x\n") is None
    assert key_of(CUBE + "z.backward()\n") is None, "the code's own backward failed"


def test_calls_for_the_same_output_stay() -> None:
    calls = state((BackwardStep(gradient=V1), BackwardStep(gradient=V2)))
    assert refit(calls, Z, Z) == calls
    assert refit(calls, None, OutputKey("w", (3,), False)) == calls, "a file's own calls"


def test_another_output_or_shape_goes_back_to_one_implicit_call() -> None:
    unticked = BackwardStep(gradient=V2, retain_graph=False, create_graph=True)
    calls = state((BackwardStep(gradient=V1), unticked))
    one = (BackwardStep(retain_graph=False, create_graph=True),)
    for new in (
        OutputKey("w", (2, 2), False),
        OutputKey("z", (2,), False),
        OutputKey(None, None, False),
    ):
        assert refit(calls, Z, new).program.steps == one, new
    assert refit(state(None), Z, OutputKey("w", (2,), False)) == state(None)


def test_code_that_starts_calling_backward_itself_drops_the_sessions_calls() -> None:
    calls = state((BackwardStep(), BackwardStep()))
    assert refit(calls, Z, OutputKey("z", (2, 2), True)).program.steps is None


def test_an_output_the_code_no_longer_defines_goes_back_to_automatic() -> None:
    chosen = state((BackwardStep(),), output="h")
    assert (
        refit(chosen, None, OutputKey(None, None, False), unknown_output=True).program.output
        is None
    )


def test_choosing_another_output_is_one_implicit_call() -> None:
    calls = state((BackwardStep(gradient=V1), BackwardStep(gradient=V2)))
    assert with_output(calls, "y").program.steps == (BackwardStep(),)


def test_clear_is_possible_with_more_than_one_call_or_a_pending_zero() -> None:
    one, two = state((BackwardStep(),)), state((BackwardStep(), BackwardStep()))
    assert not can_clear(one, code_calls=0) and not can_clear(state(None), code_calls=0)
    assert can_clear(two, code_calls=0)
    assert can_clear(SessionState(one.document, zero_after=True), code_calls=0)
    assert can_clear(one, code_calls=1), "the code's call, then the session's"
    assert not can_clear(state(None), code_calls=2), "the code's own calls stay"
    assert clear(one, code_calls_backward=True).program.steps is None
    assert clear(two).program.steps == (BackwardStep(),)
