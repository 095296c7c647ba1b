"""Real code, round 17: the PyTorch tutorials not yet covered (adversarial examples, neural
transfer, spatial transformers, double backward and fused conv-bn custom Functions, DQN,
Extending PyTorch), training-loop idioms (gradient accumulation, init variants, schedulers,
EMA, label smoothing, focal, NT-Xent, triplet and distillation losses, mixup, ArcFace, CTC),
attribution by hand (saliency, integrated gradients, SmoothGrad, Grad-CAM), and the
learners' errors around them (snippets 568-612).

What differed from plain torch: mixup's ``np.random.beta`` was refused (now listed, a sampler
of the same generator as ``np.random.normal``); and fourteen learners' errors and warnings
were shown with torch's bare words or explained wrongly, each explained now in the
learner's names, at plain torch's line, with a fix that runs in plain torch: ``gather``
given float or 1-D positions, ``F.affine_grid`` given ``theta.view(-1, 3, 2)``,
``F.interpolate`` of a map without its channel dimension, ``OneCycleLR`` stepped past its
``total_steps``, an ``LBFGS`` closure without ``return loss``, ``clip_grad_norm_(model)``,
``gradcheck`` on float32 inputs, ``nn.KLDivLoss()``'s ``reduction='mean'`` and
``scheduler.step()`` before ``optimizer.step()`` (warnings), a custom Function's backward
with one gradient too few or a transposed one (now in the Function's own names), the
"does not require grad" of an image handed to ``optim.LBFGS([input_img])`` (it blamed a
``.detach()`` of a constant target), and ``data.grad`` of an input never asked for
gradients (it said no backward had run).

Still refused on purpose: ``torch.optim.swa_utils`` (its ``AveragedModel`` deep-copies the
program's model with Python's own ``copy.deepcopy``, outside the app's checked copy),
``with torch.autocast(...)`` (a process-wide setting, not among the contexts a program may
enter). A program's own method whose name holds "hook" (the Grad-CAM post's
``self.activations_hook``) was refused by the name rule in ``gui/model/safety.py``; it runs
now (the lead's change after this round).
"""

from __future__ import annotations

import pytest

from tests.corpus.checks import explained, matches, refused, runs_plain, text
from tests.corpus.harness import SNIPPETS, run_in_engine

# ---------------------------------------------------------------------------------------
# gather: positions that are not whole numbers, or that lack the input's dimensions.

_Q = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
q_net = nn.Linear(4, 3)
states = torch.randn(6, 4)
"""


def test_gather_with_float_positions_names_the_index_and_its_fix() -> None:
    code = _Q + "actions = torch.tensor([[0.0], [2.0], [1.0], [1.0], [0.0], [2.0]])\n"
    words = explained(code + "chosen = q_net(states).gather(1, actions)\n", "gather-index")
    assert "`actions` (made on line 7: `actions = torch.tensor(" in words
    assert "`q_net(states).gather(1, actions.long())`" in words
    fixed = code + "chosen = q_net(states).gather(1, actions.long())\nchosen.sum().backward()\n"
    matches(fixed)


def test_scatter_with_float_positions_is_the_same_rule() -> None:
    code = _Q + "pos = torch.zeros(6, 1)\nmask = torch.zeros(6, 3).scatter(1, pos, 1.0)\n"
    words = explained(code, "gather-index")
    assert "`torch.zeros(6, 3).scatter(1, pos)`" in words and "`pos`" in words


def test_gather_with_one_position_per_row_adds_the_column() -> None:
    code = _Q + "actions = torch.tensor([0, 2, 1, 1, 0, 2])\n"
    words = explained(code + "chosen = torch.gather(q_net(states), 1, actions)\n", "gather-index")
    assert "`q_net(states).gather(1, actions.unsqueeze(1))`" in words
    assert "`.squeeze(1)`" in words
    fixed = code + "chosen = q_net(states).gather(1, actions.unsqueeze(1)).squeeze(1)\n"
    matches(fixed + "chosen.sum().backward()\n")


# ---------------------------------------------------------------------------------------
# F.affine_grid given matrices of the wrong shape; F.interpolate of a map without channels.

_STN = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
fc_loc = nn.Linear(10, 6)
x = torch.rand(4, 1, 12, 12)
theta = fc_loc(torch.randn(4, 10))
"""


def test_affine_grid_given_three_by_two_matrices() -> None:
    code = _STN + "theta = theta.view(-1, 3, 2)\ngrid = F.affine_grid(theta, x.size())\n"
    words = explained(code, "affine-grid-shape")
    assert "`theta` must have shape [4, 2, 3], but it has [4, 3, 2]" in words
    assert "line 9 (`theta = theta.view(-1, 3, 2)`)" in words
    assert "`theta.view(-1, 2, 3)`" in words
    fixed = code.replace("view(-1, 3, 2)", "view(-1, 2, 3)").replace(
        "x.size())", "x.size(), align_corners=False)"
    )
    matches(fixed + "out = F.grid_sample(x, grid, align_corners=False)\nout.sum().backward()\n")


def test_affine_grid_given_flat_rows_of_six() -> None:
    words = explained(_STN + "grid = F.affine_grid(theta, x.size())\n", "affine-grid-shape")
    assert "but it has [4, 6]" in words and "`.view(-1, 2, 3)`" in words


_CAM = """\
import torch
import torch.nn.functional as F

torch.manual_seed(6)
acts = torch.rand(1, 4, 8, 8, requires_grad=True)
cam = F.relu(acts.sum(dim=1))
"""


@pytest.mark.parametrize(
    "call",
    [
        "F.interpolate(cam, size=(16, 16), mode='bilinear', align_corners=False)",
        "F.interpolate(cam, scale_factor=2, mode='bilinear', align_corners=False)",
    ],
)
def test_interpolate_of_a_map_without_channels(call: str) -> None:
    words = explained(_CAM + f"up = {call}\n", "interpolate-dims")
    assert "`cam` has 3 dimensions" in words and "needs 4 dimensions" in words
    assert "`F.interpolate(cam.unsqueeze(1), ...).squeeze(1)`" in words
    fixed = call.replace("(cam,", "(cam.unsqueeze(1),") + ".squeeze(1)"
    matches(_CAM + f"up = {fixed}\nup.sum().backward()\n")


def test_interpolate_of_a_volume_in_an_image_mode_names_the_mode() -> None:
    code = (
        _CAM + "vol = acts.unsqueeze(2)\nup = F.interpolate(vol, scale_factor=2, mode='bilinear')\n"
    )
    words = explained(code, "interpolate-dims")
    assert "`vol` has more dimensions than mode `bilinear` resizes" in words
    assert "`trilinear` for 5" in words


# ---------------------------------------------------------------------------------------
# Training helpers: OneCycleLR's total steps, LBFGS's closure, clipping, schedulers.

_ONE_CYCLE = """\
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=4)
for step in range(STEPS):
    opt.step()
    sched.step()
print(sched.get_last_lr())
"""


def test_one_cycle_stepped_past_its_total_steps() -> None:
    words = explained(_ONE_CYCLE.replace("STEPS", "5"), "scheduler-total-steps")
    assert "`sched`, made on line 6 (`sched = torch.optim.lr_scheduler.OneCycleLR(" in words
    assert "4 steps in all" in words and "This is call 5" in words
    matches(_ONE_CYCLE.replace("STEPS", "3"))


_LBFGS = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(3, 1)
x, y = torch.randn(10, 3), torch.randn(10, 1)
opt = torch.optim.LBFGS(net.parameters(), lr=0.5)


def fit():
    opt.zero_grad()
    err = ((net(x) - y) ** 2).mean()
    err.backward()
RETURN

opt.step(fit)
print(net.weight)
"""


def test_lbfgs_closure_without_return() -> None:
    words = explained(_LBFGS.replace("RETURN\n", ""), "closure-returns-none")
    assert "`fit` (its `def` is on line 10)" in words and "End `fit` with `return err`." in words
    matches(_LBFGS.replace("RETURN", "    return err"))


def test_another_float_of_none_is_not_a_closure() -> None:
    code = "value = None\nprint(float(value))\n"
    assert run_in_engine(code).error.kind == "type-error"  # type: ignore[union-attr]


_CLIP = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = MODEL
model(torch.randn(4, 3)).sum().backward()
torch.nn.utils.CLIP(model, 1.0)
"""


@pytest.mark.parametrize(
    ("model", "clip"),
    [
        ("nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))", "clip_grad_norm_"),
        ("nn.Linear(3, 1)", "clip_grad_norm_"),
        ("nn.Sequential(nn.Linear(3, 1))", "clip_grad_value_"),
    ],
)
def test_clipping_given_the_model(model: str, clip: str) -> None:
    code = _CLIP.replace("MODEL", model).replace("CLIP", clip)
    words = explained(code, "clip-given-module")
    assert f"`{clip}(model.parameters(), ...)`" in words
    assert "found a layer (`Linear`)" in words
    matches(code.replace("(model, 1.0)", "(model.parameters(), 1.0)"))


def test_clipping_given_a_number_first_is_not_a_model() -> None:
    code = _CLIP.replace("MODEL", "nn.Linear(3, 1)").replace("CLIP", "clip_grad_norm_")
    code = code.replace("(model, 1.0)", "(1.0, model.parameters())")
    assert run_in_engine(code).error.kind != "clip-given-module"  # type: ignore[union-attr]


def test_a_layers_missing_grad_elsewhere_stays_an_attribute_error() -> None:
    code = "import torch.nn as nn\n\nlayer = nn.Linear(2, 2)\nprint(layer.grad)\n"
    assert run_in_engine(code).error.kind == "attribute-error"  # type: ignore[union-attr]


def _warning(code: str, kind: str) -> str:
    result = run_in_engine(code)
    assert result.error is None, result.error
    found = [w for w in result.warnings if w.kind == kind]
    assert found, [w.kind for w in result.warnings]
    return text(found[0])


def test_scheduler_stepped_before_its_optimizer() -> None:
    code = SNIPPETS.joinpath("605_scheduler_step_before_optimizer_step.py").read_text()
    words = _warning(code, "scheduler-before-optimizer")
    assert "`scheduler.step()` ran before the optimizer had taken any step" in words
    assert "Call `scheduler.step()` after `optimizer.step()`" in words
    fixed = code.replace("    scheduler.step()\n", "").replace(
        "    optimizer.step()\n", "    optimizer.step()\n    scheduler.step()\n"
    )
    result = run_in_engine(fixed)
    assert not [w for w in result.warnings if w.kind == "scheduler-before-optimizer"]
    matches(fixed)


_KL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(17)
s = torch.randn(4, 5, requires_grad=True)
t = torch.randn(4, 5)
LOSS
loss.backward()
"""


def test_kldiv_loss_with_its_default_reduction() -> None:
    code = _KL.replace(
        "LOSS", "kd = nn.KLDivLoss()\nloss = kd(F.log_softmax(s, 1), F.softmax(t, 1))"
    )
    words = _warning(code, "kldiv-mean")
    assert "`kd` (line 8: `kd = nn.KLDivLoss()`) uses the default `reduction='mean'`" in words
    assert '`kd = nn.KLDivLoss(reduction="batchmean")`' in words
    matches(code)
    functional = _KL.replace("LOSS", "loss = F.kl_div(F.log_softmax(s, 1), F.softmax(t, 1))")
    assert '`F.kl_div(..., reduction="batchmean")`' in _warning(functional, "kldiv-mean")
    fixed = code.replace("nn.KLDivLoss()", 'nn.KLDivLoss(reduction="batchmean")')
    assert not [w for w in run_in_engine(fixed).warnings if w.kind == "kldiv-mean"]
    matches(fixed)


# ---------------------------------------------------------------------------------------
# Custom Functions: gradcheck's precision, backward's count and shape of gradients.

_CUBE = """\
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**POWER


torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
print(torch.autograd.gradcheck(Cube.apply, (x,), eps=1e-6, atol=1e-4))
"""


def test_gradcheck_on_float32_inputs() -> None:
    code = _CUBE.replace("POWER", "2")
    words = explained(code, "gradcheck-precision")
    assert "`x` should be float64" in words and "`x.double()`" in words
    assert "gradcheck-precision" in {w.kind for w in run_in_engine(code).warnings}
    matches(code.replace("requires_grad=True)", "dtype=torch.double, requires_grad=True)"))


def test_gradcheck_on_float64_inputs_blames_the_backward() -> None:
    code = _CUBE.replace("POWER", "3").replace(
        "requires_grad=True)", "dtype=torch.double, requires_grad=True)"
    )
    words = explained(code, "gradcheck-precision")
    assert "the backward's formula itself is off" in words
    assert "the backward of `Cube.apply`" in words


def test_custom_backward_with_a_gradient_too_few() -> None:
    code = SNIPPETS.joinpath("601_custom_function_backward_too_few_grads.py").read_text()
    words = explained(code, "custom-grad-count")
    assert "forward takes 2 (`tensor`, `constant`), backward returned 1" in words
    assert "`return grad_output * ctx.constant, None` on line 16" in words
    matches(
        code.replace("return grad_output * ctx.constant", "return grad_output * ctx.constant, None")
    )


def test_custom_backward_with_a_transposed_gradient() -> None:
    code = SNIPPETS.joinpath("602_custom_function_backward_wrong_shape.py").read_text()
    words = explained(code, "custom-grad-shape")
    assert "for input 1 (`weight`) of `LinearFunction.forward`" in words
    assert "`grad_weight = input.t().mm(grad_output)`" in words
    assert "`grad_output.t().mm(input)` instead of `input.t().mm(grad_output)`" in words
    matches(code.replace("input.t().mm(grad_output)", "grad_output.t().mm(input)"))


def test_setup_context_forward_names_its_inputs_without_ctx() -> None:
    code = """\
import torch
from torch.autograd import Function


class Scale(Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k


x = torch.ones(2, requires_grad=True)
Scale.apply(x, 3.0).sum().backward()
"""
    words = explained(code, "custom-grad-count")
    assert "forward takes 2 (`x`, `k`)" in words and "`return g * ctx.k, None`" in words


# ---------------------------------------------------------------------------------------
# "does not require grad": the tensor an optimizer was given by name; `.grad` of an input.


def test_optimized_image_without_requires_grad() -> None:
    code = SNIPPETS.joinpath("597_neural_style_input_without_requires_grad.py").read_text()
    words = explained(code, "no-grad-to-compute")
    assert "`input_img` is what line 15 (`optimizer = optim.LBFGS([input_img])`)" in words
    assert "line 14 (`input_img = content_img.clone()`)" in words
    assert ".detach()" not in words  # the constant target is not the cut
    matches(
        code.replace(
            "input_img = content_img.clone()\n",
            "input_img = content_img.clone()\ninput_img.requires_grad_(True)\n",
        )
    )


def test_a_tensor_given_to_an_optimizer_that_asks_for_grad_is_not_blamed() -> None:
    code = """\
import torch

w = torch.zeros(3)
w.requires_grad_()
opt = torch.optim.SGD([w], lr=0.1)
loss = (w.detach() * 2).sum()
loss.backward()
"""
    words = explained(code, "no-grad-to-compute")
    assert "sets out to train" not in words and ".detach()" in words


def test_grad_of_an_input_never_asked_for_gradients() -> None:
    code = SNIPPETS.joinpath("598_fgsm_data_grad_none.py").read_text()
    words = explained(code, "grad-is-none")
    assert "`data` does not require grad: it was made on line 11" in words
    assert "the backward on line 16" in words and "`data.requires_grad = True`" in words
    fixed = code.replace(
        "data = torch.rand(1, 1, 4, 4)\n",
        "data = torch.rand(1, 1, 4, 4)\ndata.requires_grad = True\n",
    )
    matches(fixed)


# ---------------------------------------------------------------------------------------
# numpy's beta sampler (mixup); the refusals that stay.


def test_numpy_beta_sampler_matches_plain_numpy() -> None:
    code = (
        "import numpy as np\nimport torch\n\nnp.random.seed(3)\n"
        "lam = np.random.beta(0.4, 0.4)\nrs = np.random.RandomState(1)\n"
        "rng = np.random.default_rng(2)\n"
        "print(lam, rs.beta(1.0, 2.0, size=3), rng.beta(2.0, 2.0))\n"
        "x = torch.tensor(lam) * torch.ones(2)\n"
    )
    matches(code)


def test_swa_utils_stays_refused_naming_the_module() -> None:
    code = SNIPPETS.joinpath("577_ema_swa_averaged_model.py").read_text()
    assert "`from torch.optim.swa_utils import" in refused(code)


def test_autocast_stays_refused_naming_the_contexts_allowed() -> None:
    code = SNIPPETS.joinpath("579_autocast_cpu_bfloat16_training.py").read_text()
    message = refused(code)
    assert "`with torch.autocast(" in message and "torch.no_grad()" in message
    runs_plain(code)


def test_own_method_named_hook_runs_as_in_plain_torch() -> None:
    matches(SNIPPETS.joinpath("589_grad_cam_medium_activations_hook.py").read_text())
