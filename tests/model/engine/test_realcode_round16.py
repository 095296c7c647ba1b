"""Real code, round 16: physics-informed nets, GANs, VAEs, meta-learning, normalizing flows,
recurrent-network tutorials, d2l / fast.ai / "Deep Learning with PyTorch" chapters
(snippets 528-567).

What differed from plain torch: the fast.ai book's ``torch.random.manual_seed(42)`` is
refused (``torch.random`` is a side door of :mod:`tests.model.engine.test_allowlist`: it
also holds the process's generator), now with a sentence that names ``torch.manual_seed``;
and six learners' errors were shown with Python's bare words, explained now: an
``LBFGS.step()`` without its closure, a distribution given a parameter it cannot hold (a
log-variance as ``Normal``'s scale, raw scores as probabilities, NaN, a vector as
``MultivariateNormal``'s covariance), token ids fed straight into an LSTM, and a recurrent
layer's starting state of the wrong form (an LSTM's ``(h0, c0)`` given to a GRU, one tensor
given to an LSTM). Each explanation is checked at plain torch's line, in the learner's
names, and its fix is run in plain torch. Three explanations that were wrong or thin for
this code are fixed too: an LSTM's ``(h_n, c_n)`` handed to a Linear layer (the fix was
``torch.tensor(hidden)``), a GAN's generator loss read from a discriminator output made
before ``optimizerD.step()`` (the fix was to add the two losses, which would train the
discriminator on the generator's loss), and a bidirectional encoder's final state handed
to a one-way decoder.

Still refused on purpose: ``torch.distributions.transforms`` (snippet 547; transforms keep
a cache of their last input, outside the reviewed distributions)."""

from __future__ import annotations

import pytest

from tests.corpus.checks import explained, matches, refused, runs_plain
from tests.corpus.harness import SNIPPETS, run_in_engine

# ---------------------------------------------------------------------------------------
# `torch.random.manual_seed(42)` (the fast.ai book, snippet 560): the module stays refused
# (it also holds the process's generator; a side door in test_allowlist.py), with a
# sentence that names the same function under torch's own name; that program then matches.

_FASTAI_CH5 = SNIPPETS / "560_fastai_ch5_cross_entropy_by_hand.py"


def test_torch_random_is_refused_with_torch_manual_seed_as_the_way() -> None:
    code = _FASTAI_CH5.read_text()
    message = refused(code)
    assert message == (
        "`torch.random` is not available: the module also holds the app's own random "
        "generator; write `torch.manual_seed(n)`, the same function as "
        "`torch.random.manual_seed(n)`."
    )
    matches(code.replace("torch.random.manual_seed(42)", "torch.manual_seed(42)"))


def test_torch_random_stays_refused_whatever_is_read_from_it() -> None:
    for read in ("manual_seed(0)", "fork_rng()", "default_generator"):
        assert "`torch.random` is not available" in refused(
            f"import torch\n\ntorch.random.{read}\n"
        )


# ---------------------------------------------------------------------------------------
# LBFGS stepped without a closure.

_LBFGS_NO_CLOSURE = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(2, 1)
x, y = torch.randn(8, 2), torch.randn(8, 1)
opt = torch.optim.LBFGS(net.parameters(), lr=0.5)
opt.zero_grad()
loss = ((net(x) - y) ** 2).mean()
loss.backward()
opt.step()
"""

_LBFGS_CLOSURE = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(2, 1)
x, y = torch.randn(8, 2), torch.randn(8, 1)
opt = torch.optim.LBFGS(net.parameters(), lr=0.5)


def closure():
    opt.zero_grad()
    loss = ((net(x) - y) ** 2).mean()
    loss.backward()
    return loss


loss = opt.step(closure)
print(loss)
"""


def test_lbfgs_step_without_closure_is_explained_in_the_programs_names() -> None:
    words = explained(_LBFGS_NO_CLOSURE, "optimizer-closure")
    assert "`opt` is an optimizer of class `LBFGS`" in words
    assert "`loss = opt.step(closure)`" in words
    runs_plain(_LBFGS_CLOSURE)
    matches(_LBFGS_CLOSURE)


def test_another_missing_argument_stays_a_type_error() -> None:
    code = "def step(closure):\n    return closure()\n\n\nstep()\n"
    words = explained(code, "type-error")
    assert "closure" in words


# ---------------------------------------------------------------------------------------
# A distribution given a parameter it cannot hold.

_HEAD = """\
import torch
import torch.nn.functional as F
from torch.distributions import Bernoulli, Categorical, MultivariateNormal, Normal

torch.manual_seed(3)
h = torch.randn(5, 4)
mu, logvar = h[:, :2], h[:, 2:]
scores = torch.randn(5, 3)
"""

_DISTRIBUTIONS = [
    (
        "q = Normal(mu, logvar)\n",
        ["`Normal(mu, logvar)` on line 9", "`scale` is `logvar`", "a standard deviation"],
        "q = Normal(mu, torch.exp(0.5 * logvar))\n",
    ),
    (
        "coin = Bernoulli(probs=scores)\n",
        ["`probs` is `scores`", "between 0 and 1", "`Bernoulli(logits=scores)`"],
        "coin = Bernoulli(logits=scores)\n",
    ),
    (
        "policy = Categorical(scores)\n",
        ["`probs` is `scores`", "add up to 1", "`Categorical(logits=scores)`"],
        "policy = Categorical(logits=scores)\n",
    ),
    (
        "q = Normal(mu * float('nan'), logvar.exp())\n",
        ["`loc` is `mu * float('nan')`", "NaN"],
        "q = Normal(mu, logvar.exp())\n",
    ),
    (
        "prior = MultivariateNormal(mu[0], logvar[0].exp())\n",
        ["`covariance_matrix`", "`logvar[0].exp()` is one-dimensional",
         "`MultivariateNormal(mu[0], torch.diag_embed(logvar[0].exp()))`"],
        "prior = MultivariateNormal(mu[0], torch.diag_embed(logvar[0].exp()))\n",
    ),
    (
        "prior = MultivariateNormal(mu[0], scale_tril=logvar[0].exp())\n",
        ["`scale_tril`", "`scale_tril=torch.diag_embed(logvar[0].exp())`"],
        "prior = MultivariateNormal(mu[0], scale_tril=torch.diag_embed(logvar[0].exp()))\n",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("line", "words", "fixed"), _DISTRIBUTIONS)
def test_distribution_arguments_are_explained_and_the_fix_runs(
    line: str, words: list[str], fixed: str
) -> None:
    text = explained(_HEAD + line, "distribution-argument")
    for w in words:
        assert w in text, (w, text)
    runs_plain(_HEAD + fixed + "print(torch.__version__ is not None)\n")


# ---------------------------------------------------------------------------------------
# A recurrent layer's input dtype: token ids without an embedding, float64 data.

_LSTM_IDS = """\
import torch
import torch.nn as nn

torch.manual_seed(5)
lstm = nn.LSTM(input_size=1, hidden_size=4, batch_first=True)
token_ids = torch.randint(0, 9, (2, 3, 1))
output, (h_n, c_n) = lstm(token_ids)
"""


def test_token_ids_into_an_lstm_point_to_an_embedding() -> None:
    text = explained(_LSTM_IDS, "dtype-mismatch")
    assert "`token_ids` is Long but the weights of `lstm` are Float (float32)" in text
    assert "`lstm(token_ids.float())`" in text and "`nn.Embedding`" in text
    embedded = _LSTM_IDS.replace("input_size=1", "input_size=5").replace(
        "output, (h_n, c_n) = lstm(token_ids)",
        "emb = nn.Embedding(9, 5)\noutput, (h_n, c_n) = lstm(emb(token_ids.squeeze(-1)))",
    )
    matches(embedded)


def test_float64_data_into_a_gru_names_both_sides() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n\ngru = nn.GRU(3, 4)\n"
        "x = torch.randn(5, 2, 3, dtype=torch.float64)\nout, h = gru(x)\n"
    )
    text = explained(code, "dtype-mismatch")
    assert "`x` is Double (float64) but the weights of `gru` are Float (float32)" in text
    assert "`gru(x.float())`" in text
    matches(code.replace("gru(x)", "gru(x.float())"))


# ---------------------------------------------------------------------------------------
# A recurrent layer's starting state of the wrong form.

_GRU_PAIR = """\
import torch
import torch.nn as nn

torch.manual_seed(6)
rnn = nn.{layer}(3, 4, batch_first=True)
x = torch.randn(2, 5, 3)
h0 = torch.zeros(1, 2, 4)
c0 = torch.zeros(1, 2, 4)
state = (h0, c0)
out, h = rnn(x, {state})
print(out.shape)
"""


@pytest.mark.parametrize("layer", ["GRU", "RNN"])
@pytest.mark.parametrize(("state", "first"), [("(h0, c0)", "h0"), ("state", "state[0]")])
def test_an_lstm_state_pair_given_to_a_gru_or_rnn(layer: str, state: str, first: str) -> None:
    code = _GRU_PAIR.format(layer=layer, state=state)
    text = explained(code, "rnn-state-form")
    assert f"`rnn` is an `nn.{layer}`" in text and f"given `{state}`" in text
    assert f"`rnn(x, {first})`" in text
    matches(_GRU_PAIR.format(layer=layer, state=first))


_LSTM_ONE = """\
import torch
import torch.nn as nn

torch.manual_seed(7)
lstm = nn.LSTM(3, 5, batch_first=True)
x = torch.randn(2, 4, 3)
h0 = torch.zeros(1, 2, 5)
output, (hn, cn) = lstm(x, h0)
print(output.shape)
"""


def test_one_tensor_given_to_an_lstm() -> None:
    text = explained(_LSTM_ONE, "rnn-state-form")
    assert "`lstm` is an `nn.LSTM`" in text and "It was given `h0` alone" in text
    assert "`c0 = torch.zeros_like(h0)`, then `lstm(x, (h0, c0))`" in text
    matches(_LSTM_ONE.replace("lstm(x, h0)", "lstm(x, (h0, torch.zeros_like(h0)))"))


def test_the_same_python_errors_elsewhere_keep_their_kinds() -> None:
    index = "import torch\n\nh0 = torch.zeros(1, 2, 5)\nc = h0[1]\n"
    assert "An index at line 4 is past the end" in explained(index, "index-error")
    pair = "import torch\n\nstate = (torch.zeros(1), torch.zeros(1))\nn = state.dim()\n"
    assert "`tuple` has no attribute `dim`" in explained(pair, "attribute-error")


def test_an_lstm_given_its_pair_runs_unexplained() -> None:
    result = run_in_engine(_LSTM_ONE.replace("lstm(x, h0)", "lstm(x, (h0, h0))"))
    assert result.error is None, result.error


# ---------------------------------------------------------------------------------------
# A recurrent layer's result where one tensor goes (snippet 555): the fix was
# `torch.tensor(hidden, dtype=torch.float32)`, wrong for a pair of tensors.

_LSTM_PAIR_INTO_LINEAR = """\
import torch
import torch.nn as nn

torch.manual_seed(6)
lstm = nn.LSTM(6, 8, batch_first=True)
fc = nn.Linear(8, 1)
x = torch.randn(4, 7, 6)
output, hidden = lstm(x)
scores = fc(hidden)
"""


def test_an_lstms_final_states_into_a_linear_layer() -> None:
    text = explained(_LSTM_PAIR_INTO_LINEAR, "tensor-expected")
    assert "`hidden`, the pair `(h_n, c_n)` of final hidden and cell states" in text
    assert "`lstm` (an `nn.LSTM`) returns second, bound on line 8" in text
    assert "`hidden[0][-1]`" in text and "torch.tensor(hidden" not in text
    matches(_LSTM_PAIR_INTO_LINEAR.replace("fc(hidden)", "fc(hidden[0][-1])"))


def test_a_grus_whole_result_into_a_linear_layer() -> None:
    code = (
        _LSTM_PAIR_INTO_LINEAR.replace("nn.LSTM", "nn.GRU")
        .replace("output, hidden = lstm(x)", "result = lstm(x)")
        .replace("fc(hidden)", "fc(result)")
    )
    text = explained(code, "tensor-expected")
    assert "the pair `(output, h_n)` that `lstm` (an `nn.GRU`) returns, bound on line 8" in text
    assert "`output, h_n = lstm(...)`" in text and "`output[:, -1]`" in text
    fixed = code.replace("result = lstm(x)", "output, h_n = lstm(x)")
    matches(fixed.replace("fc(result)", "fc(output[:, -1])"))


def test_a_plain_tuple_into_a_linear_layer_keeps_its_advice() -> None:
    code = "import torch.nn as nn\n\nfc = nn.Linear(2, 1)\nrow = (1.0, 2.0)\ny = fc(row)\n"
    text = explained(code, "tensor-expected")
    assert "`torch.tensor(row, dtype=torch.float32)`" in text


# ---------------------------------------------------------------------------------------
# A GAN's generator loss read from a discriminator output made before optimizerD.step()
# (snippet 563): the fix was to add the losses, which would train the discriminator on
# the generator's loss; now it is to recompute the output after the step.

_GAN_STEP = """\
import torch
import torch.nn as nn

torch.manual_seed(20)
netG = nn.Linear(3, 4)
netD = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
real, noise = torch.randn(6, 4), torch.randn(6, 3)
fake = netG(noise)
d_fake = netD(fake)
errD = criterion(netD(real), torch.ones(6, 1)) + criterion(d_fake, torch.zeros(6, 1))
optimizerD.zero_grad()
errD.backward(retain_graph=True)
optimizerD.step()
errG = criterion(d_fake, torch.ones(6, 1))
optimizerG.zero_grad()
errG.backward()
optimizerG.step()
print(errG)
"""


def test_a_generator_loss_after_the_discriminators_step() -> None:
    text = explained(_GAN_STEP, "saved-tensor-modified")
    assert "`errG` is the loss of another optimizer (`optimizerG.step()` on line 20)" in text
    assert "repeat `d_fake = netD(fake)` after line 16, before line 17" in text
    assert "would also give the weights `optimizerD` updates the gradient of `errG`" in text
    matches(_GAN_STEP.replace("optimizerD.step()\n", "optimizerD.step()\nd_fake = netD(fake)\n"))


def test_a_scheduler_step_after_is_no_second_optimizer() -> None:
    code = (
        _GAN_STEP.replace(
            "optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)",
            "scheduler = torch.optim.lr_scheduler.StepLR(optimizerD, 1)",
        )
        .replace("optimizerG.zero_grad()\n", "")
        .replace("optimizerG.step()", "scheduler.step()")
    )
    text = explained(code, "saved-tensor-modified")
    assert "another optimizer" not in text
    assert "`(errD + errG).backward()`" in text


# ---------------------------------------------------------------------------------------
# A bidirectional encoder's final state handed to a one-way decoder (snippet 565).

_BIDIRECTIONAL = """\
import torch
import torch.nn as nn

torch.manual_seed(22)
encoder = nn.GRU(8, 16, num_layers={layers}, batch_first=True, bidirectional=True)
decoder = nn.GRU(8, 16, num_layers={layers}, batch_first=True)
src, tgt = torch.randn(2, 5, 8), torch.randn(2, 4, 8)
encoder_outputs, encoder_hidden = encoder(src)
decoder_outputs, decoder_hidden = decoder(tgt, encoder_hidden)
print(decoder_outputs)
"""


@pytest.mark.parametrize("layers", [1, 2])
def test_a_bidirectional_encoders_state_into_a_one_way_decoder(layers: int) -> None:
    code = _BIDIRECTIONAL.format(layers=layers)
    text = explained(code, "rnn-hidden-shape")
    assert "`encoder_hidden` is the final state of `encoder` (line 8)" in text
    assert f"({2 * layers} = {layers} × 2)" in text
    summed = f"encoder_hidden.view({layers}, 2, -1, 16).sum(dim=1)"
    assert f"`{summed}`" in text and "`encoder_hidden[0::2]`" in text
    matches(code.replace("(tgt, encoder_hidden)", f"(tgt, {summed})"))
    matches(code.replace("(tgt, encoder_hidden)", "(tgt, encoder_hidden[0::2])"))
