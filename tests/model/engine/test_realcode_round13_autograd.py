"""Real code, round 13: autograd's errors and warnings the new snippets hit, explained on
fresh programs (attributes, dict and list items, aliases) with sentences that are true:
the backward twice of an RNN state carried over while the total starts afresh, a gradient
through an ``@once_differentiable`` backward, an in-place change next to a full backward
hook, and the kinds snippets 408-415 hit (targets, views, saved tensors, ``.item()``,
the broadcast warning)."""

from __future__ import annotations

import pytest

from tests.corpus.checks import explained, runs_plain
from tests.corpus.checks import text as joined
from tests.corpus.harness import run_in_engine


def test_backward_twice_blames_the_carried_state_not_a_total_started_afresh() -> None:
    """``total = 0`` each pass, then ``total = total + ...`` over the steps: the total holds
    only this pass; the LSTM's ``(hx, cx)`` carried over is what reaches the freed graph."""
    code = (
        "import torch\nimport torch.nn as nn\n"
        "cell, out = nn.LSTMCell(3, 5), nn.Linear(5, 1)\n"
        "opt = torch.optim.Adam(list(cell.parameters()) + list(out.parameters()))\n"
        "hx, cx = torch.zeros(2, 5), torch.zeros(2, 5)\n"
        "for epoch in range(2):\n"
        "    total = 0\n"
        "    for step in range(4):\n"
        "        hx, cx = cell(torch.randn(2, 3), (hx, cx))\n"
        "        total = total + out(hx).pow(2).mean()\n"
        "    opt.zero_grad()\n"
        "    total.backward()\n"
        "    opt.step()\n"
    )
    text = explained(code, "backward-twice")
    assert "`cx` and `hx` are carried from one pass of the loop to the next (line 9" in text
    assert "before line 8: `cx = cx.detach()` and `hx = hx.detach()`" in text
    assert "adds each pass" not in text
    fixed = code.replace(
        "    for step in range(4):\n",
        "    cx = cx.detach()\n    hx = hx.detach()\n    for step in range(4):\n",
    )
    runs_plain(fixed)
    # A total that is never started afresh still gets the running-total story.
    text = explained(
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "running = 0\n"
        "for epoch in range(2):\n"
        "    for i in range(3):\n"
        "        loss = (w * i).sum() ** 2\n"
        "        running = running + loss\n"
        "        running.backward()\n",
        "backward-twice",
    )
    assert "`running` adds each pass's `loss`" in text and "`running += loss.item()`" in text


def _program(name: str) -> str:
    return PROGRAMS[name]


PROGRAMS = {
    "once": (
        "import torch\n"
        "from torch.autograd.function import once_differentiable\n"
        "class Cube(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, t):\n"
        "        ctx.save_for_backward(t)\n"
        "        return t ** 3\n"
        "    @staticmethod\n"
        "    @once_differentiable\n"
        "    def backward(ctx, g):\n"
        "        t, = ctx.saved_tensors\n"
        "        return 3 * t ** 2 * g\n"
        "pts = torch.linspace(-1, 1, 5, requires_grad=True)\n"
        "(Cube.apply(pts) * 2).sum().backward(create_graph=True)\n"
        "slope = pts.grad\n"
        "curvature = slope.sum()\n"
        "curvature.backward()\n"
    ),
    "hooked": (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "class Block(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(4, 4)\n"
        "    def forward(self, x):\n"
        "        return F.relu(self.lin(x), inplace=True)\n"
        "block = Block()\n"
        "block.lin.register_full_backward_hook(lambda mod, gi, go: None)\n"
        "y = block(torch.randn(3, 4))\n"
        "y.sum().backward()\n"
    ),
}


def test_a_gradient_through_a_once_differentiable_backward_is_explained() -> None:
    code = _program("once")
    text = explained(code, "no-grad-to-compute")
    assert "`curvature` is computed from `slope`, which is a gradient" in text
    assert "line 15 (`slope = pts.grad`)" in text
    assert "`Cube.backward` (line 10)" in text and "requires_grad_()" not in text
    runs_plain(code.replace("    @once_differentiable\n", ""))  # the fix runs


def test_an_inplace_change_next_to_a_full_backward_hook_is_explained() -> None:
    code = _program("hooked")
    text = explained(code, "view-inplace")
    assert "line 11: `block.lin.register_full_backward_hook(" in text
    assert "`return F.relu(self.lin(x))`" in text and "`v`" not in text
    assert "backwardhookfunction" not in text
    runs_plain(code.replace(", inplace=True", ""))


# The kinds snippets 408-415 hit, on fresh programs: items of a dict or list, attributes,
# aliases. Each sentence names what the line wrote and states true shapes and numbers.
FRESH = [
    (
        "import torch\nimport torch.nn as nn\n"
        "batch = {'x': torch.randn(5, 4), 'y': torch.tensor([0, 1, 2, 3, 1])}\n"
        "out = nn.Linear(4, 3)(batch['x'])\n"
        "loss = nn.functional.cross_entropy(out, batch['y'])\n",
        "class-target-range",
        ["`batch['y']` holds class indices", "`out` has at most 3 classes", "at least 4"],
    ),
    (
        "import torch\nimport torch.nn as nn\n"
        "data = [torch.randn(3, 6), torch.tensor([1, 4, 2])]\n"
        "logits = nn.Linear(6, 4)(data[0])\n"
        "y = labels = data[1]\n"
        "loss = nn.NLLLoss()(torch.log_softmax(logits, dim=1), y)\n",
        "class-target-range",
        ["`y` holds class indices", "Target 4", "at least 5"],
    ),
    (
        "import torch\nimport torch.nn as nn\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(4, 4)\n"
        "    def forward(self, x):\n"
        "        q = self.proj(x).transpose(0, 1)\n"
        "        return q.view(-1)\n"
        "y = M()(torch.randn(3, 4))\n",
        "view-not-contiguous",
        ["the numbers of `q`", "return q.reshape(-1)"],
    ),
    (
        "import torch\nw = torch.randn(3, 2, requires_grad=True)\na = b = w.t()\nflat = b.view(6)\n",
        "view-not-contiguous",
        ["the numbers of `b`", "flat = b.reshape(6)"],
    ),
    (
        "import torch\n"
        "class Cell:\n"
        "    def __init__(self):\n"
        "        self.w = torch.randn(3, requires_grad=True)\n"
        "    def __call__(self, x):\n"
        "        self.act = torch.sigmoid(self.w * x)\n"
        "        self.act.mul_(2)\n"
        "        return self.act.sum()\n"
        "Cell()(torch.ones(3)).backward()\n",
        "saved-tensor-modified",
        ["`self.act` (line 6", "saved by Sigmoid", "`self.act = self.act.mul(2)` on line 7"],
    ),
    (
        "import torch\n"
        "params = [torch.randn(4, requires_grad=True)]\n"
        "h = params[0].exp()\n"
        "g = h\n"
        "g[0] = 0.0\n"
        "h.sum().backward()\n",
        "saved-tensor-modified",
        ["`g` was saved by Exp", "line 5", "`g = g.clone()` just before line 5"],
    ),
    (
        "import torch\nimport torch.nn as nn\n"
        "model = nn.Linear(3, 2)\n"
        "stats = {'acc': (model(torch.randn(4, 3)).argmax(1) == torch.tensor([0, 1, 1, 0])).float()}\n"
        "print(float(stats['acc']))\n",
        "many-to-number",
        ["`stats['acc']` holds more than one number", "stats['acc'].mean().item()"],
    ),
    (
        "import torch\n"
        "class T:\n"
        "    pass\n"
        "t = T()\n"
        "t.errors = torch.randn(6) ** 2\n"
        "print('err', t.errors.item())\n",
        "many-to-number",
        ["`t.errors` holds 6 numbers", "t.errors.sum().item()"],
    ),
]


@pytest.mark.parametrize(
    ("code", "kind", "words"), FRESH, ids=[f"{k}-{i}" for i, (_, k, _) in enumerate(FRESH)]
)
def test_the_kinds_the_new_snippets_hit_name_fresh_programs_values(
    code: str, kind: str, words: list[str]
) -> None:
    text = explained(code, kind)
    for word in words:
        assert word in text, (word, text)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (
            "import torch\nimport torch.nn as nn\n"
            "class Reg(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.lin = nn.Linear(3, 1)\n"
            "    def forward(self, x):\n"
            "        return self.lin(x)\n"
            "targets = {'price': torch.randn(7)}\n"
            "pred = Reg()(torch.randn(7, 3))\n"
            "loss = nn.functional.mse_loss(pred, targets['price'])\n",
            ["`pred` of shape [7, 1]", "`targets['price']` of shape [7]", "[7, 7]"],
        ),
        (
            "import torch\nimport torch.nn as nn\n"
            "lin = nn.Linear(2, 1)\n"
            "for inputs, target in [(torch.randn(5, 2), torch.randn(5))]:\n"
            "    l = nn.L1Loss()(lin(inputs), target)\n",
            ["`target` of shape [5]", "[5, 5]", "target.unsqueeze(1)"],
        ),
    ],
)
def test_the_broadcast_warning_names_both_sides(code: str, words: list[str]) -> None:
    result = run_in_engine(code)
    assert result.error is None, result.error
    warned = [w for w in result.warnings if w.kind == "target-size-broadcast"]
    assert warned, [w.kind for w in result.warnings]
    text = joined(warned[0])
    for word in words:
        assert word in text, (word, text)


def test_a_target_warning_for_shapes_that_do_not_even_broadcast_says_so() -> None:
    """[4, 2] predictions against [4, 3] targets: torch warns, then stops; the warning's
    note must not claim the same number of values or a run with wrong numbers."""
    result = run_in_engine(
        "import torch\nimport torch.nn as nn\n"
        "a, b = torch.randn(4, 2), torch.randn(4, 3)\n"
        "loss = nn.L1Loss()(a, b)\n"
    )
    warned = [w for w in result.warnings if w.kind == "target-size-broadcast"]
    assert warned
    text = joined(warned[0])
    assert "shapes that differ" in text and "do not even broadcast" in text
    assert "same numbers of values" not in text and "so it runs" not in text


def test_an_operation_without_a_derivative_names_it_and_its_line() -> None:
    code = (
        "import torch\n"
        "x = torch.randn(8, requires_grad=True)\n"
        "counts = torch.histc(x, bins=4)\n"
        "spread = x.std()\n"
        "counts2 = torch.bincount((x.detach() > 0).long())\n"
        "values = torch.unique(x)\n"
        "(values.sum() + spread).backward()\n"
    )
    text = explained(code, "not-differentiable")
    assert "`unique` (used on line 6: `values = torch.unique(x)`)" in text
    assert "_unique2" not in text.split("implemented.", 1)[1]
    runs_plain(code.replace("torch.unique(x)", "torch.unique(x.detach())"))


@pytest.mark.parametrize(
    ("code", "words", "fix"),
    [
        (
            "import torch\nimport torch.nn as nn\n"
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.head = nn.Linear(2, 2)\n"
            "net = Net()\n"
            "saved = {'weight': torch.zeros(2, 2), 'bias': torch.zeros(2)}\n"
            "net.load_state_dict(saved)\n",
            ["`net`'s parameter names start with `head.`", "comes from `net.head` alone"],
            "net.head.load_state_dict(saved)",
        ),
        (
            "import torch\nimport torch.nn as nn\n"
            "small, big = nn.Linear(3, 2), nn.Linear(3, 5)\n"
            "big.load_state_dict(small.state_dict())\n",
            ["`weight` is [2, 3] in the dict and [5, 3] in `big`", "(1 more like it)"],
            None,
        ),
    ],
)
def test_a_state_dict_for_another_model_says_which_names_or_sizes(
    code: str, words: list[str], fix: str | None
) -> None:
    text = explained(code, "state-dict-mismatch")
    for word in words:
        assert word in text, (word, text)
    if fix is not None:
        assert f"`{fix}`" in text
        runs_plain(code.replace("net.load_state_dict(saved)", fix))
