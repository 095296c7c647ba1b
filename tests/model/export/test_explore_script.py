"""The script an explored graph exports: the window's backward calls, run on the user's own
tensors, print the gradients the window showed."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from gui.model.engine.live import LiveGraph
from gui.model.engine.live_names import named_sources
from gui.model.export.explore_script import FUNCTION, explore_script
from gui.model.request import BackwardStep, Program, RunRequest


def model_and_loss() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(4)
    model = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 2))
    return model, model(torch.randn(3, 2)).sum(dim=0)  # a vector: v has two numbers


def test_the_calls_with_v_and_zeroing_print_the_windows_gradients(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, loss = model_and_loss()
    steps = (
        BackwardStep(gradient=[1.0, 2.0]),
        BackwardStep(gradient=[0.5, -1.0], zero_grad=True),
        BackwardStep(gradient=[0.25, 0.0]),
    )
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    result = graph.run(RunRequest(Program(code="# explored", steps=steps)))
    assert result.error is None
    script = explore_script(result, "explore(loss) in train.py, line 3")
    assert "zero_()" in script and "retain_graph=True" in script
    namespace: dict[str, object] = {}
    exec(script, namespace)
    fresh, fresh_loss = model_and_loss()
    namespace[FUNCTION](fresh_loss, dict(fresh.named_parameters()))  # type: ignore[operator]
    printed = capsys.readouterr().out
    # What the window showed: after zeroing, v = (0.5, -1) then (0.25, 0) added up.
    for name, p in fresh.named_parameters():
        shown = result.tensors[name].grad
        assert shown is not None
        assert torch.allclose(p.grad, torch.tensor(shown.values), atol=1e-6)
        assert f"{name}.grad = {p.grad}" in printed
    twin, twin_loss = model_and_loss()
    twin_loss.backward(torch.tensor([0.75, -1.0]))
    assert torch.allclose(fresh.get_parameter("0.weight").grad, twin.get_parameter("0.weight").grad)


def test_a_real_models_many_names_are_listed_one_per_line_and_still_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    torch.manual_seed(5)
    model = nn.Sequential(*(nn.Linear(3, 3) for _ in range(6)))
    loss = model(torch.randn(2, 3)).sum()
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    result = graph.run(RunRequest(Program(code="# explored", steps=(BackwardStep(),))))
    script = explore_script(result, "explore(loss) in train.py, line 9")
    assert max(len(line) for line in script.splitlines()) <= 100
    assert "        '5.bias',\n" in script
    namespace: dict[str, object] = {}
    exec(script, namespace)
    torch.manual_seed(5)
    fresh = nn.Sequential(*(nn.Linear(3, 3) for _ in range(6)))
    namespace[FUNCTION](fresh(torch.randn(2, 3)).sum(), dict(fresh.named_parameters()))  # type: ignore[operator]
    printed = capsys.readouterr().out
    assert printed.count(".grad =") == 12
