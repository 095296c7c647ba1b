"""Explanations in the learner's names for a non-finite gradient norm, a leaf moved into
the graph, and a non-scalar ``torch.autograd.backward(y)``: each message made by torch in
the test itself."""

from __future__ import annotations

import torch
from torch import nn

from gui.model.explain.messages import ErrorContext, explain_exception
from gui.model.explain.source import backward_call, differentiated_text
from gui.model.explain.training_rules import moved_leaf_site


def _raised(code: str) -> tuple[str, str, int]:
    """Run ``code`` (plain torch) and return its error's class, message and line."""
    try:
        exec(compile(code, "<program>", "exec"), {"torch": torch, "nn": nn})
    except Exception as exc:
        tb = exc.__traceback__
        line = 0
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<program>":
                line = tb.tb_lineno
            tb = tb.tb_next
        return type(exc).__name__, str(exc), line
    raise AssertionError("expected an error")


NONFINITE = (
    "model = nn.Linear(3, 1)\n"
    "with torch.no_grad():\n"
    "    model.weight.zero_()\n"
    "    model.bias.zero_()\n"
    "loss = -torch.log(model(torch.ones(2, 3)).abs()).mean()\n"
    "loss.backward()\n"
    "nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type=1.0, error_if_nonfinite=True)\n"
)


def test_a_non_finite_norm_is_explained_with_its_cause_and_anomaly_mode() -> None:
    kind, message, line = _raised(NONFINITE)
    source = NONFINITE.splitlines()[line - 1]
    result = explain_exception(
        kind, message, line=line, context=ErrorContext(source_line=source, program=NONFINITE)
    )
    assert result.kind == "nonfinite-grad-norm"
    assert "`model.parameters()`" in result.explanation
    assert "order 1.0" in result.explanation
    assert "torch.autograd.set_detect_anomaly(True)" in result.fix


LEAF_MOVED = (
    "weights = torch.ones(3, requires_grad=True)\n"
    "loss = (weights * 2).sum()\n"
    "weights.requires_grad = False\n"
    "weights += torch.full((3,), 0.1, requires_grad=True)\n"
    "loss.backward()\n"
)


def test_the_leaf_moved_into_the_graph_is_named_with_its_line() -> None:
    kind, message, line = _raised(LEAF_MOVED)
    assert line == 5
    result = explain_exception(kind, message, line=line, context=ErrorContext(program=LEAF_MOVED))
    assert result.kind == "leaf-moved"
    assert "`weights` was a leaf" in result.explanation
    assert "line 4 (`weights += torch.full((3,), 0.1, requires_grad=True)`)" in result.explanation
    assert "after `weights.requires_grad = False`" in result.explanation
    assert "with torch.no_grad():" in result.fix


def test_only_a_leaf_that_requires_grad_changed_before_the_error_is_blamed() -> None:
    program = (
        "buffer = torch.zeros(3)\n"  # changed in place, but no leaf of the graph
        "buffer.add_(1)\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "loss = (w * buffer).sum()\n"
        "loss.backward()\n"
        "w.mul_(2)\n"  # after the error's line
    )
    assert moved_leaf_site(program, 5) is None
    result = explain_exception(
        "RuntimeError",
        "leaf variable has been moved into the graph interior",
        line=5,
        context=ErrorContext(program=program),
    )
    assert result.kind == "leaf-moved" and "`x.requires_grad_()` last" in result.fix


def test_the_function_form_of_backward_differentiates_its_first_argument() -> None:
    assert differentiated_text("torch.autograd.backward(out)") == "out"
    assert differentiated_text("torch.autograd.backward(tensors=model.out)") == "model.out"
    assert differentiated_text("autograd.backward(y, grad_tensors=v)") == "y"
    assert differentiated_text("(a + b).backward()") == "(a + b)"
    call = backward_call("torch.autograd.backward(y, torch.ones(3), retain_graph=True)")
    assert call is not None and call.receiver == "y"
    assert call.gradient_text == "torch.ones(3)" and call.rest == ("retain_graph=True",)
    kind, message, _ = _raised(
        "y = torch.ones(3, requires_grad=True) * 2\ntorch.autograd.backward(y)\n"
    )
    result = explain_exception(
        kind, message, context=ErrorContext(source_line="torch.autograd.backward(y)")
    )
    assert result.kind == "non-scalar-backward"
    assert "`y` holds several numbers" in result.explanation
    assert "torch.autograd.sum" not in result.fix
