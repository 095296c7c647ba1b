"""``--step N`` without a window: ``--report`` and ``--export`` run the lesson at step N,
as the window shows it; a step the lesson lacks is one line and status 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import torch

from gui.headless import EXIT_BAD_INPUT, EXIT_OK, export_session, summarize

pytestmark = pytest.mark.slow

LESSON = {
    "format": "autograd-explorer/1",
    "code": "x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\n",
    "values": {"x": [[-1.2095]]},
    "steps": [{"note": "v = 1"}, {"gradient": [[0.1]]}, {"backward": True}],
}


def x_grad(*gradients: float) -> float:
    """Plain torch: x.grad of z = (2x)^3 after z.backward(v) per v, graph retained."""
    x = torch.tensor([[-1.2095]], requires_grad=True)
    z = (2 * x) ** 3
    for i, v in enumerate(gradients):
        z.backward(torch.tensor([[v]]), retain_graph=i < len(gradients) - 1)
    assert x.grad is not None
    return float(x.grad.item())


@pytest.fixture
def lesson(tmp_path: Path) -> Path:
    path = tmp_path / "lesson.json"
    path.write_text(json.dumps(LESSON), encoding="utf-8")
    return path


def test_report_and_export_at_a_step(lesson: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    assert summarize(str(lesson), stdout=out, step=3) == EXIT_OK
    assert out.getvalue().count("backward #") == 2
    assert f"x.grad = [[{x_grad(0.1, 0.1):.4g}]]" in out.getvalue()
    assert export_session(str(lesson), str(tmp_path / "out"), step=2) == EXIT_OK
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    assert result["leaves"]["x"]["grad"][0][0] == pytest.approx(x_grad(0.1), rel=1e-5)


def test_a_step_the_lesson_lacks_is_one_line(lesson: Path) -> None:
    err = io.StringIO()
    assert summarize(str(lesson), stdout=io.StringIO(), stderr=err, step=7) == EXIT_BAD_INPUT
    assert err.getvalue() == f"error: {lesson}: --step 7: the lesson has 3 steps (1 to 3)\n"
