"""Results are bounded: printed text, messages, warnings, steps and bytes, first and last
kept, and the count of what was left out said in words."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
import torch

from gui.model import explain
from gui.model.engine import budget, capture
from gui.model.engine.budget import MAX_RESULT_BYTES, bounded, size_of
from gui.model.engine.capture import (
    KEPT_PRINTED_CHUNKS,
    KEPT_WARNINGS,
    MAX_PRINT_CALLS,
    FirstAndLast,
)
from gui.model.engine.run import KEPT_STEPS, run_program
from gui.model.explain.python_rules import RUNAWAY_TEXT
from gui.model.request import Program, RunRequest
from gui.model.result import MAX_TEXT_CHARS, RunResult, StepRecord, TensorData


def run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code=code)))


def test_first_and_last_keeps_both_ends_and_counts_the_middle() -> None:
    kept: FirstAndLast[int] = FirstAndLast(3)
    for i in range(10):
        kept.add(i)
    assert (kept.head, list(kept.tail), kept.left_out) == ([0, 1, 2], [7, 8, 9], 4)
    by_size: FirstAndLast[str] = FirstAndLast(100, chars=5, size=len)
    for word in ("abc", "de", "f", "gh", "ijk", "l"):
        by_size.add(word)
    assert (by_size.head, list(by_size.tail), by_size.left_out) == (["abc", "de"], ["ijk", "l"], 2)


def test_long_printed_output_keeps_its_start_and_end() -> None:
    result = run("for i in range(5000):\n    print(i)\n")
    assert result.error is None and result.output_truncated
    head, marker, tail = (
        result.printed[:KEPT_PRINTED_CHUNKS],
        result.printed[KEPT_PRINTED_CHUNKS],
        result.printed[KEPT_PRINTED_CHUNKS + 1 :],
    )
    assert [p.text for p in head] == [str(i) for i in range(500)]
    assert [p.text for p in tail] == [str(i) for i in range(4500, 5000)]
    assert marker.left_out == 4000 and marker.text == "… 4,000 printed lines left out …"


def test_printed_characters_are_bounded_too() -> None:
    result = run("print('b' * 1_000_000)\nfor i in range(200):\n    print('c' * 3000)\n")
    assert all(len(p.text) <= MAX_TEXT_CHARS for p in result.printed)
    first = result.printed[0].text
    assert first.startswith("bbb") and first.endswith("bbb")
    assert "[… 998,0" in first and "characters left out …]" in first
    kept = sum(len(p.text) for p in result.printed)
    assert kept <= 2 * capture.KEPT_PRINTED_CHARS + 2 * MAX_TEXT_CHARS
    assert any(p.left_out for p in result.printed)


def test_a_program_that_never_stops_printing_is_stopped() -> None:
    result = run("i = 0\nwhile True:\n    print(i)\n    i += 1\n")
    assert result.error is not None and result.error.kind == "runaway-code"
    assert "printed too much" in result.error.message
    assert result.printed[-1].text == str(MAX_PRINT_CALLS - 1)  # the last line it printed
    assert f"{MAX_PRINT_CALLS:,}" in RUNAWAY_TEXT["output"][1]


def test_a_megabyte_message_is_cut_in_the_middle() -> None:
    result = run(
        "x = torch.tensor([1.], requires_grad=True)\nassert False, 'a' * 1_000_000 + 'END'\n"
    )
    error = result.error
    assert error is not None and error.exception == "AssertionError"
    assert len(error.message) <= MAX_TEXT_CHARS
    assert error.message.startswith("aaaa") and error.message.endswith("aEND")
    assert "characters left out …]" in error.message
    assert len(pickle.dumps(result)) < 50_000


def test_a_warning_repeated_by_a_loop_is_kept_once() -> None:
    code = "for i in range(50):\n    x = torch.ones(2, requires_grad=True)\n    y = x * i\n    y.grad\n"
    result = run(code)
    assert [w.kind for w in result.warnings] == ["non-leaf-grad"]


def test_warnings_keep_the_first_and_the_last() -> None:
    many = capture.WarningCapture(lambda line: explain.ErrorContext())
    for i in range(50):
        many(UserWarning(f"warning number {i}"), UserWarning, "<program>", 1)
    messages = [w.message for w in many.explained]
    assert len(messages) == 2 * KEPT_WARNINGS + 1
    assert messages[0] == "warning number 0" and messages[-1] == "warning number 49"
    assert messages[KEPT_WARNINGS] == "… 30 warnings left out …"
    assert many.explained[KEPT_WARNINGS].severity == "warning"


LOOP = (
    "w = torch.tensor([1., -2.], requires_grad=True)\n"
    "for i in range({n}):\n"
    "    loss = ((w - 3) ** 2).sum()\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        w -= 0.1 * w.grad\n"
    "    w.grad.zero_()\n"
)


def test_a_long_loop_keeps_the_first_and_last_backward_calls() -> None:
    result = run(LOOP.format(n=600))
    assert result.error is None
    assert len(result.steps) == 2 * KEPT_STEPS and result.step_count == 600
    assert result.steps_left_out == 400 and result.steps_gap == KEPT_STEPS
    indices = [s.index for s in result.steps]
    assert indices == [*range(100), *range(500, 600)]
    (note,) = [w for w in result.warnings if w.kind == "steps-left-out"]
    assert note.message == "… 400 backward calls left out …" and note.severity == "warning"
    assert "600 times" in note.explanation
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    for _ in range(600):
        ((w - 3) ** 2).sum().backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
        w.grad.zero_()
    assert result.tensors["w"].value.values == w.tolist()  # the numbers are all there
    assert result.steps[-1].grads_before["w"] is not None


def test_big_tensors_over_many_steps_stay_within_the_byte_budget() -> None:
    code = (
        "x = torch.randn(64, 64, requires_grad=True)\n"
        "w = torch.randn(64, 64, requires_grad=True)\n"
        "for i in range(300):\n"
        "    (torch.tanh(x * w) * 2).sum().backward()\n"
    )
    result = run(code)
    assert result.error is None and result.step_count == 300
    assert size_of(result) <= MAX_RESULT_BYTES
    # the leaves and their gradients after the run keep every number: the sliders need them
    assert result.tensors["x"].value.values is not None
    assert result.tensors["w"].grad is not None and result.tensors["w"].grad.values is not None
    assert result.steps[0].index == 0 and result.steps[-1].index == 299


def step(index: int, grad: TensorData) -> StepRecord:
    return StepRecord(index, "code", 1, "y", None, False, False, False, {}, {"w": grad})


def test_budget_drops_the_middle_steps_in_one_stretch_and_says_how_many() -> None:
    big = TensorData((4096,), "float32", [0.5] * 4096)
    original = run("w = torch.ones(2, requires_grad=True)\n(w * 2).sum().backward()\n")
    result = dataclasses.replace(
        original,
        steps=tuple(step(i, big) for i in (*range(10), *range(90, 100))),
        steps_left_out=80,
        steps_gap=10,
    )
    small = bounded(result, limit=400_000)
    assert size_of(small) <= 400_000
    indices = [s.index for s in small.steps]
    gap = small.steps_gap
    assert indices[:gap] == list(range(gap)) and indices[gap:] == list(
        range(100 - len(indices) + gap, 100)
    )
    assert small.steps_left_out == 100 - len(indices)
    assert small.warnings[-1].message == f"… {small.steps_left_out} backward calls left out …"


def test_a_small_result_is_left_alone() -> None:
    result = run(LOOP.format(n=3))
    assert bounded(result) == result and budget.size_of(result) < 100_000


def test_a_training_loops_detailed_calls_keep_within_their_own_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Far under the result's budget, a hundred detailed calls of a small model still made
    every tick read megabytes: past ``STEP_DETAILS_BYTES`` only the call the graph shows
    keeps its per-node gradients, and every call keeps its leaves' gradients."""
    code = (
        "torch.manual_seed(0)\nw = torch.randn(8, 8, requires_grad=True)\n"
        "x = torch.randn(16, 8)\nfor i in range(100):\n"
        "    loss = torch.tanh(torch.tanh(x @ w) @ w).pow(2).mean()\n"
        "    loss.backward()\n"
        "    with torch.no_grad():\n        w -= 0.01 * w.grad\n    w.grad.zero_()\n"
    )
    result = run(code)
    assert result.error is None and len(result.steps) == 100
    assert size_of(result) <= 2 * budget.STEP_DETAILS_BYTES
    detailed = [s for s in result.steps if not s.details_dropped]
    assert len(detailed) == 1 and detailed[0] is result.steps[-1]
    assert detailed[0].flows and detailed[0].graph is not None
    assert all(s.grads_after["w"] is not None for s in result.steps)
    # Without that budget the same calls keep their details, in a result several times
    # bigger (under the result's own budget: nothing else would cut them).
    monkeypatch.setattr(budget, "STEP_DETAILS_BYTES", MAX_RESULT_BYTES)
    whole = run(code)
    assert sum(not s.details_dropped for s in whole.steps) > 50
    assert size_of(whole) > 2 * size_of(result)
