"""The session's output rule as the window sees it, parameter names in session files, and the
time limit (the window's choice, never the file's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui.model.engine.run import run_program
from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS
from gui.model.session import Session, load_session
from gui.model.views.backward import loss_note, output_note, returned_note, status_text

NO_BACKWARD = "x = torch.tensor([1.0, 2.0], requires_grad=True)\nz = (x ** 3).sum()\n"


def make(code: str) -> Session:
    session = Session(run_program)
    session.set_code(code)
    return session


def test_the_app_adds_a_call_only_when_the_code_makes_none() -> None:
    session = make(NO_BACKWARD)
    result = session.snapshot.result
    assert result is not None and result.output_source == "last-grad-fn"
    assert [(s.source, s.tensor) for s in result.steps] == [("session", "z")]
    assert output_note(session.snapshot) == (
        "z: the last tensor your code assigns that has a grad_fn. "
        "Your code does not call backward: the app adds z.backward()."
    )
    session.set_code(NO_BACKWARD + "z.backward()\n")
    result = session.snapshot.result
    assert result is not None and [s.source for s in result.steps] == ["code"]
    assert output_note(session.snapshot) == (
        "z: your code calls backward on it. The app adds no backward call."
    )
    session.set_output("z")
    assert output_note(session.snapshot).startswith("z: chosen here.")


def test_without_a_grad_fn_the_session_says_so_and_calls_nothing() -> None:
    session = make("x = torch.tensor([1.0, 2.0], requires_grad=True)\n")
    snapshot = session.snapshot
    assert [w.kind for w in snapshot.warnings] == ["no-output"]
    assert snapshot.result is not None and snapshot.result.steps == ()
    assert snapshot.leaf_grads.get("x") is None  # no fallback: x was not differentiated
    assert output_note(snapshot).startswith("No tensor has a grad_fn")


def test_the_time_limit_is_the_windows_and_reruns_the_code() -> None:
    session = make(NO_BACKWARD)
    document = session.to_file()
    assert session.time_limit == DEFAULT_TIME_LIMIT_SECONDS
    assert session.snapshot.time_limit == DEFAULT_TIME_LIMIT_SECONDS
    session.set_time_limit(10.0)
    assert session.request().time_limit == 10.0
    assert session.snapshot.time_limit == 10.0
    assert not session.snapshot.stale  # ran again with the new limit
    assert session.to_file() == document  # not part of the document
    with pytest.raises(ValueError):
        session.set_time_limit(0)
    with pytest.raises(ValueError):
        session.set_time_limit(float("nan"))


def test_parameter_values_round_trip_through_a_session_file(tmp_path: Path) -> None:
    code = "model = torch.nn.Linear(2, 1)\nloss = model(torch.tensor([[3.0, 4.0]])).sum()\n"
    session = make(code)
    assert session.snapshot.leaves == ("model.weight", "model.bias")
    session.set_input("model.weight", 1, 2.0)
    session.set_input("model.bias", 0, 0.5)
    path = tmp_path / "s.json"
    session.save(path)
    saved = json.loads(path.read_text())
    assert set(saved["values"]) == {"model.weight", "model.bias"}
    assert "time_limit" not in saved
    again = Session(run_program)
    again.load(load_session(path))
    result = again.snapshot.result
    assert result is not None
    assert result.tensors["model.weight"].value.values[0][1] == 2.0
    assert result.tensors["model.bias"].value.values == [0.5]
    assert again.snapshot.leaf_grads["model.weight"].values == [[3.0, 4.0]]  # type: ignore[union-attr]


def test_a_loop_says_how_its_loss_went_and_a_grad_call_what_it_returned() -> None:
    code = (
        "w = torch.tensor(0.0, requires_grad=True)\n"
        "for i in range(40):\n"
        "    loss = (w - 3) ** 2\n"
        "    loss.backward()\n"
        "    with torch.no_grad():\n"
        "        w -= 0.1 * w.grad\n"
        "        w.grad.zero_()\n"
    )
    session = make(code)
    result = session.snapshot.result
    assert result is not None and result.step_count == 40
    assert loss_note(result).startswith("loss: 9. at the first call, ")
    assert loss_note(result).endswith(" at the last (40 calls)")
    session.set_code(code + "g, = torch.autograd.grad(w * w, [w])\n")
    result = session.snapshot.result
    assert result is not None and result.step_count == 41
    assert returned_note(result).startswith("torch.autograd.grad (line 8) returned w: ")
    assert "(it adds nothing to .grad)" in status_text(session.snapshot)
