"""A view made under ``no_grad`` whose base then changed in place: torch refuses to give
its ``grad_fn`` or ``is_leaf``, but only raises when the program asks. The engine, which
asks of every tensor it names and draws, runs such programs as plain torch does."""

from __future__ import annotations

import pytest

from tests.corpus.harness import differences, run_in_engine, run_plain

PROGRAMS = {
    # What `nn.init.orthogonal_` does to a weight (view_as + copy_ under no_grad).
    "orthogonal_init": (
        "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nlin = nn.Linear(4, 3)\n"
        "nn.init.orthogonal_(lin.weight)\nloss = lin(torch.ones(2, 4)).relu().sum()\n"
        "loss.backward()\nprint(lin.weight.grad)\n"
    ),
    # Such a view kept in a variable the engine names and shows.
    "kept_view": (
        "import torch\nw = torch.ones(3, requires_grad=True)\nwith torch.no_grad():\n"
        "    v = w.view(3)\n    v.copy_(torch.zeros(3))\ny = (w * 2).sum()\ny.backward()\n"
        "print(w.grad, v)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_runs_as_plain_torch(name: str) -> None:
    code = PROGRAMS[name]
    result = run_in_engine(code)
    assert result.error is None, result.error
    assert differences(result, run_plain(code)) == []


def test_the_kept_view_is_shown_without_a_grad_fn() -> None:
    result = run_in_engine(PROGRAMS["kept_view"])
    view = result.tensors["v"]
    assert view.grad_fn is None and not view.is_leaf
    assert view.value.values == [0.0, 0.0, 0.0]
