"""One-click fixes: offered whenever torch's error is shown, from the session's calls or the
code's own, and the code's call rewritten in the learner's own words (found with ast)."""

from __future__ import annotations

import pytest

from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import StepRecord
from gui.model.session.document import Document
from gui.model.session.fixes import FixKind, code_fix, fixes_for, with_fix
from gui.model.session.state import SessionState

OWN = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x ** 2\ny.backward()\n"


def code_call(line: int, tensor: str | None = "y") -> StepRecord:
    return StepRecord(
        index=0,
        source="code",
        line=line,
        tensor=tensor,
        gradient=None,
        retain_graph=False,
        create_graph=False,
        zero_grad=False,
        grads_before={},
        grads_after={},
    )


def rewritten(code: str, line: int, kind: FixKind, tensor: str | None = "y") -> str | None:
    fix = code_fix(code, code_call(line, tensor), kind)
    return None if fix is None else fix.after


@pytest.mark.parametrize(
    ("kind", "after"),
    [
        ("sum", "y.sum().backward()"),
        ("mean", "y.mean().backward()"),
        ("ones_like", "y.backward(torch.ones_like(y))"),
        ("retain_graph", "y.backward(retain_graph=True)"),
    ],
)
def test_the_codes_call_is_rewritten_in_its_own_words(kind: FixKind, after: str) -> None:
    fix = code_fix(OWN, code_call(3), kind)
    assert fix is not None and (fix.line, fix.before, fix.after) == (3, "y.backward()", after)
    assert fix.code == OWN.replace("y.backward()", after)


def test_the_call_is_found_by_ast_not_by_text() -> None:
    # The same text in a comment and in a string is left alone; the receiver's own words
    # (a parenthesised expression, other names) are kept.
    code = (
        "x = torch.tensor([1., 2.], requires_grad=True)\n"
        "note = 'y.backward()'  # y.backward()\n"
        "out = (x * 2)\n"
        "out.backward(create_graph=False)  # é\n"
    )
    fix = code_fix(code, code_call(4, "out"), "ones_like")
    assert fix is not None
    assert fix.code.splitlines()[1] == "note = 'y.backward()'  # y.backward()"
    assert fix.after == "out.backward(torch.ones_like(out), create_graph=False)"
    assert rewritten("(x * 2).backward()\n", 1, "sum", None) == "(x * 2).sum().backward()"
    assert rewritten("z.backward(v, retain_graph=False)\n", 1, "retain_graph", "z") == (
        "z.backward(v, retain_graph=True)"
    )
    assert rewritten("z.backward(\n    v,\n)\n", 2, "retain_graph", "z") == (
        "z.backward(\n    v,\nretain_graph=True)"
    )


def test_no_rewrite_where_it_is_not_certain_which_call_or_how() -> None:
    assert rewritten("torch.autograd.backward(y)\n", 1, "sum") is None, "not a tensor's method"
    assert rewritten("a.backward(); b.backward()\n", 1, "sum", None) is None, "which one?"
    assert rewritten("a.backward(); y.backward()\n", 1, "sum") == "y.sum().backward()"
    assert rewritten("y.backward(v)\n", 1, "ones_like") is None, "it has a gradient"
    assert rewritten(OWN, 2, "sum") is None, "no backward on that line (the code was edited)"
    assert rewritten("y.backward(\n", 1, "sum") is None, "does not parse"


def test_a_non_scalar_backward_in_the_code_is_offered_the_fixes() -> None:
    program = Program(OWN)
    result = run_program(RunRequest(program))
    assert result.error is not None and result.error.kind == "non-scalar-backward"
    assert fixes_for(result.error, result, program) == ("sum", "mean", "ones_like")
    # Edited since (the call is gone from that line): nothing to rewrite, nothing offered.
    edited = Program(OWN.replace("y.backward()", "print(y)"))
    assert fixes_for(result.error, result, edited) == ()


def test_keep_the_graph_is_offered_for_the_call_that_freed_it() -> None:
    calls = (BackwardStep(retain_graph=False), BackwardStep())
    program = Program("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x ** 2).sum()\n")
    result = run_program(RunRequest(Program(program.code, steps=calls)))
    assert result.error is not None and result.error.kind == "backward-twice"
    session_calls = Program(program.code, steps=calls)
    assert fixes_for(result.error, result, session_calls) == ("retain_graph",)
    fixed = with_fix(SessionState(Document(session_calls)), "retain_graph", result)
    assert fixed.program.steps == (BackwardStep(), BackwardStep()), "automatic again"
    # Freed by the code's own call: that call gets retain_graph=True.
    own = Program(program.code + "y.backward()\n", steps=(BackwardStep(),))
    result = run_program(RunRequest(own))
    assert fixes_for(result.error, result, own) == ("retain_graph",)
    fixed = with_fix(SessionState(Document(own)), "retain_graph", result)
    assert fixed.program.code.endswith("\ny.backward(retain_graph=True)\n")
    assert run_program(RunRequest(fixed.program)).error is None


def test_no_fix_for_an_error_that_is_not_a_backward_calls() -> None:
    program = Program("x = torch.tensor([1., 2.], requires_grad=True)\ny = x @ x.T @ x\nq = z\n")
    result = run_program(RunRequest(program))
    assert result.error is not None
    assert fixes_for(result.error, result, program) == ()
