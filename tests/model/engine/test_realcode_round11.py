"""Round 11 of real code: the corpus's plain side runs in a clean process, and what
learners print about classes and nodes (`m.__class__.__name__`, `type(y.grad_fn)`) and
`register_multi_grad_hook` run as in plain torch.

1. The plain side (``tests/corpus/plain_worker.py``) never imported the engine, and each
   snippet starts from a fresh interpreter's state, whatever ran before it.
2. ``x.__class__`` reads as ``type(x)`` (the guard's stand-in, with its checks); the class
   of a C++ autograd node is handed out when it can neither make a node nor be a base.
3. ``torch.autograd.graph.register_multi_grad_hook`` is admitted: it is per tensor, built
   on ``Tensor.register_hook``.
4. The non-scalar ``backward()`` explanation names what the function form differentiates.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
import torch

from gui.model.engine import guard
from gui.model.engine.autograd_nodes import NodeView
from gui.model.engine.refusal import CodeRefusedAtRuntime
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from tests.corpus.harness import differences, run_in_engine, run_plain
from tests.model.engine.sandbox_helpers import assert_refused, assert_same_as_plain, printed

# 1. The plain side.


def test_the_plain_side_is_plain_torch() -> None:
    """The engine's stand-ins are on torch's classes in this process; not in the worker's."""
    assert torch.Tensor.__getitem__ is not torch._C.TensorBase.__getitem__  # the engine's
    code = "import sys, torch\nengine = [m for m in sys.modules if m.startswith('gui')]\n"
    code += "native = torch.Tensor.__getitem__ is torch._C.TensorBase.__getitem__\n"
    code += "print(engine, native)\n"
    assert run_plain(code).printed == ["[] True"]


def test_each_plain_run_starts_from_a_fresh_interpreter() -> None:
    """What one snippet sets (default dtype, grad mode, print options, seed, numpy's
    state) is not what the next one sees."""
    changes = (
        "import torch, numpy as np, random\n"
        "torch.set_default_dtype(torch.float64)\n"
        "torch.set_grad_enabled(False)\n"
        "torch.set_printoptions(precision=1)\n"
        "torch.manual_seed(123); np.random.seed(5); random.seed(7)\n"
        "torch.randn(10)\n"
    )
    reads = (
        "import torch, numpy as np, random\n"
        "print(torch.get_default_dtype(), torch.is_grad_enabled())\n"
        "print(torch.tensor([1.23456]))\n"
        "a = torch.randn(2)\n"
        "print(np.random.rand(), random.random())\n"
    )
    first = run_plain(reads)
    run_plain(changes)
    again = run_plain(reads)
    assert again.printed == first.printed
    assert again.printed[:2] == ["torch.float32 True", "tensor([1.2346])"]
    assert again.namespace["a"].values == first.namespace["a"].values


def test_a_plain_run_that_kills_its_process_is_reported_and_the_next_runs() -> None:
    with pytest.raises(AssertionError, match="crashed"):
        run_plain("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert run_plain("print(1 + 1)").printed == ["2"]


def test_names_the_engine_lists_are_found_in_the_plain_run() -> None:
    """A layer's parameter inside the program's own object (``net.body.0.weight``) is
    not a top-level name: the plain side is asked for it by name."""
    code = (
        "import torch\nfrom torch import nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))\n"
        "    def forward(self, x):\n"
        "        return self.body(x)\n"
        "class Holder:\n"
        "    pass\n"
        "h = Holder()\n"
        "h.net = Net()\n"
        "loss = h.net(torch.ones(4, 2)).pow(2).mean()\n"
        "loss.backward()\n"
    )
    result = run_in_engine(code)
    assert result.error is None, result.error
    assert differences(result, run_plain(code)) == []


# What the clean plain side showed: data holding tensors, read into a given dtype.

TENSORS_IN_DATA = [
    # Into whole numbers or booleans torch reads a tensor with `__index__`: fractions fail.
    "torch.tensor([torch.tensor(1.5), 2], dtype=torch.int64)",
    "torch.tensor((torch.tensor(1.0), torch.tensor(2.0)), dtype=torch.long)",
    "torch.as_tensor([torch.tensor(2.5, dtype=torch.float64)], dtype=torch.bool)",
    "torch.ones(2, dtype=torch.long).new_tensor([torch.tensor(0.5)])",
    "torch.LongTensor([torch.tensor(1.5)])",
    # ... and into fractions with `__float__`: complex numbers fail.
    "torch.tensor([torch.tensor(1 + 2j)], dtype=torch.float32)",
    "torch.DoubleTensor([torch.tensor(1 + 1j)])",
    # What works in plain torch works here.
    "torch.tensor([torch.tensor(3), torch.tensor(True)], dtype=torch.uint8)",
    "torch.LongTensor([torch.tensor(2), 3])",
    "torch.FloatTensor([torch.tensor(2), 3.5])",
    "torch.BoolTensor([torch.tensor(0), torch.tensor(True)])",
    "torch.tensor([torch.tensor(1.5), 2], dtype=torch.complex64)",
]


@pytest.mark.parametrize("expression", TENSORS_IN_DATA)
def test_tensors_in_data_read_as_plain_torch_reads_them(expression: str) -> None:
    code = f"import torch\nr = {expression}\nprint(r, r.dtype)\n"
    result = run_in_engine(code)
    plain = run_plain(code)
    if plain.error is None:
        assert result.error is None, result.error
        assert differences(result, plain) == []
    else:
        assert result.error is not None and result.error.message == str(plain.error)
        assert result.error.line == plain.error.line == 2


INDEXES = [
    "r = t[[[i, 0]]]",  # a list in a list: one index per dimension, its tensors read as data
    "r = t2[[[i, 0], [1, i]]]",
    "r = t2[([i, 0], [1, 2])]",
    "r = t[[[u, u, u, u]]]",  # bytes only: a mask, as torch makes it
    "r = t[[[b, False, b, False]]]",
    "r = t[[[f, 0]]]",  # a fraction: torch's own TypeError
    "r = t[[[i]] * 40]",  # 32 items or more: the whole list is one index tensor's data
    "t[[[i]] * 40] = 5.0\nr = t",
    "t2[([i], [i])] = -1.0\nr = t2",
]


@pytest.mark.parametrize("statement", INDEXES)
def test_an_index_holding_tensors_reads_as_in_plain_torch(statement: str) -> None:
    code = (
        "import torch\nt = torch.arange(4.0)\nt2 = torch.arange(12.0).reshape(3, 4)\n"
        "i = torch.tensor(1)\nu = torch.tensor(1, dtype=torch.uint8)\nb = torch.tensor(True)\n"
        f"f = torch.tensor(1.5)\n{statement}\nprint(r)\n"
    )
    result = run_in_engine(code)
    plain = run_plain(code)
    if plain.error is None:
        assert result.error is None, result.error
        assert differences(result, plain) == []
    else:
        assert result.error is not None and result.error.message == str(plain.error)


# 2. Classes.

CLASS_NAMES = (
    "from torch import nn\n"
    "model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))\n"
    "for name, layer in model.named_children():\n"
    "    print(name, layer.__class__.__name__, type(layer).__name__)\n"
    "class Value:\n"
    "    def __init__(self, data):\n"
    "        self.data = data\n"
    "    def __repr__(self):\n"
    "        return f'{self.__class__.__name__}(data={self.data})'\n"
    "print(Value(2.0), model.__class__, torch.ones(1).__class__)\n"
)


def test_class_names_print_as_in_plain_torch() -> None:
    assert_same_as_plain(CLASS_NAMES)


GRAD_FN_CLASSES = (
    "x = torch.ones(3, requires_grad=True)\n"
    "y = (x * 2).sum()\n"
    "z = x.exp().mean()\n"
    "print(type(y.grad_fn), type(y.grad_fn).__name__, y.grad_fn.__class__.__name__)\n"
    "print(type(y.grad_fn) is type(z.grad_fn), isinstance(y.grad_fn, type(y.grad_fn)))\n"
    "print(isinstance(z.grad_fn, type(y.grad_fn)), type(y.grad_fn) == type(y.grad_fn))\n"
    "node = y.grad_fn\n"
    "while node is not None:\n"
    "    print(type(node).__name__)\n"
    "    node = node.next_functions[0][0] if node.next_functions else None\n"
    "    if type(node).__name__ == 'AccumulateGrad':\n"
    "        break\n"
)


def test_the_class_of_a_grad_fn_prints_and_compares_as_in_plain_torch() -> None:
    assert_same_as_plain(GRAD_FN_CLASSES)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        # What a node class holds is not handed out: its descriptors and methods.
        ("type(y.grad_fn).register_hook", ("register_hook",)),
        ("type(y.grad_fn).next_functions", ("next_functions",)),
        ("type(y.grad_fn).metadata", ("metadata",)),
        ("getattr(type(y.grad_fn), '__mro__')", ("__mro__",)),
        ("x.__class__.__mro__", ("__mro__",)),
        # `__class__` is `type()`: classes of functions, modules and classes stay refused.
        ("print.__class__", ("type(...)",)),
        ("torch.__class__", ("type(...)",)),
        ("type(y.grad_fn).__class__", ("type(...)",)),
    ],
)
def test_what_a_node_class_would_give_stays_refused(code: str, words: tuple[str, ...]) -> None:
    program = (
        f"import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\nv = {code}\n"
    )
    assert_refused(run_in_engine(program), *words)


@pytest.mark.parametrize(
    "code",
    [
        "x.__class__ = int\n",  # written, never read
        "class D(type(y.grad_fn)):\n    pass\n",  # a base: refused by the class statement
    ],
)
def test_a_class_is_never_written_nor_built_on(code: str) -> None:
    program = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n" + code
    assert_refused(run_in_engine(program))


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ("(x * 2).grad_fn", "cannot create"),
        ("(x * 2).grad_fn.next_functions[0][0]", "Cannot construct"),  # AccumulateGrad
    ],
)
def test_calling_a_node_class_is_torchs_own_error(node: str, message: str) -> None:
    program = f"import torch\nx = torch.ones(2, requires_grad=True)\nC = type({node})\nC(x)\n"
    result = run_in_engine(program)
    assert result.error is not None and message in result.error.message, result.error
    plain = run_plain(program)
    assert plain.error is not None and message in str(plain.error)


def test_the_class_of_a_node_that_torch_can_make_stays_refused() -> None:
    """``DelayedError(msg, n)`` and ``UndefinedGrad()`` make raw nodes, which a program
    could call (see NodeView): their classes are not handed out."""
    functions: Any = torch._C._functions
    for node in (functions.DelayedError("m", 1), functions.UndefinedGrad()):
        with pytest.raises(CodeRefusedAtRuntime, match="makes new autograd nodes"):
            guard._guarded_type(NodeView(node))


# 3. register_multi_grad_hook.

MULTI_GRAD_HOOK = (
    "a = torch.rand(2, 3, requires_grad=True)\n"
    "b = torch.rand(2, 3, requires_grad=True)\n"
    "c = a * b\n"
    "d = a * b\n"
    "def fn(grads):\n"
    "    print([g is not None for g in grads])\n"
    "handle = torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)\n"
    "c.sum().backward(retain_graph=True)\n"
    "c.sum().backward(inputs=(a,), retain_graph=True)\n"
    "handle.remove()\n"
    "c.sum().backward()\n"
    "seen = []\n"
    "from torch.autograd.graph import register_multi_grad_hook\n"
    "register_multi_grad_hook([a, b], lambda g: seen.append(g.shape), mode='any')\n"
    "(a * b).sum().backward()\n"
    "print(seen, a.grad)\n"
)


def test_a_multi_grad_hook_runs_as_in_plain_torch() -> None:
    assert_same_as_plain(MULTI_GRAD_HOOK)
    result = run_in_engine("import torch\n" + MULTI_GRAD_HOOK)
    assert printed(result)[:2] == ["[True, True, True, False]", "[True, False, True, False]"]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
@pytest.mark.parametrize("code", [MULTI_GRAD_HOOK, GRAD_FN_CLASSES, CLASS_NAMES])
def test_the_admissions_behind_the_walls(engine_process: EngineProcess, code: str) -> None:
    program = "import torch\n" + code
    result = engine_process.run(RunRequest(Program(code=program, steps=())))
    assert result.error is None, result.error
    plain = run_plain(program)
    assert plain.error is None, plain.error
    assert differences(result, plain) == []


# 4. Non-scalar backward.


def test_the_function_form_names_the_tensor_it_differentiates() -> None:
    code = "import torch\nx = torch.ones(3, requires_grad=True)\ny = x * 2\ntorch.autograd.backward(y)\n"
    result = run_in_engine(code)
    assert result.error is not None and result.error.kind == "non-scalar-backward"
    assert "`y`" in result.error.explanation and "torch.autograd`" not in result.error.explanation
    assert "`y.sum().backward()`" in result.error.fix


def test_the_non_scalar_explanation_gives_the_shape() -> None:
    code = "import torch\nx = torch.ones(3, requires_grad=True)\ny = x * 2\ny.backward()\n"
    result = run_in_engine(code)
    assert result.error is not None and result.error.kind == "non-scalar-backward"
    assert "`y` has shape [3]" in result.error.explanation


@pytest.mark.xfail(
    strict=True,
    reason=(
        "native_inputs._tensor_numpy copies a whole-number tensor's memory (a backward "
        "trusts the indices it saved; a write through numpy bumps no version counter), so "
        "`t.numpy()` of an int tensor shares nothing, unlike plain torch: silently other "
        "numbers. Owned by the red team; a read-only view would turn the write into an "
        "error to explain instead."
    ),
)
def test_a_whole_number_array_shares_the_tensors_memory() -> None:
    assert_same_as_plain("t = torch.arange(4)\na = t.numpy()\na[0] = 10\nprint(t)\n")
