"""The generated script, run with plain python, prints the gradients the engine computed."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from gui.model.engine.run import run_program
from gui.model.export.script import plain_script
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.session import load_session
from gui.resources import lesson_paths
from tests.fixtures import approx, printed_grads

GOOD_LESSONS = [p for p in lesson_paths() if "old-tutorial" not in p.name]


@pytest.mark.slow
@pytest.mark.parametrize("path", GOOD_LESSONS, ids=lambda p: p.stem)
def test_lesson_scripts_print_the_engines_gradients(path: Path, tmp_path: Path) -> None:
    document = load_session(path)
    result = run_program(document.request())
    assert result.error is None
    grads = printed_grads(plain_script(document.program, result), tmp_path)
    assert grads == {name: result.tensors[name].grad.values for name in result.leaves}  # type: ignore[union-attr]


@pytest.mark.slow
def test_script_applies_values_retain_grad_and_zeroing(tmp_path: Path) -> None:
    request = RunRequest(
        Program(
            code="from __future__ import annotations\nx = torch.randn(2, 2, requires_grad=True)\ny = (\n    2 * x\n)\nz = y ** 3\n",
            values={"x": [[0.1, -0.2], [0.3, 0.4]]},
            steps=(
                BackwardStep(gradient=[[1.0, 0.0], [1.0, 0.0]], retain_graph=True),
                BackwardStep(gradient=[[0.0, 1.0], [0.0, 1.0]], retain_graph=True, zero_grad=True),
            ),
            retain_grad=("y",),
            seed=5,
        )
    )
    result = run_program(request)
    script = plain_script(request.program, result)
    assert script.startswith("from __future__ import annotations\n")
    assert "y.retain_grad()" in script
    grads = printed_grads(script, tmp_path)
    assert grads == {"x": result.tensors["x"].grad.values}  # type: ignore[union-attr]


def test_script_reproduces_an_error_as_code() -> None:
    path = next(p for p in lesson_paths() if "old-tutorial" in p.name)
    document = load_session(path)
    script = plain_script(document.program, run_program(document.request()))
    assert "z.backward(T.FloatTensor([1]))" in script
    compile(script, "script.py", "exec")


LESSON_3 = next(p for p in lesson_paths() if p.name.startswith("03-"))


@pytest.mark.slow
def test_each_backward_press_is_written_as_it_ran(tmp_path: Path) -> None:
    # Three presses on lesson 3 (x = -1.2095): kept automatically twice, then freed.
    document = load_session(LESSON_3)
    program = dataclasses.replace(document.program, steps=(BackwardStep(),) * 3)
    result = run_program(RunRequest(program))
    script = plain_script(program, result)
    kept = (
        "z.backward(retain_graph=True)  # kept automatically: call {} follows and needs the graph"
    )
    assert kept.format(2) in script and kept.format(3) in script
    assert script.count("z.backward(") == 3 and "\nz.backward()\n" in script
    assert "# call 3 (a Backward press)" in script
    grads = printed_grads(script, tmp_path)
    assert grads == {"x": result.tensors["x"].grad.values}  # type: ignore[union-attr]
    assert grads["x"] == approx([[3 * 35.11]], abs=0.01)


@pytest.mark.slow
def test_an_unticked_retain_graph_fails_in_the_script_too(tmp_path: Path) -> None:
    document = load_session(LESSON_3)
    steps = (BackwardStep(retain_graph=False), BackwardStep())
    program = dataclasses.replace(document.program, steps=steps)
    result = run_program(RunRequest(program))
    assert result.error is not None
    script = plain_script(program, result)
    assert "z.backward(retain_graph=False)  # retain_graph unticked" in script
    path = tmp_path / "script.py"
    path.write_text(script)
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert result.error.message.splitlines()[0] in proc.stderr


@pytest.mark.slow
def test_zero_grad_pressed_after_the_calls_is_in_the_script(tmp_path: Path) -> None:
    document = load_session(LESSON_3)
    result = run_program(RunRequest(document.program, zero_grad_after=True))
    grads = printed_grads(plain_script(document.program, result, zero_grad_after=True), tmp_path)
    assert grads == {"x": [[0.0]]} == {"x": result.tensors["x"].grad.values}  # type: ignore[union-attr]
