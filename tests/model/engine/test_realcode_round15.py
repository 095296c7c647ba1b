"""Real code, round 15: attention and transformer layers in ``eval()`` (snippets 493-540:
BERT-style encoders, nn.Transformer greedy decoding, nn.MultiheadAttention, d2l's attention
chapter, the "Language Modeling with nn.Transformer" tutorial).

Every number is compared with plain torch in a clean process
(:mod:`tests.corpus.plain_client`). Five cases that differed (a hook on the layer itself, a
sliced mask, bfloat16, a program's subclass defining only ``__init__``) take the fused
kernels now, as in plain torch (:mod:`gui.model.engine.fused_layers`)."""

from __future__ import annotations

import pytest

from tests.corpus.checks import matches, refused, text
from tests.corpus.harness import run_in_engine

# A forward hook on `nn.MultiheadAttention` itself runs in `Module.__call__`, around
# `forward`: it never blocks torch's fused kernel, and plain torch runs
# `_native_multi_head_attention` with the hook called after it. The engine's check counts the
# layer's own hooks as code "inside" the call and takes the step-by-step path: the output
# differs in the last bits.
_HOOKED_SELF_ATTENTION = """\
import torch
import torch.nn as nn

torch.manual_seed(19)
attn = nn.MultiheadAttention(8, 2, batch_first=True)
seen = []
attn.register_forward_hook(lambda module, args, output: seen.append(output[0].shape))
attn.eval()
x = torch.randn(2, 3, 8)
with torch.no_grad():
    y, w = attn(x, x, x)
print(seen)
print(y)
"""


def test_hook_on_multihead_attention_itself_equals_plain_torch() -> None:
    matches(_HOOKED_SELF_ATTENTION)


def test_unhooked_multihead_attention_equals_plain_torch() -> None:
    matches(_HOOKED_SELF_ATTENTION.replace("attn.register_forward_hook", "# no hook: "))


# The same for the encoder: a hook on `nn.TransformerEncoder` itself (the usual way to grab
# its output) leaves plain torch on its nested-tensor path, whose padded places are exact
# zeros; the engine takes the step-by-step path and shows numbers there.
_HOOKED_ENCODER = """\
import torch
import torch.nn as nn

torch.manual_seed(3)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
shapes = []
encoder.register_forward_hook(lambda module, args, output: shapes.append(output.shape))
encoder.eval()
x = torch.randn(2, 4, 8)
pad = torch.tensor([[False, False, True, True], [False, False, False, False]])
with torch.no_grad():
    y = encoder(x, src_key_padding_mask=pad)
print(y[0, 2:], shapes)
"""


def test_hook_on_transformer_encoder_itself_equals_plain_torch() -> None:
    matches(_HOOKED_ENCODER)


# bfloat16 (and float16) layers on the CPU take the fused kernels in plain torch; the engine's
# `_FLOAT_DTYPES` admits float32 and float64 only, and bfloat16's printed digits differ.
_BFLOAT16_LAYER = """\
import torch
import torch.nn as nn

torch.manual_seed(3)
layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).to(torch.bfloat16).eval()
x = torch.randn(2, 4, 8, dtype=torch.bfloat16)
with torch.no_grad():
    y = layer(x)
print(y)
"""


def test_bfloat16_encoder_layer_equals_plain_torch() -> None:
    matches(_BFLOAT16_LAYER)


# A causal mask made once and sliced to the current length (`mask[:T, :T]`, a view that is
# not contiguous) is fine for torch's fused encoder-layer kernel; the engine's `_masks_fit`
# asks masks to be one dense block (`_dense`), so it takes the step-by-step path and the
# output differs in the last bits. Contiguous masks of the same numbers match.
_SLICED_CAUSAL_MASK = """\
import torch
import torch.nn as nn

torch.manual_seed(22)
layer = nn.TransformerEncoderLayer(16, 4, 64, dropout=0.1, batch_first=True)
blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
blocks.eval()
x = torch.randn(2, 3, 16)
causal = nn.Transformer.generate_square_subsequent_mask(8)
with torch.no_grad():
    y = blocks(x, mask=causal[:3, :3])
print(y)
"""


def test_sliced_causal_mask_equals_plain_torch() -> None:
    matches(_SLICED_CAUSAL_MASK)


def test_contiguous_causal_mask_equals_plain_torch() -> None:
    matches(_SLICED_CAUSAL_MASK.replace("causal[:3, :3]", "causal[:3, :3].contiguous()"))


def test_nanogpt_nullcontext_is_admitted_and_plain_torchs() -> None:
    matches(
        "import contextlib\nfrom contextlib import nullcontext\nimport torch\n"
        "device_type = 'cpu'\n"
        "ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type='cuda')\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "with ctx:\n    loss = (w * 3).sum()\n"
        "with contextlib.nullcontext(w) as same, torch.no_grad():\n    print(same is w)\n"
        "with nullcontext():\n    loss.backward()\n"
        "print(w.grad, loss)\n"
    )


@pytest.mark.parametrize(
    ("code", "named"),
    [
        # the rest of contextlib: stdout, callbacks, generators, the working folder
        (
            "import contextlib\nwith contextlib.redirect_stdout(None):\n    pass\n",
            "redirect_stdout",
        ),
        ("from contextlib import ExitStack\n", "ExitStack"),
        ("from contextlib import contextmanager\n", "contextmanager"),
        ("import contextlib\ns = contextlib.suppress(Exception)\n", "suppress"),
        ("import contextlib\ncontextlib.chdir('/')\n", "chdir"),
        # a name holding anything else is checked when the block is entered
        ("import torch\nctx = torch.device('meta')\nwith ctx:\n    x = torch.ones(2)\n", "device"),
        (
            "from contextlib import nullcontext\nclass Quiet(nullcontext):\n    pass\n"
            "q = Quiet()\nwith q:\n    pass\n",
            "nullcontext",
        ),
    ],
)
def test_only_nullcontext_of_contextlib_is_admitted(code: str, named: str) -> None:
    message = refused(code)
    assert named in message, message


def test_a_with_block_over_a_name_enters_only_listed_contexts() -> None:
    # `with ctx:` passes the check before the run (a name); the guard then checks the value.
    message = refused("import torch\nctx = [1]\nwith ctx:\n    pass\nprint('after')\n")
    assert "`with` is not available on a list" in message and "nullcontext" in message


def test_dataclass_refusal_names_the_decorator_and_the_plain_class_fix() -> None:
    for code in (
        "from dataclasses import dataclass\n\n@dataclass\nclass GPTConfig:\n    n_embd: int = 12\n",
        "import dataclasses\n\n@dataclasses.dataclass\nclass Config:\n    n: int = 1\n",
    ):
        result = run_in_engine(code)
        assert result.error is not None and result.error.kind == "unsafe-code"
        assert result.error.message.count(". ") <= 1
        words = text(result.error)
        assert "@dataclass" in words and "def __init__(self" in words, words
        assert "build data with" not in words  # not the general advice
    # The fix it offers runs in plain torch and through the engine.
    matches(
        "import torch\nimport torch.nn as nn\n\nclass GPTConfig:\n"
        "    def __init__(self, block_size=8, vocab_size=16, n_embd=12):\n"
        "        self.block_size = block_size\n        self.vocab_size = vocab_size\n"
        "        self.n_embd = n_embd\n\n"
        "config = GPTConfig(n_embd=6)\n"
        "wte = nn.Embedding(config.vocab_size, config.n_embd)\n"
        "print(wte(torch.arange(config.block_size)).sum())\n"
    )


# A program's subclass of torch's encoder that changes nothing about the call (an empty
# body, or an `__init__` of its own building the layers) takes the nested-tensor path in
# plain torch: exact zeros at the padded places. The engine admits torch's own classes by
# identity only, so it shows numbers there.
_SUBCLASSED_ENCODER = """\
import torch
import torch.nn as nn


class Encoder(nn.TransformerEncoder):
    def __init__(self, d_model, layers):
        super().__init__(nn.TransformerEncoderLayer(d_model, 2, 16, batch_first=True), layers)


torch.manual_seed(3)
encoder = Encoder(8, 2).eval()
x = torch.randn(2, 4, 8)
pad = torch.tensor([[False, False, True, True], [False, False, False, False]])
with torch.no_grad():
    y = encoder(x, src_key_padding_mask=pad)
print(y[0, 2:])
"""


def test_subclassed_encoder_equals_plain_torch() -> None:
    matches(_SUBCLASSED_ENCODER)
