"""Anomaly mode's traceback of the forward call, told as the program's own lines."""

from __future__ import annotations

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest

CODE = """torch.autograd.set_detect_anomaly(True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)


def squash(t):
    return t.sigmoid()


h = squash(w)
out = h * 3
h.mul_(2)
out.sum().backward()
"""


def test_the_node_that_failed_is_placed_on_the_programs_line_and_its_caller() -> None:
    result = run_program(RunRequest(Program(code=CODE)))
    assert result.error is not None and result.error.kind == "saved-tensor-modified"
    [warning] = [w for w in result.warnings if w.kind == "anomaly-traceback"]
    assert warning.message.startswith("Error detected in SigmoidBackward0.")  # torch's own
    assert "`SigmoidBackward0` was made on line 6 (`return t.sigmoid()`)" in warning.explanation
    assert "called from line 9" in warning.explanation
    assert warning.fix.startswith("Look at line 6 (`return t.sigmoid()`)")


def test_without_anomaly_mode_there_is_no_such_warning() -> None:
    result = run_program(RunRequest(Program(code=CODE.replace("True", "False", 1))))
    assert result.error is not None and result.error.kind == "saved-tensor-modified"
    assert not [w for w in result.warnings if w.kind == "anomaly-traceback"]
