"""The doors issue 11 opened (classes, decorators, try/except, generators, optimizers,
DataLoader, hooks, ``type``/``getattr``/``setattr``, ``torch.cuda``...) and the attacks on
each: every one must end in a refusal naming what, with nothing reached."""

from __future__ import annotations

import pytest

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult


def run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code=code, steps=())))


def printed(result: RunResult) -> list[str]:
    return [p.text for p in result.printed]


# (program, a word the refusal must name)
ATTACKS = [
    # type() with three arguments builds classes outside the class statement's checks.
    pytest.param("T = type('X', (), {})", "type(name", id="type-3-args"),
    pytest.param("f = lambda: 0\nFT = type(f)", "function", id="type-of-function"),
    pytest.param("B = type(abs)", "builtin_function", id="type-of-builtin"),
    pytest.param("g = (i for i in [1])\nG = type(g)", "generator", id="type-of-generator"),
    pytest.param("M = type(torch)", "module", id="type-of-module"),
    # Metaclasses and bases outside the list.
    pytest.param("class M(type):\n    pass", "class M", id="base-type"),
    pytest.param("class T(torch.Tensor):\n    pass", "class T", id="base-tensor"),
    pytest.param("class G(torch.Generator):\n    pass", "class G", id="base-generator"),
    pytest.param(
        "import typing\nclass P(typing.NamedTuple):\n    x: int", "class P", id="base-namedtuple"
    ),
    pytest.param("class F(super):\n    pass", "class F", id="base-super"),
    # getattr/hasattr/setattr are the guard, not a way around it.
    pytest.param("getattr(torch, 'lo' + 'ad')", "torch.load", id="getattr-load"),
    pytest.param("hasattr(torch, '_C')", "underscore", id="hasattr-private"),
    pytest.param(
        "x = torch.ones(1)\ngetattr(x, '__di' + 'ct__')", "underscore", id="getattr-dunder"
    ),
    pytest.param("setattr(torch, 'load', print)", "cannot be changed", id="setattr-module"),
    pytest.param("torch.nn.Linear.forward = print", "cannot be changed", id="setattr-torch-class"),
    pytest.param("x = torch.ones(1)\nx.foo = 1", "cannot be changed", id="setattr-tensor"),
    pytest.param("math.pi = 3", "cannot be changed", id="setattr-math"),
    pytest.param("import random\nrandom.random = print", "cannot be changed", id="setattr-random"),
    # Frames: generators, exceptions.
    pytest.param(
        "g = (i for i in [1])\nf = getattr(g, 'gi_' + 'frame')", "gi_frame", id="gen-frame"
    ),
    pytest.param(
        "try:\n    1 / 0\nexcept Exception as e:\n    t = getattr(e, '__trace' + 'back__')",
        "underscore",
        id="exception-traceback",
    ),
    pytest.param(
        "try:\n    1 / 0\nexcept Exception as e:\n    w = e.with_traceback",
        "with_traceback",
        id="exception-with-traceback",
    ),
    pytest.param(
        "try:\n    [].pop()\nexcept IndexError as e:\n    o = getattr(e, '__context__')",
        "underscore",
        id="exception-context",
    ),
    # super() and constructors.
    pytest.param("s = super(int, 1)\ni = s.__init__", "__init__", id="super-foreign-init"),
    pytest.param("i = torch.Tensor.__init__", "__init__", id="tensor-slot-init"),
    pytest.param(
        "class A(torch.nn.Module):\n    def f(self):\n        return self._modules\nA().f()",
        "underscore",
        id="module-private",
    ),
    pytest.param(
        "class E(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
        "        return ctx._forward_cls\n    @staticmethod\n    def backward(ctx, g):\n"
        "        return g\nE.apply(torch.ones(1, requires_grad=True))",
        "underscore",
        id="ctx-private",
    ),
    # Modules now held: what they lead to is judged one by one.
    pytest.param(
        "import torch.utils\nc = torch.utils.cpp_extension", "cpp_extension", id="cpp-extension"
    ),
    pytest.param(
        "c = torch.utils.checkpoint.set_checkpoint_debug_enabled",
        "set_checkpoint_debug_enabled",
        id="utils-checkpoint-debug",
    ),
    pytest.param("d = torch.utils.data.dataloader", "dataloader", id="data-internals"),
    pytest.param("w = torch.utils.data.get_worker_info", "get_worker_info", id="worker-info"),
    pytest.param("m = torch.cuda.memory", "memory", id="cuda-memory"),
    pytest.param("s = torch.cuda.set_device", "set_device", id="cuda-set-device"),
    pytest.param("k = torch.backends.mkldnn", "mkldnn", id="backends-mkldnn"),
    pytest.param("v = torch.backends.cudnn.version", "version", id="cudnn-version"),
    pytest.param("s = torch.optim.swa_utils", "swa_utils", id="optim-swa"),
    pytest.param("f = torch.func.functionalize", "functionalize", id="func-functionalize"),
    pytest.param("import collections\na = collections.abc", "abc", id="collections-abc"),
    pytest.param("import random\nr = random.SystemRandom", "SystemRandom", id="random-system"),
    pytest.param(
        "import functools\nu = functools.update_wrapper", "update_wrapper", id="update-wrapper"
    ),
    pytest.param("import time\nt = time.get_clock_info", "get_clock_info", id="time-clock-info"),
    # Optimizers and schedulers: their hooks and internals stay out.
    pytest.param(
        "p = torch.nn.Parameter(torch.ones(1))\nopt = torch.optim.SGD([p], lr=0.1)\n"
        "opt.register_step_pre_hook(print)",
        "register_step_pre_hook",
        id="optimizer-hook",
    ),
    pytest.param("torch.optim.SGD.step = print", "cannot be changed", id="optimizer-class-write"),
    pytest.param(
        "p = torch.nn.Parameter(torch.ones(1))\nopt = torch.optim.SGD([p], lr=0.1)\n"
        "f = opt._patch_step_function",
        "underscore",
        id="optimizer-private",
    ),
    # DataLoader's worker processes.
    pytest.param(
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "dl = DataLoader(TensorDataset(torch.ones(4, 1)), batch_size=2, num_workers=2)\n"
        "for b in dl:\n    pass",
        "worker processes",
        id="dataloader-workers",
    ),
    # Hooks run the program's code from inside torch's C++ backward: still guarded.
    pytest.param(
        "x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: torch.load)\n"
        "x.sum().backward()",
        "torch.load",
        id="hook-from-cpp",
    ),
    pytest.param(
        "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
        "        return x * 2\n    @staticmethod\n    def backward(ctx, g):\n"
        "        return torch.save\nx = torch.ones(1, requires_grad=True)\n"
        "F.apply(x).sum().backward()",
        "torch.save",
        id="function-backward",
    ),
    pytest.param(
        "m = torch.nn.Linear(1, 1)\nm.register_forward_hook(lambda *a: torch.hub)\n"
        "m(torch.ones(1))",
        "torch.hub",
        id="module-hook",
    ),
    # functools.wraps copies attributes by name with plain getattr/setattr: the app's own
    # wraps copies a name and a docstring onto the program's functions only.
    pytest.param(
        "import functools\nfunctools.wraps(functools, updated=('__dict__',))(print)",
        "assigned=",
        id="wraps-updated",
    ),
    pytest.param(
        "from functools import wraps\nclass S:\n    pass\nwraps(S)(torch.nn.Module)",
        "function your program defines",
        id="wraps-onto-torch-class",
    ),
    # Schedulers' state_dict/load_state_dict copy and update `__dict__`s unguarded.
    pytest.param(
        "opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)\n"
        "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0)\nd = s.state_dict",
        "state_dict",
        id="scheduler-state-dict",
    ),
    # Still refused with one sentence: GPU and compilers.
    pytest.param("x = torch.ones(1).cuda()", "CPU", id="tensor-cuda"),
    pytest.param("m = torch.nn.Linear(1, 1).cuda()", "CPU", id="module-cuda"),
    pytest.param("f = torch.jit.script", "jit", id="jit"),
    pytest.param("f = torch.compile", "compile", id="compile"),
]


@pytest.mark.parametrize(("code", "named"), ATTACKS)
def test_attack_is_refused(code: str, named: str) -> None:
    result = run(code)
    assert result.error is not None, "the attack ran"
    assert result.error.kind == "unsafe-code", result.error
    assert named.lower() in result.error.message.lower(), result.error.message


@pytest.mark.parametrize(
    "handler", ["except Exception:", "except:", "except (ValueError, Exception):"]
)
def test_a_refusal_cannot_be_caught(handler: str) -> None:
    result = run(f"try:\n    f = torch.load\n{handler}\n    print('swallowed')\nprint('after')\n")
    assert result.error is not None and result.error.kind == "unsafe-code"
    assert printed(result) == []


def test_finally_runs_but_the_refusal_still_ends_the_run() -> None:
    result = run(
        "try:\n    f = getattr(torch, 'sa' + 've')\nfinally:\n    print('finally')\nprint('after')\n"
    )
    assert result.error is not None and result.error.kind == "unsafe-code"
    assert printed(result) == ["finally"]


def test_the_programs_own_plain_classes_keep_private_names() -> None:
    result = run(
        "class V:\n    def __init__(self):\n        self._x = 1\n        self._prev = set()\n"
        "v = V()\nv._y = v._x + 1\nprint(v._y, len(v._prev))\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["2 0"]


def test_cuda_is_available_answers_false_and_says_so_once() -> None:
    result = run(
        "for i in range(3):\n"
        "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "x = torch.ones(2, device=device, requires_grad=True)\nprint(device)\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["cpu"]
    notes = [w for w in result.warnings if w.kind == "cpu-only"]
    assert len(notes) == 1 and notes[0].severity == "warning"


def test_hooks_and_custom_functions_run_once_per_backward() -> None:
    """The engine computes no Jacobian around program code inside autograd: a hook or a
    custom backward runs exactly as often as in plain torch."""
    result = run(
        "calls = []\nx = torch.ones(3, requires_grad=True)\ny = x * 2\n"
        "y.register_hook(lambda g: calls.append(1))\n"
        "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, t):\n"
        "        return t * 3\n    @staticmethod\n    def backward(ctx, g):\n"
        "        calls.append(2)\n        return g * 3\n"
        "F.apply(y).sum().backward()\nprint(calls)\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["[2, 1]"]  # torch's order: F's backward, then y's hook


def test_state_changing_program_leaves_nothing_behind(engine_process) -> None:  # type: ignore[no-untyped-def]
    lesson = RunRequest(
        Program(
            code="x = torch.tensor([1., 2.], requires_grad=True)\ny = (x.exp() * torch.rand(2)).sum()\n"
        )
    )
    changer = RunRequest(
        Program(
            code="import random\ntorch.set_default_dtype(torch.float64)\nrandom.seed(7)\n"
            "class A(torch.nn.Module):\n    pass\nA.extra = 1\ntorch.manual_seed(3)\n"
            "x = torch.ones(1, requires_grad=True)\nprint(random.random())\n"
        )
    )
    first = engine_process.run(lesson)
    once = engine_process.run(changer)
    twice = engine_process.run(changer)  # the same program again: the same numbers
    again = engine_process.run(lesson)
    assert once.error is None, once.error
    assert printed(once) == printed(twice)
    assert first.tensors["x"].grad == again.tensors["x"].grad
    assert first.output_value == again.output_value
    assert again.tensors["x"].value.dtype == first.tensors["x"].value.dtype
