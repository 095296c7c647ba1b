"""Real code, round 14: explanations of the errors snippets 443-485 hit, checked on fresh
programs (other names, aliases, attributes, items): each sentence names the learner's own
variables and states what is true, each stops at plain torch's line, and each fix runs in
plain torch (a clean process, :mod:`tests.corpus.plain_client`)."""

from __future__ import annotations

from tests.corpus.checks import explained, runs_plain


def test_one_hot_labels_are_named_as_one_hot() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "clf = nn.Linear(4, 3)\n"
        "ys = torch.tensor([2, 0, 1, 2])\n"
        "onehot = torch.eye(3)[ys].long()\n"
        "loss = nn.CrossEntropyLoss()(clf(torch.randn(4, 4)), onehot)\n"
    )
    text = explained(code, "class-target-probabilities")
    assert "`onehot` is one-hot encoded on line 5" in text
    assert "one score per example" not in text  # clf gives 3 columns: not the cause
    runs_plain(code.replace("onehot)\n", "onehot.argmax(dim=1))\n"))


def test_same_shape_labels_without_one_hot_give_both_causes() -> None:
    code = (
        "import torch\nimport torch.nn.functional as F\n"
        "score = torch.randn(6, 1, requires_grad=True)\n"
        "spam = torch.randint(0, 2, (6, 1))\n"
        "F.cross_entropy(score, spam)\n"
    )
    text = explained(code, "class-target-probabilities")
    assert "Either `spam` is one-hot encoded" in text
    assert "`score` has one score per example" in text
    runs_plain(
        code.replace(
            "F.cross_entropy(score, spam)",
            "F.binary_cross_entropy_with_logits(score, spam.float())",
        )
    )


def test_language_model_targets_left_unflattened() -> None:
    code = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "emb = nn.Embedding(7, 7)\n"
        "src = torch.randint(0, 7, (3, 5))\n"
        "tgt = torch.randint(0, 7, (3, 5))\n"
        "out = emb(src)\n"
        "flat = out.reshape(-1, out.size(-1))\n"
        "loss = F.cross_entropy(flat, tgt)\n"
    )
    text = explained(code, "batch-size-mismatch")
    assert "each row of `flat` (15 rows)" in text
    assert "`tgt`, which has 3 rows" in text and "tgt.view(-1)" in text
    runs_plain(code.replace("(flat, tgt)", "(flat, tgt.view(-1))"))


def test_a_split_batch_is_not_called_unflattened_targets() -> None:
    code = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "net = nn.Linear(3, 6)\n"
        "labels = torch.tensor([0, 1, 1])\n"
        "logits = net(torch.randn(3, 3)).view(-1, 2)\n"
        "F.cross_entropy(logits, labels)\n"
    )
    text = explained(code, "batch-size-mismatch")
    assert "each row of `logits` (9 rows)" in text and "`labels`, which has 3 rows" in text
    assert "view(-1)`" not in text


def test_float64_batches_in_a_list_are_converted_element_by_element() -> None:
    code = (
        "import numpy as np\nimport torch\nimport torch.nn as nn\n"
        "arrays = [np.ones((2, 3)), np.zeros((2, 3))]\n"
        "chunks = [torch.from_numpy(a) for a in arrays]\n"
        "lin = nn.Linear(3, 1)\n"
        "pred = lin(chunks[1])\n"
    )
    text = explained(code, "dtype-mismatch")
    fixed = "chunks = [torch.from_numpy(a).float() for a in arrays]"
    assert "`chunks[1]` is Double" in text and fixed in text
    runs_plain(code.replace("chunks = [torch.from_numpy(a) for a in arrays]", fixed))


def test_tensors_whose_grad_is_read_are_the_ones_to_make_require_grad() -> None:
    code = (
        "import torch\n"
        "data = torch.randn(5, 2)\n"
        "W = torch.randn(2, 1) * 0.5\n"
        "b = torch.zeros(1)\n"
        "loss = ((data @ W + b) ** 2).mean()\n"
        "loss.backward()\n"
        "W.data -= 0.1 * W.grad\n"
    )
    text = explained(code, "no-grad-to-compute")
    assert "line 7 reads `W.grad` of `W`" in text and "made on line 3" in text
    assert "`data`" not in text  # the data is not what is trained
    assert "(torch.randn(2, 1) * 0.5).requires_grad_()" in text
    runs_plain(
        code.replace(
            "W = torch.randn(2, 1) * 0.5", "W = (torch.randn(2, 1) * 0.5).requires_grad_()"
        )
    )


def test_a_list_of_parameters_read_in_a_loop() -> None:
    code = (
        "import torch\n"
        "params = [torch.ones(3), torch.zeros(3)]\n"
        "x = torch.arange(3.0)\n"
        "loss = (params[0] * x + params[1]).sum()\n"
        "loss.backward()\n"
        "for p in params:\n"
        "    p.data.add_(-0.1 * p.grad)\n"
    )
    text = explained(code, "no-grad-to-compute")
    assert "reads `p.grad` of each tensor in `params`" in text
    assert "`torch.ones(3)` becomes `torch.ones(3).requires_grad_()`" in text


def test_a_loss_returned_from_a_no_grad_helper() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "model = nn.Linear(2, 1)\n"
        "def score(m, inputs):\n"
        "    with torch.no_grad():\n"
        "        out = m(inputs)\n"
        "        return out.pow(2).mean()\n"
        "total = score(model, torch.randn(4, 2))\n"
        "total.backward()\n"
    )
    text = explained(code, "no-grad-to-compute")
    assert "`total` is what `score(...)` returns (line 8" in text
    assert "`with torch.no_grad():` (line 5)" in text


def test_a_helper_that_returns_outside_no_grad_is_not_blamed() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "model = nn.Linear(2, 1)\n"
        "def score(m, inputs):\n"
        "    with torch.no_grad():\n"
        "        out = m(inputs)\n"
        "    return out.pow(2).mean()\n"
        "total = score(model, torch.randn(4, 2))\n"
        "total.backward()\n"
    )
    text = explained(code, "no-grad-to-compute")
    assert "what `score(...)` returns" not in text


def test_an_in_place_change_inside_torch_is_not_blamed_on_the_program() -> None:
    """``torch.linalg.cond(A, p='fro')``'s backward fails in plain torch too (torch changes
    its own saved ``inv`` output): no `+=` to look for in the program."""
    code = (
        "import torch\n"
        "M = torch.tensor([[2.0, 1.0], [0.5, 3.0]], requires_grad=True)\n"
        "k = torch.linalg.cond(M, p='fro')\n"
        "k.backward()\n"
    )
    text = explained(code, "saved-tensor-modified")
    assert "No line of this program changes a tensor in place" in text
    assert "y += 1" not in text
    runs_plain(
        code.replace(
            "torch.linalg.cond(M, p='fro')",
            "torch.linalg.matrix_norm(M, 'fro') * torch.linalg.matrix_norm(torch.linalg.inv(M), 'fro')",
        )
    )


def test_a_real_in_place_change_keeps_its_own_story() -> None:
    code = (
        "import torch\n"
        "a = torch.ones(3, requires_grad=True)\n"
        "s = a.sigmoid()\n"
        "s += 1\n"
        "s.sum().backward()\n"
    )
    text = explained(code, "saved-tensor-modified")
    assert "No line of this program" not in text and "`s`" in text


def test_an_attribute_whose_grad_is_read_is_the_one_to_train() -> None:
    code = (
        "import torch\n"
        "class Model:\n"
        "    def __init__(self):\n"
        "        self.w = torch.randn(2)\n"
        "m = Model()\n"
        "x = torch.ones(2)\n"
        "loss = (m.w * x).sum()\n"
        "loss.backward()\n"
        "m.w.data -= 0.1 * m.w.grad\n"
    )
    text = explained(code, "no-grad-to-compute")
    assert "reads `m.w.grad`" in text and "made on line 4 (`self.w = torch.randn(2)`)" in text
    assert "`x.requires_grad_()`" not in text
    runs_plain(code.replace("self.w = torch.randn(2)", "self.w = torch.randn(2).requires_grad_()"))


def test_the_failing_layer_of_a_nested_call_is_the_one_named() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.enc = nn.Linear(6, 4)\n"
        "        self.dec = nn.Linear(5, 6)\n"
        "    def forward(self, x):\n"
        "        return self.dec(torch.relu(self.enc(x)))\n"
        "net = Net()\n"
        "y = net(torch.randn(2, 6))\n"
    )
    text = explained(code, "matmul-shape")
    assert "Inside `self.dec(torch.relu(self.enc(x)))`, `nn.Linear(5, 6)` (`self.dec`)" in text
    assert "Inside `self.enc(x)`" not in text
    runs_plain(code.replace("nn.Linear(5, 6)", "nn.Linear(4, 6)"))


def test_a_flag_switched_on_an_expression_names_the_expression() -> None:
    off = (
        "import torch\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "frozen = (w * 2).requires_grad_(False)\n"
    )
    text = explained(off, "non-leaf-requires-grad")
    assert "`(w * 2)` is computed from tensors that require grad" in text
    assert "`y`" not in text and "`(w * 2).detach()`" in text
    runs_plain(off.replace("(w * 2).requires_grad_(False)", "(w * 2).detach()"))
    on = "import torch\nw = torch.ones(3, requires_grad=True)\n(w + 1).requires_grad = True\n"
    text = explained(on, "non-leaf-requires-grad")
    assert "`(w + 1)` is computed from tensors" in text
    assert "Remove the `requires_grad` switch from this line" in text
