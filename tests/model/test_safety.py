"""The safety layer: static refusals, the runtime guard, and real programs run end to end."""

from __future__ import annotations

import ast
import functools
import io
import math
import os
import subprocess
import sys
import traceback
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.autograd import Variable

from gui.model import safety
from gui.model.engine import guard as guard_module
from gui.model.engine.guard import CodeRefusedAtRuntime, guarded_getattr, safe_builtins, safe_import
from gui.model.safety import CodeRefused, check_source, prepare_for_execution

ROOT = Path(__file__).resolve().parents[2]


def run(source: str) -> tuple[dict[str, Any], list[str]]:
    """Run ``source`` exactly as the engine does; return its namespace and printed lines."""
    printed: list[str] = []

    def fake_print(*args: object, sep: str = " ", end: str = "\n") -> None:
        printed.append(sep.join(str(arg) for arg in args))

    code = compile(prepare_for_execution(check_source(source)), "<program>", "exec")
    namespace: dict[str, Any] = {
        "__builtins__": safe_builtins(fake_print),
        "torch": torch,
        "tensor": torch.tensor,
        "F": F,
        "math": math,
        "Variable": Variable,
    }
    exec(code, namespace)
    return namespace, printed


def refusal(source: str) -> CodeRefused:
    with pytest.raises(CodeRefused) as info:
        check_source(source)
    return info.value


# (source, line of the refused construct, text the construct must contain)
ESCAPES = [
    pytest.param("__import__('os')", 1, "__import__", id="dunder-import"),
    pytest.param("import os", 1, "import os", id="import-os"),
    pytest.param("from os import system", 1, "from os", id="from-os"),
    pytest.param("import subprocess", 1, "subprocess", id="import-subprocess"),
    pytest.param("import torch.utils.cpp_extension", 1, "cpp_extension", id="import-cpp-extension"),
    pytest.param("from torch.utils import cpp_extension", 1, "cpp_extension", id="from-cpp-ext"),
    pytest.param("from torch import load", 1, "from torch import load", id="from-torch-load"),
    pytest.param("from torch import hub", 1, "hub", id="from-torch-hub"),
    pytest.param("from torch import *", 1, "*", id="star-import"),
    pytest.param("from . import x", 1, "from .", id="relative-import"),
    pytest.param("import __future__", 1, "__future__", id="import-future-module"),
    pytest.param("open('/etc/passwd')", 1, "open", id="open"),
    pytest.param("eval('1')", 1, "eval", id="eval"),
    pytest.param("exec('x=1')", 1, "exec", id="exec"),
    pytest.param("compile('1', 'f', 'eval')", 1, "compile", id="compile"),
    pytest.param("delattr(torch, 'load')", 1, "delattr", id="delattr"),
    pytest.param("globals()", 1, "globals", id="globals"),
    pytest.param("locals()", 1, "locals", id="locals"),
    pytest.param("vars()", 1, "vars", id="vars"),
    pytest.param("breakpoint()", 1, "breakpoint", id="breakpoint"),
    pytest.param("x = 1\nx.__class__.__mro__", 2, "x.__class__", id="class-mro"),
    pytest.param("().__class__.__base__.__subclasses__()", 1, "__class__", id="subclasses"),
    pytest.param("print.__globals__", 1, "__globals__", id="func-globals"),
    pytest.param("__builtins__['eval']", 1, "__builtins__", id="builtins-name"),
    pytest.param("torch.load('f')", 1, "torch.load", id="torch-load"),
    pytest.param("x = tensor(1.)\ntorch.save(x, 'f')", 2, "torch.save", id="torch-save"),
    pytest.param("torch.hub.load('a', 'b')", 1, "torch.hub", id="torch-hub"),
    pytest.param("torch.ops.aten.add", 1, "torch.ops", id="torch-ops"),
    pytest.param("torch.utils.cpp_extension", 1, "torch.utils", id="torch-utils"),
    pytest.param("torch._C", 1, "torch._C", id="torch-private"),
    pytest.param("torch.jit.load('m')", 1, "torch.jit", id="torch-jit"),
    pytest.param("torch.from_file('f')", 1, "from_file", id="torch-from-file"),
    pytest.param("torch.compile(print)", 1, "torch.compile", id="torch-compile"),
    # `torch.cond` is refused by identity when reached (test_realcode_round14.py): the
    # name alone is also `torch.linalg.cond`.
    pytest.param("torch.UntypedStorage(4)", 1, "UntypedStorage", id="storage-class"),
    pytest.param("torch.set_default_tensor_type('os.x')", 1, "set_default", id="dotted-import"),
    pytest.param("torch.set_rng_state(s)", 1, "set_rng_state", id="set-rng-state"),
    pytest.param("torch.os.system('ls')", 1, "torch.os", id="torch-os"),
    pytest.param("import numpy as np\nnp.load('f')", 2, "np.load", id="np-load"),
    pytest.param("import numpy as np\nnp.fromfile('f')", 2, "fromfile", id="np-fromfile"),
    pytest.param("import numpy as np\nnp.memmap('f')", 2, "memmap", id="np-memmap"),
    pytest.param("import numpy as np\nnp.lib.npyio", 2, "np.lib", id="np-lib"),
    pytest.param("x = tensor(1.)\nx.numpy().tofile('f')", 2, "tofile", id="ndarray-tofile"),
    pytest.param("x = tensor(1.)\nx.numpy().dump('f')", 2, "dump", id="ndarray-dump"),
    pytest.param("x = tensor(1.)\nx.storage()", 2, "storage", id="tensor-storage"),
    pytest.param(
        "x = tensor(1.)\nx.register_backward_hook(print)",
        2,
        "register_backward_hook",
        id="old-backward-hook",
    ),
    pytest.param("g = (i for i in [1])\ng.gi_frame.f_back", 2, "gi_frame", id="gen-frame"),
    pytest.param("torch.Tensor.mro()", 1, "mro", id="mro"),
    pytest.param("class A(metaclass=M): pass", 1, "metaclass", id="class-metaclass"),
    pytest.param("class A(B, x=1): pass", 1, "x=", id="class-keyword"),
    pytest.param("class A:\n  def __del__(self): pass", 2, "__del__", id="dunder-del"),
    pytest.param(
        "class A:\n  def __getattribute__(self, n): pass",
        2,
        "__getattribute__",
        id="dunder-getattribute",
    ),
    pytest.param(
        "class A:\n  def __init_subclass__(cls): pass",
        2,
        "__init_subclass__",
        id="init-subclass",
    ),
    pytest.param("class A:\n  __slots__ = ()", 2, "__slots__", id="class-slots"),
    pytest.param("def __init__(self): pass", 1, "__init__", id="dunder-outside-class"),
    pytest.param("def f():\n  global __builtins__", 2, "__builtins__", id="global-builtins"),
    pytest.param("class A: pass\nA.__bases__", 2, "__bases__", id="class-bases"),
    pytest.param("x = tensor(1.)\nx.__class__ = int", 2, "__class__", id="class-store"),
    pytest.param("async def f(): pass", 1, "async function", id="async-def"),
    pytest.param("try:\n  pass\nexcept* ValueError: pass", 1, "try", id="try-star"),
    pytest.param("match 1:\n  case 1: pass", 1, "match statement", id="match"),
    pytest.param("x = 1\n'{0.__class__}'.format(x)", 2, "format", id="format-field-attr"),
    pytest.param("'{0:{1.__class__}}'.format(1, 2)", 1, "format", id="format-nested-spec"),
    pytest.param("'{0[x]}'.format({})", 1, "format", id="format-field-index"),
    pytest.param("with open('f') as fh: pass", 1, "with open", id="with-open"),
    pytest.param("def f(__x): pass", 1, "__x", id="dunder-argument"),
    pytest.param("print(__file__)", 1, "__file__", id="dunder-name"),
    pytest.param("torch._C = 1", 1, "torch._C", id="attribute-store"),
    pytest.param("x = [1]\ndel x.__class__", 2, "x.__class__", id="attribute-delete"),
    pytest.param("x = 1\n" * 501, 501, "program size", id="too-many-lines"),
    pytest.param("x = 1  # " + "a" * 20_000, 1, "program size", id="too-many-characters"),
    pytest.param("y = " + " + ".join(["1"] * 150), 1, "nesting depth", id="too-deep"),
]


@pytest.mark.parametrize(("source", "line", "construct"), ESCAPES)
def test_escape_is_refused_before_running(source: str, line: int, construct: str) -> None:
    refused = refusal(source)
    assert refused.kind == "unsafe-code"
    assert refused.line == line
    assert refused.column is not None and refused.column >= 1
    assert construct in refused.construct
    assert refused.construct in refused.message
    assert str(refused) == refused.message


def test_message_is_plain_and_points_at_the_name() -> None:
    refused = refusal("x = 1\nopen('/etc/passwd')")
    assert refused.message == "`open` is not available: programs here cannot read or write files."
    assert (refused.line, refused.column, refused.construct) == (2, 1, "open")
    attribute = refusal("x = 1\ny = x.__dict__")
    assert (attribute.line, attribute.column, attribute.construct) == (2, 7, "x.__dict__")


def test_first_offending_construct_in_source_order_wins() -> None:
    refused = refusal("x = 1\ny = open('f')\nimport os\n")
    assert (refused.line, refused.construct) == (2, "open")
    inner_first = refusal("x = 1\nx.__dict__.__base__")
    assert inner_first.construct == "x.__dict__"


@pytest.mark.parametrize(
    ("source", "line"),
    [
        pytest.param("x = (", 1, id="unclosed"),
        pytest.param("x = 1\nreturn x", 2, id="return-outside-function"),
        pytest.param("x = 1\n  y = 2", 2, id="indentation"),
    ],
)
def test_syntax_errors_are_reported_with_their_line(source: str, line: int) -> None:
    refused = refusal(source)
    assert refused.kind == "syntax-error"
    assert refused.line == line
    assert f"Line {line} is not valid Python" in refused.message


ACCEPTED = [
    pytest.param("x = Variable(torch.randn(2, 2), requires_grad=True)", id="variable"),
    pytest.param("import torch as T\nz = T.FloatTensor([1, 0])", id="torch-alias"),
    pytest.param(
        "x = tensor([1.], requires_grad=True)\n(x * 2).sum().backward()\nx.grad.data.zero_()",
        id="zero-grad",
    ),
    pytest.param("x = tensor([1.])\nx.grad = None\nx.data = x.data * 2", id="grad-store"),
    pytest.param("x = tensor([1.])\nx.requires_grad = True\ndel x.grad", id="grad-delete"),
    pytest.param("x = tensor([1.])\nprint(x.grad)\nprint(f'{x.grad}')", id="print"),
    pytest.param("a, b = 1, 2\ns = '{} {}'.format(a, b)", id="format-constant"),
    pytest.param("s = '{a:>{w}}'.format_map({'a': 1, 'w': 3})", id="format-map"),
    pytest.param("def f(q): return sum(q**2)", id="def"),
    pytest.param("for i in range(3):\n    print(i)", id="for-range"),
    pytest.param("ys = [i * i for i in range(3) if i]\nd = {k: v for k, v in []}", id="comp"),
    pytest.param("g = lambda t, *a, k=1, **kw: t + k", id="lambda"),
    pytest.param("x = tensor([1.])\nwith torch.no_grad():\n    x -= 0.1 * x", id="no-grad"),
    pytest.param("with torch.set_grad_enabled(False), torch.autograd.no_grad(): pass", id="w2"),
    pytest.param("from torch import no_grad\nwith no_grad(): pass", id="with-imported-name"),
    pytest.param("from __future__ import print_function", id="future"),
    pytest.param("import numpy as np\na = np.array([1., 2.])", id="numpy"),
    pytest.param("import torch.nn.functional as F2\nfrom torch.nn import functional", id="nnf"),
    pytest.param("from torch.autograd import Variable, grad, backward, functional", id="ag"),
    pytest.param("from torch import tensor, zeros, nn\nimport math", id="from-torch"),
    pytest.param("input = torch.randn(3)\ny = F.relu(input)", id="user-bound-input"),
    pytest.param("_tmp = 1\n_ = _tmp", id="single-underscore"),
    pytest.param("xs = [3, 1]\nxs.remove(3)\nxs.sort()", id="list-methods"),
    pytest.param("n = 0\nwhile (n := n + 1) < 3:\n    continue\nassert n == 3", id="walrus"),
    pytest.param("x: float = 1.0\nd = dict(**{'a': 1})", id="annotation-kwargs"),
]


@pytest.mark.parametrize("source", ACCEPTED)
def test_legitimate_programs_are_accepted_and_run(source: str) -> None:
    assert isinstance(check_source(source), ast.Module)
    run(source)


def test_prepare_routes_attribute_reads_and_keeps_positions() -> None:
    tree = check_source("x = tensor([1.])\nx.grad = None\ny = x.data.sum()\n")
    before = ast.dump(tree, include_attributes=True)
    prepared = prepare_for_execution(tree)
    assert ast.dump(tree, include_attributes=True) == before  # the input is not mutated
    text = ast.unparse(prepared)
    assert "__ae_getattr__(__ae_getattr__(x, 'data'), 'sum')()" in text
    assert "__ae_setter__(x)['grad'] = None" in text  # stores go through the guard too
    call = prepared.body[2].value
    assert (call.lineno, call.col_offset, call.end_col_offset) == (3, 4, 16)


def test_tracebacks_point_at_the_users_line() -> None:
    with pytest.raises(AttributeError) as info:
        run("x = tensor([1.])\ny = 2\nz = x.no_such_thing\n")
    frames = [f for f in traceback.extract_tb(info.tb) if f.filename == "<program>"]
    assert frames[-1].lineno == 3


def test_safety_imports_only_the_standard_library() -> None:
    check = (
        "import sys, gui.model.safety\n"
        "bad = {'torch', 'numpy', 'PySide6', 'pyqtgraph'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", check], cwd=ROOT, check=True, timeout=60)


def test_denylist_covers_the_documented_names() -> None:
    documented = {
        "load", "save", "from_file", "fromfile", "tofile", "loadtxt", "savetxt", "genfromtxt",
        "fromregex", "memmap", "open_memmap", "hub", "ops", "library", "classes", "jit",
        "compile", "distributed", "multiprocessing", "package", "onnx", "fx", "cpp_extension",
        "export", "profiler", "testing", "ctypeslib", "ctypes", "lib", "f2py", "distutils", "os",
        "sys", "subprocess", "builtins", "importlib", "shutil", "pathlib", "io", "socket",
        "pickle", "inspect", "register_backward_hook", "storage", "untyped_storage",
        "set_default_device", "set_num_threads", "set_num_interop_threads",
        "use_deterministic_algorithms", "set_anomaly_enabled", "system",
        "popen", "unlink", "write", "read", "numpy_file", "gi_frame", "tb_frame", "f_globals",
    }  # fmt: skip
    assert documented <= safety.DENIED_ATTRIBUTES
    assert {"torch", "tensor", "F", "math", "Variable"} == safety.ALLOWED_GLOBAL_NAMES
    assert not safety.SAFE_BUILTIN_NAMES & safety.DENIED_BUILTIN_NAMES


# -- the runtime guard ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("owner", "name"),
    [
        pytest.param(torch, "platform", id="torch.platform"),
        pytest.param(torch, "glob", id="torch.glob"),
        pytest.param(torch, "threading", id="torch.threading"),
        pytest.param(torch, "serialization", id="torch.serialization"),
        pytest.param(torch, "random", id="torch.random"),
        pytest.param(torch, "version", id="torch.version"),
        pytest.param(torch, "functional", id="torch.functional"),
        pytest.param(torch, "warnings", id="torch.warnings"),
        pytest.param(torch.autograd.graph, "threading", id="torch.autograd.graph.threading"),
        pytest.param(torch.nn, "modules", id="torch.nn.modules"),
        pytest.param(F, "dataclasses", id="F.dataclasses"),
        pytest.param(np, "emath", id="np.emath"),
        pytest.param(np, "rec", id="np.rec"),
        pytest.param(torch, "get_rng_state", id="function-in-torch.random"),
        pytest.param(torch, "classproperty", id="function-in-torch._utils"),
        pytest.param(torch, "CompilationUnit", id="class-in-torch.jit"),
        pytest.param(torch, "from_dlpack", id="function-in-torch.utils"),
        pytest.param(torch, "os", id="name-os"),
        pytest.param(torch, "sys", id="name-sys"),
        pytest.param(np, "load", id="name-load"),
        pytest.param(torch, "_C", id="name-private"),
        pytest.param(torch, "TypedStorage", id="name-storage"),
    ],
)
def test_guard_refuses_what_innocent_names_reach(owner: object, name: str) -> None:
    assert hasattr(owner, name)  # the danger is real in this torch/numpy
    with pytest.raises(CodeRefusedAtRuntime) as info:
        guarded_getattr(owner, name)
    assert name in info.value.message
    assert str(info.value) == info.value.message


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(os.system, id="os.system"),
        pytest.param(os, id="os-module"),
        pytest.param(open, id="open"),
        pytest.param(eval, id="eval"),
        pytest.param(type, id="type"),
        pytest.param(io.StringIO(), id="io-object"),
        pytest.param(sys._getframe(), id="frame"),
        pytest.param(functools.partial(os.system, "true"), id="partial"),
        pytest.param(torch.UntypedStorage(2), id="storage"),
        pytest.param(torch.load, id="torch.load"),
        pytest.param(np.save, id="np.save"),
        pytest.param(torch.nn.functional.warnings, id="warnings-module"),
    ],
)
def test_guard_judges_values_whatever_their_name(value: object) -> None:
    holder = types.SimpleNamespace(harmless=value)
    with pytest.raises(CodeRefusedAtRuntime):
        guarded_getattr(holder, "harmless")


def test_guard_lets_ordinary_attributes_through() -> None:
    x = torch.tensor([1.0], requires_grad=True)
    assert guarded_getattr(x, "grad") is None
    assert guarded_getattr(x, "requires_grad") is True
    assert guarded_getattr(x, "shape") == torch.Size([1])
    assert callable(guarded_getattr(x, "backward")) and callable(guarded_getattr(x, "sum"))
    assert guarded_getattr(torch.nn.functional, "relu") is F.relu
    assert guarded_getattr(math, "pi") == math.pi
    assert guarded_getattr(torch, "nn") is torch.nn
    assert guarded_getattr(torch, "float32") is torch.float32
    assert guarded_getattr(torch, "Tensor") is torch.Tensor
    assert guarded_getattr(np, "linalg") is np.linalg
    assert guarded_getattr(torch.autograd, "Variable") is Variable
    assert guarded_getattr("{} {}", "format")(1, 2) == "1 2"


@pytest.mark.parametrize(
    ("obj", "name"),
    [("{0.__class__}", "format"), ("{0:{1[0]}}", "format"), ("{a.b}", "format_map")],
)
def test_guard_refuses_format_templates_that_look_inside(obj: object, name: str) -> None:
    with pytest.raises(CodeRefusedAtRuntime):
        guarded_getattr(obj, name)
    with pytest.raises(CodeRefusedAtRuntime):
        guarded_getattr(str, name)


def test_guard_decides_the_common_case_from_its_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first read, a tensor's attribute and method are judged from the caches:
    neither the name rules nor the allowlist's walks run again (a training loop reads
    them millions of times; how fast that is, ``benchmarks/engine_speed.py`` measures)."""
    x = torch.tensor([1.0])
    for name in ("grad", "backward"):
        guarded_getattr(x, name)

    def consulted(*args: object) -> None:
        raise AssertionError("a decided read was judged again")

    allowlist = guard_module.allowlist()
    monkeypatch.setattr(allowlist, "method_allowed", consulted)
    monkeypatch.setattr(allowlist, "problem", consulted)
    monkeypatch.setattr(guard_module.safety, "attribute_refusal_reason", consulted)
    for _ in range(3):
        assert guarded_getattr(x, "grad") is None
        assert guarded_getattr(x, "backward") == x.backward


def test_safe_import_allows_exactly_the_documented_forms() -> None:
    assert safe_import("torch") is torch
    assert safe_import("torch.nn.functional") is torch  # `import a.b` binds `a`
    assert safe_import("torch.nn", None, None, ("functional",)).functional is F
    # `from a import b, c`: a stand-in module holding exactly the checked names.
    chosen = safe_import("torch.autograd", None, None, ("Variable", "grad"))
    assert chosen.Variable is Variable and chosen.grad is torch.autograd.grad
    assert not hasattr(chosen, "backward")
    chosen = safe_import("torch.autograd", None, None, ("functional",))
    assert chosen.functional is torch.autograd.functional
    assert safe_import("math") is math and safe_import("numpy") is np
    assert safe_import("__future__", None, None, ("annotations",)).annotations is not None
    # The shape C code uses (PyImport_Import: an empty list) for torch's own lazy imports.
    assert safe_import("torch.storage", None, None, [], 0) is torch


@pytest.mark.parametrize(
    ("name", "fromlist", "level"),
    [
        pytest.param("os", (), 0, id="os"),
        pytest.param("importlib", (), 0, id="importlib"),
        pytest.param("torch.utils.cpp_extension", (), 0, id="torch.utils.cpp_extension"),
        pytest.param("numpy.lib", (), 0, id="numpy.lib"),
        pytest.param("torch", ("load",), 0, id="from-torch-load"),
        pytest.param("torch", ("serialization",), 0, id="from-torch-serialization"),
        pytest.param("torch", ("*",), 0, id="star"),
        pytest.param("torch", (), 1, id="relative"),
        pytest.param("ae_not_a_module", [], 0, id="c-api-shape-for-unknown-module"),
    ],
)
def test_safe_import_refuses_the_rest(name: str, fromlist: object, level: int) -> None:
    with pytest.raises(CodeRefusedAtRuntime):
        safe_import(name, None, None, fromlist, level)  # type: ignore[arg-type]


def test_safe_builtins_hold_only_the_safe_names() -> None:
    printed: list[tuple[object, ...]] = []
    table = safe_builtins(lambda *args, **kwargs: printed.append(args))
    assert set(table) == safety.SAFE_BUILTIN_NAMES | safety.GUARDED_BUILTIN_NAMES | {
        "__import__",
        "__ae_getattr__",
        "__ae_setter__",
        "__ae_context__",
        "__build_class__",
    }
    assert table["type"] is not type and table["getattr"] is not getattr
    assert table["len"] is len and table["__import__"] is safe_import
    table["print"]("a", 1)  # type: ignore[operator]
    assert printed == [("a", 1)]


def test_runtime_refusal_reaches_the_program() -> None:
    with pytest.raises(CodeRefusedAtRuntime, match=r"torch\.platform"):
        run("p = torch.platform\n")
    with pytest.raises(CodeRefusedAtRuntime, match="serialization"):
        run("from torch import serialization\n")


# -- the learners' scenarios, run through the whole safety layer ----------------------


def test_scenario_1_why_sum() -> None:
    ns, _ = run(
        "x = tensor([3., 4., 10.]).requires_grad_()\n"
        "def f(q): return sum(q**2)\n"
        "y = f(x)\n"
        "name = y.grad_fn.name()\n"
        "y.backward()\n"
    )
    assert ns["name"] == "AddBackward0"
    assert ns["x"].grad.tolist() == [6.0, 8.0, 20.0]


def test_scenario_2_backward_on_a_vector_needs_a_gradient() -> None:
    ns, _ = run(
        "x = tensor([1., 2.], requires_grad=True)\n"
        "(x**2).backward(torch.ones_like(x))\n"
        "first = x.grad.clone()\n"
        "x.grad = None\n"
        "(x**2).sum().backward()\n"
    )
    assert torch.equal(ns["first"], ns["x"].grad)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        run("x = tensor([1., 2.], requires_grad=True)\n(x**2).backward()\n")


def test_scenarios_3_and_4_chain_rule_and_gradient_argument() -> None:
    code = "x = tensor([[-1.2095]], requires_grad=True)\ny = 2*x\nz = y**3\n"
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        ns, printed = run(code + "z.backward(tensor([[1.]]))\nprint(x.grad, y.grad)\n")
    assert round(ns["x"].grad.item(), 2) == 35.11
    assert printed[-1].endswith("None")
    ns, _ = run(code + "z.backward(tensor([[0.1]]))\n")
    assert round(ns["x"].grad.item(), 3) == 3.511


def test_scenario_5_gradients_accumulate() -> None:
    ns, printed = run(
        "x = tensor([[1.3448, -0.2924], [-0.4746, 0.8842]], requires_grad=True)\n"
        "z = (2*x)**3\n"
        "z.backward(tensor([[1., 0.], [1., 0.]]), retain_graph=True)\n"
        "first = x.grad.clone()\n"
        "z.backward(tensor([[0., 1.], [0., 1.]]), retain_graph=True)\n"
        "print(x.grad)\n"
    )
    first, both = ns["first"], ns["x"].grad
    assert torch.allclose(first, torch.tensor([[43.40, 0.0], [5.405, 0.0]]), rtol=1e-3)
    assert torch.allclose(both, torch.tensor([[43.40, 2.052], [5.405, 18.76]]), rtol=1e-3)
    assert printed and printed[0].startswith("tensor(")


def test_scenario_6_mean_reduces_to_a_scalar() -> None:
    ns, _ = run(
        "x = tensor([-0.4230, -1.2352], requires_grad=True)\n((2*x)**3).mean().backward()\n"
    )
    grad = ns["x"].grad
    assert torch.allclose(grad, torch.tensor([2.147, 18.31]), rtol=1e-3)


def test_scenario_7_old_tutorial_code_runs_as_written_and_meets_torchs_error() -> None:
    tutorial = (
        "import torch as T\n"
        "from torch.autograd import Variable\n"
        "x = Variable(T.randn(2, 2), requires_grad=True)\n"
        "y = 2 * x\n"
        "z = y ** 3\n"
        "z.backward(T.ones_like(z), retain_graph=True)\n"
        "print(x.grad)\n"
        "x.grad.data.zero_()\n"
        "z.backward(T.FloatTensor([1, 0]))\n"
    )
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        run(tutorial)
