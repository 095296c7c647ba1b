"""Real code, round 14: the note on a program that runs without error but trains nothing,
``optimizer.step()`` with no gradient to use (:mod:`gui.model.engine.step_notes`). Said only
when certainly true; the numbers stay plain torch's (plain torch says nothing)."""

from __future__ import annotations

from gui.model.result import RunResult
from tests.corpus.checks import matches, text
from tests.corpus.harness import run_in_engine

LOOP = (
    "import torch\nimport torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "net = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))\n"
    "trainer = {make}\n"
    "x, y = torch.randn(6, 2), torch.randn(6, 1)\n"
    "for epoch in range(3):\n"
    "{body}"
    "print(net[0].weight)\n"
)


def _notes(result: RunResult) -> list[str]:
    assert result.error is None, result.error
    return [text(w) for w in result.warnings if w.kind == "step-without-gradients"]


def _loop(body: str, make: str = "torch.optim.Adam(net.parameters(), lr=0.1)") -> str:
    return LOOP.format(make=make, body="".join(f"    {line}\n" for line in body.split(";")))


def test_a_step_before_backward_is_noted_in_the_learners_names() -> None:
    code = _loop(
        "trainer.zero_grad();loss = ((net(x) - y) ** 2).mean();trainer.step();loss.backward()"
    )
    matches(code)
    notes = _notes(run_in_engine(code))
    assert len(notes) == 1, notes
    assert "`trainer.step()` on line 10" in notes[0]
    assert "every parameter of `trainer` had `.grad` None" in notes[0]


def test_a_frozen_model_is_noted_too() -> None:
    code = _loop(
        "loss = ((net(x) - y) ** 2).mean();trainer.zero_grad();trainer.step()",
        make="torch.optim.SGD([p.requires_grad_(False) for p in net.parameters()], lr=0.1)",
    )
    assert _notes(run_in_engine(code))


def test_the_usual_order_and_closures_are_not_noted() -> None:
    usual = _loop(
        "trainer.zero_grad();loss = ((net(x) - y) ** 2).mean();loss.backward();trainer.step()"
    )
    assert _notes(run_in_engine(usual)) == []
    # Gradients of zeros (not None): torch's optimizers use them, so nothing is claimed.
    zeros = _loop(
        "loss = ((net(x) - y) ** 2).mean();loss.backward();trainer.zero_grad(set_to_none=False)"
        ";trainer.step()"
    )
    matches(zeros)
    assert _notes(run_in_engine(zeros)) == []
    closure = (
        "import torch\n"
        "w = torch.zeros(2, requires_grad=True)\n"
        "opt = torch.optim.LBFGS([w], lr=0.5)\n"
        "def closure():\n"
        "    opt.zero_grad()\n"
        "    loss = ((w - 1) ** 2).sum()\n"
        "    loss.backward()\n"
        "    return loss\n"
        "for _ in range(2):\n"
        "    opt.step(closure)\n"
        "print(w)\n"
    )
    matches(closure)
    assert _notes(run_in_engine(closure)) == []


def test_a_programs_own_optimizer_is_not_judged() -> None:
    """Its ``step`` may change weights without gradients (a decay of its own)."""
    code = (
        "import torch\n"
        "class Decay(torch.optim.Optimizer):\n"
        "    def __init__(self, params):\n"
        "        super().__init__(params, {'rate': 0.5})\n"
        "    @torch.no_grad()\n"
        "    def step(self, closure=None):\n"
        "        for group in self.param_groups:\n"
        "            for p in group['params']:\n"
        "                p.mul_(group['rate'])\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "opt = Decay([w])\n"
        "opt.step()\n"
        "print(w)\n"
    )
    matches(code)
    assert _notes(run_in_engine(code)) == []
