"""Round 5 of the widening for tutorial code, and the attacks on each new door.

What was admitted (see ``allowlist.py``): ``@once_differentiable`` (the app's stand-in
around torch's), anomaly mode (``set_detect_anomaly``, ``detect_anomaly``),
``torch.nn.utils.rnn``'s padding and packing, and a few of ``torch.distributions``
(``Normal``, ``Categorical``, ``Bernoulli``, ``Independent``, ``kl_divergence`` through a
stand-in).

Each attack tries to leave something behind for a later run (a registry, a class-level
default, an attribute written onto a shared module or class by torch's own code), or to
walk from a newly allowed object to what the list leaves out. The programs are run in this
process (the Python wall only) and, for what must not outlive a run, in the engine's own
process, twice in the same owner, against plain torch's numbers.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.distributions.kl

from gui.model.engine import pristine
from gui.model.engine.allowlist import allowlist, stand_in_for
from gui.model.engine.refusal import PROGRAM_CLASSES
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from tests.corpus.harness import run_plain

F = torch.nn.functional


def run(code: str) -> RunResult:
    """``code`` through the engine's run in this process, settings put back after it (as
    the engine does between two runs of one owner)."""
    baseline = pristine.capture()
    try:
        return run_program(RunRequest(Program(code=code, steps=()), time_limit=10.0))
    finally:
        pristine.restore(baseline)


def printed(result: RunResult) -> list[str]:
    return [p.text for p in result.printed]


def assert_refused(result: RunResult, named: str) -> None:
    assert result.error is not None, f"the attack ran: {printed(result)}"
    assert result.error.kind == "unsafe-code", result.error
    assert named.lower() in result.error.message.lower(), result.error.message


# Attributes torch's own code would write onto whatever object the program named.
WRITTEN_BY_TORCH = ("loc", "scale", "probs", "logits", "requires_grad", "base_dist")


def assert_nothing_written_onto_shared_objects() -> None:
    for shared in (F, torch, torch.Tensor, torch.nn.Linear, torch.distributions):
        written = [name for name in WRITTEN_BY_TORCH if name in vars(shared)]
        assert written == [], f"{shared!r} got {written}"


# -- 1. @once_differentiable ----------------------------------------------------------------

ONCE = """
import torch

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
"""


def test_once_differentiable_still_refuses_a_second_backward_as_torch_does() -> None:
    """The stand-in is torch's decorator: a double backward through it fails with torch's
    own message, in the engine as in plain Python."""
    code = (
        ONCE + "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "v = torch.ones(2, requires_grad=True)\n"
        "(g,) = torch.autograd.grad(Square.apply(x), x, grad_outputs=v, create_graph=True)\n"
        "print(g)\n"
        "g.sum().backward()\n"
    )
    result = run(code)
    plain = run_plain(code)
    assert plain.error is not None and "differentiate twice" in str(plain.error)
    assert result.error is not None and "differentiate twice" in result.error.message
    assert printed(result) == plain.printed
    assert "grad_fn=<Error>" in plain.printed[0]


@pytest.mark.parametrize("target", ["torch.nn.functional", "torch.Tensor", "torch"])
def test_once_differentiable_writes_nothing_onto_what_detach_returns(target: str) -> None:
    """torch's wrapper calls ``out.detach()`` and sets ``.requires_grad = True`` on the
    result with plain ``setattr``: a program's object whose ``detach`` returns a module or
    torch's ``Tensor`` class would have it write there (every later tensor's
    ``requires_grad`` answering True). The stand-in lets only tensors through."""
    code = (
        "class Evil:\n    def detach(self):\n"
        f"        return {target}\n"
        "def f(ctx, x):\n    return Evil()\n"
        "w = torch.autograd.function.once_differentiable(f)\n"
        "try:\n    w(None, torch.ones(1, requires_grad=True))\n"
        "except Exception as e:\n    print('caught', e)\n"
    )
    assert_refused(run(code), "once_differentiable")
    assert_nothing_written_onto_shared_objects()
    assert torch.ones(1).requires_grad is False


ONCE_ATTACKS = [
    pytest.param(
        "d = torch.autograd.function.once_differentiable\nw = d.__wrapped__", "__wrapped__"
    ),
    pytest.param(
        "def f(ctx, g):\n    return g\n"
        "w = torch.autograd.function.once_differentiable(f)\n"
        "x = getattr(w, '__glo' + 'bals__')",
        "underscore",
        id="wrapper-globals",
    ),
    pytest.param(
        ONCE + "b = Square.backward\n", "Square.backward", id="read-the-wrapper-from-the-class"
    ),
    pytest.param(
        "c = torch.autograd.function.AUTOGRAD_FUNCTION_COUNTER\nn = next(c)",
        "AUTOGRAD_FUNCTION_COUNTER",
        id="process-wide-counter",
    ),
    pytest.param("h = torch.autograd.function.hooks", "hooks", id="hooks-module"),
    pytest.param("w = torch.autograd.function.warnings", "warnings", id="warnings-module"),
    pytest.param(
        "c = torch.autograd.function.custom_function_call", "custom_function_call", id="custom"
    ),
    pytest.param("c = torch.autograd.function.FunctionCtx", "FunctionCtx", id="ctx-class"),
    pytest.param(
        "class I(torch.autograd.function.InplaceFunction):\n    pass", "class I", id="inplace"
    ),
    pytest.param("m = torch.autograd.function.FunctionMeta", "FunctionMeta", id="metaclass"),
]


@pytest.mark.parametrize("code, named", ONCE_ATTACKS)
def test_the_decorator_opens_nothing_else(code: str, named: str) -> None:
    assert_refused(run(code), named)


# -- 2. anomaly mode ------------------------------------------------------------------------

# Prints the mode it starts in, takes a backward that makes NaN (0 * the infinite slope of
# sqrt at 0: no error unless anomaly mode checks for NaN), then leaves anomaly mode on.
ANOMALY_LEFT_ON = """
import torch
print('anomaly at start', torch.is_anomaly_enabled())
x = torch.tensor([0.0, 4.0], requires_grad=True)
y = (x.sqrt() * torch.tensor([0.0, 1.0])).sum()
y.backward()
print(x.grad)
torch.autograd.set_detect_anomaly(True)
print('anomaly at end', torch.is_anomaly_enabled())
"""


def test_anomaly_mode_left_on_is_put_back_between_runs_in_one_process() -> None:
    """The engine's path without ``fork`` (one process, settings put back after each run):
    a program that leaves anomaly mode on, run three times, starts each run with it off
    (else its NaN backward would fail from the second run on), as plain Python does."""
    baseline = pristine.capture()
    plain = run_plain(ANOMALY_LEFT_ON)
    assert plain.error is None, plain.error
    try:
        results = []
        for _ in range(3):
            results.append(run_program(RunRequest(Program(code=ANOMALY_LEFT_ON, steps=()))))
            assert torch.is_anomaly_enabled()  # left on by the program...
            pristine.restore(baseline)
            assert pristine.capture() == baseline  # ...and put back
    finally:
        pristine.restore(baseline)
    for result in results:
        assert result.error is None, result.error
        assert printed(result) == plain.printed
        assert result.tensors["x"].grad is not None
        assert str(result.tensors["x"].grad.values) == str([float("nan"), 0.25])


def test_anomaly_mode_without_nan_check_is_put_back_whole() -> None:
    """``set_detect_anomaly(True, check_nan=False)``: both halves of the setting return."""
    baseline = pristine.capture()
    try:
        result = run_program(
            RunRequest(
                Program(
                    code="torch.autograd.set_detect_anomaly(True, check_nan=False)\n"
                    "x = torch.ones(1, requires_grad=True)\ny = x * 2\n",
                    steps=(),
                )
            )
        )
        assert result.error is None, result.error
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
    finally:
        pristine.restore(baseline)
    assert pristine.capture() == baseline
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()


@pytest.mark.slow
def test_anomaly_mode_left_on_does_not_reach_the_next_run_in_the_engine(
    engine_process: EngineProcess,
) -> None:
    """The same program three times in its owner process, then another program: each
    starts with anomaly mode off and computes plain torch's numbers."""
    request = RunRequest(Program(code=ANOMALY_LEFT_ON), time_limit=5.0)
    plain = run_plain(ANOMALY_LEFT_ON)
    results = [engine_process.run(request) for _ in range(3)]
    for result in results:
        assert result.error is None, result.error
        assert printed(result) == plain.printed
    other = "import torch\nprint(torch.is_anomaly_enabled())\nx = torch.ones(1, requires_grad=True)\ny = x * 2\n"
    after = engine_process.run(RunRequest(Program(code=other), time_limit=5.0))
    assert printed(after) == ["False"]


def test_anomaly_modes_forward_traceback_names_the_programs_line() -> None:
    """With anomaly mode on, the failing backward's error is explained as usual, and
    torch's extra warning (the traceback of the forward call) is shown as a warning of the
    backward's line that names the program's own forward line (``h = w.sigmoid()``)."""
    code = (
        "torch.autograd.set_detect_anomaly(True)\n"
        "w = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "h = w.sigmoid()\n"
        "out = h * 3\n"
        "h.mul_(2)\n"
        "out.sum().backward()\n"
    )
    result = run(code)
    assert result.error is not None and result.error.kind == "saved-tensor-modified"
    assert result.error.line == 6
    traced = [w for w in result.warnings if "Error detected in SigmoidBackward0" in w.message]
    assert len(traced) == 1, [w.message for w in result.warnings]
    assert traced[0].line == 6
    assert 'File "<program>", line 3' in traced[0].message


ANOMALY_ATTACKS = [
    pytest.param("torch.set_anomaly_enabled(True)", "set_anomaly_enabled", id="setter"),
    pytest.param("m = torch.autograd.anomaly_mode", "anomaly_mode", id="module"),
    pytest.param(
        "d = torch.autograd.detect_anomaly()\nd.__enter__()", "__enter__", id="enter-by-hand"
    ),
    pytest.param(
        "i = torch.autograd.set_detect_anomaly.__init__", "__init__", id="init-on-another-object"
    ),
    pytest.param(
        "torch.autograd.set_detect_anomaly.prev = True", "cannot be changed", id="class-write"
    ),
]


@pytest.mark.parametrize("code, named", ANOMALY_ATTACKS)
def test_anomaly_mode_opens_nothing_else(code: str, named: str) -> None:
    assert_refused(run(code), named)


# -- 3. torch.nn.utils.rnn ------------------------------------------------------------------

PACKED = (
    "seqs = [torch.ones(3, 2), torch.ones(1, 2)]\npacked = torch.nn.utils.rnn.pack_sequence(seqs)\n"
)
RNN_ATTACKS = [
    pytest.param(PACKED + "m = packed.pin_memory()", "pin_memory", id="pin-memory"),
    pytest.param(PACKED + "m = packed.is_pinned()", "is_pinned", id="is-pinned"),
    pytest.param(PACKED + "m = packed.cuda()", "GPU", id="cuda"),
    pytest.param(
        PACKED + "r = packed._replace(data=torch.zeros(4, 2))", "underscore", id="replace"
    ),
    pytest.param(PACKED + "packed.data = torch.zeros(4, 2)", "cannot be changed", id="write"),
    pytest.param(
        "d = torch.nn.utils.rnn.PackedSequence.data", "PackedSequence.data", id="class-field"
    ),
    pytest.param("f = torch.nn.utils.rnn.PackedSequence._make", "underscore", id="make"),
    pytest.param(
        "f = torch.nn.utils.rnn.PackedSequence._field_defaults", "underscore", id="defaults"
    ),
    pytest.param("w = torch.nn.utils.rnn.warnings", "warnings", id="warnings-module"),
    pytest.param(
        "c = torch.nn.utils.rnn.copy_method_params", "copy_method_params", id="typing-helper"
    ),
    pytest.param("class P(torch.nn.utils.rnn.PackedSequence):\n    pass", "class P", id="subclass"),
    pytest.param("v = torch.nn.utils.rnn._VF", "underscore", id="vf"),
]


@pytest.mark.parametrize("code, named", RNN_ATTACKS)
def test_packing_opens_nothing_else(code: str, named: str) -> None:
    assert_refused(run(code), named)


# A packed sequence's tensors can be changed in place after packing; torch's C++ behind
# pad_packed_sequence trusts the batch sizes and, with these, writes past the end of its
# own buffer (the process dies: segmentation fault in plain torch 2.13).
TAMPERED = [
    pytest.param("packed.batch_sizes.copy_(torch.tensor([2, 0, 1]))", id="zero-then-more"),
    pytest.param("packed.batch_sizes[1] = 0", id="item-write"),
    pytest.param("packed.batch_sizes.fill_(7)", id="too-many"),
    pytest.param("packed.batch_sizes.resize_(0)", id="empty"),
    pytest.param("packed.data.resize_(1, 2)", id="data-shrunk"),
]
PACKED_3 = (
    "seqs = [torch.ones(3, 2), torch.ones(2, 2), torch.ones(1, 2)]\n"
    "packed = torch.nn.utils.rnn.pack_sequence(seqs)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("tamper", TAMPERED)
def test_a_tampered_packed_sequence_is_refused_not_unpacked(
    engine_process: EngineProcess, tamper: str
) -> None:
    """In the engine's process (a crash there is answered, not fatal to this test): the
    stand-in checks a copy of the batch sizes, and unpacks from that copy."""
    code = (
        PACKED_3 + tamper + "\n"
        "out, lengths = torch.nn.utils.rnn.pad_packed_sequence(packed)\n"
        "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
    )
    result = engine_process.run(RunRequest(Program(code=code), time_limit=5.0))
    assert_refused(result, "pad_packed_sequence")


@pytest.mark.parametrize(
    "code",
    [
        PACKED_3 + "p = (packed.data, packed.batch_sizes)\n",
        "class P:\n    def __init__(self):\n        self.data = torch.ones(3, 1)\n"
        "        self.batch_sizes = torch.tensor([2, 0, 1])\n"
        "        self.sorted_indices = None\n        self.unsorted_indices = None\n"
        "p = P()\n",
        "p = torch.nn.utils.rnn.PackedSequence(torch.ones(3, 1), torch.tensor([2, 0, 1]))\n",
    ],
    ids=["plain-tuple", "look-alike", "made-by-hand"],
)
def test_only_a_well_formed_packed_sequence_is_unpacked(code: str) -> None:
    """Anything but a PackedSequence whose batch sizes describe its data is refused before
    torch's C++ reads it (in this process: the refusal comes first)."""
    result = run(code + "out = torch.nn.utils.rnn.pad_packed_sequence(p)\n")
    assert_refused(result, "pad_packed_sequence")


def test_unpacking_a_sorted_and_an_unsorted_batch_matches_plain_torch() -> None:
    """The stand-in changes nothing for what packing made: the same numbers, both orders."""
    code = (
        "import torch\ntorch.manual_seed(0)\n"
        "x = torch.randn(4, 3, 2, requires_grad=True)\n"
        "a = torch.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 1])\n"
        "b = torch.nn.utils.rnn.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False)\n"
        "pa, la = torch.nn.utils.rnn.pad_packed_sequence(a, padding_value=-1.0)\n"
        "pb, lb = torch.nn.utils.rnn.pad_packed_sequence(b, batch_first=True, total_length=6)\n"
        "print(la, lb, pb.shape)\n"
        "y = pa.sum() + (pb * 2).sum()\n"
    )
    result = run(code)
    plain = run_plain(code)
    assert result.error is None, result.error
    assert printed(result) == plain.printed
    assert result.tensors["pa"].value.values == plain.namespace["pa"].tolist()
    assert result.tensors["pb"].value.values == plain.namespace["pb"].tolist()


# -- 4. torch.distributions -----------------------------------------------------------------

NORMAL = "d = torch.distributions.Normal(torch.zeros(2), torch.ones(2))\n"
VALIDATE_DEFAULT = [
    pytest.param(
        "torch.distributions.Distribution.set_default_validate_args(False)",
        "set_default_validate_args",
        id="on-the-base",
    ),
    pytest.param(
        "torch.distributions.Normal.set_default_validate_args(False)",
        "set_default_validate_args",
        id="on-a-subclass",
    ),
    pytest.param(
        NORMAL + "d.set_default_validate_args(False)", "set_default_validate_args", id="instance"
    ),
    pytest.param(
        NORMAL + "getattr(type(d), 'set_default_' + 'validate_args')(False)",
        "set_default_validate_args",
        id="type-of-instance",
    ),
    pytest.param(
        "torch.distributions.Distribution._validate_args = False", "underscore", id="write"
    ),
    pytest.param(
        "setattr(torch.distributions.Distribution, '_validate' + '_args', False)",
        "cannot be changed",
        id="setattr",
    ),
    pytest.param(NORMAL + "v = d._validate_args", "underscore", id="read-private"),
]


@pytest.mark.parametrize("code, named", VALIDATE_DEFAULT)
def test_the_class_level_validation_default_stays_put(code: str, named: str) -> None:
    """``Distribution.set_default_validate_args`` changes a default for every distribution
    made later, in this run and the next ones: refused however reached."""
    assert_refused(run(code), named)
    assert torch.distributions.Distribution._validate_args is True


@pytest.mark.slow
def test_validation_is_on_in_every_run_as_in_plain_torch(engine_process: EngineProcess) -> None:
    """A program that checks validation is on (as plain torch: a negative scale is an
    error), then tries to switch it off for the next run; run twice in its owner."""
    code = (
        "try:\n    torch.distributions.Normal(torch.tensor(0.0), torch.tensor(-1.0))\n"
        "    print('not validated')\n"
        "except ValueError:\n    print('validated')\n"
        "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
        "torch.distributions.Distribution.set_default_validate_args(False)\n"
    )
    request = RunRequest(Program(code=code), time_limit=5.0)
    first, second = engine_process.run(request), engine_process.run(request)
    assert printed(first) == printed(second) == ["validated"]
    assert second.error is not None and second.error.kind == "unsafe-code"


@pytest.mark.parametrize("target", ["torch.nn.functional", "torch.Tensor", "torch"])
@pytest.mark.parametrize(
    "made",
    [
        NORMAL,
        "d = torch.distributions.Bernoulli(probs=torch.tensor([0.3]))\n",
        "d = torch.distributions.Categorical(logits=torch.zeros(3))\n",
        "d = torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 1.0), 1)\n",
    ],
    ids=["normal", "bernoulli", "categorical", "independent"],
)
def test_expand_cannot_write_onto_an_object_the_program_names(made: str, target: str) -> None:
    """``d.expand(shape, X)`` (``_instance=X``) sets ``X.loc``, ``X.probs``... with plain
    ``setattr`` before it checks what ``X`` is: refused, nothing written."""
    code = made + f"try:\n    d.expand(torch.Size([1]), {target})\nexcept Exception:\n    pass\n"
    assert_refused(run(code), "expand")
    assert_nothing_written_onto_shared_objects()


def _memoised_program_classes() -> list[type]:
    memo = torch.distributions.kl._KL_MEMOIZE
    return [t for pair in memo for t in pair if t in PROGRAM_CLASSES or not _torchs(t)]


def _torchs(cls: type) -> bool:
    return cls.__module__.startswith("torch.distributions.")


FAKE = (
    "class Fake:\n    def __init__(self):\n"
    "        self.batch_shape = torch.Size([2])\n        self.event_shape = torch.Size([])\n"
)


# An Independent's count as the program's object: torch compares the two counts (the
# program's `__ne__` runs) before it looks inside, and by then both hold a Fake.
SWAPPING_COUNT = """
class N:
    def __init__(self):
        self.armed = True
    def __gt__(self, other):
        return False
    def __add__(self, other):
        return 1 + other
    def __ne__(self, other):
        if self.armed:
            self.armed = False
            torch.distributions.Independent.__init__(p, Fake(), 1)
            torch.distributions.Independent.__init__(q, Fake(), 1)
        return False
"""


@pytest.mark.parametrize(
    "code",
    [
        FAKE + "k = torch.distributions.kl_divergence(Fake(), Fake())\n",
        FAKE + "i = torch.distributions.Independent(Fake(), 1)\n"
        "k = torch.distributions.kl_divergence(i, i)\n",
        FAKE
        + "n = torch.distributions.Independent(torch.distributions.Independent(Fake(), 0), 1)\n"
        "k = torch.distributions.kl_divergence(n, n)\n",
        FAKE + NORMAL + "k = torch.distributions.kl_divergence(d, Fake())\n",
        FAKE + SWAPPING_COUNT + NORMAL + "p = torch.distributions.Independent(d, N())\n"
        "q = torch.distributions.Independent(d, N())\n"
        "k = torch.distributions.kl_divergence(p, q)\n",
    ],
    ids=["own-classes", "inside-independent", "two-levels-down", "one-side", "swap-mid-call"],
)
def test_kl_keeps_no_class_of_the_program(code: str) -> None:
    """torch memoises every pair of classes ``kl_divergence`` is asked about, for the whole
    process: a program's class there would outlive its run (with its namespace, through
    its functions' globals). The stand-in refuses all but the listed distributions."""
    torch.distributions.kl._KL_MEMOIZE.clear()
    result = run(code)
    assert_refused(result, "kl_divergence")
    assert _memoised_program_classes() == []


def test_kl_leaves_only_listed_pairs_whatever_runs_inside_it() -> None:
    """Belt and braces: whatever code runs inside torch's KL (played here by a KL function
    the test puts in the memo, which memoises a class of its own), the memo holds pairs of
    listed classes only once the program's call returns."""
    memo = torch.distributions.kl._KL_MEMOIZE
    normal = torch.distributions.Normal

    class ProgramClass:
        pass

    def polluting(p: object, q: object) -> torch.Tensor:
        memo[ProgramClass, ProgramClass] = NotImplemented
        return torch.zeros(2)

    memo.clear()
    memo[normal, normal] = polluting
    try:
        result = run(NORMAL + "k = torch.distributions.kl_divergence(d, d)\n")
        assert result.error is None, result.error
        assert (ProgramClass, ProgramClass) not in memo
        assert _memoised_program_classes() == []
    finally:
        memo.clear()


def test_kl_between_listed_distributions_warns_the_same_in_every_run() -> None:
    """The memo makes torch's "Ambiguous kl_divergence" warning a first-run-only one; no
    pair of the listed classes is ambiguous, so every run sees the same (nothing)."""
    classes = [
        torch.distributions.Normal,
        torch.distributions.Categorical,
        torch.distributions.Bernoulli,
        torch.distributions.Independent,
    ]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for p in classes:
            for q in classes:
                torch.distributions.kl._dispatch_kl(p, q)
    assert [str(w.message) for w in seen] == []
    code = (
        NORMAL + "q = torch.distributions.Normal(torch.ones(2), torch.ones(2))\n"
        "k = torch.distributions.kl_divergence(d, q)\n"
        "b = torch.distributions.Bernoulli(probs=torch.tensor([0.2]))\n"
        "c = torch.distributions.kl_divergence(b, b)\n"
        "y = (k.sum() + c.sum()) * torch.ones(1, requires_grad=True)\n"
    )
    first, second = run(code), run(code)
    assert first.error is None and second.error is None, (first.error, second.error)
    assert first.warnings == second.warnings == ()
    assert first.tensors["k"].value == second.tensors["k"].value


DISTRIBUTION_ATTACKS = [
    # Registries and caches shared by the whole process.
    pytest.param("r = torch.distributions.register_kl", "register_kl", id="register-kl"),
    pytest.param("k = torch.distributions.kl", "module", id="kl-module"),
    pytest.param("k = torch.distributions.kl._KL_REGISTRY", "_KL_REGISTRY", id="kl-registry"),
    pytest.param("b = torch.distributions.biject_to", "biject_to", id="biject-to"),
    pytest.param("t = torch.distributions.transform_to", "transform_to", id="transform-to"),
    pytest.param("c = torch.distributions.constraint_registry", "module", id="constraint-registry"),
    pytest.param("c = torch.distributions.constraints", "module", id="constraints"),
    pytest.param("t = torch.distributions.transforms", "module", id="transforms"),
    pytest.param("t = torch.distributions.identity_transform", "ComposeTransform", id="identity"),
    pytest.param("u = torch.distributions.utils", "module", id="utils"),
    pytest.param("L = torch.distributions.LogNormal", "LogNormal", id="transformed-class"),
    pytest.param(
        "T = torch.distributions.TransformedDistribution", "TransformedDistribution", id="td"
    ),
    # Class-level collections and constraint objects.
    pytest.param(
        "a = torch.distributions.Normal.arg_constraints",
        "arg_constraints",
        id="class-arg-constraints",
    ),
    pytest.param(
        "a = torch.distributions.Independent.arg_constraints\na['x'] = 1",
        "shares",
        id="shared-empty-dict",
    ),
    pytest.param(
        NORMAL + "a = d.arg_constraints", "arg_constraints", id="instance-arg-constraints"
    ),
    pytest.param(NORMAL + "s = d.support", "Real", id="support"),
    pytest.param("m = torch.distributions.Normal.mean", "property", id="class-property"),
    # Walking from a distribution to its module, its functions' globals, its class.
    pytest.param(NORMAL + "m = type(d).__module__", "__module__", id="module-name"),
    pytest.param(NORMAL + "f = d.log_prob.__func__", "__func__", id="func"),
    pytest.param(
        "g = getattr(torch.distributions.Normal.log_prob, '__glo' + 'bals__')",
        "underscore",
        id="globals",
    ),
    # `d.__class__` is `type(d)` (round 11), the listed class; what is behind it is not.
    pytest.param(NORMAL + "c = d.__class__.__dict__", "__dict__", id="class"),
    pytest.param("n = torch.distributions.normal", "module", id="submodule"),
    pytest.param(
        "k = getattr(torch.distributions.kl_divergence, '__wrap' + 'ped__')",
        "underscore",
        id="stand-in-wrapped",
    ),
    # Shaping torch's classes and instances.
    pytest.param("class N(torch.distributions.Normal):\n    pass", "class N", id="subclass"),
    pytest.param(
        "class N(torch.distributions.Distribution):\n    pass", "class N", id="subclass-base"
    ),
    pytest.param(NORMAL + "d.loc = torch.ones(2)", "cannot be changed", id="instance-write"),
    pytest.param(
        "torch.distributions.Normal.sample = print", "cannot be changed", id="class-write"
    ),
    pytest.param(
        "torch.distributions.Normal.__init__(torch.nn.functional, 0.0, 1.0)",
        "first argument",
        id="init-on-a-module",
    ),
    pytest.param(
        "torch.distributions.Distribution.__init__(torch.nn.Linear(1, 1))",
        "first argument",
        id="base-init-on-a-layer",
    ),
]


@pytest.mark.parametrize("code, named", DISTRIBUTION_ATTACKS)
def test_distributions_open_nothing_else(code: str, named: str) -> None:
    assert_refused(run(code), named)
    assert_nothing_written_onto_shared_objects()


@pytest.mark.slow
def test_a_vae_step_gives_plain_torchs_numbers_on_every_run(
    engine_process: EngineProcess,
) -> None:
    """Sampling, log-probabilities and KL in the engine's owner process, twice: the same
    numbers and printed lines as plain torch, no warnings (the KL memo shows nothing)."""
    code = (
        "import torch\n"
        "mu = torch.tensor([0.5, -0.5], requires_grad=True)\n"
        "q = torch.distributions.Normal(mu, torch.ones(2))\n"
        "z = q.rsample()\n"
        "p = torch.distributions.Independent(torch.distributions.Normal(0.0, torch.ones(2)), 1)\n"
        "qi = torch.distributions.Independent(q, 1)\n"
        "c = torch.distributions.Categorical(logits=mu)\n"
        "print(z, c.sample(), c.probs)\n"
        "loss = torch.distributions.kl_divergence(qi, p) + q.log_prob(z).sum()\n"
    )
    plain = run_plain(code)
    request = RunRequest(Program(code=code), time_limit=5.0)
    results = [engine_process.run(request) for _ in range(2)]
    for result in results:
        assert result.error is None, result.error
        assert printed(result) == plain.printed
        assert result.output_value is not None
        assert result.output_value.values == plain.namespace["loss"].tolist()
        assert result.warnings == ()


# -- 5. torch.utils.checkpoint: its two functions, nothing else -------------------------------
# (checkpointing itself: tests/model/engine/test_checkpoint.py)


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("c = torch.utils.checkpoint.CheckpointFunction", "CheckpointFunction"),
        ("c = torch.utils.checkpoint.set_checkpoint_early_stop", "set_checkpoint_early_stop"),
        ("c = torch.utils.checkpoint.set_checkpoint_debug_enabled", "set_checkpoint_debug"),
        ("c = torch.utils.checkpoint.DefaultDeviceType", "DefaultDeviceType"),
        ("c = torch.utils.checkpoint.create_selective_checkpoint_contexts", "selective"),
        ("from torch.utils.checkpoint import _checkpoint_hook", "_checkpoint_hook"),
        ("import torch.utils.checkpoint as c\nw = c.warnings", "warnings"),
    ],
)
def test_checkpoint_module_lends_only_its_two_functions(code: str, name: str) -> None:
    assert_refused(run(code), name)


# -- the list holds objects --------------------------------------------------------------------


def test_the_new_entries_are_objects_and_the_doors_beside_them_stay_shut() -> None:
    listed = allowlist()
    dist = torch.distributions
    rnn = torch.nn.utils.rnn
    for obj in (
        rnn.pad_sequence,
        rnn.pack_padded_sequence,
        rnn.pack_sequence,
        rnn.PackedSequence,
        rnn.PackedSequence.to,
        torch.autograd.set_detect_anomaly,
        torch.autograd.detect_anomaly,
        dist.Normal,
        dist.Normal.rsample,
        dist.Normal.log_prob,
        dist.Categorical.sample,
        dist.Bernoulli.entropy,
        dist.Independent.log_prob,
        dist.Distribution.perplexity,
        stand_in_for(dist.kl_divergence),
        stand_in_for(torch.autograd.function.once_differentiable),
        stand_in_for(rnn.pad_packed_sequence),
    ):
        assert listed.allows_object(obj), obj
    for obj in (
        dist.kl_divergence,  # the real one: programs get the stand-in
        torch.autograd.function.once_differentiable,
        rnn.pad_packed_sequence,
        dist.Distribution.set_default_validate_args,
        dist.Normal.expand,
        dist.Distribution.expand,
        dist.register_kl,
        dist.LogNormal,
        dist.LowRankMultivariateNormal,  # (MultivariateNormal: admitted in round 12)
        rnn.PackedSequence.pin_memory,
        rnn.PackedSequence.cuda,
        rnn.invert_permutation,
        torch.autograd.detect_anomaly.__init__,
        torch.set_anomaly_enabled,
    ):
        assert not listed.allows_object(obj), obj
    for real in (
        dist.kl_divergence,
        torch.autograd.function.once_differentiable,
        rnn.pad_packed_sequence,
    ):
        assert stand_in_for(real) is not real
