"""Round 19's red team, the engine: the rule that lets a program's layer keep its own
``_names`` (commit 8b9a4ea: ``private_names.program_private_name``, harvested from the
library classes' code), the module-read cache, ``capture.none_grads`` and deep graphs,
read as an attacker who has the source. Each test is an attack that worked before its
fix, or one that held and must keep holding.

1. A class body binding a name torch's code uses on ``self`` without its class holding it
   (harvested, but only the *runtime* reads and writes were judged by the harvest): the
   body check (``guard._check_library_internals_kept``) compared the body's ``_names``
   with the library classes' dicts only. ``_backward_hooks``, ``_parameters``,
   ``_forward_hooks``... are instance attributes set by ``nn.Module.__init__`` (none in
   ``vars(nn.Module)``), so a body binding them as class attributes, with an ``__init__``
   that skips ``nn.Module``'s, handed torch's ``_call_impl`` hook dicts of the program's
   making: ``_backward_hooks = OrderedDict([(0, spy)])`` with ``_is_full_backward_hook =
   False`` ran torch's old-style module backward hook (``register_backward_hook``, refused
   as a name) on every call. Now the body check uses the same harvest
   (``private_names.names_used_by``) as the guard; a program's own body ``_names``
   (``_init_weights``, ``_norm``, ``_forward_alg``) still run.
2. A program's layer made a library class at run time: ``register_parametrization`` turns
   the layer's class into torch's ``ParametrizedNet`` (built on the program's ``Net``),
   which is not one of the program's classes, so the layer's own ``self._scale`` was
   refused from then on where plain torch runs it (a false refusal). Now a class torch's
   registration made over a program's class (``parametrize_stand_in.MADE_BY_REGISTERING``)
   keeps the program's ``_names``, judged with torch's made class as a library class: the
   names its properties hold (a parametrized ``self._w``) stay refused (a gap, not a hole:
   plain torch runs ``net._w`` through torch's property there). The made class gains a
   property with each registration, so it is harvested at each read, never kept (kept, a
   second registration's ``_w`` read through). The same for round 18's hook-name rule
   (``guard._program_hook_name``): the layer's own ``self.keep_hook`` was refused once
   parametrized.
3. A deep chain of ops (``y = y * a + b`` 40,000 times, a learner's long loop): the
   recorder reads every op's ``grad_fn``, and torch then frees each node through its
   Python object, one inside the other's free (not in its loop for deep graphs): the
   engine died of SIGSEGV letting the graph go (``engine-crashed``), where plain torch,
   which never read those ``grad_fn``, ran it. Now the OS wall lets the main thread's
   stack grow to 100 MiB (``os_wall.limits.DEEP_STACK_BYTES``, half a million nodes),
   and a run that made 200,000 nodes or more lets go of them newest first, each held
   until its turn (``node_of.let_go``, from ``run._run_once``): ``y = y + 0.001`` 600,000
   times (15 s of the 30 s time limit a learner can choose) overflowed even 100 MiB, and
   Linux leaves no more than ~128 MiB below the stack of a process started with the usual
   8 MiB limit. (A program's own ``a = None`` on such a chain mid-run, 25,000 ops later,
   freed it without a crash, as plain torch: measured, not tested here.)
4. (Held) ``none_grads`` reads ``.grad`` of a failing line's names: only of plain tensors
   and parameters, so a program's own ``grad`` property is not run again by the
   explanation (its print is there once, as in plain Python).
5. (Held) The module-read cache (``guard._MODULE_READS``): a module's name read in a loop
   is handed out as judged while the module holds the same object, and every number stays
   plain torch's.
"""

from __future__ import annotations

import sys

import pytest

from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from tests.corpus.checks import explained, matches, refused
from tests.corpus.harness import run_in_engine, run_plain

# 1. A class body standing in for torch's instance attributes.
SPY = """\
import torch
import torch.nn as nn
from collections import OrderedDict

seen = []


def spy(module, grad_in, grad_out):
    seen.append(len(grad_in))
    return (grad_in[0] * 1000,)


w = torch.ones(2, requires_grad=True)

"""
NO_INIT = """\
    _parameters = {}
    _buffers = {}
    _modules = {}
    _non_persistent_buffers_set = set()
    _backward_pre_hooks = OrderedDict()
    _forward_hooks = OrderedDict()
    _forward_hooks_with_kwargs = OrderedDict()
    _forward_hooks_always_called = OrderedDict()
    _forward_pre_hooks = OrderedDict()
    _forward_pre_hooks_with_kwargs = OrderedDict()
    training = True

    def __init__(self):
        pass

    def forward(self, x):
        return (x * w).sum()


n = Net()
x = torch.ones(2, requires_grad=True)
n(x).backward()
print(x.grad, w.grad, seen)
"""
ATTACK = (
    "class Net(nn.Module):\n"
    "    _is_full_backward_hook = False\n"
    "    _backward_hooks = OrderedDict([(0, spy)])\n"
)


def test_a_class_body_cannot_hand_torch_its_hook_dicts() -> None:
    assert refused(SPY + ATTACK + NO_INIT) == (
        "`class Net` cannot define `_backward_hooks`: Module uses that name itself, and "
        "torch's own code trusts what it finds there; give yours another name."
    )


@pytest.mark.parametrize(
    ("line", "owner"),
    [
        ("_is_full_backward_hook = False", "Module"),
        ("_parameters = {}", "Module"),
        ("_forward_pre_hooks = OrderedDict([(0, spy)])", "Module"),
        ("_non_persistent_buffers_set = set()", "Module"),
        ("_flat_weights = []", "LSTM"),
        ("_opt_called = True", "LRScheduler"),
    ],
)
def test_a_class_body_cannot_bind_a_name_torchs_code_uses(line: str, owner: str) -> None:
    base = {"LSTM": "nn.LSTM", "LRScheduler": "torch.optim.lr_scheduler.StepLR"}
    name = line.split(" = ")[0]
    code = SPY + f"class Net({base.get(owner, 'nn.Module')}):\n    {line}\nprint(1)\n"
    message = refused(code)
    assert message.startswith(f"`class Net` cannot define `{name}`: {owner} uses"), message


def test_the_old_style_hook_is_what_such_a_body_ran() -> None:
    """What the refused body did in plain torch: torch's module backward hook of the
    program's making, on every call (the engine ran the same before the fix)."""
    plain = run_plain(SPY + ATTACK + NO_INIT)
    assert plain.error is None, plain.error
    assert plain.printed == ["tensor([1000., 1000.]) tensor([1000., 1000.]) [1]"]


def test_a_class_bodys_own_underscore_names_run_as_plain_torch() -> None:
    matches(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    _scale = 2.0

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.constant_(module.bias, 0.5)

    def _norm(self, x):
        return x / x.norm()

    def forward(self, x):
        return self._norm(self.lin(x)) * self._scale


class Opt(torch.optim.SGD):
    _note = "plain SGD"


net = Net()
opt = Opt(net.parameters(), lr=0.1)
x = torch.randn(4, 3)
loss = net(x).pow(2).sum()
loss.backward()
opt.step()
print(Opt._note, net.lin.weight, net.lin.bias.grad)
"""
    )


# 2. A library class made at run time over the program's class.
PARAMETRIZED = """\
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P


class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Net(nn.Linear):
    def __init__(self):
        super().__init__(3, 3)
        self._scale = 3.0

    def forward(self, x):
        return super().forward(x) * self._scale


torch.manual_seed(0)
net = Net()
P.register_parametrization(net, "weight", Sym())
x = torch.randn(2, 3)
"""


def test_a_parametrized_layer_keeps_its_own_underscore_names() -> None:
    matches(
        PARAMETRIZED
        + "net._scale = net._scale + 1\n"
        + "z = net(x).sum()\nz.backward()\n"
        + "print(z, net._scale, net.parametrizations.weight.original.grad)\n"
    )


def test_a_parametrized_layer_keeps_its_own_hook_names() -> None:
    matches(
        PARAMETRIZED.replace(
            "        self._scale = 3.0\n",
            "        self._scale = 3.0\n        self.activations_hook = None\n\n"
            "    def keep_hook(self, g):\n        self.activations_hook = g * 2\n",
        ).replace(
            "        return super().forward(x) * self._scale\n",
            "        y = super().forward(x)\n        y.register_hook(self.keep_hook)\n"
            "        return y * self._scale\n",
        )
        + "z = net(x).sum()\nz.backward()\nprint(net.activations_hook)\n"
    )


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("d = net._parameters\n", "_parameters"),
        ("net._forward_pre_hooks = {}\n", "_forward_pre_hooks"),
        ("f = net._apply\n", "_apply"),
    ],
)
def test_a_parametrized_layers_torch_names_stay_refused(line: str, shown: str) -> None:
    message = refused(PARAMETRIZED + line)
    assert shown in message and "underscore" in message, message


def test_a_parametrized_underscore_tensor_stays_torchs() -> None:
    """torch's made class holds a property for the parametrized tensor: refused (a gap)."""
    code = PARAMETRIZED + (
        "net._w = nn.Parameter(torch.ones(3))\n"
        "P.register_parametrization(net, '_w', nn.Identity())\n"
        "print(net._w)\n"
    )
    message = refused(code)
    assert "ParametrizedNet._w" in message, message


# 3. A deep graph's free.
DEEP = """\
import torch
x = torch.ones(3, requires_grad=True)
y = x
for i in range(40000):
    y = y * 1.0001 + 0.001
loss = y.sum()
loss.backward()
print(x.grad)
y = None
print("freed")
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="forks a process per program")
def test_a_deep_chain_is_freed_in_the_real_engine(engine_process: EngineProcess) -> None:
    plain = run_plain(DEEP)
    assert plain.error is None and plain.printed[-1] == "freed", plain
    result = engine_process.run(RunRequest(Program(code=DEEP), time_limit=120.0))
    assert result.error is None, result.error
    assert [p.text for p in result.printed] == plain.printed


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="forks a process per program")
def test_a_chain_of_600000_nodes_is_freed_in_the_real_engine(
    engine_process: EngineProcess,
) -> None:
    code = DEEP.replace("range(40000)", "range(600000)").replace("y * 1.0001 + 0.001", "y + 0.001")
    result = engine_process.run(RunRequest(Program(code=code), time_limit=120.0))
    assert result.error is None, result.error


# 4. The explanation's `.grad` reads.
def test_explaining_a_failing_line_runs_no_grad_property_of_the_program() -> None:
    code = (
        "import torch\n"
        "class Holder:\n"
        "    @property\n"
        "    def grad(self):\n"
        "        print('read')\n"
        "        return None\n"
        "h = Holder()\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "print(h.grad, w.grad + 1)\n"
    )
    explained(code, "grad-is-none")
    result = run_in_engine(code)
    assert [p.text for p in result.printed] == run_plain(code).printed == ["read"]


# 5. The module-read cache.
def test_a_loops_module_reads_stay_plain_torchs() -> None:
    matches(
        "import torch\nimport torch.nn.functional as F\nx = torch.linspace(-1, 1, 5)\n"
        "x.requires_grad_(True)\ny = x\n"
        "for i in range(200):\n"
        "    y = torch.sin(y) + F.relu(y) * 0.5 + torch.nn.functional.gelu(y) * 0.1\n"
        "y.sum().backward()\nprint(y, x.grad)\n"
    )
