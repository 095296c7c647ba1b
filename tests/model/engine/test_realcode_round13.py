"""Real code, round 13: what the corpus's snippets 375-434 needed to run as in plain torch
(a clean process, :mod:`tests.corpus.plain_client`).

Admitted, each by identity or by a narrow rule: ``torch.fft.rfftfreq``/``fftfreq``
(factories like ``arange``), ``from torch.nn.utils import ...`` (each name checked),
``nn.Embedding.from_pretrained`` and a tensor's own new attribute holding a tensor
(fast.ai's ``inp.g = out.g @ w.t()``); what stays refused; attention and transformer
layers in ``eval()`` under ``no_grad``, where plain torch takes a fused fast path (see
:mod:`gui.model.engine.fused_layers` and ``test_fused_layers.py``)."""

from __future__ import annotations

import pytest

from gui.model import safety
from tests.corpus.checks import matches, refused
from tests.corpus.harness import run_in_engine


def test_fft_frequency_bins_are_plain_torchs() -> None:
    matches(
        "import torch\n"
        "n = 12\n"
        "freqs = torch.fft.rfftfreq(n, d=0.5)\n"
        "full = torch.fft.fftfreq(n)\n"
        "x = torch.randn(n, requires_grad=True)\n"
        "mag = torch.fft.rfft(x).abs()\n"
        "(mag * freqs).sum().backward()\n"
        "print(freqs, full, x.grad)\n"
    )


def test_names_imported_from_torch_nn_utils_are_checked_one_by_one() -> None:
    matches(
        "import torch\nimport torch.nn as nn\n"
        "from torch.nn.utils import clip_grad_norm_, parameters_to_vector as p2v\n"
        "model = nn.Linear(3, 2)\n"
        "model(torch.randn(4, 3) * 10).pow(2).sum().backward()\n"
        "norm = clip_grad_norm_(model.parameters(), 1.0)\n"
        "flat = p2v(model.parameters())\n"
        "print(norm, flat.shape, model.weight.grad)\n"
    )
    # `parametrizations` is admitted since round 14 (test_realcode_round14.py).


def test_embedding_from_pretrained_is_plain_torchs() -> None:
    matches(
        "import torch\nimport torch.nn as nn\n"
        "vectors = torch.tensor([[1.0, 2.3, 3.0], [4.0, 5.1, 6.3], [0.5, -1.0, 2.0]])\n"
        "frozen = nn.Embedding.from_pretrained(vectors)\n"
        "tuned = nn.Embedding.from_pretrained(vectors.clone(), freeze=False, padding_idx=0)\n"
        "bag = nn.EmbeddingBag.from_pretrained(vectors, mode='sum')\n"
        "ids = torch.tensor([[0, 2], [1, 1]])\n"
        "out = frozen(ids).sum() + (tuned(ids) ** 2).sum() + bag(ids).sum()\n"
        "out.backward()\n"
        "print(frozen.weight.requires_grad, tuned.weight.grad, bag.weight.requires_grad)\n"
    )


def test_a_tensor_keeps_a_hand_computed_gradient_as_its_own_attribute() -> None:
    """fast.ai's "from the foundations": ``inp.g = out.g @ w.t()``, read back, deep-copied."""
    matches(
        "import copy\nimport torch\n"
        "torch.manual_seed(0)\n"
        "inp, w = torch.randn(5, 3), torch.randn(3, 2)\n"
        "out = inp @ w\n"
        "out.g = 2 * out / 5\n"
        "inp.g = out.g @ w.t()\n"
        "w.g = inp.t() @ out.g\n"
        "p = torch.nn.Parameter(torch.ones(2))\n"
        "p.g = None\n"
        "twin = copy.deepcopy(w)\n"
        "wr = w.clone().requires_grad_(True)\n"
        "(inp @ wr).pow(2).div(5).sum().backward()\n"
        "print(torch.allclose(wr.grad, w.g), twin.g.shape, p.g, hasattr(inp, 'g'))\n"
    )


@pytest.mark.parametrize(
    "line",
    [
        "t.shape = (3,)",  # torch's own attribute
        "t.is_leaf = False",
        "t._g = t",  # torch's and Python's internals
        "t.g = 'text'",  # only a tensor (or None) is kept on a tensor
        "t.g = [t]",
        "t.g = print",
        "torch.zeros(1).__class__.g = t",  # a class is shared by every program
    ],
)
def test_a_tensor_attribute_that_is_not_a_new_tensor_note_stays_refused(line: str) -> None:
    refusal = refused(f"import torch\nt = torch.ones(3)\n{line}\n")
    assert "cannot be changed" in refusal or "not available" in refusal


def test_transformer_encoder_layer_in_eval_under_no_grad_is_plain_torchs() -> None:
    matches(
        "import torch\nimport torch.nn as nn\n"
        "torch.manual_seed(0)\n"
        "layer = nn.TransformerEncoderLayer(16, 4, 32, 0.1, batch_first=True).eval()\n"
        "x = torch.randn(3, 5, 16)\n"
        "with torch.no_grad():\n"
        "    y = layer(x)\n"
    )


def test_multihead_attention_in_eval_under_no_grad_is_plain_torchs() -> None:
    matches(
        "import torch\nimport torch.nn as nn\n"
        "torch.manual_seed(0)\n"
        "mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()\n"
        "x = torch.randn(2, 3, 8)\n"
        "with torch.no_grad():\n"
        "    out, weights = mha(x, x, x)\n"
    )


def test_a_modules_version_string_reads_as_in_plain_python() -> None:
    """``print(torch.__version__)``, the first line of many notebooks."""
    matches(
        "import numpy as np\nimport torch\n"
        "print(torch.__version__, np.__version__, torch.__version__.split('+')[0])\n"
        "print(type(torch.__version__.split('.')[0]).__name__)\n"
    )


@pytest.mark.parametrize(
    "code",
    [
        "x = 3\nprint(x.__version__)",  # only a module's
        "import torch\nprint(torch.ones(1).__version__)",
        "import torch\ntorch.__version__ = '9'",  # read only
        "import torch\nprint(torch.__dict__)",  # the other dunders stay refused
    ],
)
def test_other_version_reads_and_dunders_stay_refused(code: str) -> None:
    assert refused(code)


def test_layer_names_no_program_could_write_are_left_unnamed() -> None:
    """``add_module`` with a name past the longest program (the red team's round 13): the
    parameter is not named after it; an ordinary nested name still is."""
    result = run_in_engine(
        "import torch\nimport torch.nn as nn\n"
        "m = nn.Sequential()\n"
        "m.add_module('a' * 30000, nn.Linear(2, 2))\n"
        "m.add_module('head', nn.Sequential(nn.Linear(2, 1)))\n"
        "out = m(torch.randn(3, 2)).sum()\nout.backward()\n"
    )
    assert result.error is None, result.error
    assert max(map(len, result.tensors)) <= safety.MAX_SOURCE_CHARS
    assert "m.head.0.weight" in result.tensors


def test_itertools_chains_parameters_and_grids_as_in_plain_python() -> None:
    matches(
        "import itertools\nfrom itertools import chain, product\n"
        "import torch\nimport torch.nn as nn\n"
        "torch.manual_seed(0)\n"
        "enc, dec = nn.Linear(4, 2), nn.Linear(2, 4)\n"
        "opt = torch.optim.Adam(itertools.chain(enc.parameters(), dec.parameters()), lr=0.01)\n"
        "x = torch.randn(8, 4)\n"
        "loss = ((dec(enc(x)) - x) ** 2).mean()\n"
        "loss.backward()\nopt.step()\n"
        "print(list(product([0.1, 0.01], [0, 1])), list(chain.from_iterable([[1], [2, 3]])))\n"
        "print(list(itertools.islice(itertools.count(5), 3)), list(itertools.pairwise('abc')))\n"
    )
    assert refused("import itertools\nt = itertools.tee([1, 2])\n")
