"""``import copy`` and a node's own hooks in programs: tutorial code runs as in plain torch,
and nothing else of the ``copy`` module (its reconstruction machinery, ``copyreg``'s
tables) is reachable.

The copies themselves are tested against Python's in ``test_safe_copy.py``.
"""

from __future__ import annotations

import pytest

from gui.model.engine import pristine
from tests.corpus.harness import run_in_engine
from tests.model.engine.sandbox_helpers import (
    assert_refused,
    assert_same_as_plain,
    between_runs,
    printed,
)

MODEL = (
    "import copy\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
    "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))\n"
)


@pytest.mark.parametrize(
    "body",
    [
        # the best weights kept, training goes on, then put back
        "best = copy.deepcopy(model.state_dict())\n"
        "with torch.no_grad():\n    model[0].weight.add_(1.0)\n"
        "model.load_state_dict(best)\ny = model(torch.ones(2, 3)).sum()\ny.backward()\n"
        "print(sorted(best), best['0.weight'].requires_grad)\n",
        # a target network that learns apart from its source
        "target = copy.deepcopy(model)\ny = target(torch.ones(2, 3)).sum()\ny.backward()\n"
        "print(model[0].weight.grad is None, target[0].weight.grad.shape)\n",
        # `from copy import deepcopy`, a leaf with its grad, a shallow copy of a list
        "from copy import deepcopy\nx = torch.tensor([1., 2.], requires_grad=True)\n"
        "(x * 3).sum().backward()\nx2 = deepcopy(x)\nprint(x2.grad, x2.requires_grad)\n"
        "items = copy.copy([x, x2])\nprint(items[0] is x)\n",
        # the program's own class, with a lambda and a nested module
        "class Agent:\n    def __init__(self):\n        self.net = nn.Linear(2, 2)\n"
        "        self.act = lambda t: t.relu()\n"
        "a = Agent()\nb = copy.deepcopy(a)\nprint(b.net is a.net, b.act is a.act)\n"
        "y = b.act(b.net(torch.ones(2))).sum()\n",
    ],
    ids=["best-weights", "target-network", "from-import", "own-class"],
)
def test_tutorial_copies_give_plain_torchs_numbers(body: str) -> None:
    assert_same_as_plain(MODEL + body)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("r = copy._reconstruct\n", ("_reconstruct",)),
        ("t = copy.dispatch_table\n", ("dispatch_table",)),
        ("import copyreg\n", ("copyreg",)),
        ("e = copy.Error\n", ("Error",)),
        ("copy.deepcopy = print\n", ()),
    ],
    ids=["reconstruct", "copyreg-table", "copyreg", "error-class", "rebind"],
)
def test_nothing_else_of_the_copy_module_is_reachable(body: str, words: tuple[str, ...]) -> None:
    assert_refused(run_in_engine("import copy\n" + body), *words)


@pytest.mark.parametrize(
    "body",
    [
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nc = copy.deepcopy(opt)\n",
        "g = torch.Generator()\nc = copy.deepcopy(g)\n",
        "c = copy.deepcopy((i for i in range(3)))\n",
        "c = copy.deepcopy(model, [])\n",
    ],
    ids=["optimizer", "generator", "python-generator", "memo-not-a-dict"],
)
def test_what_it_cannot_copy_is_a_plain_error_naming_it(body: str) -> None:
    result = run_in_engine(MODEL + body)
    assert result.error is not None and result.error.kind != "engine-error", result.error
    assert result.error.line == MODEL.count("\n") + body.count("\n"), result.error


def test_a_copy_leaves_nothing_for_the_next_run(owner_cycle: pristine.Settings) -> None:
    first = run_in_engine(
        MODEL + "c = copy.deepcopy(model)\nmemo = {}\nd = copy.deepcopy(c, memo)\n"
    )
    assert first.error is None, first.error
    between_runs(owner_cycle)
    again = run_in_engine(MODEL + "print(copy.deepcopy([1, [2]]))\n")
    assert printed(again) == ["[1, [2]]"]


def test_a_nodes_own_hooks_run_as_in_plain_torch() -> None:
    assert_same_as_plain(
        "a = torch.tensor([1.0, 2.0], requires_grad=True)\nb = a.mul(2)\nseen = []\n"
        "def pre(g):\n    seen.append(('pre', g[0].tolist()))\n"
        "def post(gi, go):\n    seen.append(('post', gi[0].tolist()))\n"
        "    return tuple(None if g is None else g * 10 for g in gi)\n"
        "h1 = b.grad_fn.register_prehook(pre)\nh2 = b.grad_fn.register_hook(post)\n"
        "out = b.sum()\nout.backward(retain_graph=True)\nprint(seen)\nh2.remove()\n"
        "a.grad = None\nout.backward()\nprint(a.grad)\n"
        "c = a.mul(3)\nacc = c.grad_fn.next_functions[0][0]\n"
        "h3 = acc.register_prehook(lambda g: (g[0] * 0.5,))\na.grad = None\n"
        "c.sum().backward()\nprint(a.grad)\n"
    )


@pytest.mark.parametrize(
    "hook",
    [
        "lambda gi, go: (torch.ones(5), None)",  # another size
        "lambda gi, go: (torch.ones(2, dtype=torch.int64), None)",  # another dtype
    ],
    ids=["size", "dtype"],
)
def test_a_node_hook_cannot_hand_on_a_gradient_of_another_shape_or_type(hook: str) -> None:
    code = (
        "a = torch.tensor([1.0, 2.0], requires_grad=True)\nb = a.mul(2)\n"
        f"h = b.grad_fn.register_hook({hook})\nb.sum().backward()\n"
    )
    result = run_in_engine(code)
    assert result.error is not None and result.error.kind != "engine-error", result.error
    assert "hook" in result.error.message


def test_global_hooks_stay_refused() -> None:
    # register_multi_grad_hook is per tensor, admitted in round 11 (test_realcode_round11).
    assert_refused(
        run_in_engine(
            "import torch.nn as nn\nh = nn.modules.module.register_module_forward_hook(print)\n"
        )
    )
