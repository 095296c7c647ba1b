"""Round 11's red team: what round 10 admitted (``torch.nn.utils.parametrize`` through the
checked stand-in, the LSTM kernels' stand-in, ``torch.tensor`` of data holding tensors),
state a program could leave in its process, and resource exhaustion, read as an attacker
who has the source. Each test is an attack that worked before its fix, or one that held
and must keep holding.

1. A parametrization's originals of whole numbers: the stand-in checked the layer's tensor
   at registration, but a ``right_inverse`` returning a sequence makes ``original0``... of
   any dtype, and the next ``layer.b = value`` pointed such an original (torch's ``set_``)
   at max pooling's saved indices; ``original0.fill_(10**7)`` then changed them unseen
   and the pooling's backward wrote past its buffer (SIGSEGV in plain torch and in the
   engine). Every swap torch's parametrizations make is now checked.
2. ``torch.lstm`` called by hand reached the kernel behind ``nn.LSTM`` without the checks
   round 10 put in front of it: one-number weights for a 3000-wide layer, and the
   backward crashed the process. It is now the same checked kernel.
3. ``torch.segment_reduce(..., offsets=...)``: torch checks lengths, never offsets, and
   ``offsets=[0, 10**6]`` read past the data (its backward wrote past it: SIGSEGV).
   Offsets are now handed to torch as the lengths between them, which it checks.
5. ``torch.nn.utils.vector_to_parameters(indices.flatten(), [t])`` set ``t.data`` to a
   view of max pooling's saved indices (``.data``: a version counter of its own), and
   ``t.fill_(10**7)`` made the backward write past its buffer (SIGSEGV). The stand-in
   takes tensors of fractions only.
6. ``lin.parametrizations = nn.ModuleDict({'reset_parameters': fake})`` made
   ``remove_parametrizations(lin, 'reset_parameters', leave_parametrized=False)`` delete
   ``nn.Linear.reset_parameters`` (torch deletes the name from the layer's class, which it
   assumes it made): the next run of the program in that process failed at
   ``nn.Linear(2, 2)``. Registering on such a layer (also one the parametrization's own
   ``right_inverse`` forged during the registration) put torch's ``weight`` property on
   ``nn.Linear`` itself. torch's steps that edit a class now take only the class its
   registration made for the layer.
7. Backends' entry points in torch's table of tensor functions, below the checks of the
   functions programs call: ``torch.native_batch_norm(x, None, None, torch.ones(1),
   torch.ones(1), True, ...)`` and ``batch_norm_update_stats`` wrote every channel's
   running statistics into one-number tensors (heap corruption: glibc aborted the
   process), ``fbgemm_linear_int8_weight`` read ``col_offsets`` past its size (SIGSEGV).
   Refused by name, with the GPU and sync-BN helpers that have no CPU kernel.
4. ``torch.tensor([np.float64(0.1), t])`` was float32 in the engine, float64 in torch (a
   numpy double is a Python float too): the dtype of data holding tensors is inferred
   from numpy's scalars first.
"""

from __future__ import annotations

import sys

import pytest
import torch

from gui.model.engine import pristine
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from tests.corpus.harness import differences, run_in_engine, run_plain
from tests.model.engine.sandbox_helpers import assert_refused, assert_same_as_plain, printed

ORDINARY = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * x).sum()\ny.backward()\nprint(y.item(), x.grad)\n"
)

# 1. Parametrizations whose originals are whole numbers, swapped onto saved indices.
POOLED = (
    "import torch.nn.utils.parametrize as P\n"
    "import torch.nn.functional as F\n"
    "x = torch.randn(1, 1, 64, requires_grad=True)\n"
    "y, i = F.max_pool1d(x, 2, return_indices=True)\n"
)
SEQUENCE_ORIGINALS = POOLED + (
    "keep = [torch.zeros(1, 1, 32, dtype=torch.long)]\n"
    "class Pair(torch.nn.Module):\n"
    "    def forward(self, ind, v):\n"
    "        return v\n"
    "    def right_inverse(self, X):\n"
    "        return (keep[0], X)\n"
    "m = torch.nn.Module()\n"
    "m.register_buffer('b', torch.zeros(3))\n"
    "P.register_parametrization(m, 'b', Pair())\n"
    "keep[0] = i\n"
    "m.b = torch.zeros(3)\n"  # original0.set_(i): i's memory under original0's counter
    "m.parametrizations.b.original0.fill_(10**7)\n"
    "y.sum().backward()\n"
    "print(x.grad.sum())\n"
)
REPLACED_ORIGINAL = POOLED + (
    "class Same(torch.nn.Module):\n"
    "    def forward(self, X):\n"
    "        return X\n"
    "    def right_inverse(self, X):\n"
    "        return X\n"
    "m = torch.nn.Module()\n"
    "m.register_buffer('b', torch.zeros(1, 1, 32))\n"
    "P.register_parametrization(m, 'b', Same())\n"
    "m.parametrizations.b.original = torch.zeros(1, 1, 32, dtype=torch.long)\n"
    "m.b = i\n"
    "m.parametrizations.b.original.fill_(10**7)\n"
    "y.sum().backward()\n"
    "print(x.grad.sum())\n"
)
REMOVED_ONTO_INDICES = POOLED + (
    "flag = [False]\n"
    "class Later(torch.nn.Module):\n"
    "    def forward(self, X):\n"
    "        return i if flag[0] else X\n"
    "m = torch.nn.Module()\n"
    "m.register_buffer('c', torch.zeros(1, 1, 32))\n"
    "P.register_parametrization(m, 'c', Later())\n"
    "m.parametrizations.c.original = torch.zeros(1, 1, 32, dtype=torch.long)\n"
    "flag[0] = True\n"
    "P.remove_parametrizations(m, 'c')\n"  # original.set_(i), to leave it parametrized
    "m.c.fill_(10**7)\n"
    "y.sum().backward()\n"
    "print(x.grad.sum())\n"
)


@pytest.mark.parametrize(
    "code",
    [SEQUENCE_ORIGINALS, REPLACED_ORIGINAL, REMOVED_ONTO_INDICES],
    ids=["sequence-originals", "replaced-original", "removed-onto-indices"],
)
def test_a_whole_number_original_is_never_swapped_onto_other_memory(
    owner_cycle: pristine.Settings, code: str
) -> None:
    # Before the fix: SIGSEGV (the pooling's backward wrote 10**7 numbers past x.grad).
    result = run_in_engine(code)
    if result.error is None:  # torch refused, or the indices were never shared
        assert printed(result) == ["tensor(32.)"], printed(result)
    else:
        assert result.error.kind in ("unsafe-code", "saved-tensor-modified", "runtime-error"), (
            result.error
        )


def test_the_sequence_swap_is_refused_with_one_sentence(owner_cycle: pristine.Settings) -> None:
    assert_refused(run_in_engine(SEQUENCE_ORIGINALS), "whole numbers", "parametrize")


def test_parametrizations_of_fractions_still_swap_as_in_torch(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "import torch.nn.utils.parametrize as P\n"
        "class Split(torch.nn.Module):\n"
        "    def forward(self, a, b):\n"
        "        return a + b\n"
        "    def right_inverse(self, X):\n"
        "        return (X / 2, X / 2)\n"
        "class Double(torch.nn.Module):\n"
        "    def forward(self, X):\n"
        "        return 2 * X\n"
        "    def right_inverse(self, X):\n"
        "        return X / 2\n"
        "lin = torch.nn.Linear(2, 2)\n"
        "P.register_parametrization(lin, 'weight', Split())\n"
        "lin.weight = torch.ones(2, 2)\n"
        "P.register_parametrization(lin, 'bias', Double())\n"
        "lin.bias = torch.tensor([4.0, 6.0])\n"
        "loss = lin(torch.ones(1, 2)).sum()\n"
        "loss.backward()\n"
        "P.remove_parametrizations(lin, 'bias')\n"
        "print(lin.weight, lin.bias, lin.parametrizations.weight.original0.grad)\n"
    )


# 2. torch.lstm by hand: the kernel behind nn.LSTM, without the layer's checks.
HAND_LSTM = (
    "x = torch.randn(5, 1, 400, requires_grad=True)\n"
    "h = torch.zeros(1, 1, 3000)\n"
    "ws = [torch.ones(1, requires_grad=True) for k in range(4)]\n"
    "out = torch.lstm(x, (h, h), ws, True, 1, 0.0, True, False, False)\n"
    "out[0].sum().backward()\n"
    "print(ws[0].grad)\n"
)


def test_torch_lstm_by_hand_checks_its_weights(owner_cycle: pristine.Settings) -> None:
    # Before the fix: SIGSEGV in the backward (and NaN read from past the weights before).
    assert_refused(run_in_engine(HAND_LSTM), "LSTM", "weight")
    assert_refused(
        run_in_engine(HAND_LSTM.replace("True, 1, 0.0, True, False, False", "has_biases=True")),
        "position",
    )


def test_torch_lstm_by_hand_with_a_layers_weights_matches_plain_torch(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "lstm = torch.nn.LSTM(4, 5, num_layers=2, bidirectional=True)\n"
        "x = torch.randn(3, 2, 4, requires_grad=True)\n"
        "h = torch.zeros(4, 2, 5)\n"
        "out, hn, cn = torch.lstm(x, (h, h), list(lstm.parameters()), True, 2, 0.0, False,"
        " True, False)\n"
        "packed = torch.nn.utils.rnn.pack_sequence([torch.ones(3, 4), torch.ones(2, 4)])\n"
        "po = torch.lstm(packed.data, packed.batch_sizes, (h, h), list(lstm.parameters()), True,"
        " 2, 0.0, False, True)\n"
        "out.sum().backward()\n"
        "print(out.sum(), hn.sum(), po[0].sum(), x.grad.sum())\n"
    )


# 3. segment_reduce's offsets, which torch never checks.
OFFSETS = (
    "d = torch.randn(4, requires_grad=True)\n"
    "o = torch.segment_reduce(d, 'max', offsets=torch.tensor({offsets}))\n"
    "o.sum().backward()\n"
    "print(o, d.grad)\n"
)


@pytest.mark.parametrize("offsets", ["[0, 10**6]", "[-10**6, 2]", "[2, 4]", "[0, 5]"])
def test_segment_offsets_that_do_not_fit_the_data_are_refused(
    owner_cycle: pristine.Settings, offsets: str
) -> None:
    # Before the fix: SIGSEGV for the first (reads and writes past `d`), garbage for the
    # second; now refused by the stand-in or by torch's check of the lengths.
    result = run_in_engine(OFFSETS.format(offsets=offsets))
    assert result.error is not None, printed(result)
    assert result.error.kind in ("unsafe-code", "other-error"), result.error
    assert "offsets" in result.error.message or "lengths" in result.error.message


def test_segment_offsets_that_fit_match_plain_torch(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "d = torch.arange(6.0, requires_grad=True)\n"
        "o = torch.segment_reduce(d, 'max', offsets=torch.tensor([0, 2, 2, 6]), initial=-1.0)\n"
        "o.sum().backward()\n"
        "d2 = torch.arange(12.0).view(2, 6).requires_grad_()\n"
        "o2 = torch.segment_reduce(d2, 'mean', offsets=torch.tensor([[0, 1, 6], [0, 5, 6]]),"
        " axis=1)\n"
        "o2.sum().backward()\n"
        "print(o, d.grad, o2, d2.grad)\n"
    )


# 5. vector_to_parameters points each tensor at the vector's memory.
VECTOR_ONTO_INDICES = POOLED + (
    "t = torch.zeros(32, dtype=torch.long)\n"
    "torch.nn.utils.vector_to_parameters(i.flatten(), [t])\n"
    "t.fill_(10**7)\n"
    "y.sum().backward()\n"
    "print(x.grad.sum())\n"
)


def test_vector_to_parameters_never_shares_whole_numbers(owner_cycle: pristine.Settings) -> None:
    # Before the fix: SIGSEGV in the pooling's backward.
    assert_refused(run_in_engine(VECTOR_ONTO_INDICES), "vector_to_parameters", "whole numbers")
    swapped = VECTOR_ONTO_INDICES.replace("torch.zeros(32, dtype=torch.long)", "torch.zeros(32)")
    assert_refused(run_in_engine(swapped), "vector_to_parameters")


def test_vector_to_parameters_of_fractions_matches_plain_torch(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "m = torch.nn.Linear(3, 2)\n"
        "v = torch.nn.utils.parameters_to_vector(m.parameters())\n"
        "torch.nn.utils.vector_to_parameters(v * 2, m.parameters())\n"
        "u = torch.arange(8.0)\n"
        "torch.nn.utils.vector_to_parameters(u, m.parameters())\n"
        "u[0] = 100.0\n"  # shared, as in torch
        "loss = m(torch.ones(1, 3)).sum()\n"
        "loss.backward()\n"
        "print(m.weight, m.bias.grad)\n"
    )


# 6. A forged `parametrizations` entry: torch deletes the name from the layer's class.
FORGED = (
    "import torch.nn.utils.parametrize as P\n"
    "class Fake(torch.nn.Module):\n"
    "    is_tensor = True\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.original = torch.nn.Parameter(torch.zeros(1))\n"
    "lin = torch.nn.Linear(2, 2)\n"
    "lin.parametrizations = torch.nn.ModuleDict({'reset_parameters': Fake()})\n"
    "{call}\n"
    "print(lin)\n"
)
FORGED_CALLS = {
    "remove": "P.remove_parametrizations(lin, 'reset_parameters', leave_parametrized=False)",
    "register": "P.register_parametrization(lin, 'weight', torch.nn.Identity())",
    # Forged by the parametrization itself, during torch's registration (after any check
    # before the call): torch then took nn.Linear for the class it had made.
    "forged-while-registering": (
        "del lin.parametrizations\n"
        "class Sneaky(torch.nn.Module):\n"
        "    def forward(self, X):\n"
        "        return X\n"
        "    def right_inverse(self, X):\n"
        "        lin.parametrizations = torch.nn.ModuleDict({'other': Fake()})\n"
        "        return X\n"
        "P.register_parametrization(lin, 'weight', Sneaky())"
    ),
}


@pytest.mark.parametrize("call", FORGED_CALLS.values(), ids=FORGED_CALLS.keys())
def test_forged_parametrizations_never_edit_a_library_class(
    owner_cycle: pristine.Settings, call: str
) -> None:
    # Before the fix, removing deleted `nn.Linear.reset_parameters`, and registering put
    # torch's `weight` property on `nn.Linear` itself (the forged entry made torch take
    # the layer for one whose class it had made).
    before = dict(vars(torch.nn.Linear))
    try:
        result = run_in_engine(FORGED.replace("{call}", call))
        assert dict(vars(torch.nn.Linear)) == before
        assert_refused(result, "parametrization")
    finally:
        for name in set(vars(torch.nn.Linear)) - set(before):
            delattr(torch.nn.Linear, name)
        for name, value in before.items():
            if vars(torch.nn.Linear).get(name) is not value:
                setattr(torch.nn.Linear, name, value)


def test_registered_parametrizations_are_still_removed_as_in_torch(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "import torch.nn.utils.parametrize as P\n"
        "class Double(torch.nn.Module):\n"
        "    def forward(self, X):\n"
        "        return 2 * X\n"
        "lin = torch.nn.Linear(2, 2)\n"
        "P.register_parametrization(lin, 'weight', Double())\n"
        "P.register_parametrization(lin, 'bias', Double())\n"
        "P.remove_parametrizations(lin, 'weight', leave_parametrized=False)\n"
        "print(lin, P.is_parametrized(lin))\n"
        "P.remove_parametrizations(lin, 'bias')\n"
        "twin = torch.nn.Linear(2, 2)\n"
        "print(lin, P.is_parametrized(lin), lin.weight, lin.bias, twin.weight)\n"
    )


# 7. Backends' entry points below the checks.
BACKEND_ENTRY_POINTS = {
    "native_batch_norm": (
        "x = torch.randn(4, 8000, requires_grad=True)\n"
        "o = torch.native_batch_norm(x, None, None, torch.ones(1), torch.ones(1), True, 0.1,"
        " 1e-5)\n"
        "print(o[0].sum())\n"
    ),
    "batch_norm_update_stats": (
        "x = torch.randn(4, 8000)\n"
        "print(torch.batch_norm_update_stats(x, torch.ones(1), torch.ones(1), 0.1))\n"
    ),
    "fbgemm_linear_int8_weight": (
        "w = torch.randint(-5, 5, (200000, 8), dtype=torch.int8)\n"
        "packed = torch.fbgemm_pack_quantized_matrix(w)\n"
        "out = torch.fbgemm_linear_int8_weight(torch.randn(1, 8), w.float(), packed,"
        " torch.zeros(1, dtype=torch.int32), 1.0, 0, torch.zeros(200000))\n"
        "print(out.abs().max())\n"
    ),
}


@pytest.mark.parametrize("name", BACKEND_ENTRY_POINTS)
def test_backend_entry_points_below_the_checks_are_refused(
    owner_cycle: pristine.Settings, name: str
) -> None:
    # Before the fix: heap corruption (abort) or SIGSEGV.
    assert_refused(run_in_engine(BACKEND_ENTRY_POINTS[name]), name.split("_linear")[0])


def test_batch_norm_as_programs_call_it_still_checks_and_matches_torch(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "x = torch.randn(4, 3, requires_grad=True)\n"
        "bn = torch.nn.BatchNorm1d(3)\n"
        "y = bn(x) + torch.nn.functional.batch_norm(x, torch.zeros(3), torch.ones(3),"
        " training=True)\n"
        "y.sum().backward()\n"
        "try:\n"
        "    torch.batch_norm(x, None, None, torch.ones(1), torch.ones(1), True, 0.1, 1e-5,"
        " False)\n"
        "except RuntimeError as e:\n"
        "    print('refused by torch:', e)\n"
        "print(y, x.grad, bn.running_mean)\n"
    )


# 4. The dtype torch.tensor infers for data holding tensors and numpy scalars.
def test_data_holding_tensors_and_numpy_scalars_gets_torchs_dtype(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "import numpy as np\n"
        "a = torch.tensor([np.float64(0.1), torch.tensor(1.0)])\n"
        "b = torch.tensor([torch.tensor(1, dtype=torch.int16), np.int64(3)])\n"
        "c = torch.tensor([[torch.tensor(1.5, dtype=torch.float16), 2], [np.float32(1), 3]])\n"
        "d = torch.as_tensor([np.float64(0.25), torch.tensor(2)])\n"
        "print(a.dtype, a, b.dtype, c.dtype, c, d.dtype)\n"
    )


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_the_round_11_crashes_behind_the_walls_then_a_lesson(
    engine_process: EngineProcess,
) -> None:
    crashes = (
        SEQUENCE_ORIGINALS,
        HAND_LSTM,
        OFFSETS.format(offsets="[0, 10**6]"),
        *BACKEND_ENTRY_POINTS.values(),
    )
    for code in (*crashes, VECTOR_ONTO_INDICES):
        result = engine_process.run(RunRequest(Program(code="import torch\n" + code)))
        assert result.error is not None, printed(result)
        assert result.error.kind in ("unsafe-code", "other-error"), result.error
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    assert lesson.error is None, lesson.error
    plain = run_plain("import torch\n" + ORDINARY)
    assert differences(lesson, plain) == [] and printed(lesson) == plain.printed


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_a_forged_removal_leaves_the_next_run_as_the_first(engine_process: EngineProcess) -> None:
    # The runs of one program share its process: before the fix the second run failed
    # with "'Linear' object has no attribute 'reset_parameters'".
    code = "import torch\n" + FORGED.replace("{call}", FORGED_CALLS["remove"])
    first = engine_process.run(RunRequest(Program(code=code)))
    again = engine_process.run(RunRequest(Program(code=code)))
    for result in (first, again):
        assert result.error is not None and result.error.kind == "unsafe-code", result.error
    assert first.error is not None and again.error is not None
    assert again.error.message == first.error.message
