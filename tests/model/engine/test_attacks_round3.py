"""Round 3 of attacks on the sandbox, aimed at what the widening lets programs write.

Classes, decorators, ``try``, generators, ``functools``, ``random``, ``time``, optimizers
and schedulers, ``DataLoader`` and hooks now run. Each test is one attack a stranger's
session file could carry, written by someone who has read this repository's source, and
asserts that the attack is refused or has no effect. Grouped by the door it tries:

1. ``functools``: reflection done by library code on names the program chooses;
2. schedulers' and optimizers' ``state_dict``/``load_state_dict``;
3. classes: metaclasses, special methods, ``type``, the class hierarchy; attribute names
   that are ``str`` subclasses lying to the guard's name rules;
4. frames, generators, tracebacks;
5. format strings;
6. builtins and imports;
7. files, native code, storage, processes reached by name;
8. callbacks run by torch (hooks, lambdas, ``collate_fn``);
9. state one program leaves for the next;
10. the real engine process: the OS wall, the pipe to the window (what the window
    unpickles), re-runs of one program, time and memory.

Most attacks run in this process (``run_program``: the Python wall only); the few that need
the OS wall or the window's side of the pipe go through :class:`EngineProcess`. A marker
file in ``tmp_path`` shows whether an attack that got past a wall did anything.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import load_session

# -- helpers ------------------------------------------------------------------------------


def run(code: str, time_limit: float = 5.0) -> RunResult:
    """Run ``code`` in this process, as the engine's child would (Python wall only)."""
    return run_program(RunRequest(Program(code=code), time_limit=time_limit))


def assert_refused(result: RunResult) -> None:
    """The program was stopped by the Python wall (static check or runtime guard)."""
    assert result.error is not None, f"not refused; printed: {printed(result)}"
    assert result.error.kind == "unsafe-code", result.error


def assert_stopped(result: RunResult) -> None:
    """The program did not run to its end (refused, or failed where the attack needed it)."""
    assert result.error is not None, f"ran to its end; printed: {printed(result)}"


def printed(result: RunResult) -> list[str]:
    return [line.text for line in result.printed]


# Ways a program reaches the real builtins (``open``, ``exec``, ``__import__``) through
# allowed library code. Each ends with ``B`` bound to the real builtins dict.
ESCAPE_BY_UPDATE_WRAPPER = """
import functools
def dict_of(obj):
    opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    s = torch.optim.lr_scheduler.StepLR(opt, 1)
    functools.update_wrapper(s, obj, assigned=(), updated=('__dict__',))
    return s.state_dict()
B = dict_of(functools)['__builtins__']
"""
ESCAPE_BY_WRAPS = """
import functools
def dict_of(obj):
    opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    s = torch.optim.lr_scheduler.StepLR(opt, 1)
    functools.wraps(obj, assigned=(), updated=('__dict__',))(s)
    return s.state_dict()
B = dict_of(functools)['__builtins__']
"""
ESCAPE_BY_LAMBDA_LR = """
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0)
s.lr_lambdas[0] = object
getattribute = s.state_dict()['lr_lambdas'][0]['__getattribute__']
B = getattribute(F.relu, '__globals__')['__builtins__']
"""


def write_marker(escape: str, marker: Path) -> str:
    return escape + f"B['open']({str(marker)!r}, 'w').close()\n"


# -- 1. functools: library code that reads and writes attributes by name -------------------


@pytest.mark.parametrize(
    "escape",
    [
        pytest.param(ESCAPE_BY_UPDATE_WRAPPER, id="update_wrapper"),
        pytest.param(ESCAPE_BY_WRAPS, id="wraps"),
    ],
)
def test_update_wrapper_cannot_copy_a_modules_namespace(tmp_path: Path, escape: str) -> None:
    """``functools.update_wrapper(obj, functools, updated=('__dict__',))``, or the same
    call made by the partial ``functools.wraps(functools, assigned=(), updated=...)``
    returns, copies a module's globals into a scheduler with plain ``getattr``;
    ``StepLR.state_dict()`` hands back its ``__dict__`` as a dict, whose items
    (``__builtins__`` -> ``open``) no guard looks at."""
    marker = tmp_path / "marker"
    run(write_marker(escape, marker))
    assert not marker.exists()


def test_update_wrapper_cannot_write_attributes_of_torch_classes() -> None:
    """``functools.wraps(src, assigned=(name,), updated=())(torch.nn.Module)`` (that is,
    ``update_wrapper``) does ``setattr`` on a torch class with a name the program chose:
    the guard's refusal of class writes is skipped (any name, dunders too: ``__call__``,
    ``__reduce_ex__``...)."""
    import torch

    code = """
import functools
class Src:
    pass
src = Src()
src.ae_round3_marker = 1
functools.wraps(src, assigned=('ae_round3_marker',), updated=())(torch.nn.Module)
"""
    try:
        run(code)
        assert not hasattr(torch.nn.Module, "ae_round3_marker")
    finally:
        if "ae_round3_marker" in vars(torch.nn.Module):
            delattr(torch.nn.Module, "ae_round3_marker")


def test_update_wrapper_cannot_give_a_program_class_a_forbidden_special_method() -> None:
    """``functools.wraps(layer, assigned=('__del__',), updated=())(Cls)``: a layer
    registered under the name ``__del__`` (``nn.Module.__getattr__`` finds it) becomes the
    class's finaliser, a special method the static check refuses to let a class body
    define."""
    code = """
import functools
class Body(torch.nn.Module):
    def forward(self, other):
        return None
holder = torch.nn.Module()
holder.register_module('__del__', Body())
class Victim:
    pass
functools.wraps(holder, assigned=('__del__',), updated=())(Victim)
print('set')
"""
    result = run(code)
    assert "set" not in printed(result)


def test_partial_and_reduce_do_not_bypass_the_guarded_getattr() -> None:
    """``functools.partial(getattr, torch, '_C')()`` and ``functools.reduce(getattr, ...)``
    call the guarded ``getattr`` the program was given, never the real one."""
    assert_refused(run("import functools\nc = functools.partial(getattr, torch, '_C')()\n"))
    assert_refused(run("import functools\nc = functools.reduce(getattr, ['_C'], torch)\n"))


def test_wraps_does_not_expose_wrapped_or_globals() -> None:
    """``functools.wraps`` sets ``__wrapped__`` on the wrapper; reading it, or a function's
    ``__globals__``, is refused."""
    code = """
import functools
def f(x):
    return x
@functools.wraps(f)
def g(x):
    return f(x)
w = g.__wrapped__
"""
    assert_refused(run(code))
    assert_refused(run("def f():\n    pass\ng = f.__globals__\n"))
    assert_refused(run("import functools\nf = functools.lru_cache(abs)\nw = f.__wrapped__\n"))


# -- 2. schedulers and optimizers: state_dict and load_state_dict ---------------------------


def test_lambda_lr_state_dict_does_not_hand_out_a_class_namespace(tmp_path: Path) -> None:
    """``LambdaLR.state_dict()`` saves ``fn.__dict__.copy()`` of a callable that is not a
    function: with ``lr_lambdas[0] = object`` it hands out ``object.__dict__``, whose
    ``__getattribute__`` is an unguarded ``getattr`` (-> ``F.relu.__globals__`` ->
    builtins -> ``open``)."""
    marker = tmp_path / "marker"
    run(write_marker(ESCAPE_BY_LAMBDA_LR, marker))
    assert not marker.exists()


def test_lambda_lr_state_dict_does_not_hand_out_refused_methods() -> None:
    """The same door on ``torch.Tensor``: its class namespace holds ``storage``,
    ``untyped_storage``, ``share_memory_`` and ``__reduce_ex__``, all refused by name."""
    code = """
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0)
s.lr_lambdas[0] = torch.Tensor
methods = s.state_dict()['lr_lambdas'][0]
st = methods['untyped_storage'](torch.ones(2))
print('storage', st.nbytes())
"""
    result = run(code)
    assert not any(line.startswith("storage") for line in printed(result))


def test_lambda_lr_load_state_dict_cannot_write_into_a_module() -> None:
    """``LambdaLR.load_state_dict`` does ``lr_lambdas[i].__dict__.update(...)``: with
    ``lr_lambdas[0] = torch.nn.functional`` it writes any name into a shared module
    (``F.relu`` replaced for every later program in this process)."""
    import torch.nn.functional as F

    code = """
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0)
s.lr_lambdas[0] = F
s.load_state_dict({'lr_lambdas': [{'ae_round3_marker': 1}], 'last_epoch': 0})
"""
    try:
        run(code)
        assert not hasattr(F, "ae_round3_marker")
    finally:
        vars(F).pop("ae_round3_marker", None)


def test_scheduler_load_state_dict_cannot_swap_its_optimizer_for_a_module() -> None:
    """``LRScheduler.load_state_dict`` is ``self.__dict__.update(d)``: an ``optimizer``
    entry that is not an optimizer (a module) is then driven by ``step()`` from inside
    torch, with no guard between; nothing of the module may change."""
    import torch

    code = """
import random
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
s = torch.optim.lr_scheduler.StepLR(opt, 1)
s.load_state_dict({'optimizer': random})
s.step()
"""
    before = dict(vars(torch.optim.SGD))
    run(code)
    assert dict(vars(torch.optim.SGD)) == before


def test_optimizer_load_state_dict_with_crafted_entries_changes_no_class() -> None:
    """An optimizer's ``load_state_dict`` fed program objects and odd keys: it may fail,
    but it must not reach anything outside the optimizer."""
    import torch

    code = """
class Odd:
    pass
p = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
state = {'state': {0: {'momentum_buffer': Odd()}},
         'param_groups': [{'params': [0], 'lr': 0.1, '__class__': Odd}]}
opt.load_state_dict(state)
print(opt.param_groups[0]['lr'])
"""
    before = dict(vars(torch.optim.SGD))
    run(code)
    assert dict(vars(torch.optim.SGD)) == before


# -- 3. classes ---------------------------------------------------------------------------

CLASS_ATTACKS = [
    pytest.param("class M(type):\n    pass\n", id="metaclass-base"),
    pytest.param("class A(metaclass=abs):\n    pass\n", id="metaclass-keyword"),
    pytest.param("class A:\n    def __init_subclass__(cls):\n        pass\n", id="init-subclass"),
    pytest.param("class A:\n    def __getattribute__(self, n):\n        pass\n", id="getattribute"),
    pytest.param("class A:\n    def __getattr__(self, n):\n        pass\n", id="getattr"),
    pytest.param("class A:\n    def __set_name__(self, o, n):\n        pass\n", id="set-name"),
    pytest.param(
        "class A:\n    def __class_getitem__(cls, k):\n        pass\n", id="class-getitem"
    ),
    pytest.param("class A:\n    def __del__(self):\n        pass\n", id="del"),
    pytest.param("class A:\n    def __reduce__(self):\n        pass\n", id="reduce"),
    pytest.param("class A:\n    def __setattr__(self, n, v):\n        pass\n", id="setattr"),
    pytest.param("class A:\n    __slots__ = ()\n", id="slots"),
    pytest.param("class A:\n    pass\nm = A.__mro__\n", id="mro-dunder"),
    pytest.param("class A:\n    pass\nm = A.mro()\n", id="mro-method"),
    pytest.param("class A:\n    pass\nb = A.__bases__\n", id="bases"),
    pytest.param("s = object.__subclasses__()\n", id="object-subclasses"),
    pytest.param("t = type(1)\ns = t.__subclasses__()\n", id="subclasses-via-type"),
    pytest.param("class A:\n    pass\nm = type(A)\n", id="type-of-class"),
    pytest.param("m = type(torch.nn.Linear)\n", id="type-of-torch-class"),
    pytest.param("C = type('C', (), {})\n", id="type-three-arguments"),
    pytest.param("class A:\n    pass\nA.__call__ = print\n", id="dunder-write-own-class"),
    pytest.param(
        "class A:\n    pass\nsetattr(A, '__getattribute__', abs)\n", id="setattr-dunder-own"
    ),
    pytest.param("torch.nn.Module.__call__ = print\n", id="module-call-write"),
    pytest.param("setattr(torch.nn.Linear, 'forward', abs)\n", id="layer-forward-write"),
    pytest.param("torch.optim.SGD.step = abs\n", id="optimizer-step-write"),
    pytest.param("class T(torch.Tensor):\n    pass\n", id="tensor-subclass"),
    pytest.param("class W(torch.PyTorchFileWriter):\n    pass\n", id="file-writer-subclass"),
    pytest.param(
        "class A(torch.nn.Module):\n    def f(self):\n        return super().__getattribute__\n"
        "A().f()\n",
        id="super-getattribute",
    ),
    pytest.param("o = super(int, 1).__getattribute__\n", id="super-two-arguments"),
    pytest.param("class A:\n    pass\nb = A()\nb.__class__ = int\n", id="assign-class-of-instance"),
    pytest.param("m = torch.nn.Linear(1, 1)\nd = m.__dict__\n", id="module-dict"),
    pytest.param("m = torch.nn.Linear(1, 1)\nh = m._forward_hooks\n", id="module-private"),
    pytest.param(
        "class A(torch.nn.Module):\n    pass\na = A()\nh = a._forward_hooks\n",
        id="private-of-subclassed-layer",
    ),
    pytest.param("s = staticmethod(abs)\nf = s.__func__\n", id="staticmethod-func"),
    pytest.param("p = property(abs)\nf = p.fget\nprint(f)\n", id="property-fget-is-listed"),
]


@pytest.mark.parametrize("code", CLASS_ATTACKS)
def test_class_attacks_are_refused(code: str) -> None:
    """Each reaches the class machinery (metaclasses, special methods run at moments the
    program does not choose, the class hierarchy, shared classes' attributes)."""
    result = run(code)
    if "fget" in code:  # `abs` is listed: reading it back from a property is harmless
        assert result.error is None or result.error.kind == "unsafe-code"
        return
    assert_refused(result)


def test_init_of_unlisted_constructors_is_refused() -> None:
    """``__init__`` is readable so ``super().__init__()`` works; read on a class the
    program may not use, or as the slot wrapper ``object.__init__``, it is refused."""
    assert_refused(run("f = object.__init__\n"))
    assert_refused(run("f = int.__init__\n"))
    assert_refused(run("f = torch.Tensor.__init__\nf(torch.ones(1))\n"))


# -- 3b. attribute names that are not plain strings --------------------------------------

# A ``str`` subclass (allowed as a base) whose ``startswith``/``__contains__`` lie and whose
# ``__hash__`` lies for the guard's set and dict lookups (the first four hashes), then tells
# the truth for Python's own attribute lookup. The guard's name rules all go through those
# methods; Python's ``getattr``/``setattr`` use the characters.
LYING_NAME = """
class S(str):
    def startswith(self, *a):
        return False
    def __contains__(self, x):
        return False
    def __hash__(self):
        self.calls = self.calls + 1
        if self.calls <= 4:
            return 12345
        return hash(str(self))
    def __eq__(self, o):
        return str(self) == o
def name(text):
    n = S(text)
    n.calls = 0
    return n
"""


@pytest.fixture(autouse=True)
def _forget_lying_names() -> Iterator[None]:
    """A lying name that got past the guard stays in its cache of checked names: take it out,
    so the other tests of this process do not call the attack's ``__eq__``."""
    yield
    from gui.model.engine import guard

    for cached in [n for n in guard._OK_NAMES if type(n) is not str]:
        guard._OK_NAMES.discard(cached)


def test_a_lying_str_subclass_cannot_read_a_library_objects_private_attribute() -> None:
    """``getattr(layer, S('_forward_hooks'))``: the name rules are skipped, only the value
    is checked (an ``OrderedDict`` passes)."""
    result = run(LYING_NAME + "h = getattr(torch.nn.Linear(1, 1), name('_forward_hooks'))\n")
    assert_refused(result)


def test_a_lying_str_subclass_cannot_read_dunders_of_library_objects() -> None:
    """``getattr(torch.nn.Linear, S('__mro__'))`` and ``S('__class__')``: dunders the static
    check and the guard both refuse by name."""
    assert_refused(run(LYING_NAME + "m = getattr(torch.nn.Linear, name('__mro__'))\n"))
    assert_refused(run(LYING_NAME + "c = getattr(torch.ones(1), name('__class__'))\n"))


def test_a_lying_str_subclass_cannot_give_a_class_a_finaliser() -> None:
    """``setattr(Cls, S('__del__'), f)``: a special method the static check keeps out of
    class bodies (it runs when the object is collected, at a moment the program does not
    choose: between runs, inside the engine)."""
    code = (
        LYING_NAME
        + """
class Victim:
    pass
def fin(self):
    print('finaliser ran')
setattr(Victim, name('__del__'), fin)
v = Victim()
del v
"""
    )
    assert "finaliser ran" not in printed(run(code))


def test_a_lying_str_subclass_cannot_change_a_library_functions_defaults() -> None:
    """``getattr(torch.optim.SGD.__init__, S('__kwdefaults__'))`` is a dict of plain values
    (it passes the value check) shared by the whole process: writing ``maximize=True``
    into it makes every later ``SGD`` in this process climb instead of descend."""
    import torch

    defaults = torch.optim.SGD.__init__.__kwdefaults__
    saved = dict(defaults)
    code = LYING_NAME + (
        "d = getattr(torch.optim.SGD.__init__, name('__kwdefaults__'))\nd['maximize'] = True\n"
    )
    try:
        run(code)
        assert defaults == saved
    finally:
        defaults.clear()
        defaults.update(saved)


def test_a_lying_str_subclass_cannot_skip_the_format_template_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``getattr(template, S('format'))`` skips the check of the template (the guard asks
    ``name in FORMAT_METHODS`` with the lying hash), and ``str.format`` then walks
    ``{0.__globals__[torch].os.environ[...]}``: any attribute, as text, here a secret from
    the engine's environment."""
    monkeypatch.setenv("AE_ROUND3_SECRET", "s3cr3t-value")
    template = "{0.__globals__[torch].os.environ[AE_ROUND3_SECRET]}"
    code = LYING_NAME + f"fmt = getattr({template!r}, name('format'))\nprint(fmt(F.relu))\n"
    result = run(code)
    assert "s3cr3t-value" not in " ".join(printed(result))


# -- 4. frames, generators, tracebacks ------------------------------------------------------

FRAME_ATTACKS = [
    pytest.param("def g():\n    yield 1\nf = g().gi_frame\n", id="gi-frame"),
    pytest.param("def g():\n    yield 1\nc = g().gi_code\n", id="gi-code"),
    pytest.param("def g():\n    yield 1\nx = getattr(g(), 'gi_frame')\n", id="getattr-gi-frame"),
    pytest.param(
        "def g():\n    yield 1\nx = getattr(g(), 'gi_' + 'frame')\n", id="computed-gi-frame"
    ),
    pytest.param(
        "m = torch.nn.Linear(1, 1)\ng = m.parameters()\nf = getattr(g, 'gi_frame')\n",
        id="library-generator-frame",
    ),
    pytest.param(
        "try:\n    1 / 0\nexcept Exception as e:\n    t = e.__traceback__\n", id="traceback"
    ),
    pytest.param(
        "try:\n    1 / 0\nexcept Exception as e:\n    t = getattr(e, '__traceback__')\n",
        id="getattr-traceback",
    ),
    pytest.param(
        "try:\n    try:\n        1 / 0\n    except Exception:\n        raise ValueError()\n"
        "except ValueError as e:\n    c = e.__context__\n",
        id="exception-context",
    ),
    pytest.param(
        "try:\n    torch.ones(2) @ torch.ones(3)\nexcept RuntimeError as e:\n"
        "    t = getattr(e, 'tb_frame', None) or e.with_traceback(None).__traceback__\n",
        id="with-traceback",
    ),
    pytest.param("def f():\n    pass\nc = f.__code__\n", id="function-code"),
    pytest.param("def f():\n    pass\nc = getattr(f, '__closure__')\n", id="function-closure"),
    pytest.param(
        "def g():\n    yield 1\ns = g()\nf = s.gi_yieldfrom or s.gi_suspended and s.gi_frame\n",
        id="gi-yieldfrom",
    ),
    pytest.param("x = print.__self__\n", id="builtin-self"),
    pytest.param("x = torch.ones.__self__\n", id="torch-function-self"),
    pytest.param("x = F.relu.__globals__\n", id="library-globals"),
    pytest.param("x = getattr(F.relu, 'func_globals')\n", id="func-globals"),
]


@pytest.mark.parametrize("code", FRAME_ATTACKS)
def test_frame_and_traceback_attacks_are_refused(code: str) -> None:
    """A frame's ``f_globals``/``f_builtins``/``f_back`` would reach the engine's own
    namespace and the real builtins."""
    assert_refused(run(code))


def test_an_except_clause_cannot_swallow_a_refusal() -> None:
    """``try: torch._C except BaseException/Exception/bare except`` does not go on as if
    the refused read had worked: the refusal is not an ``Exception``."""
    for handler in ("except:", "except Exception:", "except BaseException:"):
        code = f"try:\n    c = getattr(torch, '_C')\n{handler}\n    print('swallowed')\n"
        result = run(code)
        assert "swallowed" not in printed(result), handler


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_generator_closed_by_the_engine_cannot_run_code_after_the_run() -> None:
    """A suspended generator's ``finally`` runs when it is collected: still guarded code,
    so a read of ``torch._C`` there is refused, not performed."""
    code = """
def g():
    try:
        yield 1
    finally:
        getattr(torch, '_C')
it = g()
next(it)
del it
x = torch.ones(1, requires_grad=True)
"""
    result = run(code)
    assert result.error is None or result.error.kind == "unsafe-code"


# -- 5. format strings --------------------------------------------------------------------

FORMAT_ATTACKS = [
    pytest.param("s = '{0.__class__}'.format(1)\n", id="literal-format"),
    pytest.param("t = '{0.__cl' + 'ass__}'\ns = t.format(1)\n", id="computed-template"),
    pytest.param("s = '{a.__class__}'.format_map({'a': 1})\n", id="format-map"),
    pytest.param("s = str.format('{0.__class__}', 1)\n", id="unbound-format"),
    pytest.param("s = '{0[0]}'.format([1])\n", id="index-field"),
    pytest.param("s = '{0:{1.__class__}}'.format(1, 2)\n", id="nested-spec"),
    pytest.param("f = getattr('{0.real}', 'format')\n", id="getattr-format"),
    pytest.param(
        "import functools\nf = functools.partial(str.format, '{0.__class__}')\n",
        id="partial-format",
    ),
    pytest.param("class S(str):\n    pass\ns = S('{0.real}').format(1)\n", id="str-subclass"),
    pytest.param("s = f'{torch.__dict__}'\n", id="f-string-dunder"),
    pytest.param("s = f'{torch._C!r}'\n", id="f-string-private"),
]


@pytest.mark.parametrize("code", FORMAT_ATTACKS)
def test_format_string_attacks_are_refused(code: str) -> None:
    """``str.format`` reads attributes and items named in its template, past the guard."""
    assert_refused(run(code))


# -- 6. builtins and imports --------------------------------------------------------------

BUILTIN_ATTACKS = [
    pytest.param("b = __builtins__\n", id="builtins-name"),
    pytest.param("g = globals()\n", id="globals"),
    pytest.param("v = vars(torch)\n", id="vars"),
    pytest.param("d = dir(torch)\n", id="dir"),
    pytest.param("e = eval('1')\n", id="eval"),
    pytest.param("exec('x = 1')\n", id="exec"),
    pytest.param("c = compile('1', 'f', 'eval')\n", id="compile"),
    pytest.param("f = open('/etc/passwd')\n", id="open"),
    pytest.param("b = __ae_getattr__\n", id="guard-name"),
    pytest.param("x = getattr(torch, '_C')\n", id="getattr-private"),
    pytest.param("x = getattr(torch, 'load')\n", id="getattr-load"),
    pytest.param("x = hasattr(torch, '_C') and torch\nprint(getattr(x, 'ops'))\n", id="hasattr"),
    pytest.param("m = memoryview(b'x')\n", id="memoryview"),
    pytest.param("b = print.__globals__\n", id="print-globals"),
    pytest.param("x = type(print)\n", id="type-of-print"),
    pytest.param("import os\n", id="import-os"),
    pytest.param("import sys\n", id="import-sys"),
    pytest.param("import gc\n", id="import-gc"),
    pytest.param("import ctypes\n", id="import-ctypes"),
    pytest.param("import random\nr = random._os\n", id="random-os"),
    pytest.param("import random\nR = random.Random\n", id="random-class"),
    pytest.param("import random\ns = random.getstate()\n", id="random-getstate"),
    pytest.param("from random import _os\n", id="from-random-os"),
    pytest.param("import time\nt = time.sys\n", id="time-sys"),
    pytest.param("import functools\nr = functools.RLock\n", id="functools-rlock"),
    pytest.param("import functools\nr = functools.singledispatch\n", id="functools-unlisted"),
    pytest.param("import collections\nc = collections.abc\n", id="collections-abc"),
    pytest.param("import typing\nt = typing.get_type_hints\n", id="typing-unlisted"),
    pytest.param("import typing\nt = typing.sys\n", id="typing-sys"),
    pytest.param("from time import *\n", id="star-import"),
    pytest.param("from . import run\n", id="relative-import"),
    pytest.param("import torch.utils.cpp_extension\n", id="cpp-extension"),
    pytest.param("from torch.utils import cpp_extension\n", id="from-cpp-extension"),
    pytest.param("import torch.utils.data.dataloader\n", id="dataloader-module"),
    pytest.param("x = torch.utils.data.dataloader\n", id="dataloader-attribute"),
    pytest.param("x = torch.utils.checkpoint.set_device_states\n", id="checkpoint-device"),
    pytest.param("x = torch.utils.hooks\n", id="utils-hooks"),
    pytest.param("import torch.optim.lr_scheduler as s\nw = s.warnings\n", id="scheduler-warn"),
    pytest.param("x = torch.optim.Optimizer.__init__.__globals__\n", id="optimizer-globals"),
    pytest.param("x = torch.optim.SGD.__module__\n", id="optimizer-module-name"),
    pytest.param("x = torch.nn.modules\n", id="nn-modules"),
    pytest.param("x = torch.nn.Module.__dict__\n", id="module-class-dict"),
    pytest.param("import numpy as np\nx = np.lib\n", id="numpy-lib"),
    pytest.param("import numpy as np\nx = np.ctypeslib\n", id="numpy-ctypeslib"),
    pytest.param("import numpy as np\nx = np.core\n", id="numpy-core"),
    pytest.param("import numpy as np\nx = np.testing\n", id="numpy-testing"),
    pytest.param("import numpy as np\nx = np.os\n", id="numpy-os"),
]


@pytest.mark.parametrize("code", BUILTIN_ATTACKS)
def test_builtin_and_import_attacks_are_refused(code: str) -> None:
    """Names and modules that reach the interpreter, the OS or the engine's namespace."""
    assert_refused(run(code))


NOT_REACHED = [
    pytest.param("print('x', file=F)\n", id="print-file"),
    pytest.param("x = torch.optim.optimizer\nprint(x)\n", id="optimizer-module"),
    pytest.param("import time\ntime.sleep(-1)\n", id="negative-sleep"),
]


@pytest.mark.parametrize("code", NOT_REACHED)
def test_other_doors_end_the_program(code: str) -> None:
    """Refused, or failing as plain Python/torch would, before anything is reached."""
    assert_stopped(run(code))


# -- 7. files, native code, storage and processes by name ---------------------------------

NAMED_DOORS = [
    pytest.param("torch.save(torch.ones(1), 'x.pt')\n", id="torch-save"),
    pytest.param("t = torch.load('x.pt')\n", id="torch-load"),
    pytest.param("t = torch.from_file('/etc/passwd', size=4)\n", id="from-file"),
    pytest.param("h = torch.hub\n", id="hub"),
    pytest.param("c = torch._C\n", id="torch-C"),
    pytest.param("c = torch.classes\n", id="classes"),
    pytest.param("torch.ops.load_library('x.so')\n", id="load-library"),
    pytest.param("m = torch.multiprocessing\n", id="multiprocessing"),
    pytest.param("d = torch.distributed\n", id="distributed"),
    pytest.param("j = torch.jit\n", id="jit"),
    pytest.param("c = torch.compile\n", id="compile"),
    pytest.param("w = torch.PyTorchFileWriter\n", id="file-writer"),
    pytest.param("r = torch.PyTorchFileReader\n", id="file-reader"),
    pytest.param("f = torch.fork\n", id="fork"),
    pytest.param("s = torch.ones(2).storage()\n", id="storage"),
    pytest.param("s = torch.ones(2).untyped_storage()\n", id="untyped-storage"),
    pytest.param("s = getattr(torch.ones(2), 'untyped_' + 'storage')\n", id="storage-getattr"),
    pytest.param("torch.ones(2).share_memory_()\n", id="share-memory"),
    pytest.param("p = torch.ones(2).data_ptr()\n", id="data-ptr"),
    pytest.param("t = torch.ones(2)\nt.set_(torch.ones(3))\n", id="set"),
    pytest.param("t = torch.ones(2)\nr = t.__reduce_ex__(2)\n", id="reduce-ex"),
    pytest.param("t = torch.ones(2)\nr = t.pin_memory()\n", id="pin-memory"),
    pytest.param("import numpy as np\nnp.save('x', np.ones(1))\n", id="np-save"),
    pytest.param("import numpy as np\na = np.load('x.npy')\n", id="np-load"),
    pytest.param("import numpy as np\na = np.fromfile('/etc/passwd')\n", id="np-fromfile"),
    pytest.param("import numpy as np\nnp.ones(1).tofile('x')\n", id="np-tofile"),
    pytest.param("import numpy as np\nnp.ones(1).dump('x')\n", id="np-dump"),
    pytest.param("import numpy as np\nm = np.memmap('x', mode='w+', shape=1)\n", id="memmap"),
    pytest.param("import numpy as np\nc = np.ones(1).ctypes\n", id="ndarray-ctypes"),
    pytest.param("import numpy as np\nd = np.ones(1).data\n", id="ndarray-buffer"),
    pytest.param("import numpy as np\nb = np.ones(1).tobytes\n", id="ndarray-unlisted"),
    pytest.param("import numpy as np\nf = np.frombuffer\n", id="np-frombuffer"),
    pytest.param("import numpy as np\nf = np.frompyfunc\n", id="np-frompyfunc"),
    pytest.param("import numpy as np\nf = np.seterrcall\n", id="np-seterrcall"),
    pytest.param("import numpy as np\nf = np.DataSource\n", id="np-datasource"),
    pytest.param("x = torch.nn.Module.register_module_forward_hook\n", id="global-hook"),
    # torch.autograd.graph is reachable for its saved-tensor hooks (test_saved_tensors_round5);
    # the rest of it stays out.
    pytest.param("x = torch.autograd.graph.allow_mutation_on_saved_tensors\n", id="autograd-graph"),
    pytest.param("x = torch.overrides\n", id="overrides"),
    pytest.param("x = torch.utils.data.get_worker_info\n", id="worker-info"),
    pytest.param("x = torch.set_default_device('meta')\n", id="default-device"),
    pytest.param("x = torch.set_num_threads(64)\n", id="threads"),
    # A node's own register_hook/register_prehook are allowed since round 8 (the autograd
    # notes' "Backward Hooks execution"; test_safe_copy_in_programs): its hook dict is not.
    pytest.param(
        "y = torch.ones(1, requires_grad=True) * 2\nh = y.grad_fn._register_hook_dict(y)\n",
        id="node-hook-dict",
    ),
    # A node's `_saved_*` values are allowed (test_saved_tensors_round5); nothing else private.
    pytest.param(
        "y = torch.ones(1, requires_grad=True) * 2\nh = y.grad_fn._input_metadata\n",
        id="node-private",
    ),
]


@pytest.mark.parametrize("code", NAMED_DOORS)
def test_named_doors_to_files_native_code_and_storage_are_refused(code: str) -> None:
    """Reached by their names: each is refused before or while it runs."""
    assert_refused(run(code))


def test_dataloader_cannot_start_worker_processes() -> None:
    """``DataLoader(num_workers=2)`` would fork workers; the iterator refuses (and the OS
    wall has no ``fork``)."""
    code = """
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(8.0))
for batch in DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=print):
    print('batch')
"""
    result = run(code)
    assert_refused(result)
    assert "batch" not in printed(result)


def test_dataloader_multiprocessing_context_and_pin_memory_start_nothing() -> None:
    """``multiprocessing_context='fork'`` and ``pin_memory=True`` with no workers: torch
    refuses the first and ignores the second on the CPU; nothing starts."""
    code = """
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(4.0))
n = 0
for b in DataLoader(ds, batch_size=2, pin_memory=True):
    n += 1
print(n)
DataLoader(ds, multiprocessing_context='fork')
"""
    result = run(code)
    assert_stopped(result)


# -- 8. callbacks torch runs (from C++ or library code) -------------------------------------

CALLBACK_ATTACKS = [
    pytest.param(
        "x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: getattr(torch, '_C'))\n"
        "x.sum().backward()\n",
        id="tensor-hook",
    ),
    pytest.param(
        "m = torch.nn.Linear(1, 1)\nm.register_forward_hook(lambda mod, i, o: mod._forward_hooks)\n"
        "m(torch.ones(1))\n",
        id="module-forward-hook",
    ),
    pytest.param(
        "m = torch.nn.Linear(1, 1)\n"
        "m.register_full_backward_hook(lambda mod, gi, go: getattr(torch, 'load'))\n"
        "m(torch.ones(1, requires_grad=True)).sum().backward()\n",
        id="module-backward-hook",
    ),
    pytest.param(
        "class Fn(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n"
        "    @staticmethod\n    def backward(ctx, g):\n        return ctx._forward_cls\n"
        "x = torch.ones(1, requires_grad=True)\nFn.apply(x).sum().backward()\n",
        id="function-ctx-private",
    ),
    pytest.param(
        "class Fn(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x):\n        ctx.__class__ = int\n"
        "        return x * 2\n"
        "x = torch.ones(1, requires_grad=True)\nFn.apply(x)\n",
        id="function-ctx-class-write",
    ),
    pytest.param(
        "opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)\n"
        "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: getattr(torch, '_C'))\n",
        id="lr-lambda",
    ),
    pytest.param(
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "ds = TensorDataset(torch.arange(4.0))\n"
        "for b in DataLoader(ds, collate_fn=lambda b: getattr(torch, 'ops')):\n    pass\n",
        id="collate-fn",
    ),
    pytest.param(
        "m = torch.nn.Sequential(torch.nn.Linear(1, 1))\n"
        "m.apply(lambda mod: getattr(mod, '_modules'))\n",
        id="module-apply",
    ),
    pytest.param("s = sorted([3, 1], key=lambda v: getattr(torch, '_C'))\n", id="sorted-key"),
    pytest.param(
        "@torch.no_grad()\ndef f():\n    return getattr(torch, '_C')\nf()\n", id="decorated"
    ),
    pytest.param(
        "import functools\n@functools.lru_cache\ndef f(n):\n    return getattr(torch, '_C')\n"
        "f(1)\n",
        id="lru-cache",
    ),
    pytest.param(
        "class P:\n    @property\n    def x(self):\n        return getattr(torch, '_C')\nP().x\n",
        id="property",
    ),
]


@pytest.mark.parametrize("code", CALLBACK_ATTACKS)
def test_callbacks_run_by_torch_are_still_guarded(code: str) -> None:
    """The program's code inside a hook, a Function, a lambda torch calls, a decorator's
    wrapper: the guard is in the code itself, so it applies wherever the code runs."""
    assert_refused(run(code))


# -- 9. state one program leaves for the next ---------------------------------------------

LEAK_ATTEMPTS = [
    pytest.param("F.relu = abs\n", id="functional-attribute"),
    pytest.param("torch.Tensor.add = abs\n", id="tensor-method"),
    pytest.param("torch.nn.Linear.forward = abs\n", id="layer-forward"),
    pytest.param("import random\nrandom.random = abs\n", id="random-function"),
    pytest.param("import time\ntime.time = abs\n", id="time-function"),
    pytest.param("import functools\nfunctools.reduce = abs\n", id="functools-function"),
    pytest.param("import numpy as np\nnp.add = abs\n", id="numpy-ufunc"),
    pytest.param("torch.optim.SGD.step = abs\n", id="optimizer-step"),
    pytest.param("torch.optim.SGD.defaults_extra = 1\n", id="optimizer-class-attribute"),
    pytest.param("torch.nn.Module.dump_patches = True\n", id="module-class-attribute"),
    pytest.param("torch.utils.data.DataLoader.ae = 1\n", id="dataloader-class"),
    pytest.param("torch.autograd.Function.ae = 1\n", id="function-class"),
    pytest.param("del torch.Tensor.add\n", id="delete-method"),
    pytest.param("x = torch.nn.modules.module.register_module_forward_hook(abs)\n", id="hooks"),
    # `with saved_tensors_hooks(...)` is allowed, its stack put back after each run
    # (test_saved_tensors_round5); entered by hand it would never be left.
    pytest.param(
        "x = torch.autograd.graph.saved_tensors_hooks(abs, abs).__enter__()\n", id="saved-hooks"
    ),
    pytest.param("x = torch.overrides.TorchFunctionMode()\n", id="function-mode"),
    pytest.param("torch.set_rng_state(torch.ones(5056, dtype=torch.uint8))\n", id="rng-state"),
]


@pytest.mark.parametrize("code", LEAK_ATTEMPTS)
def test_writes_to_shared_modules_and_classes_are_refused(code: str) -> None:
    """A module, a library class or a process-wide registry, changed by one program, would
    change every later run in the same process (a slider drag's re-runs; Windows)."""
    assert_refused(run(code))


def test_a_program_class_cannot_write_through_to_its_library_base() -> None:
    """``class L(nn.Linear)`` may be changed; ``super()``-style writes may not reach
    ``nn.Linear`` itself."""
    import torch

    before = dict(vars(torch.nn.Linear))
    code = """
class L(torch.nn.Linear):
    pass
L.forward = lambda self, x: x
L.ae_round3_marker = 1
m = L(1, 1)
setattr(type(m), 'extra', 2)
"""
    run(code)
    assert dict(vars(torch.nn.Linear)) == before


def test_a_library_constructor_called_on_a_module_writes_nothing_into_it() -> None:
    """``StepLR.__init__(F, opt, 7)``: an allowed unbound method accepts any ``self``; it
    writes ``self.step_size``/``self.gamma`` (plain ``setattr``, no guard) before its
    ``super()`` fails, so ``torch.nn.functional`` keeps ``step_size = 7`` for every later
    program in this process."""
    import torch.nn.functional as F

    code = """
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
torch.optim.lr_scheduler.StepLR.__init__(F, opt, 7)
"""
    try:
        run(code)
        assert not hasattr(F, "step_size")
    finally:
        vars(F).pop("step_size", None)
        vars(F).pop("gamma", None)


@pytest.mark.parametrize(
    ("code", "written"),
    [
        pytest.param(
            "class M(torch.nn.Module):\n    pass\nM.train(F, False)\n",
            "training",
            id="module-train-through-subclass",
        ),
        pytest.param(
            "class D(torch.utils.data.TensorDataset):\n    pass\nD.__init__(F, torch.ones(1))\n",
            "tensors",
            id="dataset-init-through-subclass",
        ),
        pytest.param(
            "class S(torch.optim.lr_scheduler.StepLR):\n    pass\n"
            "opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)\n"
            "S.__init__(F, opt, 7)\n",
            "step_size",
            id="scheduler-init-through-subclass",
        ),
    ],
)
def test_a_library_method_reached_through_a_program_subclass_checks_its_self(
    code: str, written: str
) -> None:
    """``torch.nn.Module.train(F, False)`` is refused now (its first argument must be a
    Module), but the same function read from the program's own subclass (``M.train``) is
    handed out as it is: it sets ``F.training`` on the shared module."""
    import torch.nn.functional as F

    try:
        run(code)
        assert written not in vars(F)
    finally:
        vars(F).pop(written, None)
        vars(F).pop("gamma", None)


def test_random_and_seeds_start_each_run_the_same() -> None:
    """``random.seed``, ``torch.manual_seed`` and ``np.random.seed`` in one program do not
    change the numbers the next program draws (the run reseeds what it can reach)."""
    draw = "import random\nprint(random.random(), float(torch.rand(1)))\n"
    before = printed(run(draw))
    run("import random\nrandom.seed(99)\ntorch.manual_seed(99)\n")
    assert printed(run(draw)) == before


def _foreign_objects(value: object, path: str = "result") -> list[str]:
    """Where ``value`` (a result) holds anything but plain data and the result's own
    dataclasses: what the window would unpickle, import or call."""
    import dataclasses

    if value is None or type(value) in (str, int, float, bool):
        return []
    if type(value) in (tuple, list):
        return [p for i, v in enumerate(value) for p in _foreign_objects(v, f"{path}[{i}]")]
    if type(value) is dict:
        return [p for k, v in value.items() for p in _foreign_objects(v, f"{path}[{k!r}]")]
    if dataclasses.is_dataclass(value) and type(value).__module__.startswith("gui.model."):
        return [
            p
            for f in dataclasses.fields(value)
            for p in _foreign_objects(getattr(value, f.name), f"{path}.{f.name}")
        ]
    return [f"{path}: {type(value).__module__}.{type(value).__qualname__}"]


def test_a_layer_cannot_put_live_objects_into_the_result() -> None:
    """The engine names a bound layer's parameters with ``nn.Module.named_parameters``,
    which calls ``self._named_members``: a program's layer may define that (one leading
    underscore is allowed in a class body) and hand the engine any object as a
    "parameter". Its ``tolist()``, ``is_leaf``... then become fields of the result: here
    ``map(time.sleep, [15])``, pickled to the window, which sleeps when anything there
    iterates the values (a torch object would make the window import torch)."""
    code = """
import time
class Fake:
    def __init__(self):
        self.shape = (1,)
        self.dtype = torch.float32
        self.is_leaf = True
        self.requires_grad = False
        self.grad = None
        self.grad_fn = None
        self.retains_grad = False
    def numel(self):
        return 1
    def tolist(self):
        return map(time.sleep, [15])
    def is_floating_point(self):
        return True
class M(torch.nn.Module):
    def _named_members(self, *args, **kwargs):
        yield ('w', Fake())
model = M()
x = torch.ones(1, requires_grad=True)
y = x * 2
"""
    assert _foreign_objects(run(code)) == []


# -- 10. the real engine process ------------------------------------------------------------


@pytest.fixture(scope="module")
def engine() -> Iterator[EngineProcess]:
    process = EngineProcess()
    process.start()
    yield process
    process.close()


def _in_engine(engine: EngineProcess, code: str, time_limit: float = 3.0) -> RunResult:
    return engine.run(RunRequest(Program(code=code), time_limit=time_limit))


def _pickle_to_the_window(marker: Path) -> str:
    """Plain Python run in the engine's child: send the window a pickle whose loading
    creates the folder ``marker`` (``os.mkdir(marker)``) on the window's side of the pipe."""
    payload = f"cos\nmkdir\n(S'{marker}'\ntR."
    return (
        "import gc\n"
        "server = [o for o in gc.get_objects() if type(o).__name__ == 'ForkServer'][0]\n"
        f"server._conn.send_bytes({payload.encode()!r})\n"
    )


def _escaped(plain_python: str) -> str:
    """A program that gets the real builtins and runs ``plain_python`` with them."""
    return (
        ESCAPE_BY_WRAPS
        + f"ns = {{'__builtins__': B}}\nB['exec']({plain_python!r}, ns)\n"
        + "print('outcome', ns.get('outcome'))\n"
        + "x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n"
    )


pytestmark_process = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform != "linux", reason="the OS wall is Linux's"
)


@pytest.mark.slow
@pytestmark_process
def test_a_session_file_cannot_run_code_in_the_window(
    engine: EngineProcess, tmp_path: Path
) -> None:
    """The whole chain from a stranger's session file: escape the Python wall in the child
    (``functools.wraps(functools, assigned=(), updated=('__dict__',))(scheduler)``, then
    ``scheduler.state_dict()['__builtins__']``), then send the window a crafted pickle on
    the pipe the child must keep open. The window unpickles whatever arrives
    (``Connection.recv``): ``os.mkdir`` runs outside every wall. (Passes while the Python
    wall refuses the escape; see the direct test of the pipe below.)"""
    marker = tmp_path / "window-marker"
    session = tmp_path / "lesson.json"
    code = _escaped(_pickle_to_the_window(marker))
    session.write_text(
        json.dumps({"format": "autograd-explorer/1", "title": "A lesson", "code": code})
    )
    program = load_session(session).program
    engine.run(RunRequest(program, time_limit=3.0))
    time.sleep(0.2)
    assert not marker.exists()


OS_WALL_PROBES = [
    pytest.param("open({marker!r}, 'w').write('x')\noutcome = 'wrote'\n", id="write-a-file"),
    pytest.param("outcome = open({canary!r}).read()\n", id="read-a-file"),
    pytest.param(
        "import os\nif os.system('touch ' + {marker!r}) == 0:\n    outcome = 'started'\n",
        id="start-a-process",
    ),
    pytest.param("import socket\ns = socket.socket()\noutcome = 'socket'\n", id="open-a-socket"),
    pytest.param("import os\noutcome = os.fork() and 'forked'\n", id="fork"),
]


@pytest.mark.slow
@pytestmark_process
@pytest.mark.parametrize("probe", OS_WALL_PROBES)
def test_past_the_python_wall_the_os_wall_still_holds(
    engine: EngineProcess, tmp_path: Path, probe: str
) -> None:
    """With the Python wall breached (the ``functools.wraps`` escape found in this round),
    plain Python in the walled child still cannot write or read a file outside the allowed
    folders, start a process, fork or open a socket. Once the Python wall refuses the
    escape the probe never runs; the test then guards against the escape coming back."""
    marker, canary = tmp_path / "marker", tmp_path / "canary"
    canary.write_text("secret")
    result = _in_engine(engine, _escaped(probe.format(marker=str(marker), canary=str(canary))))
    assert not marker.exists()
    assert "secret" not in " ".join(printed(result))
    assert not any(line.startswith("outcome ") and "None" not in line for line in printed(result))


@pytest.mark.slow
@pytestmark_process
def test_native_code_cannot_be_called_in_the_child(engine: EngineProcess) -> None:
    """``ctypes`` is loaded in the engine's process already: past the Python wall a
    program calls libc directly (native code, memory writes at any address)."""
    probe = "import ctypes\noutcome = ctypes.CDLL(None).getpid()\n"
    result = _in_engine(engine, _escaped(probe))
    assert not any(
        line.startswith("outcome ") and line != "outcome None" for line in printed(result)
    )


@pytest.mark.slow
@pytestmark_process
def test_reruns_of_one_program_start_from_the_same_state(engine: EngineProcess) -> None:
    """A slider drag re-runs one program in the same process. The program writes into
    ``torch.nn.functional`` through ``LambdaLR.load_state_dict`` (no guard between) and
    looks for what it wrote on the next run: it must not find it."""
    code = """
opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0)
print('seen', hasattr(F, 'ae_counter'))
s.lr_lambdas[0] = F
s.load_state_dict({'lr_lambdas': [{'ae_counter': 1}], 'last_epoch': 0})
x = torch.ones(1, requires_grad=True)
y = x * 2
"""
    first = _in_engine(engine, code)
    second = _in_engine(engine, code)
    assert "seen False" in printed(first), first.error
    assert "seen False" in printed(second)


@pytest.mark.slow
@pytestmark_process
def test_reruns_do_not_see_a_changed_library_default(engine: EngineProcess) -> None:
    """Re-runs of one program (a slider drag) share its process: a program that flips
    ``SGD``'s keyword default ``maximize`` (through a lying ``str`` attribute name) must not
    see it flipped on its next run, and its optimizer must still descend."""
    code = (
        """
p = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([p], lr=0.1)
p.grad = torch.ones(1)
opt.step()
print('after step', float(p))
"""
        + LYING_NAME
        + """
d = getattr(torch.optim.SGD.__init__, name('__kwdefaults__'))
d['maximize'] = True
"""
    )
    first = _in_engine(engine, code)
    second = _in_engine(engine, code)
    assert "after step 0.8999999761581421" in printed(first)
    assert printed(second) == printed(first)


@pytest.mark.slow
@pytestmark_process
def test_a_programs_error_message_cannot_run_code_in_the_window(engine: EngineProcess) -> None:
    """No Python-wall escape needed: the program raises an exception whose ``__str__``
    returns an instance of its own ``str`` subclass, given ``__reduce_ex__`` with a lying
    attribute name. The engine keeps that object as the error's ``message``, pickles it
    into the answer (the reduce runs in the child, guarded), and the window's
    ``Connection.recv`` calls what it names: here ``numpy.seterr('raise')``, changing the
    window's numpy; ``time.sleep(10**6)`` would freeze the window."""
    import numpy as np

    code = (
        LYING_NAME
        + """
import numpy as np
class Message(str):
    pass
def reduce(self, protocol):
    return (np.seterr, ('raise',))
setattr(Message, name('__reduce_ex__'), reduce)
class Boom(Exception):
    def __str__(self):
        return Message('boom')
raise Boom()
"""
    )
    saved = np.geterr()
    try:
        _in_engine(engine, code)
        assert np.geterr() == saved
    finally:
        np.seterr(**saved)


def test_the_window_does_not_unpickle_what_the_engine_sends(tmp_path: Path) -> None:
    """Defence in depth: the engine's child runs a stranger's code, so whatever it writes on
    the pipe is the stranger's. ``EngineProcess`` reads answers with ``Connection.recv``,
    which unpickles anything: a child past the Python wall (rounds 1-3 each found a way)
    sends a pickle that runs ``os.mkdir`` (or anything) in the window's process, outside
    every wall. Here the test plays the child and writes such a pickle on the pipe."""
    import multiprocessing

    from gui.model.request import Job

    marker = tmp_path / "window-marker"
    parent, child = multiprocessing.Pipe()
    engine = EngineProcess()
    engine._conn = parent
    child.send_bytes(f"cos\nmkdir\n(S'{marker}'\ntR.".encode())
    job = Job(1, RunRequest(Program(code="x = 1\n")))
    try:
        engine._answer(job, time.monotonic() + 0.5)
    except Exception:
        pass
    finally:
        parent.close()
        child.close()
    assert not marker.exists()


@pytest.mark.slow
@pytestmark_process
def test_reruns_start_numpy_random_from_the_same_state(engine: EngineProcess) -> None:
    """numpy's global random state is process-wide like torch's and ``random``'s, which the
    run reseeds: a re-run of one program (a slider tick) must draw the same numbers, and a
    program that seeds numpy must not pick the numbers its next run draws."""
    code = (
        "import numpy as np\nprint('draw', np.random.rand())\nnp.random.seed(666)\n"
        "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
    )
    first = _in_engine(engine, code)
    second = _in_engine(engine, code)
    assert printed(second) == printed(first)


@pytest.mark.slow
@pytestmark_process
def test_code_run_by_the_collection_after_the_answer_leaves_no_settings(
    engine: EngineProcess,
) -> None:
    """The same door as below, used quietly: a suspended generator's ``finally`` runs in
    the owner's ``gc.collect()``, which comes *after* ``pristine.restore``. It turns
    gradients off and makes float64 the default dtype; the next run of the program (a
    slider tick) starts with both."""
    code = (
        "print('dtype', torch.get_default_dtype(), 'grad', torch.is_grad_enabled())\n"
        "def gen():\n    try:\n        yield 1\n    finally:\n"
        "        torch.set_default_dtype(torch.float64)\n        torch.set_grad_enabled(False)\n"
        "g = gen()\nnext(g)\nx = torch.ones(1, requires_grad=True)\ny = x * 2\n"
    )
    first = _in_engine(engine, code)
    second = _in_engine(engine, code)
    assert printed(first) == ["dtype torch.float32 grad True"]
    assert printed(second) == printed(first)


@pytest.mark.slow
@pytestmark_process
def test_code_run_by_the_collection_after_the_answer_cannot_hang_the_engine(
    engine: EngineProcess,
) -> None:
    """A suspended generator whose ``finally`` never ends: the namespace is a reference
    cycle (``gen.__globals__``), so it is collected by the ``gc.collect()`` the owner runs
    *after* sending its answer, when the server no longer watches its time. The owner
    loops forever; the next tick of the same program is never read (the server ignores the
    window's stop for a job the owner never took) and only the window's last resort, after
    the time limit and both margins, kills the whole engine and restarts torch."""
    code = (
        "def gen():\n    try:\n        yield 1\n    finally:\n        while True:\n"
        "            pass\ng = gen()\nnext(g)\nx = torch.ones(1, requires_grad=True)\n"
        "y = x * 2\n"
    )
    # The engine collects a run's leftovers before it answers, under the time limit: the
    # `finally` that never ends is the program's own code running on (plain Python would
    # hang at exit too), so each run is answered as stopped at its time limit, promptly.
    started = time.monotonic()
    first = _in_engine(engine, code, time_limit=0.5)
    second = _in_engine(engine, code, time_limit=0.5)
    elapsed = time.monotonic() - started
    for stopped in (first, second):
        assert stopped.error is not None and stopped.error.kind == "runaway-code", stopped.error
    assert elapsed < 4.0
    after = _in_engine(engine, "x = torch.ones(1, requires_grad=True)\ny = x * 2\n")
    assert after.error is None


@pytest.mark.slow
@pytestmark_process
def test_sleeping_past_the_time_limit_is_stopped(engine: EngineProcess) -> None:
    """``time.sleep(60)`` (now importable) is answered for at the time limit and the
    engine serves the next program at once."""
    _in_engine(engine, "x = 1\n")  # the engine is up (an earlier attack may have restarted it)
    started = time.monotonic()
    result = _in_engine(engine, "import time\ntime.sleep(60)\n", time_limit=1.0)
    assert time.monotonic() - started < 6.0
    assert result.error is not None
    after = _in_engine(engine, "x = torch.ones(1, requires_grad=True)\ny = x * 2\n")
    assert after.error is None


@pytest.mark.slow
@pytestmark_process
def test_filling_the_memory_is_refused(engine: EngineProcess) -> None:
    """A 64 GiB tensor and a huge list (from inside a generator) fail inside the child; the
    engine answers and serves the next program."""
    for code in (
        "t = torch.empty(2**34)\nt.fill_(1)\n",
        "def g():\n    yield [0] * (2**33)\nx = next(g())\n",
    ):
        result = _in_engine(engine, code, time_limit=3.0)
        assert result.error is not None
    after = _in_engine(engine, "x = torch.ones(1, requires_grad=True)\ny = x * 2\n")
    assert after.error is None
