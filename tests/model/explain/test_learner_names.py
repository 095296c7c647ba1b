"""Autograd's errors explained with the learner's own variables, and the fix works.

Each case is a program the way learners paste it; plain torch runs it and raises, the
explanation is made from torch's own message and the program's text (as the engine passes
them), must name the learner's variables and lines, and the line the fix gives, put in place
of the line it is about, must make plain torch run to the end.
"""

from __future__ import annotations

import traceback
import warnings
from dataclasses import dataclass

import pytest
import torch

from gui.model.explain.messages import ErrorContext, explain_exception, explain_warning
from gui.model.result import Explanation

HEAD = "import numpy as np\nimport torch\nimport torch.nn as nn\n"


def _run(code: str) -> tuple[BaseException | None, int | None]:
    """Run ``code`` with plain torch; the exception and the program's line it came from."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        namespace = {"__name__": "__main__"}
        try:
            exec(compile(code, "<learner>", "exec"), namespace)
        except Exception as exc:
            frames = [
                f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<learner>"
            ]
            return exc, frames[-1].lineno if frames else None
        finally:
            torch.set_grad_enabled(True)  # a program may switch it off for the whole process
    return None, None


def explain(code: str) -> Explanation:
    error, line = _run(code)
    assert error is not None and line is not None, "the program should fail"
    source = code.splitlines()[line - 1]
    return explain_exception(
        type(error).__name__,
        str(error),
        line=line,
        context=ErrorContext(source_line=source.strip(), program=code),
    )


def text(explained: Explanation) -> str:
    return f"{explained.explanation} {explained.fix}"


@dataclass(frozen=True)
class Case:
    body: str
    kind: str
    mentions: tuple[str, ...]
    # (statement in the program, the statement the fix gives in its place); "" to drop it,
    # a statement ending in "\n+" is inserted before the first, one ending in "\n=" replaces
    # it as the fix says in words.
    patches: tuple[tuple[str, str], ...] = ()


CASES = {
    "detach-in-forward": Case(
        "model = nn.Linear(4, 3)\nx = torch.randn(5, 4)\ny = torch.tensor([0, 1, 2, 0, 1])\n"
        "logits = model(x).detach()\nloss = nn.functional.cross_entropy(logits, y)\n"
        "loss.backward()\n",
        "no-grad-to-compute",
        ("`logits`", "line 7", "`loss`"),
        (("logits = model(x).detach()", "logits = model(x)"),),
    ),
    "data-in-forward": Case(
        "net = nn.Linear(2, 1)\nout = net(torch.randn(3, 2)).data\nmse = out.pow(2).mean()\n"
        "mse.backward()\n",
        "no-grad-to-compute",
        ("`out`", "line 5", ".data"),
        (("out = net(torch.randn(3, 2)).data", "out = net(torch.randn(3, 2))"),),
    ),
    "items-rebuilt": Case(
        "w = torch.randn(2, requires_grad=True)\nparts = []\nfor i in range(3):\n"
        "    parts.append((w * i).sum().item())\ntotal = torch.tensor(parts).sum()\n"
        "total.backward()\n",
        "no-grad-to-compute",
        ("`total`", ".item()", "torch.stack(parts)"),
        (
            ("    parts.append((w * i).sum().item())", "    parts.append((w * i).sum())\n="),
            ("total = torch.tensor(parts).sum()", "total = torch.stack(parts).sum()"),
        ),
    ),
    "grad-without-create-graph": Case(
        "x = torch.randn(4, 2, requires_grad=True)\nscore = (x ** 3).sum()\n"
        "g = torch.autograd.grad(score, x)[0]\npenalty = g.pow(2).sum()\npenalty.backward()\n",
        "no-grad-to-compute",
        ("`g`", "line 6", "create_graph=True"),
        (
            (
                "g = torch.autograd.grad(score, x)[0]",
                "g = torch.autograd.grad(score, x, create_graph=True)[0]",
            ),
        ),
    ),
    "detach-inside-forward": Case(
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(3, 2)\n\n    def forward(self, x):\n"
        "        return self.fc(x).detach()\n\n"
        "model = Net()\nloss = model(torch.randn(2, 3)).sum()\nloss.backward()\n",
        "no-grad-to-compute",
        ("line 10", "`model(torch.randn(2, 3))`"),
        (("        return self.fc(x).detach()", "        return self.fc(x)"),),
    ),
    "numpy-then-torch-tensor": Case(
        "w = torch.randn(3, requires_grad=True)\nnp_probs = np.exp((w * 2).detach().numpy())\n"
        "probs = torch.tensor(np_probs)\nprobs.sum().backward()\n",
        "no-grad-to-compute",
        ("`np_probs`", "line 5", "NumPy"),
    ),
    "argmax-in-the-loss": Case(
        "model = nn.Linear(4, 3)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "labels = torch.tensor([0, 1, 2])\nlogits = model(torch.randn(3, 4))\n"
        "preds = logits.argmax(dim=1).float()\nloss = (preds - labels.long()).pow(2).mean()\n"
        "loss.backward()\n",
        "no-grad-to-compute",
        ("`preds`", "line 8", "`argmax`", "cross_entropy(logits, labels)"),
        (
            (
                "loss = (preds - labels.long()).pow(2).mean()",
                "loss = nn.functional.cross_entropy(logits, labels)\n=",
            ),
        ),
    ),
    "set-grad-enabled-false": Case(
        "torch.set_grad_enabled(False)\nnet = nn.Linear(2, 1)\nloss = net(torch.ones(1, 2)).sum()\n"
        "loss.backward()\n",
        "no-grad-to-compute",
        ("line 4", "torch.set_grad_enabled(False)", "`loss`"),
        (("torch.set_grad_enabled(False)", ""),),
    ),
    "requires-grad-too-late": Case(
        "b = torch.tensor([1.0, 2.0])\ns = (b * 3).sum()\nb.requires_grad_()\ns.backward()\n",
        "no-grad-to-compute",
        ("`b`", "line 6", "line 5"),
    ),
    "numpy-round-trip": Case(
        "w = torch.randn(3, requires_grad=True)\narr = np.tanh((w * 2).detach().numpy())\n"
        "back = torch.from_numpy(arr)\nloss = back.sum()\nloss.backward()\n",
        "no-grad-to-compute",
        ("`back`", "NumPy", "line 6"),
    ),
    "plus-equals-on-saved": Case(
        "w = torch.randn(3, requires_grad=True)\nact = torch.sigmoid(w)\nact += 1\n"
        "act.sum().backward()\n",
        "saved-tensor-modified",
        ("`act`", "line 6", "line 5"),
        (("act += 1", "act = act + 1"),),
    ),
    "method-on-saved": Case(
        "w = torch.randn(3, requires_grad=True)\nh = w.exp()\nh.mul_(2)\nh.sum().backward()\n",
        "saved-tensor-modified",
        ("`h`", "line 6"),
        (("h.mul_(2)", "h = h.mul(2)"),),
    ),
    "method-with-keyword-on-saved": Case(
        "net = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid())\nout = net(torch.randn(2, 4))\n"
        "out.clamp_(min=0.1)\nout.sum().backward()\n",
        "saved-tensor-modified",
        ("`out`", "line 6", "Sigmoid"),
        (("out.clamp_(min=0.1)", "out = out.clamp(min=0.1)"),),
    ),
    "features-before-loop": Case(
        "enc = nn.Linear(3, 3)\nhead = nn.Linear(3, 1)\nfeats = enc(torch.randn(2, 3))\n"
        "for epoch in range(2):\n    loss = head(feats).pow(2).mean()\n    loss.backward()\n",
        "backward-twice",
        ("`feats`", "line 6", "line 7"),
        (("feats = enc(torch.randn(2, 3))", "feats = enc(torch.randn(2, 3)).detach()"),),
    ),
    "hidden-state-on-self": Case(
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.rnn = nn.RNN(2, 3)\n        self.h = torch.zeros(1, 1, 3)\n\n"
        "    def forward(self, x):\n        y, self.h = self.rnn(x, self.h)\n        return y\n\n"
        "model = Net()\nfor step in range(2):\n    model(torch.randn(4, 1, 2)).sum().backward()\n",
        "backward-twice",
        ("`self.h`", "line 11"),
        (("        y, self.h = self.rnn(x, self.h)", "        self.h = self.h.detach()\n+"),),
    ),
    "preallocated-states-in-loop": Case(
        "W = torch.randn(3, 3, requires_grad=True)\nstates = torch.zeros(4, 3)\n"
        "for t in range(3):\n    states[t + 1] = torch.tanh(states[t] @ W + 1)\n"
        "states.sum().backward()\n",
        "saved-tensor-modified",
        ("`states`", "line 7", "states = torch.stack(steps)"),
    ),
    "index-on-saved": Case(
        "w = torch.randn(3, requires_grad=True)\nh = torch.tanh(w)\nout = (h * h).sum()\n"
        "h[0] = 0\nout.backward()\n",
        "saved-tensor-modified",
        ("`h`", "line 7", "h = h.clone()"),
        (("h[0] = 0", "h = h.clone()\n+"),),
    ),
    "inplace-relu-layer": Case(
        "net = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.ReLU(inplace=True))\n"
        "net(torch.randn(4, 2)).sum().backward()\n",
        "saved-tensor-modified",
        ("inplace=True", "line 4"),
        (
            (
                "net = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.ReLU(inplace=True))",
                "net = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.ReLU())",
            ),
        ),
    ),
    "running-total": Case(
        "w = torch.randn(2, requires_grad=True)\ntotal = 0\nfor i in range(3):\n"
        "    loss = (w * i).pow(2).sum()\n    total = total + loss\n    total.backward()\n",
        "backward-twice",
        ("`total`", "line 8", "total += loss.item()", "loss.backward()"),
        (
            ("    total = total + loss", "    total += loss.item()"),
            ("    total.backward()", "    loss.backward()"),
        ),
    ),
    "loss-before-loop": Case(
        "net = nn.Linear(2, 1)\npred = net(torch.randn(3, 2))\nloss = pred.pow(2).mean()\n"
        "for epoch in range(2):\n    loss.backward()\n",
        "backward-twice",
        ("`loss`", "line 6", "line 7", "line 5, line 6"),
    ),
    "shared-trunk": Case(
        "enc = nn.Linear(3, 3)\nz = torch.tanh(enc(torch.randn(2, 3)))\nla = z.pow(2).sum()\n"
        "lb = z.abs().sum()\nla.backward()\nlb.backward()\n",
        "backward-twice",
        ("`la`", "`lb`", "`z`", "(la + lb).backward()"),
        (("la.backward()", "la.backward(retain_graph=True)"),),
    ),
    "lstm-state-tuple": Case(
        "lstm = nn.LSTM(2, 3)\nstate = (torch.zeros(1, 1, 3), torch.zeros(1, 1, 3))\n"
        "for step in range(2):\n    out, state = lstm(torch.randn(4, 1, 2), state)\n"
        "    out.sum().backward()\n",
        "backward-twice",
        ("`state`", "line 7"),
        (
            (
                "    out, state = lstm(torch.randn(4, 1, 2), state)",
                "    state = tuple(s.detach() for s in state)\n+",
            ),
        ),
    ),
    "optimizer-non-leaf": Case(
        "scale = torch.ones(3, requires_grad=True) * 0.5\nopt = torch.optim.SGD([scale], lr=0.1)\n",
        "optimize-non-leaf",
        ("`scale`", "line 4"),
        (
            (
                "scale = torch.ones(3, requires_grad=True) * 0.5",
                "scale = (torch.ones(3) * 0.5).requires_grad_()",
            ),
        ),
    ),
    "unused-input": Case(
        "a = torch.randn(2, requires_grad=True)\nb = torch.randn(2, requires_grad=True)\n"
        "out = (a * 2).sum()\nga, gb = torch.autograd.grad(out, (a, b))\n",
        "unused-input",
        ("`b`", "`out`"),
        (
            (
                "ga, gb = torch.autograd.grad(out, (a, b))",
                "ga, gb = torch.autograd.grad(out, (a, b), allow_unused=True)",
            ),
        ),
    ),
    "input-no-grad": Case(
        "data = torch.randn(3)\nw = torch.randn(3, requires_grad=True)\nout = (data * w).sum()\n"
        "(g,) = torch.autograd.grad(out, data)\n",
        "input-no-grad",
        ("`data`", "line 4"),
        (("w = torch.randn(3, requires_grad=True)", "data.requires_grad_()\n+"),),
    ),
    "integer-leaf": Case(
        "steps = torch.arange(4, requires_grad=True)\n",
        "integer-requires-grad",
        ("`steps`",),
        (
            (
                "steps = torch.arange(4, requires_grad=True)",
                "steps = torch.arange(4, dtype=torch.float32, requires_grad=True)",
            ),
        ),
    ),
    "double-leaf": Case(
        "theta = torch.zeros(2, dtype=torch.float64, requires_grad=True)\n"
        "cost = (torch.ones(3, 2) @ theta).sum()\n",
        "dtype-mismatch",
        ("`theta`", "line 4"),
        (
            (
                "theta = torch.zeros(2, dtype=torch.float64, requires_grad=True)",
                "theta = torch.zeros(2, dtype=torch.float32, requires_grad=True)",
            ),
        ),
    ),
    "raw-tensor-attribute": Case(
        "class Scale(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.k = torch.ones(1, requires_grad=True)\n\n"
        "opt = torch.optim.SGD(Scale().parameters(), lr=0.1)\n",
        "empty-parameters",
        ("`self.k`", "line 7"),
        (
            (
                "        self.k = torch.ones(1, requires_grad=True)",
                "        self.k = nn.Parameter(torch.ones(1))",
            ),
        ),
    ),
    "inference-tensor": Case(
        "enc = nn.Linear(2, 2)\nhead = nn.Linear(2, 1)\nwith torch.inference_mode():\n"
        "    feats = enc(torch.randn(3, 2))\nhead(feats).sum().backward()\n",
        "inference-tensor",
        ("`feats`", "line 7"),
        (("head(feats).sum().backward()", "feats = feats.clone()\n+"),),
    ),
    "flag-on-computed": Case(
        "w = torch.randn(2, requires_grad=True)\nmid = w * 2\nmid.requires_grad = False\n",
        "non-leaf-requires-grad",
        ("`mid`", "line 5"),
        (("mid.requires_grad = False", "mid = mid.detach()"),),
    ),
    "grad-read-after-zero-grad": Case(
        "model = nn.Linear(3, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "model(torch.randn(4, 3)).sum().backward()\nopt.step()\nopt.zero_grad()\n"
        "print(model.weight.grad.norm())\n",
        "grad-is-none",
        ("`model.weight.grad`", "line 8", "set_to_none=True"),
        (("opt.zero_grad()", "opt.zero_grad(set_to_none=False)"),),
    ),
    "float-has-no-backward": Case(
        "w = torch.randn(2, requires_grad=True)\nacc = 0.0\nfor i in range(2):\n"
        "    acc += (w * i).sum().item()\nacc.backward()\n",
        "backward-on-number",
        ("`acc`", "line 7", ".item()"),
    ),
}


def _patched(code: str, patches: tuple[tuple[str, str], ...]) -> str:
    lines = code.splitlines()
    for old, new in patches:
        index = lines.index(old)
        if new.endswith("\n="):
            lines[index] = new[:-2]
        elif new.endswith("\n+"):
            indent = old[: len(old) - len(old.lstrip())]
            lines.insert(index, indent + new[:-2].strip())
        else:
            lines[index] = new
    return "\n".join(line for line in lines) + "\n"


@pytest.mark.parametrize("name", list(CASES))
def test_explained_in_the_learners_names(name: str) -> None:
    case = CASES[name]
    code = HEAD + case.body
    explained = explain(code)
    assert explained.kind == case.kind, (explained.kind, explained.message)
    for words in case.mentions:
        assert words in text(explained), (words, text(explained))
    for _old, new in case.patches:
        if new.endswith("\n="):  # the fix says it in words
            continue
        statement = new.removesuffix("\n+").strip()
        if statement:
            assert statement in explained.fix, (statement, explained.fix)
    if case.patches:
        error, line = _run(_patched(code, case.patches))
        assert error is None, (error, line)


def test_an_optimizer_step_between_two_backwards_is_named() -> None:
    code = HEAD + (
        "net = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 2))\n"
        "opt = torch.optim.SGD(net.parameters(), lr=0.1)\nout = net(torch.randn(3, 2))\n"
        "first = out[:, 0].sum()\nsecond = out[:, 1].sum()\nfirst.backward(retain_graph=True)\n"
        "opt.step()\nsecond.backward()\n"
    )
    explained = explain(code)
    assert explained.kind == "saved-tensor-modified"
    assert "`opt.step()` on line 10" in explained.explanation
    assert "(first + second).backward()" in explained.fix
    fixed = code.replace("first.backward(retain_graph=True)\nopt.step()\nsecond.backward()\n", "")
    fixed += "(first + second).backward()\nopt.step()\n"
    assert _run(fixed) == (None, None)


def test_frozen_parameters_name_the_loop_and_a_part_to_freeze() -> None:
    code = HEAD + (
        "body = nn.Linear(3, 3)\nhead = nn.Linear(3, 1)\nmodel = nn.Sequential(body, head)\n"
        "for p in model.parameters():\n    p.requires_grad = False\n"
        "model(torch.randn(2, 3)).sum().backward()\n"
    )
    explained = explain(code)
    assert explained.kind == "no-grad-to-compute"
    assert "Line 8" in explained.explanation and "model.parameters()" in explained.explanation
    assert "for param in body.parameters():" in explained.fix


def test_labels_from_numpy_are_data_not_the_cut() -> None:
    """Every parameter frozen, labels made from NumPy: the freezing is named, not NumPy."""
    code = HEAD + (
        "net = nn.Linear(3, 2)\nfor p in net.parameters():\n    p.requires_grad_(False)\n"
        "labels = torch.from_numpy(np.array([0, 1]))\n"
        "loss = nn.functional.cross_entropy(net(torch.randn(2, 3)), labels)\nloss.backward()\n"
    )
    explained = explain(code)
    assert explained.kind == "no-grad-to-compute"
    assert "froze every parameter" in explained.explanation
    assert "NumPy" not in explained.explanation


def test_a_copy_construct_warning_names_the_tensor() -> None:
    code = "torch.tensor(preds)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        preds = torch.ones(2, requires_grad=True) * 2
        torch.tensor(preds)
    message = next(str(w.message) for w in caught if "copy construct" in str(w.message))
    explained = explain_warning(
        "UserWarning", message, line=1, context=ErrorContext(source_line=code, program=code)
    )
    assert explained.kind == "tensor-copy"
    assert "`preds.clone()`" in explained.fix and "`preds`" in explained.explanation


def test_without_the_program_the_advice_is_still_given() -> None:
    """The GUI side may explain a message with no program text: the generic words stay."""
    explained = explain_exception(
        "RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn"
    )
    assert explained.kind == "no-grad-to-compute" and "requires_grad=True" in explained.fix
    explained = explain_exception(
        "RuntimeError",
        "One of the differentiated Tensors appears to not have been used in the graph. "
        "Set allow_unused=True if this is the desired behavior.",
    )
    assert explained.kind == "unused-input" and "allow_unused=True" in explained.fix


MORE = {
    "unbind-view-changed": Case(
        "w = torch.randn(2, 3, requires_grad=True)\nfirst, second = (w * 2).unbind()\nfirst += 1\n",
        "view-inplace",
        ("`first`", "line 5", "first = first.clone()", "unbind"),
        (("first += 1", "first = first.clone()\n+"),),
    ),
    "no-grad-view-changed": Case(
        "w = torch.randn(3, requires_grad=True)\nwith torch.no_grad():\n    head = w[:2]\n"
        "head += 1\n",
        "view-inplace",
        ("`head`", "line 6", "torch.no_grad()"),
    ),
    "hook-on-data": Case(
        "inputs = torch.ones(3)\ninputs.register_hook(lambda g: print(g))\n",
        "hook-no-grad",
        ("`inputs`", "inputs.requires_grad_()"),
    ),
    "custom-function-gradient-count": Case(
        "class Scale(torch.autograd.Function):\n    @staticmethod\n"
        "    def forward(ctx, x, k):\n        return x * k\n\n    @staticmethod\n"
        "    def backward(ctx, g):\n        return g\n\n"
        "a = torch.ones(2, requires_grad=True)\nScale.apply(a, torch.ones(2)).sum().backward()\n",
        "custom-grad-count",
        ("`Scale.backward`", "2", "None"),
    ),
    "custom-function-gradient-shape": Case(
        "class RowSum(torch.autograd.Function):\n    @staticmethod\n"
        "    def forward(ctx, x):\n        return x.sum(1)\n\n    @staticmethod\n"
        "    def backward(ctx, g):\n        return g\n\n"
        "a = torch.ones(2, 3, requires_grad=True)\nRowSum.apply(a).sum().backward()\n",
        "custom-grad-shape",
        ("`RowSum.backward`", "[2]", "[2, 3]"),
    ),
    "parameters-without-brackets": Case(
        "model = nn.Linear(2, 1)\nopt = torch.optim.SGD(model.parameters, lr=0.1)\n",
        "parameters-not-called",
        ("opt = torch.optim.SGD(model.parameters(), lr=0.1)",),
        (
            (
                "opt = torch.optim.SGD(model.parameters, lr=0.1)",
                "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
            ),
        ),
    ),
    "no-grad-without-brackets": Case(
        "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad:\n    y = x * 2\n",
        "grad-mode-not-called",
        ("with torch.no_grad():",),
        (("with torch.no_grad:", "with torch.no_grad():"),),
    ),
    "frozen-by-named-parameters": Case(
        "body = nn.Linear(3, 3)\nmodel = nn.Sequential(body, nn.Linear(3, 1))\n"
        "for name, p in model.named_parameters():\n    p.requires_grad = False\n"
        "model(torch.randn(2, 3)).sum().backward()\n",
        "no-grad-to-compute",
        ("Line 7", "for param in body.parameters():"),
    ),
    "resize-leaf": Case(
        "w = torch.ones(3, requires_grad=True)\nw.resize_(4)\n",
        "leaf-inplace",
        ("`w`", "with torch.no_grad(): w.resize_(4)"),
    ),
}


@pytest.mark.parametrize("name", list(MORE))
def test_more_autograd_messages_in_the_learners_names(name: str) -> None:
    case = MORE[name]
    code = HEAD + case.body
    explained = explain(code)
    assert explained.kind == case.kind, (explained.kind, explained.message)
    for words in case.mentions:
        assert words in text(explained), (words, text(explained))
    if case.patches:
        error, line = _run(_patched(code, case.patches))
        assert error is None, (error, line)


def test_a_nan_in_backward_under_anomaly_detection_names_the_step() -> None:
    code = HEAD + (
        "torch.autograd.set_detect_anomaly(True)\nx = torch.zeros(2, requires_grad=True)\n"
        "torch.sqrt(x * 0).sum().backward()\n"
    )
    try:
        explained = explain(code)
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert explained.kind == "nan-gradient", explained.message
    # sqrt's gradient at 0 is infinite; times the 0 of `x * 0` it is NaN in Mul's step.
    assert "`Mul`" in explained.explanation and "torch.sqrt(x + 1e-8)" in explained.fix
