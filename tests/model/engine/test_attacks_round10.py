"""Round 10's red team: the newest admissions (forward-mode AD, ``del obj.name``, torch's
zero tensors) and the engine's readers of what a program leaves, read as an attacker who
has the source. Each test is an attack that worked before its fix, or one that held and
must keep holding.

1. ``del ctx.materialize_grads`` crashed the process running the program: the attribute
   is a slot of torch's C++ ``ctx`` whose setter reads the type of the value it is given,
   and a deletion gives none (a null pointer). Deleting any native slot is now refused.
2. Views that read the same memory many times over cost the engine minutes to
   summarise after the program's last line, where no time limit applies: the statistics
   of ``torch.ones(60000).unfold(0, 30000, 1)`` (240 KB, 9 * 10**8 numbers) took 10 s
   behind the walls and 52 s on one thread, an expanded whole-number or complex tensor was
   converted repeat by repeat before the expansion was noticed (72 s for four one-line
   tensors), and a zero tensor of forward-mode AD (no memory) was made real to be read.
"""

from __future__ import annotations

import math
import sys
import time

import pytest
import torch

from gui.model.engine import pristine, tensors
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from tests.corpus.harness import differences, run_in_engine, run_plain
from tests.model.engine.sandbox_helpers import assert_refused, assert_same_as_plain, printed

# 1. A custom Function's ctx: deleting a slot of torch's C++ object.
DELETED_SLOT = (
    "class Fn(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        del ctx.{name}\n"
    "        return x * 2\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        return g * 2\n"
    "x = torch.ones(2, requires_grad=True)\n"
    "Fn.apply(x).sum().backward()\n"
    "print(x.grad)\n"
)


@pytest.mark.parametrize("name", ["materialize_grads", "needs_input_grad", "to_save"])
def test_a_native_slot_of_ctx_cannot_be_deleted(owner_cycle: pristine.Settings, name: str) -> None:
    assert_refused(run_in_engine(DELETED_SLOT.format(name=name)), name, "cannot be deleted")


def test_what_a_program_put_on_ctx_or_a_layer_can_still_be_deleted(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(
        "class Fn(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.scale = 3.0\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * ctx.scale\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        s = ctx.scale\n"
        "        del ctx.scale\n"
        "        return g * s\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "Fn.apply(x).sum().backward()\n"
        "lin = torch.nn.Linear(2, 2)\n"
        "del lin.bias\n"
        "lin.bias = None\n"
        "del lin.training\n"
        "print(x.grad, hasattr(lin, 'training'), lin.bias)\n"
    )


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_a_deleted_slot_behind_the_walls_then_a_lesson(engine_process: EngineProcess) -> None:
    code = "import torch\n" + DELETED_SLOT.format(name="materialize_grads")
    result = engine_process.run(RunRequest(Program(code=code)))
    assert result.error is not None and result.error.kind == "unsafe-code", result.error
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    assert lesson.error is None, lesson.error
    assert differences(lesson, run_plain("import torch\n" + ORDINARY)) == []


# 2. Views whose numbers are far more than their memory, read after the program ended.
ORDINARY = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * x).sum()\ny.backward()\nprint(y.item())\n"
)
REPEATED = (
    "w = torch.ones(60000).unfold(0, 30000, 1)\n"  # 9 * 10**8 numbers in 240 KB
    "i = torch.zeros(1, dtype=torch.int64).expand(3 * 10**8)\n"
    "c = torch.ones(1, dtype=torch.complex64).expand(3 * 10**8).conj()\n"
    "b = torch.ones(1, dtype=torch.bool).expand(3 * 10**8)\n"
    "print(w.shape, i.shape, c.shape, b.shape)\n"
)


def test_views_repeating_their_memory_are_summarised_in_no_time(
    owner_cycle: pristine.Settings,
) -> None:
    started = time.perf_counter()
    result = run_in_engine(REPEATED)
    assert time.perf_counter() - started < 3  # 72 s before, on the same machine
    assert result.error is None, result.error
    unfolded = result.tensors["w"].value
    assert unfolded.shape == (30001, 30000) and unfolded.summary is not None
    assert math.isnan(unfolded.summary.mean)  # no statistics: "no numbers", as for meta
    # An expanded view is still summarised, from one repeat.
    whole = result.tensors["i"].value.summary
    assert whole is not None and (whole.minimum, whole.maximum, whole.norm) == (0, 0, 0)
    complex_ = result.tensors["c"].value.summary
    assert complex_ is not None and complex_.mean == 1.0
    assert complex_.norm == pytest.approx(math.sqrt(3 * 10**8))
    booleans = result.tensors["b"].value.summary
    assert booleans is not None and booleans.minimum == booleans.maximum == 1.0


def test_a_view_of_its_own_memory_is_still_summarised_exactly() -> None:
    big = torch.arange(5 * 10**6, dtype=torch.float32)
    for t in (big, big[::2], big.view(1000, 5000).t(), big[10:]):
        summary = tensors.summary_of(t)
        assert summary.minimum == t.min().item() and summary.maximum == t.max().item()
        assert summary.mean == pytest.approx(t.double().mean().item())
        assert summary.norm == pytest.approx(t.double().norm().item(), rel=1e-3)  # in float32
    overlapping = torch.arange(4000, dtype=torch.float32).unfold(0, 2000, 1)  # 4 * 10**6
    expected = overlapping.double()
    summary = tensors.summary_of(overlapping)  # small enough to reduce: exact
    assert summary.mean == pytest.approx(expected.mean().item())
    assert summary.norm == pytest.approx(expected.norm().item(), rel=1e-3)


def test_a_huge_zero_tensor_is_read_without_being_made() -> None:
    zeros = torch._efficientzerotensor((10**6, 10**6))  # 4 TB if made real
    started = time.perf_counter()
    data = tensors.read_tensor_data(zeros)
    assert time.perf_counter() - started < 1
    assert data.values is None and data.summary == tensors.ZEROS
    assert tensors.read_tensor_data(torch._efficientzerotensor((2,))).values == [0.0, 0.0]


def test_a_zero_tensor_forward_ad_saves_is_read_in_no_time(owner_cycle: pristine.Settings) -> None:
    # torch.dot's jvp multiplies the missing tangent of `big` (torch's efficient zeros of
    # its shape) by the dual's primal, which needs a gradient: the node saves the zeros,
    # and the engine's graph walk reads them (11 s for 2 * 10**8, more than the dot).
    code = (
        "import torch.autograd.forward_ad as fwAD\n"
        "w = torch.ones(1, requires_grad=True)\n"
        "big = torch.ones(1).expand(4 * 10**7)\n"
        "with fwAD.dual_level():\n"
        "    d = fwAD.make_dual(w.expand(4 * 10**7), torch.ones(1).expand(4 * 10**7))\n"
        "    jvp = fwAD.unpack_dual(torch.dot(d, big)).tangent\n"
        "loss = jvp\n"
    )
    started = time.perf_counter()
    result = run_in_engine(code)
    took = time.perf_counter() - started
    assert result.error is None, result.error
    assert result.graph is not None
    saved = [
        value.tensor
        for node in result.graph.nodes
        for value in node.saved
        if value.tensor is not None and value.tensor.shape == (4 * 10**7,)
    ]
    assert saved and any(t.summary == tensors.ZEROS for t in saved)
    assert took < 5  # the dot itself takes a few tenths


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_repeating_views_behind_the_walls_then_a_lesson(engine_process: EngineProcess) -> None:
    started = time.perf_counter()
    result = engine_process.run(RunRequest(Program(code="import torch\n" + REPEATED)))
    assert time.perf_counter() - started < 5  # 10 s before
    assert result.error is None, result.error
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    assert lesson.error is None, lesson.error
    plain = run_plain("import torch\n" + ORDINARY)
    assert differences(lesson, plain) == [] and printed(lesson) == plain.printed


# 3. A tensor that escaped a torch.func transform: torch refuses every read of it.
ESCAPED = (
    "leak = []\n"
    "def f(x):\n"
    "    leak.append(x)\n"
    "    return x.sin()\n"
    "torch.func.vmap(f)(torch.ones(3, 2))\n"
    "z = leak[0]\n"
    "print(z.shape)\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "loss = (w * 3).sum()\n"
)


def test_a_tensor_escaped_from_vmap_is_shown_without_numbers(
    owner_cycle: pristine.Settings,
) -> None:
    # Before: `detach()` of it raised while the engine built the answer (no answer at all).
    result = run_in_engine(ESCAPED)
    assert result.error is None, result.error
    assert printed(result) == ["torch.Size([2])"]
    escaped = result.tensors["z"].value
    assert escaped.values is None and escaped.summary is not None
    assert math.isnan(escaped.summary.mean)
    assert result.tensors["w"].value.values == [1.0, 2.0]


def test_a_tensors_grad_is_still_deleted(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "x = torch.ones(2, requires_grad=True)\n"
        "(x * 3).sum().backward()\n"
        "del x.grad\n"
        "print(x.grad)\n"
    )


# 4. torch's fused CPU optimizer kernels walk each parameter's numbers through the state
# tensors by raw pointer, trusting their sizes: a one-number `exp_avg` made the next step
# write a million numbers past its buffer (the process crashed with SIGSEGV).
FUSED = (
    "p = torch.ones(1000000, requires_grad=True)\n"
    "opt = torch.optim.{cls}([p], lr=0.1{fused})\n"
    "p.grad = torch.ones(1000000)\n"
    "{tamper}"
    "opt.step()\n"
    "opt.state[p]['{state}'] = torch.ones(1)\n"
    "opt.step()\n"
    "print(p[:2])\n"
)
FUSED_WAYS = {
    "adam": dict(cls="Adam", fused=", fused=True", tamper="", state="exp_avg"),
    "adamw": dict(cls="AdamW", fused=", fused=True", tamper="", state="exp_avg_sq"),
    "adagrad": dict(cls="Adagrad", fused=", fused=True", tamper="", state="sum"),
    "sgd": dict(cls="SGD", fused=", momentum=0.9, fused=True", tamper="", state="momentum_buffer"),
    "written-in-group": dict(
        cls="Adam", fused="", tamper="opt.param_groups[0]['fused'] = True\n", state="exp_avg"
    ),
}


@pytest.mark.parametrize("way", FUSED_WAYS.values(), ids=FUSED_WAYS.keys())
def test_a_fused_optimizer_step_is_refused(
    owner_cycle: pristine.Settings, way: dict[str, str]
) -> None:
    assert_refused(run_in_engine(FUSED.format(**way)), "fused=True")


def test_a_fused_step_from_a_closure_is_refused(owner_cycle: pristine.Settings) -> None:
    result = run_in_engine(
        "p = torch.ones(3, requires_grad=True)\n"
        "opt = torch.optim.Adam([p], lr=0.1)\n"
        "def closure():\n"
        "    opt.param_groups[0]['fused'] = True\n"
        "    return (p * p).sum()\n"
        "(p * p).sum().backward()\n"
        "opt.step(closure)\n"
    )
    assert_refused(result, "fused=True")


def test_ordinary_optimizer_steps_still_match_plain_torch(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.Adagrad):\n"
        "    p = torch.ones(3, requires_grad=True)\n"
        "    opt = cls([p], lr=0.1)\n"
        "    for _ in range(2):\n"
        "        opt.zero_grad()\n"
        "        (p * p).sum().backward()\n"
        "        opt.step()\n"
        "    print(p.tolist())\n"
    )


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_a_fused_step_behind_the_walls_then_a_lesson(engine_process: EngineProcess) -> None:
    code = "import torch\n" + FUSED.format(**FUSED_WAYS["adam"])
    result = engine_process.run(RunRequest(Program(code=code)))
    assert result.error is not None and result.error.kind == "unsafe-code", (
        result.error
    )  # was SIGSEGV
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    assert lesson.error is None, lesson.error
    assert differences(lesson, run_plain("import torch\n" + ORDINARY)) == []


# 5. torch's LSTM kernel on the CPU (oneDNN) reads every weight by raw pointer with the
# sizes it derives from the input and hidden state: a weight of another shape, or an
# expanded one, was read and written past its memory (heap corruption in plain torch).
LSTM = "m = torch.nn.LSTM(8, 16, batch_first=True)\nx = torch.randn(4, 5, 8)\n"
LSTM_TAMPERED = {
    "data": "m.weight_hh_l0.data = torch.ones(1)\nout, _ = m(x)\n",
    "new-parameter": "del m.weight_ih_l0\nm.weight_ih_l0 = torch.nn.Parameter(torch.ones(2, 8))\n"
    "out, _ = m(x)\n",
    "expanded": "m.weight_hh_l0.data = torch.ones(1).expand(64, 16)\nout, _ = m(x)\n",
    "other-dtype": "m.weight_hh_l0.data = torch.ones(64, 16, dtype=torch.float16)\nout, _ = m(x)\n",
    "functional-call": "out, _ = torch.func.functional_call(m, {'weight_hh_l0': torch.ones(3)}, (x,))\n",
}


@pytest.mark.parametrize("tamper", LSTM_TAMPERED.values(), ids=LSTM_TAMPERED.keys())
def test_an_lstm_with_weights_that_do_not_fit_is_refused(
    owner_cycle: pristine.Settings, tamper: str
) -> None:
    result = run_in_engine(LSTM + tamper)
    if tamper in (LSTM_TAMPERED["data"], LSTM_TAMPERED["other-dtype"]):
        # Since round 14 `.data` never takes another shape or dtype (guard.guarded_setattr).
        assert_refused(result, "same shape and dtype")
        return
    assert_refused(result, "LSTM's weights do not fit")


def test_ordinary_lstms_still_match_plain_torch(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "torch.manual_seed(0)\n"
        "from torch.nn.utils.rnn import pack_padded_sequence\n"
        "for kwargs in ({}, {'batch_first': True}, {'bidirectional': True, 'num_layers': 2},\n"
        "               {'proj_size': 3}, {'bias': False, 'bidirectional': True, 'proj_size': 2}):\n"
        "    m = torch.nn.LSTM(4, 6, **kwargs)\n"
        "    x = torch.randn(5, 2, 4, requires_grad=True)\n"
        "    out, (h, c) = m(x)\n"
        "    out.sum().backward()\n"
        "    print(out.sum().item(), h.shape, c.shape, x.grad.sum().item())\n"
        "    out, _ = m(x[:, 0])\n"  # unbatched
        "    print(out.shape)\n"
        "m = torch.nn.LSTM(4, 6)\n"
        "seq = pack_padded_sequence(torch.randn(5, 3, 4), [5, 3, 2])\n"
        "h0 = torch.zeros(1, 3, 6)\n"
        "out, (h, c) = m(seq, (h0, h0.clone()))\n"
        "print(out.data.sum().item(), h.sum().item())\n"
        "out, _ = torch.func.functional_call(m, dict(m.named_parameters()), (torch.randn(2, 1, 4),))\n"
        "print(out.shape)\n"
    )


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_an_lstm_with_a_wrong_weight_behind_the_walls(engine_process: EngineProcess) -> None:
    code = "import torch\n" + LSTM + LSTM_TAMPERED["data"] + "print(out.sum())\n"
    result = engine_process.run(RunRequest(Program(code=code)))
    assert result.error is not None and result.error.kind == "unsafe-code", result.error
    assert printed(result) == []  # before: numbers read from past the weight's memory
