"""Real code, round 12: the explanations name the learner's own tensors, as written
(``self.w``, ``params[0]``, ``cache.emb``, two names for one tensor), and say only what is
true. Each program here is fresh (not a corpus snippet): the engine's explanation is checked
for the names and numbers it must contain and for the internal names it must not, and plain
torch (a clean process, :mod:`tests.corpus.plain_client`) raises at the same line. Where the
explanation offers a fix that is a whole line, the fixed program runs in plain torch."""

from __future__ import annotations

import pytest

from gui.model.result import Explanation
from tests.corpus.harness import run_in_engine, run_plain


def _explained(code: str, kind: str) -> str:
    """The engine's explanation of ``code`` (of ``kind``), checked against plain torch's
    error line; its three texts joined."""
    result = run_in_engine(code)
    error = result.error
    assert error is not None, "the engine should have stopped with an explanation"
    assert error.kind == kind, error
    plain = run_plain(code)
    assert plain.error is not None, "plain torch should raise"
    assert error.line == plain.error.line
    return _text(error)


def _text(error: Explanation) -> str:
    return " ".join((error.message, error.explanation, error.fix))


def _runs_plain(code: str) -> None:
    plain = run_plain(code)
    assert plain.error is None, plain.error


def test_matmul_names_both_sides_as_written() -> None:
    code = (
        "import torch\n"
        "class Proj:\n"
        "    def __init__(self):\n"
        "        self.proj = torch.randn(6, 2)\n"
        "    def __call__(self, emb):\n"
        "        return emb @ self.proj\n"
        "p = Proj()\n"
        "tokens = torch.randn(3, 5)\n"
        "out = p(tokens)\n"
    )
    text = _explained(code, "matmul-shape")
    assert "`emb` enters as a 3x5 matrix and `self.proj` as a 6x2 matrix" in text
    assert "`A`" not in text and "`B`" not in text


def test_matmul_in_a_layer_names_the_layer_that_does_not_fit() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "encoder = nn.Sequential(nn.Linear(12, 20), nn.Tanh(), nn.Linear(10, 4))\n"
        "rows = torch.randn(7, 12)\n"
        "codes = encoder(rows)\n"
    )
    text = _explained(code, "matmul-shape")
    assert "Inside `encoder(rows)`, `nn.Linear(10, 4)` on line 3" in text
    assert "20 numbers in each row (7 rows of 20)" in text
    assert "`nn.Linear(20, 4)`" in text
    # the fix is true: the layer made for what arrives runs
    _runs_plain(code.replace("nn.Linear(10, 4)", "nn.Linear(20, 4)"))


def test_dtype_names_each_side_with_its_dtype_in_order() -> None:
    code = (
        "import torch\n"
        "scores = torch.randn(4, 3, dtype=torch.float64)\n"
        "mix = torch.randn(3, 2, requires_grad=True)\n"
        "mixed = scores.mm(mix)\n"
    )
    text = _explained(code, "dtype-mismatch")
    assert "`scores` is Double (float64) and `mix` is Float (float32)" in text


def test_dtype_of_numpy_data_reaching_a_layer_in_forward() -> None:
    code = (
        "import numpy as np\nimport torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.hidden = nn.Linear(2, 4)\n"
        "    def forward(self, feats):\n"
        "        return self.hidden(feats)\n"
        "grid = np.zeros((3, 2))\n"
        "net = Net()\n"
        "y = net(torch.from_numpy(grid))\n"
    )
    text = _explained(code, "dtype-mismatch")
    assert "`feats` is Double (float64) but the weights of `self.hidden` are Float" in text
    assert "line 12: `torch.from_numpy(grid).float()`" in text
    _runs_plain(code.replace("torch.from_numpy(grid))", "torch.from_numpy(grid).float())"))


def test_dtype_of_a_model_made_double_and_of_whole_numbers() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "critic = nn.Linear(3, 1).double()\n"
        "batch = torch.randn(5, 3)\n"
        "value = critic(batch)\n"
    )
    text = _explained(code, "dtype-mismatch")
    assert "`batch` is Float (float32) but the weights of `critic` are Double (float64)" in text
    assert "`critic = nn.Linear(3, 1)`" in text and "NumPy arrays are float64" not in text
    ids = (
        "import torch\nimport torch.nn as nn\n"
        "layer = nn.Linear(3, 2)\n"
        "ids = torch.tensor([[4, 0, 2]])\n"
        "h = layer(ids)\n"
    )
    text = _explained(ids, "dtype-mismatch")
    assert "`ids` is Long" in text and "`layer(ids.float())`" in text and "nn.Embedding" in text


def test_a_comparison_cut_points_at_the_raw_scores_and_labels() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "clf = nn.Linear(5, 4)\n"
        "batch = torch.randn(6, 5)\n"
        "target = torch.randint(0, 4, (6,))\n"
        "logits = clf(batch)\n"
        "hits = (logits.argmax(1) == target).float().mean()\n"
        "hits.backward()\n"
    )
    text = _explained(code, "no-grad-to-compute")
    assert "`nn.functional.cross_entropy(logits, target)`" in text
    assert "keep `logits.argmax(1) == target` for accuracy" in text
    assert "the comparison`" not in text and "argmax(1), target)" not in text


def test_a_loss_rebuilt_from_item_numbers_keeps_the_tensors() -> None:
    code = (
        "import torch\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "parts = []\n"
        "for k in range(3):\n"
        "    parts.append((w * k).sum().item())\n"
        "avg = torch.tensor(max(parts) - min(parts))\n"
        "avg.backward()\n"
    )
    text = _explained(code, "no-grad-to-compute")
    assert "each taken out of `parts` with `.item()`, line 5" in text
    assert "`avg = max(parts) - min(parts)`" in text
    assert "min(parts).clone()" not in text  # a copy of the whole expression, bracketed
    fixed = code.replace(".sum().item())", ".sum())").replace(
        "torch.tensor(max(parts) - min(parts))", "max(parts) - min(parts)"
    )
    _runs_plain(fixed)


@pytest.mark.parametrize(
    ("update", "named"),
    [
        ("self.coef -= 0.5 * self.coef.grad", "self.coef"),
        ("bag[1].mul_(0.9)", "bag[1]"),
        ("store['bias'].zero_()", "store['bias']"),
    ],
)
def test_leaf_inplace_names_the_tensor_not_its_holder(update: str, named: str) -> None:
    code = (
        "import torch\n"
        "class Fit:\n"
        "    def __init__(self):\n"
        "        self.coef = torch.ones(2, requires_grad=True)\n"
        "fit = Fit()\n"
        "bag = [torch.zeros(2, requires_grad=True), torch.ones(2, requires_grad=True)]\n"
        "store = {'bias': torch.ones(1, requires_grad=True)}\n"
        "(fit.coef.sum() + bag[1].sum() + store['bias'].sum()).backward()\n"
        "def update(self):\n"
        f"    {update}\n"
        "update(fit)\n"
    )
    text = _explained(code, "leaf-inplace")
    assert f"`{named}` is a leaf" in text
    assert f"with torch.no_grad(): {update}" in text
    for holder in ("`self`", "`bag`", "`store`"):
        assert f"{holder} is a leaf" not in text


def test_writing_into_part_of_a_leaf_names_the_leaf() -> None:
    code = "import torch\nbias = torch.zeros(3, requires_grad=True)\nbias[1] = 0.5\n"
    text = _explained(code, "leaf-inplace")
    assert "`bias` is a leaf" in text and "`bias[1] = 0.5`" in text
    assert "is a view of a leaf" not in text


def test_saved_tensor_changed_through_an_attribute() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Gate(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(2, 2)\n"
        "    def forward(self, x):\n"
        "        self.gate = torch.sigmoid(self.lin(x))\n"
        "        self.gate[0] = 1.0\n"
        "        return self.gate.sum()\n"
        "g = Gate()\n"
        "s = g(torch.randn(3, 2))\n"
        "s.backward()\n"
    )
    text = _explained(code, "saved-tensor-modified")
    assert "`self.gate` (line 8: `self.gate = torch.sigmoid(self.lin(x))`)" in text
    assert "`self.gate = self.gate.clone()` just before line 9" in text
    assert "`self`" not in text
    _runs_plain(
        code.replace(
            "        self.gate[0] = 1.0\n",
            "        self.gate = self.gate.clone()\n        self.gate[0] = 1.0\n",
        )
    )


def test_backward_twice_through_two_names_of_one_tensor() -> None:
    code = (
        "import torch\n"
        "k = torch.tensor([0.5, 2.0], requires_grad=True)\n"
        "energy = total = (k.exp() * k).sum()\n"
        "energy.backward()\n"
        "total.backward()\n"
    )
    text = _explained(code, "backward-twice")
    assert "`energy` and `total` are one tensor under two names (line 3" in text
    assert "`energy.backward(retain_graph=True)` on line 4" in text
    _runs_plain(code.replace("energy.backward()", "energy.backward(retain_graph=True)"))


def test_grad_of_a_computed_tensor_after_backward_is_none_because_not_a_leaf() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "lin = nn.Linear(2, 1)\n"
        "boosted = lin.weight * 3\n"
        "(boosted ** 2).sum().backward()\n"
        "print(boosted.grad.norm())\n"
    )
    text = _explained(code, "grad-is-none")
    assert "`boosted` is not a leaf: it is computed on line 4 (`boosted = lin.weight * 3`)" in text
    assert "`boosted.retain_grad()` right after line 4" in text
    assert "until a `backward()` has reached" not in text
    _runs_plain(code.replace("(boosted ** 2)", "boosted.retain_grad()\n(boosted ** 2)"))


def test_view_after_a_permute_names_the_expression() -> None:
    code = "import torch\nimgs = torch.randn(2, 3, 4)\nflat = imgs.permute(0, 2, 1).view(2, -1)\n"
    text = _explained(code, "view-not-contiguous")
    assert "`imgs.permute(0, 2, 1)` reorders the dimensions" in text
    assert "`imgs.permute(0, 2, 1).contiguous().view(2, -1)`" in text
    assert "`t`" not in text


def test_numpy_of_a_tensor_handed_to_numpy() -> None:
    code = (
        "import numpy as np\nimport torch\n"
        "amp = torch.ones(3, requires_grad=True)\n"
        "wave = amp * 2\n"
        "peak = np.asarray(wave).max()\n"
    )
    text = _explained(code, "numpy-requires-grad")
    assert "`wave` requires grad" in text and "`peak = np.asarray(wave.detach()).max()`" in text
    assert "`y`" not in text
    _runs_plain(code.replace("np.asarray(wave)", "np.asarray(wave.detach())"))


def test_optimizer_of_an_attribute_made_by_arithmetic_on_a_leaf() -> None:
    code = (
        "import torch\n"
        "class Bank:\n"
        "    def __init__(self):\n"
        "        self.table = torch.randn(4, 2, requires_grad=True) / 10\n"
        "bank = Bank()\n"
        "opt = torch.optim.SGD([bank.table], lr=0.1)\n"
    )
    text = _explained(code, "optimize-non-leaf")
    assert "`self.table` is computed: on line 4" in text
    assert "`self.table = (torch.randn(4, 2) / 10).requires_grad_()`" in text
    _runs_plain(
        code.replace(
            "torch.randn(4, 2, requires_grad=True) / 10",
            "(torch.randn(4, 2) / 10).requires_grad_()",
        )
    )


def test_inference_tensor_kept_on_an_attribute() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Memo:\n"
        "    pass\n"
        "memo = Memo()\n"
        "with torch.inference_mode():\n"
        "    memo.keys = torch.randn(3, 2)\n"
        "read = nn.Linear(2, 2)\n"
        "att = read(memo.keys)\n"
    )
    text = _explained(code, "inference-tensor")
    assert "`memo.keys` was made inside `with torch.inference_mode():` (line 6; line 7" in text
    assert "`memo.keys = memo.keys.clone()`" in text
    _runs_plain(code.replace("att = read", "memo.keys = memo.keys.clone()\natt = read"))


def test_several_numbers_to_one_python_number() -> None:
    code = "import torch\nrewards = torch.tensor([1.0, 0.5, 2.0])\ntotal = float(rewards)\n"
    text = _explained(code, "many-to-number")
    assert "`rewards` holds more than one number, and `float(rewards)`" in text
    _runs_plain(code.replace("float(rewards)", "rewards.sum().item()"))
    item = "import torch\nerrs = torch.zeros(2, 2)\nprint(errs.item())\n"
    text = _explained(item, "many-to-number")
    assert "`errs` holds 4 numbers, and `errs.item()`" in text and "`errs.tolist()`" in text


def test_broadcast_names_both_operands_in_torch_order() -> None:
    code = (
        "import torch\nprior = torch.randn(2, 5)\nnoise = torch.randn(2, 4)\nmix = prior * noise\n"
    )
    text = _explained(code, "shape-mismatch")
    assert "has size 5 in `prior` and 4 in `noise`" in text
    assert "`print(prior.shape, noise.shape)`" in text


def test_a_criterion_overwritten_by_its_result_keeps_its_name() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "loss_fn = nn.L1Loss()\n"
        "guess = torch.zeros(2, requires_grad=True)\n"
        "for epoch in range(2):\n"
        "    loss_fn = loss_fn(guess, torch.ones(2))\n"
    )
    text = _explained(code, "not-callable")
    assert "`loss = loss_fn(...)` on line 6" in text
    assert "`loss_fn = criterion(...)`" not in text
    _runs_plain(code.replace("    loss_fn = loss_fn(", "    loss = loss_fn("))


def test_view_size_fix_names_the_tensor() -> None:
    code = "import torch\nclips = torch.randn(2, 3, 4)\nrows = clips.view(2, 10)\n"
    text = _explained(code, "view-size")
    assert "`torch.flatten(clips, 1)`" in text and "flatten(x" not in text


DISTRIBUTIONS = (
    "import torch\nfrom torch.distributions import Beta, Dirichlet, MultivariateNormal, Uniform\n"
    "from torch.distributions import kl_divergence\n"
    "torch.manual_seed(3)\n"
    "a = torch.tensor([2.0, 0.5], requires_grad=True)\n"
    "post = Beta(a, torch.tensor([1.0, 3.0]))\n"
    "s = post.rsample()\n"
    "d = Dirichlet(torch.tensor([1.0, 2.0, 0.5], requires_grad=True))\n"
    "p = d.rsample()\n"
    "u = Uniform(torch.zeros(2), torch.tensor([2.0, 3.0]))\n"
    "m = MultivariateNormal(torch.zeros(2, requires_grad=True), torch.eye(2) * 2)\n"
    "kl = kl_divergence(m, MultivariateNormal(torch.ones(2), torch.eye(2)))\n"
    "total = s.sum() + d.log_prob(p) + u.log_prob(u.sample()).sum() + m.entropy() + kl\n"
    "total.backward()\n"
    "print(post.mean, post.variance, p, kl)\n"
)


def test_admitted_distributions_equal_plain_torch() -> None:
    """Round 12 admits Uniform, MultivariateNormal, Beta and Dirichlet (reviewed_names):
    their samples, log-probabilities, KL and gradients are plain torch's, number for number."""
    from tests.corpus.harness import differences

    result = run_in_engine(DISTRIBUTIONS)
    assert result.error is None, result.error
    plain = run_plain(DISTRIBUTIONS, result.tensors)
    assert plain.error is None, plain.error
    assert differences(result, plain) == []
    assert result.tensors["a"].grad is not None


@pytest.mark.parametrize(
    "code",
    [
        # a subclass would run the program's code inside torch's methods
        "import torch\nclass D(torch.distributions.Uniform):\n    pass\n",
        # a class attribute shared by every later Beta
        "import torch\ntorch.distributions.Beta.has_rsample = False\n",
        # transforms cache their last input; still refused
        "import torch\nfrom torch.distributions import TransformedDistribution\n",
    ],
)
def test_around_the_admitted_distributions_stays_refused(code: str) -> None:
    result = run_in_engine(code)
    assert result.error is not None and result.error.kind == "unsafe-code", result.error


def test_a_training_step_decorated_with_no_grad() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "lin = nn.Linear(2, 1)\n"
        "@torch.no_grad()\n"
        "def fit_once(xs):\n"
        "    pred = lin(xs)\n"
        "    cost = (pred - 1).abs().mean()\n"
        "    cost.backward()\n"
        "fit_once(torch.randn(3, 2))\n"
    )
    text = _explained(code, "no-grad-to-compute")
    assert "decorated with `@torch.no_grad()` (line 4)" in text
    assert "Remove `@torch.no_grad()` (line 4)" in text and "move line" not in text
    _runs_plain(code.replace("@torch.no_grad()\n", ""))


def test_a_class_called_as_if_it_were_the_model() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Tiny(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(2, 2)\n"
        "    def forward(self, x):\n"
        "        return self.lin(x)\n"
        "clf = Tiny\n"
        "scores = clf(torch.ones(1, 2))\n"
    )
    text = _explained(code, "class-not-instance")
    assert "`clf` is the class `Tiny` itself (line 9: `clf = Tiny`)" in text
    assert "`clf = Tiny()` on line 9" in text
    _runs_plain(code.replace("clf = Tiny\n", "clf = Tiny()\n"))


def test_a_loss_function_never_called() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "objective = nn.L1Loss()\n"
        "err = objective\n"
        "err.backward()\n"
    )
    text = _explained(code, "attribute-error")
    assert (
        "`err` is the loss function itself, an `L1Loss` object (line 4: `err = objective`)" in text
    )
    assert "`err = objective(predictions, targets)`" in text


def test_a_chain_of_products_names_no_placeholder() -> None:
    code = (
        "import torch\nfeat = torch.randn(4, 3)\nW1 = torch.randn(3, 5)\nW2 = torch.randn(4, 2)\n"
        "h = feat @ W1 @ W2\n"
    )
    text = _explained(code, "matmul-shape")
    assert "(4x5) @ (4x2)" in text and "(5 vs 4)" in text
    assert "`A" not in text and "B.T" not in text


def test_conv_channels_inside_forward_names_the_layer_not_the_input() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Stack(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.c1 = nn.Conv2d(3, 6, 3)\n"
        "        self.c2 = nn.Conv2d(12, 4, 3)\n"
        "    def forward(self, pics):\n"
        "        return self.c2(self.c1(pics))\n"
        "net = Stack()\n"
        "maps = net(torch.randn(1, 3, 9, 9))\n"
    )
    text = _explained(code, "conv-channels")
    assert "`nn.Conv2d(12, 4, 3)` (`self.c2`) on line 7 was built for 12 input channels" in text
    assert "give `pics`" not in text  # `pics` reaches c1, which takes it
    _runs_plain(code.replace("nn.Conv2d(12, 4, 3)", "nn.Conv2d(6, 4, 3)"))


def test_an_item_of_unbind_changed_in_place() -> None:
    code = (
        "import torch\nsrc = torch.randn(3, 2, requires_grad=True)\n"
        "rows = (src * 1).unbind(0)\nrows[1].add_(1)\n"
    )
    text = _explained(code, "view-inplace")
    assert "`rows[1]` is one of several views that `unbind` returns" in text
    fixed = "`rows = [p.clone() for p in rows]` before this line"
    assert fixed in text and "rows[1] = rows[1].clone()" not in text
    _runs_plain(
        code.replace("rows[1].add_(1)", "rows = [p.clone() for p in rows]\nrows[1].add_(1)")
    )


def test_zero_dim_index_of_an_attribute() -> None:
    code = (
        "import torch\nclass Hist:\n    pass\nh = Hist()\n"
        "h.cost = torch.ones(3, requires_grad=True).sum()\nprint(h.cost.data[0])\n"
    )
    text = _explained(code, "zero-dim-index")
    assert "`h.cost` is a 0-d tensor" in text and "`print(h.cost.item())`" in text
    _runs_plain(code.replace("h.cost.data[0]", "h.cost.item()"))


def test_optimizer_of_a_leaf_rebound_to_a_computed_copy() -> None:
    code = (
        "import torch\n"
        "class Params:\n    pass\n"
        "ps = Params()\n"
        "ps.bias = torch.zeros(3, requires_grad=True)\n"
        "ps.bias = ps.bias.double()\n"
        "opt = torch.optim.Adam([ps.bias], lr=0.01)\n"
    )
    text = _explained(code, "optimize-non-leaf")
    assert "Line 6 (`ps.bias = ps.bias.double()`) replaced `ps.bias`" in text
    assert "`ps.bias = ps.bias.detach().double().requires_grad_()` on line 6" in text
    assert "torch.randn(3, 1)" not in text
    _runs_plain(code.replace("ps.bias.double()\n", "ps.bias.detach().double().requires_grad_()\n"))


CHECKPOINTED = (
    "import torch\nfrom torch.utils.checkpoint import checkpoint\n"
    "calls = []\n"
    "def block(x):\n"
    "    calls.append(1)\n"
    "    return (x.sin() * x).exp()\n"
    "torch.manual_seed(0)\n"
    "x = torch.randn(4, requires_grad=True)\n"
    "y = checkpoint(block, x, use_reentrant=False)\n"
    "y.sum().backward()\n"
    "print(len(calls), x.grad)\n"
)


def test_checkpoint_non_reentrant_runs_as_plain_torch() -> None:
    from tests.corpus.harness import differences

    result = run_in_engine(CHECKPOINTED)
    assert result.error is None, result.error
    plain = run_plain(CHECKPOINTED, result.tensors)
    assert plain.error is None and plain.printed[0].startswith("2 ")  # forward + recompute
    assert differences(result, plain) == []


def test_backward_through_whole_numbers() -> None:
    code = "import torch\nsteps = torch.arange(4)\ncost = (steps * 3).sum()\ncost.backward()\n"
    text = _explained(code, "no-grad-to-compute")
    assert "`cost` is computed from `steps` (line 2: `steps = torch.arange(4)`)" in text
    assert "`steps = torch.arange(4).float().requires_grad_()` on line 2" in text
    _runs_plain(code.replace("torch.arange(4)\n", "torch.arange(4).float().requires_grad_()\n"))


def test_a_loss_from_the_argmax_of_a_model_call() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "tagger = nn.Linear(3, 4)\n"
        "words = torch.randn(5, 3)\n"
        "guess = tagger(words).argmax(1)\n"
        "gold = torch.tensor([0, 1, 2, 3, 0])\n"
        "err = (guess - gold).abs().float().mean()\n"
        "err.backward()\n"
    )
    text = _explained(code, "no-grad-to-compute")
    assert "`guess` is made with `tagger(words).argmax(1)` on line 5" in text
    assert "`nn.functional.cross_entropy(tagger(words), labels)`" in text
    assert "`words.requires_grad_()`" not in text


def test_batch_size_mismatch_points_at_the_reshape() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "head = nn.Linear(4, 2)\n"
        "vols = torch.randn(3, 4, 2)\n"
        "flat = vols.reshape(-1, 4)\n"
        "ys = torch.tensor([0, 1, 1])\n"
        "loss = nn.functional.cross_entropy(head(flat), ys)\n"
    )
    text = _explained(code, "batch-size-mismatch")
    assert "Line 5 (`flat = vols.reshape(-1, 4)`) reshapes `vols` with `-1` first" in text
    assert "`flat = vols.reshape(vols.size(0), -1)` on line 5" in text


def test_a_number_summed_from_items_drops_the_items() -> None:
    code = (
        "import torch\nws = torch.randn(3, requires_grad=True)\n"
        "penalty = sum([w.item() ** 2 for w in ws])\npenalty.backward()\n"
    )
    text = _explained(code, "backward-on-number")
    assert "`penalty = sum([w ** 2 for w in ws])` on line 3" in text
    _runs_plain(code.replace("w.item() ** 2", "w ** 2"))


def test_a_name_bound_again_is_no_longer_an_alias() -> None:
    code = (
        "import torch\nw = torch.ones(2, requires_grad=True)\n"
        "first = (w * 3).exp().sum()\nkeep = first\n"
        "first = (w * 4).exp().sum()\nfirst.backward()\nkeep.backward()\nkeep.backward()\n"
    )
    text = _explained(code, "backward-twice")
    assert "one tensor under two names" not in text
    assert "Line 7 (`keep.backward()`)" in text


def test_dtype_of_a_batched_product_and_of_a_convolution() -> None:
    code = (
        "import torch\nq = torch.randn(2, 3, 4)\nk = torch.randn(2, 4, 3, dtype=torch.float64)\n"
        "scores = torch.bmm(q, k)\n"
    )
    text = _explained(code, "dtype-mismatch")
    assert "`q` is Float (float32) and `k` is Double (float64)" in text
    conv = (
        "import numpy as np\nimport torch\nimport torch.nn as nn\n"
        "enc = nn.Conv1d(2, 3, 2)\nwave = torch.from_numpy(np.ones((1, 2, 6)))\n"
        "h = enc(wave)\n"
    )
    text = _explained(conv, "dtype-mismatch")
    assert "`wave` is Double (float64) but the weights of `enc` are Float (float32)" in text


def test_items_of_a_list_are_named_as_written() -> None:
    code = (
        "import torch\nouts = []\nz = torch.randn(3, requires_grad=True)\n"
        "outs.append(torch.sigmoid(z))\nouts[0].add_(1)\nouts[0].sum().backward()\n"
    )
    text = _explained(code, "saved-tensor-modified")
    assert "`outs[0]` was saved by Sigmoid" in text and "`outs` was saved" not in text
    _runs_plain(code.replace("outs[0].add_(1)", "outs[0] = outs[0].add(1)"))
    grads = (
        "import torch\nws = [torch.ones(2, requires_grad=True)]\nmids = [w * 2 for w in ws]\n"
        "mids[0].sum().backward()\nprint(mids[0].grad.sum())\n"
    )
    text = _explained(grads, "grad-is-none")
    assert "`mids[0].grad` is None" in text and "`x.grad`" not in text


def test_a_parameter_of_whole_numbers_is_named() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Gain(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.gain = nn.Parameter(torch.tensor([2, 3]))\n"
        "g = Gain()\n"
    )
    text = _explained(code, "integer-requires-grad")
    assert "`self.gain` is made of whole numbers" in text and "`[2., 3.]`" in text
    _runs_plain(code.replace("[2, 3]", "[2., 3.]"))


def test_inference_tensor_from_a_decorated_function() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "backbone = nn.Linear(4, 3)\nprobe = nn.Linear(3, 2)\n"
        "@torch.inference_mode()\n"
        "def features(batch):\n"
        "    return backbone(batch)\n"
        "f = features(torch.randn(5, 4))\n"
        "logits = probe(f)\n"
    )
    text = _explained(code, "inference-tensor")
    assert "`f` (line 8: `f = features(torch.randn(5, 4))`) is made by `features`" in text
    assert "`f = f.clone()` after line 8" in text
    _runs_plain(code.replace("logits = probe(f)", "f = f.clone()\nlogits = probe(f)"))
