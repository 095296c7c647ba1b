"""Advice that reads the whole program (``ErrorContext.program``): the ``with torch.no_grad():``
around a tensor, the state a loop carries over, a leaf made too late, where float64 data
came from, and the losses' target rules. Messages come from torch itself, so a reworded
message fails here; the programs are the shapes learners paste.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from gui.model.explain.messages import (
    ErrorContext,
    explain_exception,
    explain_refusal,
    explain_warning,
)
from gui.model.explain.source import carried_in_loop, leaf_made_late, no_grad_block
from gui.model.result import Explanation


def raised(action: Callable[[], object]) -> tuple[str, str]:
    try:
        action()
    except Exception as exc:
        return type(exc).__name__, str(exc)
    raise AssertionError("expected an exception")


def explained(
    action: Callable[[], object], program: str, line: int, **context: object
) -> Explanation:
    exception, message = raised(action)
    lines = program.splitlines()
    return explain_exception(
        exception,
        message,
        line=line,
        context=ErrorContext(source_line=lines[line - 1].strip(), program=program, **context),  # type: ignore[arg-type]
    )


def _backward_without_grad() -> None:
    with torch.no_grad():
        loss = (torch.ones(2, requires_grad=True) * 2).sum()
    loss.backward()


NO_GRAD_PROGRAM = """\
import torch
net = torch.nn.Linear(2, 1)
X = torch.randn(4, 2)
with torch.no_grad():
    pred = net(X)
loss = pred.sum()
loss.backward()
"""


def test_no_grad_names_the_block_and_the_tensor_computed_inside_it() -> None:
    result = explained(_backward_without_grad, NO_GRAD_PROGRAM, 7, tensor="loss", constants=("X",))
    assert result.kind == "no-grad-to-compute"
    assert "`pred`" in result.explanation and "line 4" in result.explanation
    assert "line 5" in result.explanation and "`loss`" in result.explanation
    assert "move line 5" in result.fix


def test_no_grad_without_a_block_keeps_the_inputs_advice() -> None:
    program = NO_GRAD_PROGRAM.replace("with torch.no_grad():\n    ", "")
    result = explained(_backward_without_grad, program, 6, tensor="loss", constants=("X",))
    assert result.kind == "no-grad-to-compute"
    assert "X.requires_grad_()" in result.fix
    assert "no_grad():` (line" not in result.explanation


def test_no_grad_block_finds_decorators_and_set_grad_enabled() -> None:
    program = (
        "@torch.no_grad()\ndef f(x):\n    return x * 2\n"
        "with torch.set_grad_enabled(False):\n    y = 1\n"
        "with torch.set_grad_enabled(True):\n    z = 1\n"
    )
    assert no_grad_block(program, 3) == (1, "@torch.no_grad()")
    assert no_grad_block(program, 5) == (4, "with torch.set_grad_enabled(False):")
    assert no_grad_block(program, 7) is None


def _backward_twice() -> None:
    y = (torch.ones(2, requires_grad=True) * 2).sum()
    y.backward()
    y.backward()


RNN_PROGRAM = """\
import torch
rnn = torch.nn.RNN(3, 5)
h = torch.zeros(1, 1, 5)
for step in range(3):
    x = x.to(device)
    out, h = rnn(torch.randn(2, 1, 3), h)
    loss = out.sum()
    loss.backward()
"""


def test_backward_twice_in_a_loop_names_the_carried_state() -> None:
    result = explained(_backward_twice, RNN_PROGRAM, 8, tensor="loss")
    assert result.kind == "backward-twice"
    assert "`h`" in result.explanation and "line 6" in result.explanation
    assert "`h = h.detach()`" in result.fix and "before line 6" in result.fix
    # `x = x.to(device)` carries nothing over: a method of x itself
    assert "`x`" not in result.explanation


def test_backward_twice_outside_such_a_loop_keeps_retain_graph() -> None:
    program = "y = (x * 2).sum()\ny.backward()\ny.backward()\n"
    result = explained(_backward_twice, program, 3, tensor="y")
    assert result.kind == "backward-twice"
    assert "y.backward(retain_graph=True)" in result.fix
    assert carried_in_loop(program, 3, frozenset({"y"})) is None


LATE_LEAF = """\
import torch
weights = torch.randn(3, 1, requires_grad=True) * 0.01
bias = torch.zeros(1, requires_grad=True)
loss = (weights.sum() + bias).sum()
loss.backward()
weights -= 0.1 * weights.grad
"""


def test_a_leaf_made_too_late_is_named_with_its_line_and_the_fix() -> None:
    found = leaf_made_late(LATE_LEAF, "weights", 6)
    assert found is not None
    made, fixed = found
    assert made.line == 2
    assert fixed == "weights = (torch.randn(3, 1) * 0.01).requires_grad_()"
    assert leaf_made_late(LATE_LEAF, "bias", 6) is None  # the call itself makes the leaf

    def update() -> None:
        w = torch.randn(3, 1, requires_grad=True) * 0.01
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the non-leaf warning; the TypeError is wanted
            w -= 0.1 * w.grad  # type: ignore[operator]

    result = explained(update, LATE_LEAF, 6, leaves=("bias",))
    assert result.kind == "grad-is-none"
    assert "line 2" in result.explanation and "`weights`" in result.explanation
    assert "weights = (torch.randn(3, 1) * 0.01).requires_grad_()" in result.fix


def test_a_leaf_made_too_late_also_fixes_the_non_leaf_warning() -> None:
    result = explain_warning(
        "UserWarning",
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.",
        line=6,
        context=ErrorContext(
            source_line="weights -= 0.1 * weights.grad", program=LATE_LEAF, leaves=("bias",)
        ),
    )
    assert result.kind == "non-leaf-grad"
    assert "weights = (torch.randn(3, 1) * 0.01).requires_grad_()" in result.fix


def test_grad_none_in_arithmetic_on_a_leaf_says_backward_has_not_run() -> None:
    def update() -> None:
        w = torch.zeros(2, requires_grad=True)
        w.data -= 0.1 * w.grad  # type: ignore[operator]

    program = "w = torch.zeros(2, requires_grad=True)\nw.data -= 0.1 * w.grad\n"
    result = explained(update, program, 2, leaves=("w",))
    assert result.kind == "grad-is-none"
    assert "`w.grad` is None" in result.explanation and "if w.grad is not None" in result.fix


def test_float64_from_numpy_is_converted_where_it_is_made() -> None:
    program = "data = np.random.rand(3, 4)\nX = torch.from_numpy(data)\nout = layer(X)\n"
    layer = torch.nn.Linear(4, 2)
    result = explained(lambda: layer(torch.from_numpy(np.ones((3, 4)))), program, 3)
    assert result.kind == "dtype-mismatch"
    assert "line 2" in result.fix and "`X = torch.from_numpy(data).float()`" in result.fix


def test_integer_targets_of_a_probability_loss_are_made_float() -> None:
    program = "loss = criterion(probs, labels)\n"
    action = lambda: torch.nn.BCELoss()(torch.full((2,), 0.5), torch.tensor([0, 1]))  # noqa: E731
    result = explained(action, program, 1)
    assert result.kind == "dtype-mismatch"
    assert "criterion(probs, labels.float())" in result.fix


def test_a_condition_on_a_whole_tensor_is_named() -> None:
    def relu(z: torch.Tensor) -> torch.Tensor:
        return z if z > 0 else 0 * z

    result = explained(lambda: relu(torch.randn(3)), "if z > 0:\n", 1)
    assert result.kind == "ambiguous-bool"
    assert "`z > 0`" in result.explanation
    assert "torch.where(z > 0, a, b)" in result.fix and "(z > 0).all()" in result.fix


def test_target_size_error_and_warning_name_the_losss_arguments() -> None:
    program = "loss = criterion(y_pred, y_batch)\n"
    pred, target = torch.zeros(4, 1), torch.zeros(4)
    result = explained(lambda: F.binary_cross_entropy_with_logits(pred, target), program, 1)
    assert result.kind == "target-size"
    assert "`y_pred` of shape [4, 1]" in result.explanation
    assert "y_batch.unsqueeze(1)" in result.fix and "y_pred.squeeze(1)" in result.fix
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.mse_loss(pred, target)
    with_warnings = [str(w.message) for w in caught]
    warned = explain_warning(
        "UserWarning",
        with_warnings[0],
        line=1,
        context=ErrorContext(source_line=program.strip(), program=program),
    )
    assert warned.kind == "target-size-broadcast"
    assert "[4, 4]" in warned.explanation and "y_batch.unsqueeze(1)" in warned.fix


def test_class_target_rules() -> None:
    program = "loss = loss_fn(pred, target)\n"
    scores = torch.zeros(3, 3)
    floats = explained(lambda: F.cross_entropy(scores, torch.tensor([0.0, 1.0, 2.0])), program, 1)
    assert floats.kind == "class-target-dtype"
    assert "loss_fn(pred, target.long())" in floats.fix
    column = explained(lambda: F.cross_entropy(scores, torch.tensor([[0], [1], [2]])), program, 1)
    assert column.kind == "class-target-shape"
    assert "loss_fn(pred, target.squeeze(1))" in column.fix
    past = explained(lambda: F.cross_entropy(scores, torch.tensor([1, 2, 3])), program, 1)
    assert past.kind == "class-target-range"
    assert "loss_fn(pred, target - 1)" in past.fix and "at least 4" in past.fix


def test_numpy_and_item_name_the_expression_written() -> None:
    program = "predicted = model(torch.from_numpy(x)).numpy()\n"
    result = explained(lambda: torch.ones(1, requires_grad=True).numpy(), program, 1)
    assert result.kind == "numpy-requires-grad"
    assert "`model(torch.from_numpy(x)).detach().numpy()`" in result.fix
    program = "total = (a + b).numpy()\n"
    result = explained(lambda: torch.ones(1, requires_grad=True).numpy(), program, 1)
    assert "`(a + b).detach().numpy()`" in result.fix


def test_refusal_says_whether_anything_ran_and_keeps_the_gpu_apart() -> None:
    before = explain_refusal("`torch.load` is not available.", "torch.load", line=9, column=3)
    assert "Nothing ran." in before.explanation and "files" in before.explanation
    during = explain_refusal(
        "`Net.cuda` is not available: this app computes on the CPU only, there is no GPU here.",
        "model.cuda()",
        line=17,
        column=1,
        while_running=True,
    )
    assert "The lines before line 17 ran" in during.explanation
    assert "CPU only" in during.explanation and "files" not in during.explanation
    assert "torch.cuda.is_available()" in during.fix


def _warning_of(action: Callable[[], object]) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return str(caught[0].message)


def test_softmax_without_dim_gets_the_learners_call_with_dim() -> None:
    message = _warning_of(lambda: F.softmax(torch.randn(2, 3)))
    line = "probabilities = F.softmax(output)"
    result = explain_warning("UserWarning", message, line=4, context=ErrorContext(source_line=line))
    assert result.kind == "implicit-softmax-dim"
    assert "`F.softmax(output, dim=-1)`" in result.fix
    inside = explain_warning(
        "UserWarning", message, line=4, context=ErrorContext(source_line="out = model(x)")
    )
    assert "nn.Softmax(dim=1)" in inside.fix


def test_volatile_is_explained_as_old_no_grad() -> None:
    from torch.autograd import Variable

    message = _warning_of(lambda: Variable(torch.ones(1), volatile=True))
    result = explain_warning("UserWarning", message, line=1)
    assert result.kind == "volatile-removed"
    assert "with torch.no_grad():" in result.fix


CONV = torch.nn.Conv2d(3, 4, 3)


@pytest.mark.parametrize(
    ("action", "line", "kind", "words"),
    [
        (lambda: CONV(torch.randn(1, 8, 8, 3)), "y = conv(img)", "conv-channels",
         "img.permute(0, 3, 1, 2)"),
        (lambda: CONV(torch.randn(8, 8)), "y = self.conv1(x)", "conv-input-dims",
         "x.unsqueeze(0)"),
        (lambda: F.softmax(torch.randn(3), dim=1), "p = F.softmax(logits, dim=1)",
         "dim-out-of-range", "logits.unsqueeze(0)"),
        (lambda: torch.randn(2, 3).t().view(6), "flat = out.view(6)", "view-not-contiguous",
         "flat = out.reshape(6)"),
        (lambda: torch.randn(10, 100).view(-1, 400), "x = x.view(-1, 400)", "view-size",
         "x.view(x.size(0), -1)"),
        (lambda: F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2])),
         "loss = criterion(outputs, labels)", "batch-size-mismatch", "`labels`, which has 3 rows"),
        (lambda: torch.optim.SGD([], lr=0.1), "opt = torch.optim.SGD(model.parameters())",
         "empty-parameters", "nn.Parameter"),
        (lambda: CONV(torch.randn(1, 3, 8, 8, dtype=torch.float64)), "y = conv(x)",
         "dtype-mismatch", "Double and Float"),
    ],
)  # fmt: skip
def test_shape_and_model_mistakes_name_the_learners_tensor(
    action: Callable[[], object], line: str, kind: str, words: str
) -> None:
    result = explained(action, line + "\n", 1)
    assert result.kind == kind
    assert words in result.explanation + " " + result.fix


def test_a_function_name_reused_for_its_result() -> None:
    program = "loss = nn.MSELoss()\nfor i in range(2):\n    loss = loss(out, y)\n"
    result = explained(lambda: torch.ones(1)(1), program, 3)  # type: ignore[operator]
    assert result.kind == "not-callable"
    assert "`loss = loss(out, y)`" in result.explanation and "criterion" in result.fix


def test_layers_in_a_plain_list_are_named() -> None:
    program = (
        "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.blocks = [nn.Linear(2, 2) for _ in range(3)]\n"
        "opt = torch.optim.SGD(M().parameters(), lr=0.1)\n"
    )
    result = explained(lambda: torch.optim.SGD([], lr=0.1), program, 5)
    assert result.kind == "empty-parameters"
    assert "`self.blocks` (line 4)" in result.explanation
    assert "self.blocks = nn.ModuleList(...)" in result.fix
