"""Real code, round 18: from-scratch models (DDPM training and sampling, GCN and GraphSAGE
message passing, a Gaussian process's marginal likelihood, Bayes by Backprop, a mixture
density network, actor-critic, a Deep Equilibrium layer with its implicit backward in a
hook, a neural ODE by RK4, LLaMA's RMSNorm/RoPE/SwiGLU, VQ-VAE, a mixture of experts,
Sinkhorn, an HMM, a hypernetwork, a Kalman filter and the Bi-LSTM CRF tutorial), courses
and books not covered before (CS231n, CS224n, Prince's UDL, Raschka's LoRA, "Programming
PyTorch", "PyTorch Pocket Reference", The Annotated Transformer) and the learners' errors
around them (snippets 613-652).

What differed from plain torch: every model ran as written with plain torch's numbers;
eight learners' errors were shown with torch's bare words or explained wrongly, each
explained now in the learner's names, at plain torch's line, with a fix that runs in plain
torch:

- a ``cmp(name, dt, t)`` helper (Karpathy's "backprop ninja") reading ``t.grad`` of a
  non-leaf: torch's "must be Tensor, not NoneType" blamed ``dt`` and offered
  ``torch.tensor(dt)``; ``torch.all(dt == t.grad)`` got the generic "a value had a type it
  cannot use". Now the engine sees ``t.grad`` None on the failing line, says which of the
  learner's tensors ``t`` was at the call, and why its ``.grad`` is None: never retained,
  or ``retain_grad()`` called only after the backward (and any other None handed to a torch
  function is named by the message's own argument position, not the line's first call);
- ``index_add_`` given a float index (it was "no plain-words note"), or sources counted
  along the wrong dimension;
- a tensor of floats used as an index, ``alphas_cumprod[t]`` (it said the index was "past
  the end");
- ``torch.linalg.cholesky`` of a matrix that is not positive-definite;
- ``dist.log_prob`` of one-hot actions (a ``Categorical`` scores class numbers);
- a REINFORCE loss built from ``m.sample()`` itself (the "does not require grad" named no
  cause).

Refused in this round, allowed since: a layer class (an ``nn.Module`` subclass) that keeps
settings under one-underscore names (``self._embedding_dim``, the zalandoresearch VQ-VAE
notebook, snippet 637); the lead's change after the round
(``gui/model/engine/private_names.py``, tests in ``test_own_private_names.py``).
"""

from __future__ import annotations

import pytest

from tests.corpus.checks import explained, matches
from tests.corpus.harness import run_in_engine

# ---------------------------------------------------------------------------------------
# A helper comparing a hand-written gradient with torch's `.grad` of a non-leaf.

_NINJA = """\
import torch

torch.manual_seed(0)
x = torch.randn(5, 3)
W = torch.randn(3, 4, requires_grad=True)


def cmp(s, dt, t):
    ex = torch.all(dt == t.grad).item()
    app = torch.allclose(dt, t.grad)
    print(s, ex, app, (dt - t.grad).abs().max().item())


h = x @ W
a = torch.tanh(h)
loss = a.pow(2).sum()
"""
_RETAIN = "for t in [a, h]:\n    t.retain_grad()\n"
_CHECK = "da = 2 * a\ndh = (1 - a**2) * da\ncmp('a', da, a)\ncmp('h', dh, h)\n"


def test_cmp_after_retain_grad_moved_below_backward() -> None:
    words = explained(_NINJA + "loss.backward()\n" + _RETAIN + _CHECK, "grad-is-none")
    assert "Inside `cmp` (line 9), `t` is `a`, passed on line 22 (`cmp('a', da, a)`)" in words
    assert "its `retain_grad()` (line 18: `for t in [a, h]:`)" in words
    assert "comes after the backward on line 17 (`loss.backward()`)" in words
    assert "Call `a.retain_grad()` before `loss.backward()`" in words
    matches(_NINJA + _RETAIN + "loss.backward()\n" + _CHECK)


def test_cmp_of_a_non_leaf_never_retained() -> None:
    code = _NINJA.replace("torch.all(dt == t.grad).item()", "None") + "loss.backward()\n"
    words = explained(code + _CHECK, "grad-is-none")
    assert "`t` is `a`, passed on line 20" in words
    assert "`a` is not a leaf: it is computed on line 15 (`a = torch.tanh(h)`)" in words
    assert "call `a.retain_grad()` right after line 15" in words
    assert "torch.tensor(dt)" not in words  # what torch's own words led to before
    fixed = code.replace("a = torch.tanh(h)\n", "a = torch.tanh(h)\na.retain_grad()\n")
    fixed = fixed.replace("h = x @ W\n", "h = x @ W\nh.retain_grad()\n")
    matches(fixed + _CHECK)


def test_a_keyword_argument_and_a_method_are_followed_too() -> None:
    code = """\
import torch

x = torch.randn(2, 3)
W = torch.randn(3, 4, requires_grad=True)
h = x @ W


class Checker:
    def compare(self, name, mine, t):
        return torch.allclose(mine, t.grad)


checker = Checker()
h.sum().backward()
print(checker.compare("h", torch.ones(2, 4), t=h))
"""
    words = explained(code, "grad-is-none")
    assert "Inside `compare` (line 10), `t` is `h`, passed on line 15" in words
    assert "`h.retain_grad()`" in words


def test_the_comparison_at_the_top_level_names_the_tensor() -> None:
    code = _NINJA + "loss.backward()\nprint(torch.allclose(2 * a, a.grad))\n"
    words = explained(code, "grad-is-none")
    assert "Inside" not in words
    assert "`a.grad` is None because `a` is not a leaf" in words


def test_of_two_grads_on_the_line_the_none_one_is_named() -> None:
    code = _NINJA + "loss.backward()\nprint(torch.allclose(W.grad, W.grad + a.grad))\n"
    words = explained(code, "grad-is-none")
    assert "`a.grad` is None because `a` is not a leaf" in words


def test_a_none_that_is_not_a_grad_is_still_the_arguments_type() -> None:
    code = _NINJA + "loss.backward()\ndW = None\nprint(torch.allclose(dW, W.grad))\n"
    words = explained(code, "tensor-expected")
    assert "its argument `input` got None: `dW` holds no value" in words
    assert "torch.tensor(" not in words  # (it offered `torch.tensor(torch.allclose(...))`)


def test_a_grad_that_is_there_is_not_blamed() -> None:
    code = _NINJA + "loss.backward()\nprint(torch.allclose(W.grad, None))\n"
    result = run_in_engine(code)
    assert result.error is not None and result.error.kind != "grad-is-none", result.error


# ---------------------------------------------------------------------------------------
# Message passing: index_add_ given float positions, or sources along the wrong dimension.

_GRAPH = """\
import torch

torch.manual_seed(7)
x = torch.randn(4, 3, requires_grad=True)
src = torch.tensor([0, 1, 2, 3, 0])
dst = torch.tensor([1.0, 2.0, 3.0, 0.0, 2.0])
msg = x[src] * 2
"""


def test_index_add_with_float_positions_keeps_the_source_in_its_fix() -> None:
    code = _GRAPH + "out = torch.zeros(4, 3).index_add_(0, dst, msg)\n"
    words = explained(code, "gather-index")
    assert "`torch.zeros(4, 3).index_add_(0, dst)` writes into `torch.zeros(4, 3)`" in words
    assert "`dst` (made on line 6: `dst = torch.tensor([1.0, 2.0, 3.0, 0.0, 2.0])`)" in words
    assert "`torch.zeros(4, 3).index_add_(0, dst.long(), msg)`" in words
    matches(code.replace("dst, msg)", "dst.long(), msg)") + "out.sum().backward()\n")


def test_index_select_with_float_positions_picks() -> None:
    words = explained(_GRAPH + "rows = x.index_select(0, dst)\n", "gather-index")
    assert "`x.index_select(0, dst)` picks entries of `x`" in words
    assert "`x.index_select(0, dst.long())`" in words


def test_index_add_along_the_wrong_dimension() -> None:
    code = _GRAPH.replace("[1.0, 2.0, 3.0, 0.0, 2.0]", "[1, 2, 3, 0, 2]")
    words = explained(code + "out = torch.zeros(4, 3).index_add_(1, dst, msg)\n", "index-add-size")
    assert "`dst` has 5 entries, but `msg` has 3 along dimension 1" in words
    assert "`torch.zeros(4, 3).index_add_(0, dst, msg)`" in words
    matches(code + "out = torch.zeros(4, 3).index_add_(0, dst, msg)\nout.sum().backward()\n")


def test_index_add_of_too_few_rows_along_dimension_0() -> None:
    code = _GRAPH.replace("[1.0, 2.0, 3.0, 0.0, 2.0]", "[1, 2, 3, 0]")
    words = explained(code + "out = torch.zeros(4, 3).index_add_(0, dst, msg)\n", "index-add-size")
    assert "`dst` has 4 entries, but `msg` has 5 along dimension 0" in words
    assert "print `dst.shape` and `msg.shape`" in words


# ---------------------------------------------------------------------------------------
# A tensor of floats used as an index (a diffusion model's timesteps).

_SCHEDULE = """\
import torch

T = 10
alphas_cumprod = torch.cumprod(1 - torch.linspace(0.01, 0.2, T), dim=0)
x0 = torch.randn(4, 2, requires_grad=True)
"""


def test_float_timesteps_as_an_index() -> None:
    code = _SCHEDULE + "t = torch.randint(0, T, (4,)).float()\na = alphas_cumprod[t]\n"
    words = explained(code, "index-dtype")
    assert "`alphas_cumprod[t]` takes the entries of `alphas_cumprod`" in words
    assert "`t` (made on line 6: `t = torch.randint(0, T, (4,)).float()`)" in words
    assert "`alphas_cumprod[t.long()]`" in words and "past the end" not in words
    matches(code.replace("[t]", "[t.long()]") + "(a.unsqueeze(-1) * x0).sum().backward()\n")


def test_a_float_index_made_otherwise() -> None:
    code = _SCHEDULE + "t = torch.rand(4) * T\na = alphas_cumprod[t]\n"
    words = explained(code, "index-dtype")
    assert "where it is built (`dtype=torch.long`)" in words


def test_an_index_past_the_end_is_still_past_the_end() -> None:
    words = explained(_SCHEDULE + "a = alphas_cumprod[torch.tensor([3, 12])]\n", "index-error")
    assert "out of bounds" in words or "past the end" in words


# ---------------------------------------------------------------------------------------
# Cholesky of a matrix that is not positive-definite (a GP's kernel without noise).

_GP = """\
import torch

X = torch.tensor([[0.0], [0.5], [0.5], [1.0]])
lengthscale = torch.tensor(0.7, requires_grad=True)
K = torch.exp(-0.5 * (X - X.T) ** 2 / lengthscale**2)
"""


def test_cholesky_of_a_kernel_with_a_repeated_input() -> None:
    words = explained(_GP + "L = torch.linalg.cholesky(K)\n", "not-positive-definite")
    assert "`K` (made on line 5: `K = torch.exp(" in words
    assert "top-left 3x3 block" in words
    fix = "torch.linalg.cholesky(K + 1e-4 * torch.eye(K.shape[-1]))"
    assert f"`{fix}`" in words
    matches(_GP + f"L = {fix}\ntorch.log(torch.diagonal(L)).sum().backward()\n")


def test_batched_cholesky_names_its_matrix() -> None:
    code = _GP + "S = torch.stack([K, K])\nL = torch.linalg.cholesky(S)\n"
    words = explained(code, "not-positive-definite")
    assert "`S` (made on line 6" in words


# ---------------------------------------------------------------------------------------
# torch.distributions: one-hot actions scored by a Categorical; a loss made from a sample.

_POLICY = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal

torch.manual_seed(4)
actor = nn.Linear(4, 3)
states = torch.randn(5, 4)
dist = Categorical(logits=actor(states))
"""


def test_log_prob_of_one_hot_actions() -> None:
    code = _POLICY + "actions = F.one_hot(torch.tensor([0, 2, 1, 1, 0]), 3)\n"
    words = explained(code + "lp = dist.log_prob(actions)\n", "distribution-argument")
    assert "`dist` is a batch of shape [5]" in words and "it has [5, 3]" in words
    assert "`dist.log_prob(actions.argmax(-1))`" in words
    matches(code + "lp = dist.log_prob(actions.argmax(-1))\nlp.sum().backward()\n")


def test_log_prob_of_values_for_another_batch() -> None:
    code = _POLICY + "normal = Normal(torch.zeros(4), 1.0)\nlp = normal.log_prob(torch.ones(5))\n"
    words = explained(code, "distribution-argument")
    assert "`normal` is a batch of shape [4]" in words
    assert "`torch.ones(5).view(4)`" in words


def test_reinforce_loss_from_the_sampled_action() -> None:
    code = _POLICY + "action = dist.sample()\nreward = torch.randn(5)\n"
    words = explained(
        code + "loss = -(action.float() * reward).mean()\nloss.backward()\n", "no-grad-to-compute"
    )
    assert "`action` is drawn with `dist.sample()` on line 10" in words
    assert "`-(dist.log_prob(action) * returns).mean()`" in words
    matches(code + "loss = -(dist.log_prob(action) * reward).mean()\nloss.backward()\n")


def test_a_sample_of_data_is_not_the_cut() -> None:
    code = """\
import torch
from torch.distributions import Normal

noise = Normal(0.0, 1.0).sample((3,))
w = torch.randn(3)
loss = (w * noise).sum()
loss.backward()
"""
    words = explained(code, "no-grad-to-compute")
    assert "sample()" not in words


@pytest.mark.parametrize("name", ["implicit_grad", "backward_hook"])
def test_a_deq_hook_solving_the_backward_fixed_point(name: str) -> None:
    code = f"""\
import torch
import torch.autograd as autograd

torch.manual_seed(8)
W = torch.randn(3, 3) * 0.2
W.requires_grad_()
x = torch.randn(2, 3)


def f(z):
    return torch.tanh(z @ W + x)


with torch.no_grad():
    z = torch.zeros(2, 3)
    for _ in range(40):
        z = f(z)
z = f(z)
z0 = z.clone().detach().requires_grad_()
f0 = f(z0)


def {name}(grad):
    g = grad
    for _ in range(40):
        g = autograd.grad(f0, z0, g, retain_graph=True)[0] + grad
    return g


z.register_hook({name})
z.pow(2).sum().backward()
"""
    matches(code)
