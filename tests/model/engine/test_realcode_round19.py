"""Real code, round 19: Raschka's "Build a Large Language Model (From Scratch)" (attention by
hand, SelfAttention_v1/v2, CausalAttention with a registered mask, MultiHeadAttention,
LayerNorm/GELU/shortcuts, GPTModel, pretraining and classification fine-tuning loops,
decoding with temperature and top-k, the instruction collate with ``ignore_index``,
appendix A), torch.nn building blocks (the SDPA reference implementation, cross-attention
with ``kdim``/``vdim``, parametrizations, an orthogonal RNN), DataLoader recipes, linear
algebra (Procrustes and PCA by SVD, a ridge hypergradient through ``solve``, ``matrix_exp``
for Markov chains and rotations, FFT convolution, complex parameters, einsum contractions)
and the learners' errors around them (snippets 653-693).

Every model ran as written with plain torch's numbers. What differed:

- thirteen learners' errors got torch's bare words ("no plain-words note") or general
  words; each is explained now in the learner's names, at plain torch's line, with a fix
  that runs in plain torch: ``torch.func.grad`` of a function returning a vector,
  ``.item()`` (or an ``if``) inside ``vmap``, an integer ``attn_mask``, a
  ``key_padding_mask`` built (length, batch), a 2-D ``attn_mask`` of the wrong size,
  ``cross_entropy`` of (batch, tokens, vocab) logits without the flatten, ``linalg.solve`` /
  ``linalg.inv`` of a singular Gram matrix, eigh's NaN gradient at repeated eigenvalues,
  ``layer.weight.grad`` read after ``weight_norm`` (None: the weight is recomputed), and a
  buffer registered from a parameter's computation (the second backward fails), a causal
  mask not cut to the batch's length in ``masked_fill``, a (batch, keys) padding mask given
  to ``scaled_dot_product_attention``, and the program's own ``assert`` (it was "an
  AssertionError came from torch or Python");
- torch's older hook-based ``torch.nn.utils.weight_norm`` (TCN, WaveNet code) stays refused
  (not widened), but the refusal now names its replacement and how to import it.

Not the engine's: ``torch.linalg.lstsq`` with its default CPU driver (``gelsy``, MKL) is not
bit-reproducible even in plain torch (its last digits change with memory alignment), so the
corpus uses ``driver="gelsd"``, which is.
"""

from __future__ import annotations

from tests.corpus.checks import explained, matches, refused, runs_plain
from tests.corpus.harness import run_in_engine

# ---------------------------------------------------------------------------------------
# torch.func transforms.

_GRAD = """\
import torch
from torch.func import grad


def loss_fn(w):
    return torch.tanh(w) * 2


w = torch.randn(3)
g = grad(loss_fn)(w)
print(g)
"""


def test_func_grad_of_a_vector_names_the_function_and_the_transform() -> None:
    words = explained(_GRAD, "func-grad-non-scalar")
    assert "`grad(loss_fn)` differentiates a function that returns one number" in words
    assert "`loss_fn` returned a tensor with 1 dimension," in words
    assert "`torch.func.jacrev(loss_fn)`" in words
    assert "grad_and_value(loss_fn)" not in words  # torch's wording, not what was written
    matches(_GRAD.replace("torch.tanh(w) * 2", "(torch.tanh(w) * 2).sum()"))
    runs_plain(_GRAD.replace("grad(loss_fn)(w)", "torch.func.jacrev(loss_fn)(w)"))


def test_grad_and_value_keeps_its_own_name() -> None:
    code = _GRAD.replace("import grad", "import grad_and_value").replace(
        "g = grad(loss_fn)(w)", "g, value = grad_and_value(loss_fn)(w)"
    )
    words = explained(code, "func-grad-non-scalar")
    assert "`grad_and_value(loss_fn)` differentiates" in words


_VMAP = """\
import torch
from torch.func import vmap


def scale(row):
    top = row.max().item()
    return row / top


rows = torch.rand(4, 3) + 0.5
print(vmap(scale)(rows))
"""


def test_item_inside_vmap_names_the_helper_and_the_tensor() -> None:
    words = explained(_VMAP, "vmap-item")
    assert "`vmap` runs `scale` once for a whole batch" in words
    assert "`row.max().item()` on line 6" in words
    assert "Keep `row.max()` a tensor" in words
    matches(_VMAP.replace("row.max().item()", "row.max()"))


def test_an_if_on_a_tensor_inside_vmap() -> None:
    code = _VMAP.replace(
        "    top = row.max().item()\n    return row / top\n",
        "    if row.sum() > 2:\n        return row * 2\n    return row\n",
    )
    words = explained(code, "vmap-control-flow")
    assert "`vmap` runs `scale` once for a whole batch" in words
    assert "torch.where(condition, a, b)" in words
    fixed = code.replace(
        "    if row.sum() > 2:\n        return row * 2\n    return row\n",
        "    return torch.where(row.sum() > 2, row * 2, row)\n",
    )
    matches(fixed)


# ---------------------------------------------------------------------------------------
# Attention masks.

_MHA = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
attn = nn.MultiheadAttention(8, num_heads=2, batch_first=True)
x = torch.randn(3, 5, 8)
block = torch.triu(torch.ones(5, 5), diagonal=1).int()
out, w = attn(x, x, x, attn_mask=block)
out.sum().backward()
"""


def test_integer_attn_mask_is_named_with_where_it_was_made() -> None:
    words = explained(_MHA, "mask-dtype")
    assert "`block` (made on line 7: `block = torch.triu(" in words
    assert "`attn_mask=block.bool()`" in words
    matches(_MHA.replace("attn_mask=block)", "attn_mask=block.bool())"))
    fixed = _MHA.replace(
        "attn_mask=block)", "attn_mask=block.float().masked_fill(block.bool(), float('-inf')))"
    )
    matches(fixed)


def test_key_padding_mask_built_length_first() -> None:
    code = """\
import torch
import torch.nn as nn

torch.manual_seed(1)
mha = nn.MultiheadAttention(embed_dim=4, num_heads=1)
seq = torch.randn(5, 2, 4)
pad = torch.tensor([[False, False], [False, False], [False, True], [False, True], [True, True]])
out, _ = mha(seq, seq, seq, key_padding_mask=pad)
out.sum().backward()
"""
    words = explained(code, "mask-shape")
    assert "should be the batch, 2, but `pad` has 5 there" in words
    assert "`key_padding_mask=pad.T`" in words
    matches(code.replace("key_padding_mask=pad)", "key_padding_mask=pad.T)"))


def test_two_d_attn_mask_of_the_wrong_size() -> None:
    code = """\
import torch
import torch.nn as nn

torch.manual_seed(2)
mha = nn.MultiheadAttention(4, 2, batch_first=True)
q = torch.randn(2, 3, 4)
kv = torch.randn(2, 6, 4)
causal = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
out, _ = mha(q, kv, kv, attn_mask=causal)
"""
    words = explained(code, "mask-shape")
    assert "It should be [3, 6] here, but `causal` is [3, 3]" in words
    fixed = code.replace("torch.ones(3, 3, dtype", "torch.ones(3, 6, dtype")
    matches(fixed)


# ---------------------------------------------------------------------------------------
# A language model's loss without the flatten.

_LM = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
lm = nn.Sequential(nn.Embedding(7, 4), nn.Linear(4, 7))
ids = torch.randint(0, 7, (2, 5))
labels = torch.randint(0, 7, (2, 5))
out = lm(ids)
loss = F.cross_entropy(out, labels)
loss.backward()
"""


def test_cross_entropy_of_sequence_logits_says_flatten() -> None:
    words = explained(_LM, "class-target-shape")
    assert "`out` is (2, 5, 7): batch, positions, classes" in words
    assert "reads the 5 positions as the classes and the 7 classes as positions" in words
    assert "`cross_entropy(out.flatten(0, 1), labels.flatten())`" in words
    matches(_LM.replace("(out, labels)", "(out.flatten(0, 1), labels.flatten())"))
    matches(_LM.replace("(out, labels)", "(out.transpose(1, 2), labels)"))


# ---------------------------------------------------------------------------------------
# Linear algebra.

_SOLVE = """\
import torch

torch.manual_seed(4)
X = torch.randn(6, 2)
X = torch.cat([X, X[:, :1] * 2], dim=1)
y = torch.randn(6, 1)
G = X.T @ X
w = torch.linalg.solve(G, X.T @ y)
"""


def test_singular_gram_matrix_in_solve() -> None:
    words = explained(_SOLVE, "singular-matrix")
    assert "torch could not solve a system with `G` (made on line 7: `G = X.T @ X`)" in words
    assert "`G + 1e-3 * torch.eye(G.shape[-1])`" in words
    matches(_SOLVE.replace("solve(G,", "solve(G + 1e-3 * torch.eye(G.shape[-1]),"))


def test_singular_matrix_in_inv() -> None:
    code = "import torch\n\nA = torch.ones(3, 3)\nA_inv = torch.linalg.inv(A)\n"
    words = explained(code, "singular-matrix")
    assert "torch could not invert `A` (made on line 3: `A = torch.ones(3, 3)`)" in words


_EIGH = """\
import torch

torch.autograd.set_detect_anomaly(True)
S = torch.diag(torch.tensor([2.0, 2.0, 1.0])).requires_grad_()
vals, vecs = torch.linalg.eigh(S)
vecs.abs().sum().backward()
"""


def test_eigh_nan_gradient_at_repeated_eigenvalues() -> None:
    words = explained(_EIGH, "nan-gradient")
    assert "divides by the differences between the eigenvalues" in words
    assert "`torch.linalg.eigvalsh`" in words
    assert "`torch.sqrt(x + 1e-8)`" not in words  # the general advice, not this cause
    matches(_EIGH.replace("vecs.abs().sum()", "vals.pow(2).sum()"))


def test_other_nan_gradients_keep_the_general_advice() -> None:
    code = """\
import torch

torch.autograd.set_detect_anomaly(True)
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.sqrt(x) * 0
y.sum().backward()
"""
    result = explained(code, "nan-gradient")
    assert "`torch.sqrt(x + 1e-8)`" in result
    assert "eigenvalues" not in result


# ---------------------------------------------------------------------------------------
# Parametrized weights and buffers.

_WN = """\
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm

torch.manual_seed(5)
net = nn.Sequential(weight_norm(nn.Linear(3, 4)), nn.Tanh(), nn.Linear(4, 1))
net(torch.randn(2, 3)).sum().backward()
print(net[0].weight.grad.abs().sum())
"""


def test_weight_grad_after_weight_norm_points_at_the_originals() -> None:
    words = explained(_WN, "grad-is-none")
    assert "`net[0].weight.grad` is None: line 6" in words
    assert "`net[0].parametrizations.weight.original0.grad` and `.original1.grad`" in words
    fixed = _WN.replace(
        "print(net[0].weight.grad.abs().sum())",
        "print(net[0].parametrizations.weight.original0.grad.abs().sum())",
    )
    matches(fixed)


def test_a_plain_layer_beside_a_parametrized_one_is_not_blamed_on_it() -> None:
    code = _WN.replace("net(torch.randn(2, 3)).sum().backward()\n", "").replace(
        "net[0].weight.grad", "head.weight.grad"
    )
    code = code.replace("print(", "head = nn.Linear(2, 2)\nprint(")
    result = explained(code, "grad-is-none")
    assert "parametriz" not in result


_BUFFER = """\
import torch
import torch.nn as nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(3))
        table = torch.exp(self.log_scale) * torch.arange(3.0)
        self.register_buffer("table", table)

    def forward(self, x):
        return x * self.table + self.log_scale


m = Scaled()
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for _ in range(2):
    loss = m(torch.ones(3)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_buffer_computed_from_a_parameter_fails_the_second_backward() -> None:
    words = explained(_BUFFER, "backward-twice")
    assert "The buffer `self.table` (line 10:" in words
    assert "from `self.log_scale`, a parameter" in words
    assert "`.detach()` the value on line 10" in words
    matches(_BUFFER.replace('"table", table)', '"table", table.detach())'))


# ---------------------------------------------------------------------------------------
# torch's older weight normalization: refused, with its replacement.


def test_old_weight_norm_refusal_names_the_replacement() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n\n"
        "conv = nn.utils.weight_norm(nn.Conv1d(2, 3, 3))\n"
        "conv(torch.randn(1, 2, 8)).sum().backward()\n"
    )
    sentence = refused(code)
    assert "use `torch.nn.utils.parametrizations.weight_norm` instead" in sentence
    matches(code.replace("nn.utils.weight_norm", "nn.utils.parametrizations.weight_norm"))
    sentence = refused(code.replace("weight_norm", "spectral_norm"))
    assert "use `torch.nn.utils.parametrizations.spectral_norm` instead" in sentence


# ---------------------------------------------------------------------------------------
# A mask that does not broadcast to what it masks.

_CAUSAL = """\
import torch

torch.manual_seed(6)
max_len = 8
tril_mask = torch.triu(torch.ones(max_len, max_len), diagonal=1).bool()
q = torch.randn(1, 5, 4, requires_grad=True)
scores = q @ q.transpose(1, 2)
scores = scores.masked_fill(tril_mask, float("-inf"))
weights = scores.softmax(dim=-1)
weights.sum().backward()
"""


def test_masked_fill_with_a_mask_made_for_the_longest_input() -> None:
    words = explained(_CAUSAL, "shape-mismatch")
    assert "`masked_fill` spreads the mask `tril_mask` over `scores`" in words
    assert "`tril_mask[:n, :n]` with `n = scores.shape[-1]`" in words
    matches(_CAUSAL.replace("masked_fill(tril_mask,", "masked_fill(tril_mask[:5, :5],"))


def test_sdpa_padding_mask_gets_its_heads_and_queries() -> None:
    code = """\
import torch
import torch.nn.functional as F

torch.manual_seed(7)
q = torch.randn(3, 2, 4, 8, requires_grad=True)
keep = torch.tensor([[True] * 4, [True, True, True, False], [True, False, False, False]])
out = F.scaled_dot_product_attention(q, q, q, attn_mask=keep)
out.sum().backward()
"""
    words = explained(code, "shape-mismatch")
    assert "`keep` does not: dimension" in words
    assert "`attn_mask=keep[:, None, None, :]`" in words
    matches(code.replace("attn_mask=keep)", "attn_mask=keep[:, None, None, :])"))


def test_other_broadcast_errors_keep_the_general_words() -> None:
    code = "import torch\n\na = torch.ones(2, 3)\nb = torch.ones(4)\nc = a + b\n"
    words = explained(code, "shape-mismatch")
    assert "masked_fill" not in words and "attn_mask" not in words
    assert "`a`" in words


# ---------------------------------------------------------------------------------------
# The program's own assert.

_ASSERT = """\
import torch


def split_heads(x, num_heads):
    assert x.shape[-1] % num_heads == 0, "features must divide into heads"
    return x.view(x.shape[0], num_heads, -1)


x = torch.randn(2, 6)
heads = split_heads(x, 4)
"""


def test_the_programs_own_assert_is_named_with_its_caller() -> None:
    words = explained(_ASSERT, "own-assert")
    assert "the `assert` on line 5, reached from line 10 (`heads = split_heads(x, 4)`)" in words
    assert "`x.shape[-1] % num_heads == 0` is False" in words
    assert 'its message says: "features must divide into heads"' in words
    matches(_ASSERT.replace("split_heads(x, 4)", "split_heads(x, 3)"))


def test_torchs_own_assertions_are_not_taken_for_the_programs() -> None:
    code = _MHA.replace(".int()", ".long()")
    result = run_in_engine(code)
    assert result.error is not None and result.error.kind == "mask-dtype", result.error
