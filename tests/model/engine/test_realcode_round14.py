"""Real code, round 14: what the corpus's snippets 443-492 (nanoGPT, "Learning PyTorch with
Examples", Raschka, UvA, CS231n, Zero to Mastery, and learners' errors) needed.

Admitted: ``torch.linalg.cond`` (the static ban on the name ``cond``, meant for
``torch.cond``, is gone; ``torch.cond`` is refused by identity), torch's own
``torch.nn.utils.parametrizations`` (``weight_norm``, ``spectral_norm``, ``orthogonal``,
through :mod:`gui.model.engine.parametrize_stand_in`), and a program layer's own
``_private`` method (nanoGPT's ``self.apply(self._init_weights)``). Every number is
compared with plain torch in a clean process (:mod:`tests.corpus.plain_client`)."""

from __future__ import annotations

from tests.corpus.checks import explained, matches, refused
from tests.corpus.harness import run_in_engine


def test_linalg_cond_is_admitted_and_plain_torchs() -> None:
    matches(
        "import torch\nimport numpy as np\n"
        "A = torch.tensor([[1.0, 2.0], [3.0, 4.5]], requires_grad=True)\n"
        "c = torch.linalg.cond(A)\n"
        "c2 = torch.linalg.cond(A, p='nuc')\n"
        "(c + c2).backward()\n"
        "print(c, c2, A.grad, np.linalg.cond(np.eye(2) * 3))\n"
    )


def test_torch_cond_is_still_refused_with_a_true_sentence() -> None:
    for code in (
        "import torch\nprint(torch.cond(torch.tensor(True), torch.sin, torch.cos, (torch.ones(2),)))\n",
        "import torch\nfrom torch import cond\n",
        "import torch\nf = getattr(torch, 'cond')\n",
    ):
        message = refused(code)
        assert "cond" in message and "not on the list" in message, message
        assert "compiles" not in message  # not the old, misleading reason


def test_weight_norm_spectral_norm_orthogonal_equal_plain_torch() -> None:
    matches(
        "import torch\nimport torch.nn as nn\n"
        "from torch.nn.utils.parametrizations import weight_norm\n"
        "torch.manual_seed(3)\n"
        "conv = weight_norm(nn.Conv1d(2, 3, 3), name='weight', dim=0)\n"
        "fc = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4), n_power_iterations=2)\n"
        "rot = torch.nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))\n"
        "x = torch.randn(2, 2, 7)\n"
        "h = conv(x).mean(-1)\n"
        "out = rot(torch.cat([h, h[:, :1]], 1) + fc(torch.randn(2, 5))).pow(2).sum()\n"
        "out.backward()\n"
        "g = conv.parametrizations.weight.original0\n"
        "print(g.grad.flatten(), conv.parametrizations.weight.original1.grad.sum())\n"
        "print(fc.parametrizations.weight.original.grad, rot.parametrizations.weight.original.grad)\n"
        "W = rot.weight\n"
        "print(torch.dist(W.T @ W, torch.eye(4)) < 1e-5, torch.linalg.matrix_norm(fc.weight, 2))\n"
    )


def test_library_parametrizations_refuse_what_register_refuses() -> None:
    whole = refused(
        "import torch\nimport torch.nn as nn\n"
        "from torch.nn.utils import parametrizations as PZ\n"
        "m = nn.Linear(2, 2)\n"
        "m.register_buffer('idx', torch.zeros(2, 2, dtype=torch.long))\n"
        "PZ.weight_norm(m, 'idx')\n"
    )
    assert "weight_norm(..., 'idx')" in whole and "whole numbers" in whole
    forged = refused(
        "import torch\nimport torch.nn as nn\n"
        "from torch.nn.utils import parametrizations as PZ\n"
        "class Fake(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x\n"
        "lin = nn.Linear(2, 2)\n"
        "lin.parametrizations = nn.ModuleDict({'bias': Fake()})\n"
        "PZ.spectral_norm(lin)\n"
    )
    assert "spectral_norm(...)" in forged
    assert "layer (nn.Module)" in refused(
        "import torch\nfrom torch.nn.utils import parametrizations as PZ\n"
        "PZ.orthogonal(torch.ones(3, 3))\n"
    )


def test_the_rest_of_parametrizations_stays_refused() -> None:
    for name in ("_WeightNorm", "_OrthMaps", "Enum", "parametrize.cached"):
        message = refused(
            f"import torch\nfrom torch.nn.utils import parametrizations as PZ\nf = PZ.{name}\n"
        )
        assert name.split(".")[-1] in message, message


def test_a_layer_reads_its_own_private_method() -> None:
    """nanoGPT: ``self.apply(self._init_weights)`` on the program's own nn.Module."""
    matches(
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(3, 2)\n"
        "        self.emb = nn.Embedding(4, 3)\n"
        "        self.apply(self._init_weights)\n"
        "    def _init_weights(self, module):\n"
        "        if isinstance(module, nn.Linear):\n"
        "            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)\n"
        "            torch.nn.init.zeros_(module.bias)\n"
        "        elif isinstance(module, nn.Embedding):\n"
        "            torch.nn.init.normal_(module.weight, std=0.5)\n"
        "    def forward(self, idx):\n"
        "        return self.fc(self.emb(idx))\n"
        "class Deeper(Net):\n"
        "    pass\n"
        "torch.manual_seed(0)\n"
        "net = Deeper()\n"
        "f = net._init_weights\n"
        "f(net.fc)\n"
        "net(torch.tensor([1, 3])).sum().backward()\n"
        "print(net.fc.weight, net.emb.weight.grad)\n"
    )


def test_torchs_private_names_on_a_program_layer_stay_refused() -> None:
    base = (
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(3, 2)\n"
        "net = Net()\n"
    )
    for read in ("net._parameters", "net._apply", "Net._call_impl", "net._modules"):
        message = refused(base + f"x = {read}\n")
        assert "underscore" in message, message


def test_an_instance_entry_does_not_pass_for_the_class_method() -> None:
    """The method is the program's only when the instance holds no entry of that name
    (an nn.Module's ``__dict__`` is torch's to fill)."""
    result = run_in_engine(
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def _helper(self):\n"
        "        return 1\n"
        "net = Net()\n"
        "net.__dict__['_helper'] = print\n"
        "net._helper\n"
    )
    assert result.error is not None and result.error.kind == "unsafe-code"


def test_orthogonal_takes_only_torchs_three_maps() -> None:
    """torch looks the map name up with ``getattr`` on its Enum and keeps what it finds on
    the layer: any other string is torch's ValueError ("qr" at plain torch's line)."""
    for bad in ("'__class__'", "'_member_map_'", "'qr'"):
        code = (
            "import torch\nimport torch.nn as nn\n"
            "from torch.nn.utils.parametrizations import orthogonal\n"
            f"layer = orthogonal(nn.Linear(3, 3), orthogonal_map={bad})\n"
        )
        result = run_in_engine(code)
        assert result.error is not None and result.error.exception == "ValueError", result.error
        assert "orthogonal_map has to be one of" in result.error.message
        if bad == "'qr'":
            explained(code, result.error.kind)  # torch's own error, at plain torch's line
        # (Plain torch accepts `'__class__'`, an attribute of its Enum, and goes on with a
        # map that is none of the three: refused here, with torch's message.)
