"""Round 8's red team: doors that earlier rounds left open, found by reading the source.
Each test is an attack that worked before its fix, or one that held and must keep holding.

1. numpy's ``ndarray(shape, dtype, buffer=...)`` takes any memory as the array's own: with
   ``dtype=object`` each 8 bytes there are read as a pointer to a Python object, so a
   program made an object out of any number (``id(x)``, or an address it chose: the
   process crashed, and a crafted one reaches native memory past the guard). Over
   ``bytes`` or a numpy scalar, ``torch.from_numpy`` then wrote into memory the whole
   process shares (``b'A'`` became ``b'B'``, ``np.True_`` became false, for later runs).
2. ``super(M, M).train`` (a class as ``super``'s second argument) handed out torch's own
   function, unbound, where ``M.train`` is checked: ``super(M, M).train(F, False)`` and
   ``super(M, M).__init__(F)`` wrote attributes onto ``torch.nn.functional`` (or
   ``torch.Tensor``), which the next run of the same program saw.
3. Whole numbers a backward saved (max pooling's indices, an embedding's input), changed
   in memory torch's version counter does not watch: through ``.data``, through
   ``.numpy()``/``np.asarray(t)``, through ``x.data = i``, through a view reading them as
   fractions (``i.view(torch.float64)``, then its ``.data``), through ``unsafe_split``'s
   pieces (no version counter of theirs), or through the numpy array a
   tensor was made from (``from_numpy``, ``as_tensor``, ``asarray``, ``LongTensor``, a
   DataLoader without batches): the backward kernel wrote where the numbers pointed
   (``free(): invalid size``, a crash). And two kernels
   that trust their arguments: ``F.ctc_loss``'s targets (past ``log_probs``) and
   ``torch.segment_reduce(..., unsafe=True)``'s lengths (past the data).
4. ``y.grad_fn(g)``: a C++ autograd node is callable, and a call is no attribute read;
   called directly, a node ran its backward kernel on a gradient torch's engine never
   checked (``pdist``'s node read past a one-number gradient).
5. (xfail, helper 38's files) a program's exception whose ``str()`` fails, a tensor on the
   ``meta`` device, and an expanded view's statistics (see each test).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch
import torch.nn.functional

from gui.model.engine import pristine
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from tests.corpus.harness import run_in_engine
from tests.model.engine.sandbox_helpers import assert_refused, assert_same_as_plain, printed

FORGE = "import numpy as np\nm = torch.nn.functional\n"


@pytest.mark.parametrize(
    "body",
    [
        # An address (here one the program may hold; any number works) made an object.
        "a = np.ndarray((1,), dtype=object, buffer=np.array([id(m)], dtype=np.int64))\n"
        "print(a[0] is m)\n",
        "a = np.ndarray((1,), dtype=[('f', 'O')], buffer=np.array([id(m)], dtype=np.int64))\n"
        "print(a[0])\n",
        "a = np.ndarray((1,), dtype=('O', (1,)), buffer=np.array([id(m)], dtype=np.int64))\n"
        "print(a[0])\n",
        # The class reached as `type(array)` and by `from numpy import ndarray`.
        "a = type(np.zeros(1))((1,), object, np.array([id(m)], dtype=np.int64))\nprint(a)\n",
        "from numpy import ndarray\n"
        "a = ndarray((1,), object, np.array([id(m)], dtype=np.int64))\nprint(a)\n",
        # The other way round: the pointers of an array of objects, as writable numbers.
        "o = np.empty(1, dtype=object)\n"
        "v = np.ndarray((1,), dtype=np.int64, buffer=o)\n"
        "v[0] = id(m)\nprint(o[0] is m)\n",
    ],
    ids=["object", "object-field", "object-subarray", "type-of-array", "from-import", "int-view"],
)
def test_raw_memory_cannot_be_read_as_python_objects(
    owner_cycle: pristine.Settings, body: str
) -> None:
    result = run_in_engine(FORGE + body)
    assert_refused(result, "np.ndarray", "buffer")
    assert printed(result) == []


@pytest.mark.parametrize(
    "body",
    [
        "a = np.ndarray((1,), np.bool_, buffer=np.True_)\n",
        "a = np.ndarray((1,), np.uint8, buffer=b'A')\n",
    ],
    ids=["numpy-true", "bytes"],
)
def test_memory_the_process_shares_cannot_be_written_through_an_array(
    owner_cycle: pristine.Settings, body: str
) -> None:
    code = "import numpy as np\n" + body + "t = torch.from_numpy(a)\nt[0] = 66\n"
    result = run_in_engine(code)
    assert_refused(result, "np.ndarray", "buffer")
    assert bool(np.True_) is True
    assert bytes([65]) == b"A"


def test_ndarray_still_works_as_the_class_tutorials_name(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "import numpy as np\n"
        "a = np.ndarray((2, 2))\n"
        "b = np.ndarray((2,), dtype=np.int64, buffer=np.array([3, 4]))\n"
        "c = np.ndarray((2,), dtype=object)\n"
        "def f(x: np.ndarray) -> np.ndarray:\n"
        "    return x * 2\n"
        "print(a.shape, b, c, np.ndarray, type(b) is np.ndarray, isinstance(b, np.ndarray))\n"
        "print(issubclass(type(b), np.ndarray), np.ndarray.sum(b), f(b))\n"
        "w = torch.from_numpy(b).double().requires_grad_()\n"
        "y = (w ** 2).sum()\n"
        "y.backward()\n"
    )
    assert torch.equal(torch.tensor([1]), torch.tensor([1]))


# Wherever the function is written on a class, `super(M, M).name` finds it unbound.
LEAVES_A_MARK = (
    "import torch.nn.functional as F\n"
    "class M(torch.nn.Module):\n"
    "    pass\n"
    "class S(torch.optim.lr_scheduler.StepLR):\n"
    "    pass\n"
    "seen = hasattr(F, 'training') or hasattr(F, 'step_size')\n"
    "try:\n"
    "    {attack}\n"
    "except (AttributeError, TypeError):\n"
    "    pass\n"
    "x = torch.tensor(2.0, requires_grad=True)\n"
    "y = x * (3.0 if seen else 1.0)\n"
)
SUPER_ATTACKS = [
    pytest.param("super(M, M).train(F, False)", id="train"),
    pytest.param("super(M, M).__init__(F)", id="module-init"),
    pytest.param(
        "super(S, S).__init__(F, torch.optim.SGD([torch.nn.Parameter(torch.ones(1))]), 7)",
        id="scheduler-init",
    ),
]


@pytest.fixture
def functional_unmarked() -> object:
    yield
    for name in ("training", "step_size", "gamma", "_parameters", "_buffers", "_modules"):
        vars(torch.nn.functional).pop(name, None)


@pytest.mark.parametrize("attack", SUPER_ATTACKS)
def test_a_library_function_found_through_super_checks_its_self(
    owner_cycle: pristine.Settings, functional_unmarked: object, attack: str
) -> None:
    result = run_in_engine(LEAVES_A_MARK.format(attack=attack))
    assert_refused(result, "first argument must be")
    assert not hasattr(torch.nn.functional, "training")
    assert not hasattr(torch.nn.functional, "step_size")


def test_super_still_reaches_the_programs_and_torchs_methods(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "class Base:\n"
        "    items = [1, 2]\n"
        "class Child(Base):\n"
        "    pass\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super(M, self).__init__()\n"
        "        self.l = torch.nn.Linear(2, 1)\n"
        "    def train(self, mode=True):\n"
        "        return super(M, self).train(mode)\n"
        "    def forward(self, x):\n"
        "        return self.l(x)\n"
        "m = M()\n"
        "m.train(False)\n"
        "super(M, M).train(m, True)\n"
        "print(m.training, super(Child, Child).items)\n"
        "y = m(torch.ones(2)).sum()\n"
        "y.backward()\n"
    )


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_two_runs_of_a_program_reaching_through_super_agree(
    engine_process: EngineProcess,
) -> None:
    code = LEAVES_A_MARK.format(attack="super(M, M).train(F, False)")
    first = engine_process.run(RunRequest(Program(code=code)))
    again = engine_process.run(RunRequest(Program(code=code)))
    assert first.error is not None and first.error.kind == "unsafe-code", first.error
    assert again.error == first.error
    assert again.tensors.keys() == first.tensors.keys()


POOLED = (
    "import numpy as np\n"
    "import torch.nn.functional as F\n"
    "x = torch.randn(1, 1, 64, requires_grad=True)\n"
    "y, i = F.max_pool1d(x, 2, return_indices=True)\n"
)
EMBEDDED = (
    "import numpy as np\n"
    "import torch.nn.functional as F\n"
    "a = np.array([0, 1])\n"
    "w = torch.randn(3, 2, requires_grad=True)\n"
)


@pytest.mark.parametrize(
    "code",
    [
        POOLED + "i.data.fill_(10**7)\ny.sum().backward()\nprint(x.grad.sum())\n",
        POOLED + "i.numpy()[...] = 10**7\ny.sum().backward()\nprint(x.grad.sum())\n",
        POOLED + "np.asarray(i)[...] = 10**7\ny.sum().backward()\nprint(x.grad.sum())\n",
        POOLED + "z = torch.from_numpy(i.numpy())\nz.fill_(10**7)\ny.sum().backward()\n"
        "print(x.grad.sum())\n",
        POOLED + "z = torch.zeros(32, dtype=torch.long)\nz.data = i\nz.fill_(10**7)\n"
        "y.sum().backward()\nprint(x.grad.sum())\n",
        POOLED + "f = i.view(torch.float64)\nf.data.fill_(1e300)\ny.sum().backward()\n"
        "print(x.grad.sum())\n",
        POOLED + "f = torch.Tensor.view(i, torch.float64)\nf.numpy()[...] = 1e300\n"
        "y.sum().backward()\nprint(x.grad.sum())\n",
        EMBEDDED + "i = torch.from_numpy(a)\nout = F.embedding(i, w).sum()\na[0] = 10**7\n"
        "out.backward()\nprint(w.grad.sum())\n",
        EMBEDDED + "i = torch.as_tensor(a)\nout = F.embedding(i, w).sum()\na[0] = 10**7\n"
        "out.backward()\nprint(w.grad.sum())\n",
        EMBEDDED + "i = torch.asarray(a)\nout = F.embedding(i, w).sum()\na[0] = 10**7\n"
        "out.backward()\nprint(w.grad.sum())\n",
        EMBEDDED + "store = [a]\n"
        "class D(torch.utils.data.Dataset):\n"
        "    def __len__(self):\n"
        "        return 1\n"
        "    def __getitem__(self, k):\n"
        "        return store[k]\n"
        "for i in torch.utils.data.DataLoader(D(), batch_size=None):\n"
        "    out = F.embedding(i, w).sum()\n"
        "    a[0] = 10**7\n"
        "    out.backward()\n"
        "print(w.grad.sum())\n",
        POOLED + "i.unsafe_split(16, dim=2)[0].fill_(10**7)\ny.sum().backward()\n"
        "print(x.grad.sum())\n",
        POOLED + "torch.unsafe_chunk(i, 2, 2)[0].fill_(10**7)\ny.sum().backward()\n"
        "print(x.grad.sum())\n",
    ],
    ids=[
        "data",
        "numpy",
        "asarray",
        "numpy-round-trip",
        "data-setter",
        "float-view-data",
        "float-view-numpy",
        "from-numpy",
        "as-tensor",
        "torch-asarray",
        "dataloader-without-batches",
        "unsafe-split",
        "unsafe-chunk",
    ],
)
def test_saved_indices_cannot_change_behind_torchs_back(
    owner_cycle: pristine.Settings, code: str
) -> None:
    # Before the fix the kernel wrote 10**7 elements past its buffer: the process crashed
    # (or went on with corrupted memory). Now torch refuses the backward, the app refuses
    # the swap, or the backward uses the indices as they were saved.
    result = run_in_engine(code)
    if result.error is None:
        assert printed(result) in (["tensor(32.)"], ["tensor(4.)"]), printed(result)
    else:
        assert result.error.kind in ("saved-tensor-modified", "unsafe-code"), result.error


def test_shared_memory_still_works_for_fractions_and_copies_for_whole_numbers(
    owner_cycle: pristine.Settings,
) -> None:
    result = run_in_engine(
        "import numpy as np\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "loss = (w * 2).sum()\n"
        "loss.backward()\n"
        "w.data -= 0.1 * w.grad\n"
        "w.data = w.data * 2\n"
        "f = np.zeros(2)\n"
        "t = torch.from_numpy(f)\n"
        "f[0] = 5.0\n"
        "n = torch.tensor([1, 2])\n"
        "n.numpy()[0] = 7\n"
        "print(w.detach(), t, n, n.data.dtype)\n"
    )
    assert result.error is None, result.error
    assert printed(result) == [
        "tensor([1.6000, 1.6000, 1.6000]) tensor([5., 0.], dtype=torch.float64) "
        "tensor([1, 2]) torch.int64"
    ]


@pytest.mark.parametrize(
    "code",
    [
        "import torch.nn.functional as F\n"
        "lp = torch.randn(5, 1, 4).log_softmax(2).detach().requires_grad_()\n"
        "loss = F.ctc_loss(lp, torch.tensor([[10**6, 1]]), torch.tensor([5]), torch.tensor([2]))\n"
        "loss.backward()\n",
        "lp = torch.randn(5, 1, 4).log_softmax(2).detach().requires_grad_()\n"
        "loss = torch.nn.CTCLoss()(lp, torch.tensor([[1, -5]]), [5], [2])\n"
        "loss.backward()\n",
        "d = torch.arange(4., requires_grad=True)\n"
        "out = torch.segment_reduce(d, 'sum', lengths=torch.tensor([10**5, 10**5]), unsafe=True)\n"
        "out.sum().backward()\n",
    ],
    ids=["ctc-loss", "ctc-layer", "segment-reduce-unsafe"],
)
def test_kernels_that_trust_their_indices_get_checked_ones(
    owner_cycle: pristine.Settings, code: str
) -> None:
    assert_refused(run_in_engine(code), "not available")


def test_ctc_loss_and_segment_reduce_still_match_torch(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "lp = torch.randn(6, 2, 5).log_softmax(2).detach().requires_grad_()\n"
        "targets = torch.tensor([[1, 2, 2], [3, 4, 1]])\n"
        "loss = torch.nn.CTCLoss()(lp, targets, [6, 5], [3, 2])\n"
        "loss.backward()\n"
        "d = torch.arange(4., requires_grad=True)\n"
        "seg = torch.segment_reduce(d, 'max', lengths=torch.tensor([1, 3]))\n"
        "seg.sum().backward()\n"
        "print(loss.item(), seg)\n"
    )


# torch's legacy typed constructors share a numpy array's memory too (`torch.LongTensor(a)`):
# stand-ins copy an array of whole numbers, and keep `isinstance` and `x.type(...)`.
def test_a_legacy_constructor_does_not_share_an_arrays_whole_numbers(
    owner_cycle: pristine.Settings,
) -> None:
    result = run_in_engine(
        EMBEDDED + "i = torch.LongTensor(a)\nout = F.embedding(i, w).sum()\na[0] = 10**7\n"
        "out.backward()\nprint(w.grad.sum())\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["tensor(4.)"]


def test_legacy_types_still_work_as_in_torch(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "import numpy as np\n"
        "from torch import IntTensor\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "i = torch.LongTensor([1, 0])\n"
        "print(torch.LongTensor, isinstance(i, torch.LongTensor), isinstance(x, torch.LongTensor))\n"
        "print(x.type(torch.LongTensor), x.type(torch.IntTensor), IntTensor([1]))\n"
        "print(torch.ByteTensor(np.array([1, 2], dtype=np.uint8)), torch.LongTensor(3).shape)\n"
        "print(torch.nn.Linear(1, 1).type(torch.DoubleTensor).weight.dtype)\n"
        "y = (x[i] * 2).sum()\n"
        "y.backward()\n"
    )


# An autograd node is callable (`y.grad_fn(g)` runs its backward function on `g` alone),
# and a call is no attribute read: the guard never saw it. torch checks the gradients it
# hands a node (shape, dtype) in its engine, not in the node: `F.pdist(a).grad_fn(
# torch.ones(1))` and batch norm's node read past the one number given (NaN and 1e+23
# from the heap), and AccumulateGrad took an int64 gradient for a float leaf. Programs
# now hold a view of each C++ node (allowlist.NodeView): read like the node, not callable.
@pytest.mark.parametrize(
    "code",
    [
        "import torch.nn.functional as F\n"
        "a = torch.randn(50, 2, requires_grad=True)\n"
        "r = F.pdist(a).grad_fn(torch.ones(1))\n",
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x * 2\n"
        "y.grad_fn.next_functions[0][0](torch.ones(3, dtype=torch.int64))\n",
        "class F(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        ctx.next_functions[0][0](torch.ones(3, dtype=torch.int64))\n"
        "        return g * 2\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "F.apply(x * 1).sum().backward()\n",
    ],
    ids=["pdist-node", "accumulate-grad-node", "through-a-functions-ctx"],
)
def test_an_autograd_node_cannot_be_called_directly(
    owner_cycle: pristine.Settings, code: str
) -> None:
    assert_refused(run_in_engine(code), "not available")


def test_a_node_reads_prints_and_compares_as_in_torch(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "x = torch.ones(3, requires_grad=True)\n"
        "y = (x.pow(2) * 2).sum()\n"
        "g = y.grad_fn\n"
        "print(g, g.name(), g.next_functions)\n"
        "print(g is y.grad_fn, g == y.grad_fn, x.grad_fn is None)\n"
        "mul = g.next_functions[0][0]\n"
        "print(mul._saved_other, mul.next_functions[0][0]._saved_exponent)\n"
        "seen = set()\n"
        "todo = [g]\n"
        "while todo:\n"
        "    n = todo.pop()\n"
        "    if n is not None and n not in seen:\n"
        "        seen.add(n)\n"
        "        todo += [f for f, _ in n.next_functions]\n"
        "print(len(seen))\n"
        "y.backward()\n"
    )


# A program's exception whose `str()` fails (its `__str__` raises, or its args hold the
#    exception itself) made the engine report its own bug ("engine-error: ... a bug in the
#    app"), and one whose `__str__` raises it again got out of `answer` altogether (the
#    process died). Plain Python prints "<exception str() failed>" and goes on.
#    Fix (run.py, helper 38's): in `_Run._explain_at`, read the message as
#    `message = _exception_text(exc)`, a helper that returns `str(exc)` and, on
#    `Exception` or `RecursionError`, `f"<exception str() failed>"` instead.
@pytest.mark.parametrize(
    "code",
    [
        "class E(Exception):\n    def __str__(self):\n        raise ValueError('inner')\nraise E()\n",
        "class E(Exception):\n    def __str__(self):\n        raise E()\nraise E()\n",
        "class E(Exception):\n    pass\ne = E()\ne.args = (e,)\nraise e\n",
    ],
    ids=["str-raises", "str-raises-itself", "args-hold-itself"],
)
def test_an_exception_whose_text_fails_is_the_programs_error(
    owner_cycle: pristine.Settings, code: str
) -> None:
    from gui.model.engine.jobs import answer
    from gui.model.request import Program, RunRequest

    result = answer(RunRequest(Program(code=code), time_limit=30.0))
    assert result.error is not None
    assert result.error.kind != "engine-error", result.error.message


# Tensors the engine reads after the run, in ways a program chooses:
#    a tensor on the `meta` device (shape, no numbers) ended the run as the engine's own
#    bug; an expanded view (`x.expand(3 * 10**8)`, no memory, 0.02 s in plain torch) had
#    its statistics computed over every repeat (min, max, mean and norm: seconds per read,
#    minutes at 10**9, so a quick program ran out of time in the engine).
#    Fix (tensors.py, helper 38's): `summary_of` reduces over the view with each
#    zero-stride dimension sliced to one element (`t.narrow(d, 0, 1)`): min, max and mean
#    are the same, the norm is that view's times sqrt(the repeats); the meta tensor's
#    reads end in `_unusual_tensor_data` everywhere the engine reads (the error comes
#    from `Tensor.item()` on the meta tensor).
def test_a_meta_tensor_is_no_engine_error(owner_cycle: pristine.Settings) -> None:
    from gui.model.engine.jobs import answer
    from gui.model.request import Program, RunRequest

    code = "x = torch.ones(2, device='meta', requires_grad=True)\ny = (x * 2).sum()\n"
    result = answer(RunRequest(Program(code=code), time_limit=30.0))
    assert result.error is None or result.error.kind != "engine-error", result.error


def test_an_expanded_tensors_statistics_cost_its_memory_not_its_repeats() -> None:
    import time

    from gui.model.engine.tensors import tensor_data

    base = torch.tensor([1.0, -2.0])
    rows = 3 * 10**8 // 2
    big = base.expand(rows, 2)
    started = time.perf_counter()
    data = tensor_data(big)
    elapsed = time.perf_counter() - started
    assert data.summary is not None
    assert (data.summary.minimum, data.summary.maximum) == (-2.0, 1.0)
    assert data.summary.mean == pytest.approx(-0.5)
    assert data.summary.norm == pytest.approx((rows * 5) ** 0.5, rel=1e-5)
    # Not a speed target (those are benchmarks): over every repeat this took minutes.
    assert elapsed < 10.0, f"{elapsed:.1f} s for a tensor of 16 bytes"


@pytest.mark.parametrize(
    "code",
    [
        "t = torch.LongTensor._real\n",
        "t = torch.LongTensor.real\n",
        "t = type(torch.LongTensor)\n",
        "import numpy as np\nt = type(np.ndarray)\n",
        "x = torch.ones(2, requires_grad=True)\nn = (x * 2).grad_fn._node\n",
    ],
    ids=["legacy-private", "legacy-forwarded", "legacy-metaclass", "ndarray-metaclass", "node"],
)
def test_the_stand_ins_do_not_hand_out_what_they_stand_for(
    owner_cycle: pristine.Settings, code: str
) -> None:
    assert_refused(run_in_engine(code), "not available")
