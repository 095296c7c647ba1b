"""``torch.nn.utils.parametrize`` as the "Parametrizations" tutorial writes it: numbers as
plain torch's, the moved parameter listed under the name it has now, tensors of whole
numbers and ``unsafe=True`` refused (torch swaps the original's memory with ``set_``), and
the same behind the operating-system wall (the real EngineProcess)."""

from __future__ import annotations

import torch
import torch.nn.utils.parametrize as parametrize

from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import DEFAULT_SEED, Program, RunRequest
from gui.model.result import RunResult

SYMMETRIC = (
    "import torch.nn.utils.parametrize as parametrize\n"
    "class Symmetric(torch.nn.Module):\n"
    "    def forward(self, X):\n"
    "        return X.triu() + X.triu(1).transpose(-1, -2)\n"
    "layer = torch.nn.Linear(3, 3)\n"
    "parametrize.register_parametrization(layer, 'weight', Symmetric())\n"
    "loss = layer(torch.ones(2, 3)).sum()\n"
    "loss.backward()\n"
    "print(layer.weight.tolist())\n"
)


class Symmetric(torch.nn.Module):
    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return X.triu() + X.triu(1).transpose(-1, -2)


def plain() -> torch.nn.Linear:
    torch.manual_seed(DEFAULT_SEED)
    layer = torch.nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    layer(torch.ones(2, 3)).sum().backward()
    return layer


def run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code=code, steps=()), time_limit=30))


def test_the_tutorials_symmetric_layer_matches_plain_torch() -> None:
    result = run(SYMMETRIC)
    assert result.error is None, result.error
    layer = plain()
    original = layer.parametrizations.weight.original
    assert [c.text for c in result.printed] == [str(layer.weight.tolist())]
    # The parameter moved: listed where the program reaches it now, with torch's gradient.
    assert "layer.weight" not in result.tensors
    moved = result.tensors["layer.parametrizations.weight.original"]
    assert moved.value.values == original.tolist()
    assert moved.grad is not None and original.grad is not None
    assert moved.grad.values == original.grad.tolist()
    assert result.tensors["layer.bias"].grad is not None


def test_whole_numbers_unsafe_and_non_layers_are_refused() -> None:
    head = (
        "import torch.nn.utils.parametrize as P\n"
        "class Id(torch.nn.Module):\n    def forward(self, X):\n        return X\n"
    )
    for tail, named in (
        (
            "e = torch.nn.Embedding(4, 2)\ne.register_buffer('idx', torch.tensor([0, 1]))\n"
            "P.register_parametrization(e, 'idx', Id())\n",
            "whole numbers",
        ),
        (
            "l = torch.nn.Linear(2, 2)\nP.register_parametrization(l, 'weight', Id(), unsafe=True)\n",
            "unsafe",
        ),
        ("P.register_parametrization([1], 'weight', Id())\n", "layer"),
        ("with P.cached():\n    pass\n", "cached"),
    ):
        result = run(head + tail)
        assert result.error is not None and result.error.kind == "unsafe-code", tail
        assert named in result.error.message, result.error.message


def test_behind_the_walls() -> None:
    layer = plain()
    engine = EngineProcess()
    engine.start()
    try:
        result = engine.run(RunRequest(Program(code=SYMMETRIC, steps=()), time_limit=30))
        assert result.error is None, result.error
        assert [c.text for c in result.printed] == [str(layer.weight.tolist())]
        refused = engine.run(
            RunRequest(
                Program(
                    code="import torch.nn.utils.parametrize as P\n"
                    "e = torch.nn.Embedding(4, 2)\n"
                    "e.register_buffer('idx', torch.tensor([0, 1]))\n"
                    "P.register_parametrization(e, 'idx', torch.nn.Identity())\n",
                    steps=(),
                ),
                time_limit=30,
            )
        )
        assert refused.error is not None and refused.error.kind == "unsafe-code"
    finally:
        engine.close()
