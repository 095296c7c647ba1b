"""Round 5 of attacks on the sandbox: what one run can leave for the next, and what the
allowed objects hand out when they are called rather than read.

Grouped by the door each test tries:

1. objects of one run kept alive into the next (the guard's own caches, shared
   collections of library modules), and the process-wide state they keep switched on;
2. process-wide settings the program can reach that were not put back.

Most attacks run in this process (``run_program``, the Python wall only) and mimic what
the engine's owner does between two runs of one program (collect, put the settings back,
collect); the ones that need the real engine go through the session's engine process.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from tests.model.engine.sandbox_helpers import assert_refused, between_runs, printed

# -- helpers ------------------------------------------------------------------------------


def run(code: str, time_limit: float = 5.0) -> RunResult:
    """Run ``code`` in this process, as the engine's child would (Python wall only)."""
    return run_program(RunRequest(Program(code=code), time_limit=time_limit))


# A generator suspended inside `with torch.inference_mode():` keeps inference mode on for
# as long as it lives: its `with` block is left only when it is closed or collected.
INFERENCE_LEFT_ON = """
print('inference', torch.is_inference_mode_enabled())
def stuck():
    with torch.inference_mode():
        yield 1
it = stuck()
next(it)
"""
# Reads that make the guard judge (and cache) one of the program's own classes/functions.
KEEP_BY_METHOD = """
class C:
    def m(self):
        return 1
C().m()
"""
KEEP_BY_FUNCTION = """
class C:
    pass
def f():
    return 1
C.f = f
g = C.f
"""
KEEP_BY_SAFE_TYPE = """
class L(torch.nn.Module):
    def forward(self, x):
        return x
class Holder:
    pass
h = Holder()
h.layer = L()
layer = h.layer
"""
KEEP_BY_TYPE = """
class C:
    def m(self):
        return 1
k = type(C())
"""


# -- 1. objects of one run kept alive into the next -----------------------------------------


@pytest.mark.parametrize(
    "keep",
    [
        pytest.param(KEEP_BY_METHOD, id="method-verdict"),
        pytest.param(KEEP_BY_FUNCTION, id="value-verdict"),
        pytest.param(KEEP_BY_SAFE_TYPE, id="safe-type"),
        pytest.param(KEEP_BY_TYPE, id="type-verdict"),
    ],
)
def test_the_guards_caches_do_not_keep_a_run_alive(
    owner_cycle: pristine.Settings, keep: str
) -> None:
    """The guard caches its verdicts by identity and held the judged object strongly (so
    its id could not be reused): a program's class or function judged once stayed alive
    for good, and with it, through its functions' globals, the program's whole namespace.
    A generator left suspended inside ``with torch.inference_mode():`` was then never
    closed: the next run of the program (a slider tick, same process) ran in inference
    mode, where nothing records a graph, so it showed no gradients at all. Only
    the program's own code runs here; nothing of it may outlive its run."""
    code = INFERENCE_LEFT_ON + keep + "x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n"
    first = run(code)
    between_runs(owner_cycle)
    second = run(code)
    assert printed(first) == ["inference False"]
    assert printed(second) == printed(first)
    between_runs(owner_cycle)
    assert not torch.is_inference_mode_enabled()


KEEP_BY_CUSTOM_FUNCTION = """
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
w = torch.ones(2, requires_grad=True)
z = Twice.apply(w)
"""
KEEP_BY_TENSOR_HOOK = """
w = torch.ones(2, requires_grad=True)
w.register_hook(lambda g: g)
"""


@pytest.mark.parametrize(
    "keep",
    [
        pytest.param(KEEP_BY_CUSTOM_FUNCTION, id="custom-function"),
        pytest.param(KEEP_BY_TENSOR_HOOK, id="tensor-hook"),
    ],
)
def test_a_run_kept_alive_by_torch_leaves_no_mode_on(
    owner_cycle: pristine.Settings, keep: str
) -> None:
    """Past the guard's caches, torch itself keeps a run alive: a custom Function's
    ``ctx`` and a tensor hook are held by autograd's C++ nodes, which the collector cannot
    see, so the cycle through the program's namespace is never freed (plain torch leaks
    it the same way). The generator left inside ``with torch.inference_mode():`` is then
    never closed, and the settings put back between runs left inference mode on: the
    next run of the program recorded no graph. Nothing of the program runs here after its
    run; the settings put back must include inference mode."""
    # The cycle is made before inference mode goes on (in it, nothing records a graph).
    code = keep + INFERENCE_LEFT_ON + "x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n"
    first = run(code)
    between_runs(owner_cycle)
    second = run(code)
    between_runs(owner_cycle)
    assert printed(first) == ["inference False"]
    assert printed(second) == printed(first)
    assert not torch.is_inference_mode_enabled()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="owners need fork")
@pytest.mark.parametrize(
    "code",
    [
        pytest.param(INFERENCE_LEFT_ON + KEEP_BY_METHOD, id="method-verdict"),
        # The cycle is made before inference mode goes on (in it, nothing records a graph).
        pytest.param(KEEP_BY_CUSTOM_FUNCTION + INFERENCE_LEFT_ON, id="custom-function"),
    ],
)
def test_reruns_in_the_engine_do_not_start_in_inference_mode(
    engine_process: EngineProcess, code: str
) -> None:
    """The same through the real engine: a slider tick re-runs the program in the process
    that ran it, which had kept the first run alive with inference mode on."""
    code += "x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n"
    runs = [engine_process.run(RunRequest(Program(code=code), time_limit=3.0)) for _ in range(3)]
    assert [printed(r) for r in runs] == [["inference False"]] * 3


# Collections that library modules keep (documentation templates, typing's list of special
# names, numpy's type codes): a program that changes one changes it for every later run of
# the process.
SHARED_COLLECTIONS = [
    pytest.param("import typing\nshared = typing.EXCLUDED_ATTRIBUTES\n", id="typing-list"),
    pytest.param("shared = F.reproducibility_notes\n", id="functional-dict"),
    pytest.param("shared = F.GRID_SAMPLE_INTERPOLATION_MODES\n", id="functional-modes"),
    pytest.param("import numpy as np\nshared = np.typecodes\n", id="numpy-typecodes"),
    pytest.param("shared = torch.special.common_args\n", id="special-dict"),
    pytest.param("shared = getattr(torch.fft, 'common_args')\n", id="getattr-fft-dict"),
    pytest.param("from torch.nn.functional import tf32_notes as shared\n", id="from-import"),
]


@pytest.mark.parametrize("reach", SHARED_COLLECTIONS)
def test_a_modules_collections_cannot_carry_a_run_into_the_next(
    owner_cycle: pristine.Settings, reach: str
) -> None:
    """A module's list or dict passes the guard when every item in it does (strings,
    numbers), and then nothing guards a write into it (item assignment, ``append``): one
    run's objects stay there for the next run of the process, which sees them. Here a run
    counts its runs there, and parks a generator suspended inside ``with
    torch.inference_mode():``, which then keeps every later run in inference mode."""
    code = (
        INFERENCE_LEFT_ON
        + reach
        + "print('count', len(shared))\n"
        + "if isinstance(shared, list):\n    shared.append(it)\nelse:\n    shared['ae'] = it\n"
        + "x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n"
    )
    import numpy as np
    import torch.nn.functional as F

    holders: list[Any] = [
        vars(F)["reproducibility_notes"],
        vars(F)["GRID_SAMPLE_INTERPOLATION_MODES"],
        vars(F)["tf32_notes"],
        vars(np)["typecodes"],
        vars(torch.special)["common_args"],
        vars(torch.fft)["common_args"],
        vars(sys.modules["typing"])["EXCLUDED_ATTRIBUTES"],
    ]
    saved = [(holder, holder.copy()) for holder in holders]
    try:
        first = run(code)
        between_runs(owner_cycle)
        second = run(code)
        between_runs(owner_cycle)
        assert printed(second) == printed(first)
        assert not torch.is_inference_mode_enabled()
    finally:
        for holder, content in saved:
            holder.clear()
            if isinstance(holder, dict):
                holder.update(content)
            else:
                holder.extend(content)


def test_inference_mode_left_on_is_put_back(owner_cycle: pristine.Settings) -> None:
    """Defence in depth for the two doors above: should a run's ``with
    torch.inference_mode():`` stay open past its end anyway, the settings put back between
    runs include inference mode (they had grad mode only: inference mode switches grad
    mode off too, so grad mode was put back and inference mode stayed), and the owner,
    which compares the settings with the pristine ones, sees it."""
    left_open = torch.inference_mode()
    left_open.__enter__()
    assert pristine.capture() != owner_cycle
    between_runs(owner_cycle)
    assert not torch.is_inference_mode_enabled()
    assert pristine.capture() == owner_cycle
    result = run("x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n")
    assert result.tensors["x"].grad is not None
    assert result.tensors["x"].grad.values == [3.0, 3.0]


# -- 3. subscripts that library code turns into attribute reads and writes ----------------

PARAMETER_DICT_ATTACKS = [
    pytest.param("pd = torch.nn.ParameterDict()\nc = pd['__class__']\n", id="read-class"),
    pytest.param("pd = torch.nn.ParameterDict()\nd = pd['__dict__']\n", id="read-dict"),
    pytest.param(
        "pd = torch.nn.ParameterDict()\nr = pd['__reduce_ex__'](2)\nnew = r[0]\n",
        id="reduce-ex-copyreg",
    ),
    pytest.param("pd = torch.nn.ParameterDict()\nn = pd['__new__']\n", id="object-new"),
    pytest.param("pd = torch.nn.ParameterDict()\nc = pd['compile']\n", id="module-compile"),
    pytest.param("pd = torch.nn.ParameterDict()\ns = pd['share_memory']\n", id="share-memory"),
    pytest.param("pd = torch.nn.ParameterDict()\ne = pd['to_empty']\n", id="unlisted-method"),
    pytest.param("pd = torch.nn.ParameterDict()\na = pd['_apply']\n", id="private-method"),
    pytest.param(
        "class C:\n    pass\npd = torch.nn.ParameterDict()\npd['__class__'] = C\n"
        "p = pd._parameters\n",
        id="write-class",
    ),
    pytest.param(
        "class C:\n    pass\npd = torch.nn.ParameterDict({'__class__': C})\n", id="constructor"
    ),
    pytest.param(
        "class C:\n    pass\npd = torch.nn.ParameterDict()\npd.update({'__class__': C})\n",
        id="update",
    ),
    pytest.param(
        "pd = torch.nn.ParameterDict()\npd.setdefault('__dict__', {'training': 1})\n",
        id="setdefault",
    ),
    pytest.param(
        "class P(torch.nn.ParameterDict):\n    pass\np = P()\nf = p['__init_subclass__']\n",
        id="program-subclass",
    ),
    pytest.param(
        # numpy reads `__array_interface__` from the instance: a dict naming any address
        # (`id(x)` is an object's) makes an array over raw memory, to read and write.
        "import numpy as np\npd = torch.nn.ParameterDict()\nx = [1, 2, 3]\n"
        "pd['__array_interface__'] = {'shape': (3,), 'typestr': '<u8', "
        "'data': (id(x), False), 'version': 3}\n"
        "raw = np.asarray(pd)\nprint('raw memory', raw.tolist())\n",
        id="array-interface-raw-memory",
    ),
]


@pytest.mark.parametrize("code", PARAMETER_DICT_ATTACKS)
def test_parameter_dict_keys_are_not_a_way_around_the_guard(code: str) -> None:
    """``nn.ParameterDict`` stores an entry as an attribute of the layer named by its key,
    and ``pd[key]`` is ``getattr(pd, key)``, ``pd[key] = v`` is ``setattr(pd, key, v)``,
    with nothing between: a subscript is not an attribute read, so the guard never saw
    the name. ``pd['__reduce_ex__'](2)`` handed out ``copyreg.__newobj__``,
    ``pd['__new__']`` ``object.__new__``, ``pd['compile']`` and ``pd['share_memory']``
    torch's compiler and shared memory, and ``pd['__class__'] = C`` turned a layer made by
    torch into an instance of the program's own class, whose ``_private`` names the guard
    then opens."""
    assert_refused(run(code))


LIBRARY_HELPER_OVERRIDES = [
    pytest.param(
        "class PL(torch.nn.ParameterList):\n    def _get_abs_string_index(self, idx):\n"
        "        return '__reduce_ex__'\npl = PL()\nnew = pl[0](2)[0]\n",
        id="parameter-list-index",
    ),
    pytest.param(
        "class C:\n    pass\nclass P(torch.nn.ParameterDict):\n"
        "    def _key_to_attr(self, key):\n        return key\n"
        "p = P()\np['__class__'] = C\nhooks = p._forward_hooks\n",
        id="parameter-dict-key",
    ),
    pytest.param(
        "class ML(torch.nn.ModuleList):\n    def _get_abs_string_index(self, idx):\n"
        "        return '__dict__'\nml = ML([torch.nn.Linear(1, 1)])\nml[0] = {}\n",
        id="module-list-index",
    ),
    pytest.param(
        "import functools\nclass PL(torch.nn.ParameterList):\n"
        "    _get_abs_string_index = staticmethod(functools.partial(min, '__class__'))\n"
        "pl = PL()\nk = pl[1]\n",
        id="library-callable-as-helper",
    ),
    pytest.param(
        "class M(torch.nn.Module):\n    def _named_members(self, *args, **kwargs):\n"
        "        yield ('w', 1)\nm = M()\n",
        id="module-named-members",
    ),
]


@pytest.mark.parametrize("code", LIBRARY_HELPER_OVERRIDES)
def test_a_subclass_cannot_replace_the_helpers_torch_trusts(code: str) -> None:
    """A program's class may define ``_private`` methods, and torch's own code calls its
    internal helpers on ``self``: ``ParameterList.__getitem__`` is
    ``getattr(self, str(self._get_abs_string_index(i)))`` and ``__setitem__`` the same
    with ``setattr``. A subclass that redefines the helper chooses the name torch reads or
    writes, in torch's code, with no guard: ``pl[0]`` handed out ``__reduce_ex__``, and
    ``p['__class__'] = C`` turned the layer into an instance of the program's class."""
    assert_refused(run(code))


def test_a_subclass_keeps_its_own_private_helpers() -> None:
    """Names a library base does not have are the program's: a layer may define
    ``_init_weights``; a plain class and its subclass their ``_backward``."""
    code = """
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 1)
    def _init_weights(self, m):
        pass
    def forward(self, x):
        return self.fc(x)
class Value:
    def __init__(self, v):
        self.v = v
    def _backward(self):
        return self.v
class Twice(Value):
    def _backward(self):
        return self.v * 2
print(Twice(3)._backward(), tuple(Net()(torch.ones(2)).shape))
"""
    result = run(code)
    assert result.error is None, result.error
    assert printed(result) == ["6 (1,)"]


def test_parameter_dict_still_holds_parameters() -> None:
    """What tutorials do with a ParameterDict keeps working."""
    code = """
pd = torch.nn.ParameterDict({'w': torch.nn.Parameter(torch.ones(2))})
pd['b'] = torch.zeros(2)
pd.update({'c': torch.ones(1)})
print(sorted(pd.keys()), float(pd['w'].sum()), 'b' in pd, len(pd))
print(sorted(n for n, _ in pd.named_parameters()), pd.get('missing'))
for k, v in pd.items():
    print(k, tuple(v.shape))
del pd['c']
x = torch.ones(2, requires_grad=True)
y = (pd['w'] * x + pd['b']).sum()
"""
    result = run(code)
    assert result.error is None, result.error
    assert printed(result) == [
        "['b', 'c', 'w'] 2.0 True 3",
        "['b', 'c', 'w'] None",
        "w (2,)",
        "b (2,)",
        "c (1,)",
    ]


# -- 4. names a program binds without writing them as a plain name -------------------------

BUILTINS_DROPPED = """
try:
    1 / 0
except Exception as {name}:
    pass
relu = getattr(getattr(getattr(torch, 'nn'), 'functional'), 'relu')
B = getattr(relu, '__globals__')['__builtins__']
secret = getattr(B['op' + 'en']({canary!r}), 're' + 'ad')()
raise ValueError('escaped: ' + secret)
"""


@pytest.mark.parametrize("name", ["__builtins__", "__ae_getattr__", "__ae_setter__"])
def test_an_except_clause_cannot_bind_or_drop_a_dunder_name(tmp_path: Path, name: str) -> None:
    """``except Exception as __builtins__:`` binds the program's global ``__builtins__`` to
    the exception and, at the end of the clause, deletes it: Python drops the name an
    ``except ... as`` bound. The checker looked at every name a program binds but that
    one (it is a plain string in the tree, not a name node). The next statement is run by
    the engine's ``exec``, which puts the *real* builtins into a namespace that has none:
    ``getattr`` is then Python's own, no guard, and the program reads files, imports ``os``
    and ``ctypes``. The same clause can shadow the guard's ``__ae_getattr__``."""
    canary = tmp_path / "canary"
    canary.write_text("s3cr3t")
    result = run(BUILTINS_DROPPED.format(name=name, canary=str(canary)))
    assert_refused(result)
    assert result.error is not None and "s3cr3t" not in result.error.message


def test_an_except_clause_still_binds_ordinary_names() -> None:
    code = "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', type(e))\n"
    result = run(code)
    assert result.error is None, result.error
    assert printed(result) == ["caught <class 'ZeroDivisionError'>"]


# -- 5. the program's objects in the settings the engine puts back --------------------------

SETTING_WITH_EQ = """
class Sly:
    def __eq__(self, other):
        torch.set_default_dtype(torch.float64)
        return False
    def __ne__(self, other):
        torch.set_default_dtype(torch.float64)
        return True
    def __hash__(self):
        return 1
{setting}
x = torch.ones(2, requires_grad=True)
y = (x * 3).sum()
"""


@pytest.mark.parametrize(
    "setting",
    [
        pytest.param("torch.set_printoptions(sci_mode=Sly())", id="torch-sci-mode"),
        pytest.param("torch.set_printoptions(linewidth=Sly())", id="torch-linewidth"),
        pytest.param(
            "import numpy as np\nnp.set_printoptions(formatter={'float': Sly()})",
            id="numpy-formatter",
        ),
    ],
)
def test_putting_settings_back_runs_none_of_the_programs_code(
    owner_cycle: pristine.Settings, setting: str
) -> None:
    """``torch.set_printoptions`` takes any object (``sci_mode``, ``linewidth``...
    unchecked), and putting the settings back compared the saved ones with the current
    ones with ``==``: the program's ``__eq__`` ran there, after its answer and after the
    other settings were put back. Here it makes float64 the default dtype; the engine
    that runs every program in one process (Windows) handed that to the next program.
    The settings must be put back without calling anything the program made."""
    run(SETTING_WITH_EQ.format(setting=setting))
    between_runs(owner_cycle)
    assert torch.get_default_dtype() == torch.float32
    assert pristine.capture() == owner_cycle


NATIVE_AFTER_DROPPING_BUILTINS = """
try:
    1 / 0
except Exception as __builtins__:
    pass
relu = getattr(getattr(getattr(torch, 'nn'), 'functional'), 'relu')
B = getattr(relu, '__globals__')['__builtins__']
ctypes = B['__imp' + 'ort__']('ctypes')
libc = getattr(ctypes, 'CDLL')(None)
raise ValueError('native call answered ' + str(getattr(libc, 'getpid')()))
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the OS wall is Linux's")
def test_dropping_the_builtins_reaches_no_native_code_in_the_engine(
    engine_process: EngineProcess,
) -> None:
    """The same escape in the walled engine: the operating-system wall does not stop a
    call into the C library (``ctypes`` is loaded there already), so only the Python wall
    keeps native code out."""
    request = RunRequest(Program(code=NATIVE_AFTER_DROPPING_BUILTINS), time_limit=3.0)
    result = engine_process.run(request)
    assert_refused(result)
    assert result.error is not None and "native call answered" not in result.error.message


# -- 6. the window's reader: messages of the right classes holding the wrong things ---------


def _wrong_results() -> list[object]:
    import dataclasses

    from gui.model.result import Explanation, PrintedLine, failed_result

    base: RunResult = dataclasses.replace(
        failed_result(Explanation("k", "m", "e", "f")), error=None
    )
    made_with_extra = PrintedLine(1, "text", 0)
    vars(made_with_extra)["__class__"] = "shadow"  # what BUILD can add to an instance
    return [
        dataclasses.replace(base, tensors={"x": 1}, leaves=("x",)),  # type: ignore[dict-item]
        dataclasses.replace(base, error="boom"),  # type: ignore[arg-type]
        dataclasses.replace(base, printed=(5,)),  # type: ignore[arg-type]
        dataclasses.replace(base, leaves="x"),  # type: ignore[arg-type]
        dataclasses.replace(base, seed="seed"),  # type: ignore[arg-type]
        dataclasses.replace(base, output_source="elsewhere"),  # type: ignore[arg-type]
        dataclasses.replace(base, printed=(made_with_extra,)),
    ]


@pytest.mark.parametrize(
    "wrong",
    range(7),
    ids=[
        "tensor-info-is-int",
        "error-is-str",
        "printed-line-is-int",
        "leaves-is-str",
        "seed-is-str",
        "literal-out-of-range",
        "extra-instance-attribute",
    ],
)
def test_the_window_refuses_messages_whose_fields_hold_the_wrong_things(wrong: int) -> None:
    """The careful reader builds only the engine's message classes and plain data, but it
    filled their fields with whatever the pickle said: an ``Answer`` whose result holds
    an ``int`` where a ``TensorInfo`` goes, a ``str`` where an ``Explanation`` goes. The
    window's code then fails far from the reader (``AttributeError`` in the session, on
    the GUI thread) instead of answering "the engine failed". Only a child past the
    Python wall writes such a message; every field must be what its class says."""
    import pickle

    from gui.model import wire
    from gui.model.result import Answer

    payload = pickle.dumps(Answer(1, _wrong_results()[wrong]))  # type: ignore[arg-type]
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(payload)


def test_the_window_reads_what_the_engine_really_sends() -> None:
    """Results of real programs (tensors, graph, steps, Jacobians, printed lines, warnings,
    an error) pass the reader's field checks."""
    import pickle

    from gui.model import wire
    from gui.model.result import Answer

    programs = [
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x ** 2).sum()\nprint(y)\n",
        "m = torch.nn.Linear(2, 1)\nx = torch.ones(2, requires_grad=True)\n"
        "loss = m(x).sum()\nloss.backward(retain_graph=True)\nimport warnings\n",
        "x = torch.ones(3, requires_grad=True)\nz = x.sum()\ng = torch.autograd.grad(z, x)\n"
        "w = torch.ones(40, 40, requires_grad=True)\nq = (w * 2).mean()\nq.backward()\n",
        "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.backward()\n",
    ]
    for code in programs:
        answer = Answer(7, run(code))
        assert wire.loads(pickle.dumps(answer)) == answer
