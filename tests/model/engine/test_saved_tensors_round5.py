"""Attacks on the doors that "Hooks for autograd saved tensors" opened.

What is new: a C++ autograd node's ``_saved_*``/``_raw_saved_*`` values, the stand-ins
for ``torch.autograd.graph.saved_tensors_hooks``, ``save_on_cpu`` and
``disable_saved_tensors_hooks``, and a saved tensor's ``register_hooks``. Each group below
tries one way past them:

1. other ``_private`` names reached through a node or a saved tensor;
2. unpack hooks that hand backward's C++ kernels a tensor other than the one saved;
3. hooks that outlive their run (a generator suspended inside the ``with``);
4. the engine's own recording running the program's hooks more often than plain torch;
5. the hooks torch keeps process-wide or on nodes, which stay refused.

Most run in this process (``run_program``, the Python wall only) and do between two runs
what the engine's owner does (collect, put the settings back, collect).
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
import torch

from gui.model.engine import autograd_nodes, pristine
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from tests.model.engine.sandbox_helpers import (
    assert_refused,
    assert_same_as_plain,
    between_runs,
    printed,
)


def run(code: str, time_limit: float = 5.0) -> RunResult:
    return run_program(RunRequest(Program(code="import torch\n" + code), time_limit=time_limit))


def hooks_on_the_stack() -> bool:
    autograd: Any = torch._C._autograd
    return autograd._top_saved_tensors_default_hooks(True) is not None


# -- 1. a node's saved values, and nothing else private ------------------------------------

PRIVATE_THROUGH_NODES = [
    "y.grad_fn._register_hook_dict",
    "y.grad_fn._input_metadata",
    "y.grad_fn._sequence_nr",
    "y.grad_fn._set_sequence_nr",
    "y.grad_fn._saved_self._version",
    "y.grad_fn._saved_self._base",
    "y.grad_fn._raw_saved_self._pybind11_conduit_v1_",
    "y.grad_fn._raw_saved_self._node",
    "type(y.grad_fn._raw_saved_self)",
    "y.grad_fn._raw_saved_self.__init__",
    "type(y.grad_fn)._saved_self",  # the class's getter itself, not a node's value
    "getattr(type(y.grad_fn), '_raw_saved_self')",
    "y.grad_fn._saved_nothing",
    "y.grad_fn.next_functions[0][0]._saved_self",  # AccumulateGrad has no such getter
    "torch.autograd.graph._engine_run_backward",
    "torch.autograd.graph.threading",
    "torch.autograd.graph.log",
    "torch.autograd.graph.Node",
    "torch.autograd.graph.GradientEdge",
    "torch.autograd.graph.get_gradient_edge",
    "torch.autograd.graph.increment_version",
    "torch.autograd.graph.allow_mutation_on_saved_tensors",
    "torch.autograd.graph.TorchDispatchMode",
    "torch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch",
]


@pytest.mark.parametrize("reach", PRIVATE_THROUGH_NODES)
def test_a_node_hands_out_its_saved_values_only(reach: str) -> None:
    """``_saved_*`` and ``_raw_saved_*`` are allowed on exactly torch's C++ node classes,
    as the getters those classes define; every other private name of a node, of a saved
    tensor or of ``torch.autograd.graph`` stays refused, and so does what the graph module
    imports."""
    code = f"x = torch.randn(3, requires_grad=True)\ny = x.pow(2)\nv = {reach}\nprint('reached')\n"
    result = run(code)
    assert_refused(result)
    assert printed(result) == []


def test_a_custom_functions_node_has_no_saved_getters() -> None:
    """A custom Function's node is the program's class's ``_backward_cls`` (Python, not a
    class of ``torch._C._functions``): its private names stay refused."""
    code = (
        "class F(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * 2\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g * 2\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "y = F.apply(x)\n"
        "print(y.grad_fn._saved_tensors)\n"
    )
    assert_refused(run(code))


def test_saved_values_of_every_kind_read_as_in_plain_torch() -> None:
    """Tensors, ints, tuples of sizes, None, a bool and a freed value (an error)."""
    assert_same_as_plain(
        "x = torch.randn(2, 3, requires_grad=True)\n"
        "m = x.max(1)\n"
        "print(m.values.grad_fn._saved_dim, m.values.grad_fn._saved_keepdim)\n"
        "print(m.values.grad_fn._saved_indices, m.values.grad_fn._saved_self_sym_sizes)\n"
        "s = x.sum(dim=(0, 1))\n"
        "print(s.grad_fn._saved_self_sym_sizes, s.grad_fn._saved_dim)\n"
        "y = torch.nn.functional.softmax(x, 1)\n"
        "print(y.grad_fn._saved_result.equal(y), y.grad_fn._saved_dim)\n"
        "raw = (x * 2).grad_fn._raw_saved_self\n"
        "print(raw)\n"
        "z = x.exp()\n"
        "z.sum().backward()\n"
        "try:\n"
        "    z.grad_fn._saved_result\n"
        "except RuntimeError as e:\n"
        "    print('freed')\n"
    )


# -- 2. what unpack returns stands for the tensor packed --------------------------------------

# Max pooling's backward writes each gradient at the position its saved indices name, with
# no bounds check in the CPU kernel: an index past the end is a write past the buffer.
POOL = (
    "x = torch.randn(1, 1, 4, 4, requires_grad=True)\n"
    "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
    "    y = torch.nn.functional.max_pool2d(x, 2)\n"
    "y.sum().backward()\n"
    "print('backward ran')\n"
)
WRONG_UNPACKS = [
    pytest.param(
        "def pack(t):\n    return t\n"
        "def unpack(t):\n"
        "    if t.dtype == torch.int64:\n"
        "        return t + 10_000_000\n"
        "    return t\n",
        id="indices-past-the-end",
    ),
    pytest.param(
        "def pack(t):\n"
        "    if t.dtype == torch.int64:\n"
        "        t.add_(10_000_000)\n"
        "    return t\n"
        "def unpack(t):\n    return t\n",
        id="indices-changed-in-place-by-pack",
    ),
    pytest.param(
        "def pack(t):\n    return t\ndef unpack(t):\n    return torch.zeros(1000, dtype=t.dtype)\n",
        id="another-shape",
    ),
    pytest.param(
        "def pack(t):\n    return t\n"
        "def unpack(t):\n    return t.double() if t.is_floating_point() else t\n",
        id="another-dtype",
    ),
    pytest.param(
        "def pack(t):\n    return t\n"
        "def unpack(t):\n    return t.to_sparse() if t.is_floating_point() else t\n",
        id="another-layout",
    ),
    pytest.param(
        "def pack(t):\n    return t\n"
        "def unpack(t):\n    return t.resize_(100) if t.dtype == torch.int64 else t\n",
        id="resized",
    ),
]


@pytest.mark.parametrize("hooks", WRONG_UNPACKS)
def test_unpack_cannot_hand_backward_another_tensor(hooks: str) -> None:
    """torch checks only that unpack returns a tensor (with hooks it keeps no version
    counter): indices past the end reached max pooling's backward kernel, which writes
    where they point. The unpacked tensor must be like the one packed: shape, dtype,
    layout, device, and for whole numbers the very values (kept before pack ran)."""
    result = run(hooks + POOL)
    if "add_" in hooks:  # torch notices this one itself (the version counter, during pack)
        assert result.error is not None and "in place" in result.error.message
    else:
        assert_refused(result, "unpack_hook")
    assert printed(result) == []


def test_a_later_unpack_cannot_change_what_was_checked() -> None:
    """A node unpacks its saved tensors one after the other, then computes: the program's
    unpack for the weight ran after the target's was checked, and changed the target in
    place (plain torch's backward then read targets 2001 and more; nll_loss checks them,
    max pooling's backward does not check its indices). Backward gets tensors no one else
    holds: the tampering changes nothing."""
    result = run(
        "import torch.nn.functional as F\n"
        "x = torch.randn(4, 3, requires_grad=True)\n"
        "w = torch.tensor([1.0, 2.0, 3.0])\n"
        "target = torch.tensor([0, 2, 1, 2])\n"
        "F.nll_loss(x.log_softmax(1), target, weight=w).backward()\n"
        "expected = x.grad.clone()\n"
        "x.grad = None\n"
        "kept = {}\n"
        "order = []\n"
        "def pack(t):\n"
        "    kept[t.dtype] = t\n"
        "    return t\n"
        "def unpack(t):\n"
        "    order.append(t.dtype)\n"
        "    if t.dtype == torch.float32 and torch.int64 in order:\n"
        "        kept[torch.int64].add_(1000)\n"
        "    return t\n"
        "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
        "    loss = F.nll_loss(x.log_softmax(1), target, weight=w)\n"
        "loss.backward()\n"
        "print(torch.int64 in order, torch.equal(x.grad, expected))\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["True True"]


@pytest.mark.parametrize("unpack", ["'a string'", "None", "[t]", "torch.nn.Linear(2, 2)", "unpack"])
def test_unpack_returning_a_non_tensor_fails_as_in_plain_torch(unpack: str) -> None:
    """torch's own TypeError, explained at the program's line; nothing of the app is
    handed out."""
    code = (
        "def pack(t):\n    return t\n"
        f"def unpack(t):\n    return {unpack}\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
        "    y = x * x\n"
        "y.sum().backward()\n"
    )
    result = run(code)
    assert result.error is not None and result.error.kind != "unsafe-code", result.error
    assert "unpack_hook" in result.error.message or "Tensor" in result.error.message


def test_pack_may_return_anything_of_the_programs() -> None:
    """The tutorial's point: packed objects are any Python object (ints, tuples with a
    lambda, the program's own class); unpack makes the tensor again."""
    assert_same_as_plain(
        "class Box:\n"
        "    def __init__(self, t):\n"
        "        self.t = t.detach().clone()\n"
        "x = torch.randn(4, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(Box, lambda b: b.t):\n"
        "    y = (x * x).sin()\n"
        "y.sum().backward()\n"
        "print(x.grad)\n"
        "i = torch.tensor([2, 0])\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: ('kept', t), lambda p: p[1]):\n"
        "    z = x[i].exp()\n"
        "z.sum().backward()\n"
        "print(x.grad)\n"
    )


def test_what_the_stand_in_stores_stays_the_apps() -> None:
    """The pair handed to torch, what a saved tensor's ``data``/``unpack_hook`` give back
    while the hooks are set, and the context manager's attributes: app objects the program
    cannot hold, change or subclass."""
    base = (
        "x = torch.randn(3, requires_grad=True)\n"
        "h = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)\n"
        "with h:\n"
        "    y = x * x\n"
    )
    for tail in (
        "v = h.pack_hook\n",
        "v = h.unpack_hook\n",
        "h.pack_hook = print\n",
        "v = h._entered\n",
        "class H(torch.autograd.graph.saved_tensors_hooks):\n    pass\n",
        "class S(torch.autograd.graph.save_on_cpu):\n    pass\n",
        "v = torch.autograd.graph.save_on_cpu(pin_memory=True).pack_hook\n",
    ):
        assert_refused(run(base + tail))


@pytest.mark.parametrize("name", ["data", "unpack", "unpack_hook", "_node", "_name"])
def test_a_raw_saved_tensor_offers_register_hooks_only(name: str) -> None:
    """torch's ``SavedTensor`` hands out its packed data, its unpack function and
    ``unpack()``; the program's stand-in has ``register_hooks`` and nothing else."""
    code = (
        "x = torch.randn(3, requires_grad=True)\n"
        "y = x * x\n"
        "y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)\n"
        f"v = y.grad_fn._raw_saved_self.{name}\n"
        "print('reached')\n"
    )
    result = run(code)
    assert result.error is not None
    assert printed(result) == []


def test_a_raw_saved_tensor_keeps_its_node_alive() -> None:
    """torch's ``_raw_saved_self`` is a bare reference into the node's C++ memory: with
    the power dropped at once, its ``data`` reads freed memory and ``register_hooks``
    writes there (pybind's ``return_value_policy::reference``, no keep-alive). The program's holds the node: pack runs on the very
    tensor saved, however much is made and dropped in between."""
    result = run(
        "x = torch.randn(5, requires_grad=True)\n"
        "raws = [x.pow(2).grad_fn._raw_saved_self for _ in range(50)]\n"
        "junk = [(x * 3).exp() for _ in range(500)]\n"
        "calls = []\n"
        "for raw in raws:\n"
        "    raw.register_hooks(lambda t: calls.append(t.equal(x)) or t, lambda t: t)\n"
        "print(len(calls), all(calls))\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["50 True"]


@pytest.mark.parametrize(
    "args",
    [
        "device_type='compile'",
        "device_type='_C'",
        "pin_memory='yes'",
        "pin_memory=1",
        "True, 'xpu'",
    ],
)
def test_save_on_cpu_takes_a_device_type_only(args: str) -> None:
    """torch's ``save_on_cpu`` reads ``getattr(torch, device_type)`` and calls its
    ``is_available()``: any name of torch, so only 'cuda' or 'cpu', and a plain bool."""
    code = (
        f"with torch.autograd.graph.save_on_cpu({args}):\n"
        "    y = torch.ones(2, requires_grad=True) * 2\n"
    )
    assert_refused(run(code), "save_on_cpu")


def test_register_hooks_is_the_checked_one() -> None:
    """``_raw_saved_self.register_hooks`` runs pack at once and unpack at each access, as
    plain torch does; a second pair is torch's error; wrong tensors are refused too."""
    assert_same_as_plain(
        "x = torch.randn(5, requires_grad=True)\n"
        "y = x.pow(2)\n"
        "calls = []\n"
        "y.grad_fn._raw_saved_self.register_hooks(lambda t: calls.append('pack') or t,\n"
        "                                         lambda t: calls.append('unpack') or t)\n"
        "print(calls)\n"
        "print(y.grad_fn._saved_self)\n"
        "print(calls)\n"
        "try:\n"
        "    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)\n"
        "except RuntimeError:\n"
        "    print('only one pair')\n"
        "y.sum().backward()\n"
        "print(calls, x.grad)\n"
    )
    result = run(
        "x = torch.randn(5, requires_grad=True)\n"
        "y = x.pow(2)\n"
        "y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t[:2])\n"
        "y.sum().backward()\n"
    )
    assert_refused(result, "unpack_hook")


# -- 3. nothing outlives the run ------------------------------------------------------------

# The generator is kept alive by the hooks stack itself: `pack` holds the cell `box`,
# which holds the suspended generator inside the `with` (the engine empties the program's
# namespace after its run: a global would not be enough).
HOOKS_LEFT_OPEN = """
def leave_open():
    box = []
    def pack(t):
        print('packed by the last run', len(box))
        return t
    def unpack(t):
        print('unpacked by the last run')
        return t
    def stuck():
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            yield 1
    it = stuck()
    box.append(it)
    next(it)
leave_open()
x = torch.ones(2, requires_grad=True)
y = (x * x).sum()
"""
# Kept alive by a hook on a tensor of the graph, whose cycle the collector cannot see.
DISABLED_LEFT_OPEN = """
def stuck():
    with torch.autograd.graph.disable_saved_tensors_hooks('left disabled by the last run'):
        yield 1
it = stuck()
next(it)
v = torch.ones(2, requires_grad=True)
v.register_hook(lambda g, it=it: g)
u = v * 2
x = torch.ones(2, requires_grad=True)
y = (x * 3).sum()
"""
NORMAL = """
counts = {'pack': 0, 'unpack': 0}
def pack(t):
    counts['pack'] += 1
    return t
def unpack(t):
    counts['unpack'] += 1
    return t
x = torch.linspace(-1.0, 1.0, 6, requires_grad=True)
w = torch.arange(6.0, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x * w).exp()
loss = (y * y).sum()
loss.backward()
print(counts, x.grad, w.grad)
"""


@pytest.mark.parametrize(
    "hostile",
    [
        pytest.param(HOOKS_LEFT_OPEN, id="hooks-left-open"),
        pytest.param(DISABLED_LEFT_OPEN, id="hooks-left-disabled"),
    ],
)
def test_a_hook_stack_left_open_does_not_reach_the_next_run(
    owner_cycle: pristine.Settings, hostile: str
) -> None:
    """A hostile program leaves its pair on autograd's (thread's) stack, or the stack
    disabled, held there by the stack itself; the process then runs a normal program, the
    way a re-run reuses it. Every number and line of the normal program equals plain
    torch's, and nothing of the hostile one runs."""
    first = run(hostile)
    assert first.error is None, first.error
    between_runs(owner_cycle)
    assert not hooks_on_the_stack()
    assert pristine.capture() == owner_cycle
    assert_same_as_plain(NORMAL)
    again = run(hostile)
    between_runs(owner_cycle)
    assert printed(again) == printed(first)


def test_a_with_block_of_an_earlier_run_pops_nothing_later(
    owner_cycle: pristine.Settings,
) -> None:
    """The collector may close a suspended generator of an earlier run at any later
    moment; its `with` must not pop the pair the current run pushed (torch's own would),
    nor switch the hooks back on or off."""
    autograd: Any = torch._C._autograd
    stale = autograd_nodes._SavedTensorsHooks(lambda t: t, lambda t: t)
    stale.__enter__()
    between_runs(owner_cycle)  # the stack emptied, a new generation
    current = autograd_nodes._SavedTensorsHooks(lambda t: t, lambda t: t)
    current.__enter__()
    top = autograd._top_saved_tensors_default_hooks(True)
    stale.__exit__(None, None, None)
    assert autograd._top_saved_tensors_default_hooks(True) == top
    current.__exit__(None, None, None)
    assert not hooks_on_the_stack()

    disabled = autograd_nodes._disable_saved_tensors_hooks("stale")
    disabled.__enter__()
    between_runs(owner_cycle)
    assert autograd._saved_tensors_hooks_is_enabled()
    again = autograd_nodes._disable_saved_tensors_hooks("this run's")
    again.__enter__()
    disabled.__exit__(None, None, None)  # would put back "enabled" in torch's own
    assert autograd._saved_tensors_hooks_get_disabled_error_message() == "this run's"
    again.__exit__(None, None, None)
    assert autograd._saved_tensors_hooks_is_enabled()


def test_nested_and_generator_hooks_behave_as_in_plain_torch() -> None:
    """Within one run the stand-ins push and pop exactly as torch's: the innermost pair
    wins, a generator suspended inside its `with` keeps it for what follows."""
    assert_same_as_plain(
        "def tag(name):\n"
        "    return lambda t: print('pack', name) or t\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(tag('outer'), lambda t: t):\n"
        "    a = x * x\n"
        "    with torch.autograd.graph.saved_tensors_hooks(tag('inner'), lambda t: t):\n"
        "        b = a * x\n"
        "    c = b * x\n"
        "def gen():\n"
        "    with torch.autograd.graph.saved_tensors_hooks(tag('gen'), lambda t: t):\n"
        "        yield\n"
        "g = gen()\n"
        "next(g)\n"
        "d = c * x\n"
        "next(g, None)\n"
        "e = d * x\n"
        "e.sum().backward()\n"
        "with torch.autograd.graph.disable_saved_tensors_hooks('no hooks here'):\n"
        "    try:\n"
        "        with torch.autograd.graph.saved_tensors_hooks(tag('never'), lambda t: t):\n"
        "            pass\n"
        "    except RuntimeError as error:\n"
        "        print(error)\n"
        "print(x.grad)\n"
    )


# -- 4. the engine's recording runs the hooks no more than plain torch ------------------------


def test_hooks_run_as_often_as_in_plain_torch_with_the_engines_recording() -> None:
    """The engine walks each graph (reading every node's saved values) and would compute a
    Jacobian with extra backward passes: neither may call the program's pack or unpack.
    Counted and printed, compared with plain torch, with grad, retain_graph and a second
    backward."""
    assert_same_as_plain(
        NORMAL + "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
        "    z = (x.sin() * w).sum()\n"
        "z.backward(retain_graph=True)\n"
        "g, = torch.autograd.grad(z, x)\n"
        "print(counts, g)\n"
        "with torch.autograd.graph.save_on_cpu():\n"
        "    q = (x.tanh() ** 2).sum()\n"
        "q.backward()\n"
        "print(counts, x.grad)\n"
    )


def test_a_hook_that_calls_backward_again() -> None:
    """An unpack that runs another backward (re-entering torch's engine, and the app's
    recorded backward) gives plain torch's numbers."""
    assert_same_as_plain(
        "side = torch.ones(3, requires_grad=True)\n"
        "def unpack(t):\n"
        "    with torch.enable_grad():\n"
        "        (side * t.detach()).sum().backward()\n"
        "    return t\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):\n"
        "    y = (x * x).sum()\n"
        "y.backward()\n"
        "print(x.grad, side.grad)\n"
    )


ODD_BUT_FINE = [
    pytest.param(
        "x = torch.randn(3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):\n"
        "    try:\n"
        "        g = torch.func.grad(lambda v: (v * v).sum())(x)\n"
        "        print(g)\n"
        "    except RuntimeError as e:\n"
        "        print('error', str(e)[:60])\n",
        id="func",
    ),
    pytest.param(
        "def pack(t):\n"
        "    with torch.autograd.graph.saved_tensors_hooks(lambda u: u, lambda u: u):\n"
        "        s = (t * 2).sum()\n"
        "    return t\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):\n"
        "    y = (x * x).sum()\n"
        "y.backward()\n"
        "print(x.grad)\n",
        id="pack-nested",
    ),
    pytest.param(
        "cnt = [0, 0]\n"
        "def pack(t):\n"
        "    cnt[0] += 1\n"
        "    return t\n"
        "def unpack(t):\n"
        "    cnt[1] += 1\n"
        "    return t\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
        "    y = (x ** 3).sum()\n"
        "    g, = torch.autograd.grad(y, x, create_graph=True)\n"
        "    g.sum().backward()\n"
        "print(cnt, x.grad)\n",
        id="create-graph",
    ),
    pytest.param(
        "class Sq(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * x\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        x, = ctx.saved_tensors\n"
        "        return 2 * x * g\n"
        "log = []\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: log.append('p') or t, lambda t: log.append('u') or t):\n"
        "    y = Sq.apply(x).sum()\n"
        "y.backward()\n"
        "print(log, x.grad)\n",
        id="custom-function",
    ),
    pytest.param(
        "import torch.nn as nn\n"
        "torch.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "X = torch.randn(16, 4); Y = torch.randn(16, 1)\n"
        "n = [0]\n"
        "def pack(t):\n"
        "    n[0] += 1\n"
        "    return t.detach().clone()\n"
        "for step in range(5):\n"
        "    opt.zero_grad()\n"
        "    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):\n"
        "        loss = ((model(X) - Y) ** 2).mean()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "print(n, loss.item())\n",
        id="module-train",
    ),
]

ODD_BUT_FINE.append(
    pytest.param(
        "x = torch.randn(3, requires_grad=True)\n"
        "with torch.autograd.graph.disable_saved_tensors_hooks('hooks are off here'):\n"
        "    y = x * x * 2\n"
        "    y.backward(torch.ones(3))\n"
        "    z = x.sin().sum()\n"
        "    z.backward()\n"
        "print(x.grad)\n",
        id="disabled-while-the-engine-records",
    )
)

ODD_BUT_FINE.append(
    pytest.param(
        "from torch.autograd.graph import saved_tensors_hooks, save_on_cpu\n"
        "import torch.autograd.graph\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "with saved_tensors_hooks(lambda t: t * 2, lambda t: t / 2), save_on_cpu():\n"
        "    y = (x.exp() * x).sum()\n"
        "y.backward()\n"
        "print(x.grad, isinstance(save_on_cpu(), torch.autograd.graph.saved_tensors_hooks))\n",
        id="imported-by-name",
    )
)


@pytest.mark.parametrize("code", ODD_BUT_FINE)
def test_hooks_with_the_rest_of_autograd_match_plain_torch(code: str) -> None:
    """torch.func inside the hooks, hooks nested inside pack, create_graph, a custom
    Function's save_for_backward, a training loop: as in plain torch, number for number."""
    assert_same_as_plain(code)


def test_the_engine_computes_no_jacobian_while_saved_hooks_exist() -> None:
    result = run(
        "x = torch.ones(3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):\n"
        "    y = (x * x).sum()\n"
        "y.backward()\n"
    )
    assert result.error is None, result.error
    assert result.steps and not result.steps[0].jacobians
    assert "its own code inside autograd" in (result.steps[0].jacobian_note or "")


# -- 5. what stays refused --------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        # register_multi_grad_hook: admitted in round 11 (per tensor, test_realcode_round11).
        "x = torch.ones(2, requires_grad=True)\n(x * x).grad_fn._register_hook_dict(x)\n",
        "torch._C._autograd._push_saved_tensors_default_hooks(print, print)\n",
        "with torch.autograd.graph.allow_mutation_on_saved_tensors():\n    pass\n",
        "from torch.autograd.graph import _engine_run_backward\n",
        "from torch.autograd.graph import Node\n",
        "from torch.autograd.graph import increment_version\n",
        "import torch.autograd.graph as g\nv = g.torch._C\n",
    ],
)
def test_process_wide_and_node_hooks_stay_refused(code: str) -> None:
    """Hooks on every backward of a graph task, on a node, or straight onto torch's stack:
    refused with one sentence, before or when reached."""
    result = run(code)
    assert_refused(result)
    assert result.error is not None and result.error.message.count(". ") <= 1


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="owners need fork")
@pytest.mark.parametrize(
    "hostile",
    [
        pytest.param(HOOKS_LEFT_OPEN, id="hooks-left-open"),
        pytest.param(DISABLED_LEFT_OPEN, id="hooks-left-disabled"),
    ],
)
def test_reruns_in_the_engine_start_with_no_hooks(
    engine_process: EngineProcess, hostile: str
) -> None:
    """The same through the real engine: a slider tick re-runs the program in the process
    that ran it (behind the operating-system wall too), which had kept the hooks open."""
    code = "import torch\n" + NORMAL + hostile  # a leak would change the next NORMAL
    runs = [engine_process.run(RunRequest(Program(code=code), time_limit=3.0)) for _ in range(3)]
    assert runs[0].error is None, runs[0].error
    assert [printed(r) for r in runs] == [printed(runs[0])] * 3
    assert [r.tensors["x"].grad for r in runs] == [runs[0].tensors["x"].grad] * 3
