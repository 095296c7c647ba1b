"""Round 14's red team, the engine: round 13's admissions (activation checkpointing,
``itertools``, tensor notes, ``torch.__version__``, ``Embedding.from_pretrained``,
``torch.fft.fftfreq``) and state a program could leave for its next run, read as an
attacker who has the source. Each test is an attack that must keep holding, or (strict
xfail) one whose fix belongs to another module's owner.

1. (Open, display only) A program's own saved-tensor hooks inside a checkpointed block:
   the nodes made there save through the *program's* pack hook (innermost on autograd's
   stack), not checkpoint's, and backward never runs the block again for them; but the
   graph marks every node numbered inside the block "recomputed" (by its sequence number
   alone, ``checkpoint_stand_in.made_in_checkpoint``) and the memory view leaves out
   tensors the program's pack keeps. Fix (``graph_walk._read_saved``, the lead's): mark a
   node recomputed only if ``made_in_checkpoint(fn) and saved_through_checkpoint(fn)``.
2. (Held) C-stack exhaustion: 200,000 nested ``map`` iterators (C recursion Python
   does not count) kill the process with SIGSEGV, as in plain Python; the window gets a
   crash answer, the next run of the same program and the next program are plain torch.
3. (Held) A checkpointed block that loops for ever when backward runs it again (in the
   engine's own backward call): stopped by the time limit, like any run.
5. ``x.data = bigger`` (or another dtype) on a tensor a node saved: no version change,
   and the backward kernel takes its sizes from the new tensor and reads what it saved
   alongside by pointer (``F.layer_norm``'s mean and rstd: SIGSEGV). ``.data`` now takes
   numbers of the same shape, dtype, layout and device only (``guard.guarded_setattr``).
6. Weight norm (``torch.nn.utils.parametrizations.weight_norm``, admitted this round):
   its fused CPU kernel walks the magnitude ``original0`` and writes its norms by pointer,
   one per slice of ``original1``; a one-number magnitude on a 200,000-output layer wrote
   past its buffer (heap corruption). The forward now checks the magnitude first
   (``weight_norm_kernel``); the backward's tensors cannot change form (5.).
4. (Held) ``itertools`` blow-ups, and ``starmap``/``accumulate`` calling refused or
   checked functions; tensor notes named like torch's internals or holding non-tensors;
   ``torch.__version__``'s methods; ``from_pretrained`` and ``fftfreq`` with hostile
   arguments; print options holding the program's objects (their comparisons loop for
   ever): the next run prints plain torch's numbers.
"""

from __future__ import annotations

import sys

import pytest

from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS, Program, RunRequest
from gui.model.result import RunResult
from tests.corpus.harness import differences, run_plain
from tests.model.engine.sandbox_helpers import assert_refused, printed

ORDINARY = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * x).sum()\ny.backward()\nprint(y.item(), x.grad)\n"
)


def _run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code="import torch\n" + code), time_limit=60))


# 1. The program's own pack hook inside a checkpointed block.
HOOKS_INSIDE_A_CHECKPOINT = (
    "from torch.utils.checkpoint import checkpoint\n"
    "kept = []\n"
    "def pack(t):\n"
    "    kept.append(t)\n"
    "    return t\n"
    "def block(t):\n"
    "    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):\n"
    "        return t.exp().sin()\n"
    "x = torch.ones(3, requires_grad=True)\n"
    "y = checkpoint(block, x, use_reentrant=False).sum()\n"
    "print(len(kept))\n"
)


def test_tensors_the_programs_hook_keeps_inside_a_checkpoint_are_not_shown_recomputed(
    owner_cycle: pristine.Settings,
) -> None:
    result = _run(HOOKS_INSIDE_A_CHECKPOINT)
    assert result.error is None, result.error
    assert printed(result)[0] == "2"  # exp's result and sin's input, packed by the program
    assert result.graph is not None
    saved = [s for node in result.graph.nodes for s in node.saved if s.name in ("self", "result")]
    assert len(saved) == 2
    assert not any(s.recomputed for s in saved), "backward never runs the block for these"


# 2.-3. The process ends (C stack) or runs past its limit; what follows is plain torch.
# (A million deep: the engine's stack may grow to os_wall.limits.DEEP_STACK_BYTES, where
# 200,000 levels now fit; given the time to build them.)
DEEP_C_RECURSION = (
    "m = iter([1.0])\nfor i in range(1000000):\n    m = map(abs, m)\nprint(next(m))\n"
)
LOOPING_RECOMPUTATION = (
    "from torch.utils.checkpoint import checkpoint\n"
    "calls = [0]\n"
    "def block(t):\n"
    "    calls[0] += 1\n"
    "    while calls[0] > 1:\n"
    "        pass\n"
    "    return t.exp()\n"
    "x = torch.ones(2, requires_grad=True)\n"
    "y = checkpoint(block, x, use_reentrant=False).sum()\n"
)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="forks a process per program")
def test_a_crash_or_a_runaway_block_leaves_nothing_for_the_next_run(
    engine_process: EngineProcess,
) -> None:
    for code, kind, limit in (
        (DEEP_C_RECURSION, "engine-crashed", 30.0),
        (LOOPING_RECOMPUTATION, "runaway-code", DEFAULT_TIME_LIMIT_SECONDS),
    ):
        for _ in range(2):  # a first run, and the same program again (a slider tick)
            program = Program(code="import torch\n" + code)
            result = engine_process.run(RunRequest(program, time_limit=limit))
            assert result.error is not None and result.error.kind == kind, result.error
    _assert_ordinary(engine_process)


def _assert_ordinary(engine_process: EngineProcess) -> None:
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    assert lesson.error is None, lesson.error
    plain = run_plain("import torch\n" + ORDINARY)
    assert differences(lesson, plain) == [] and printed(lesson) == plain.printed


# 4. Round 13's admissions with hostile arguments: refused, or stopped with one sentence.
REFUSED = {
    "starmap_reaches_a_refused_function": (
        "import itertools\nprint(list(itertools.starmap(getattr, [(torch, 'load')])))\n",
        "torch.load",
    ),
    "starmap_writes_a_library_class": (
        "import itertools\n"
        "list(itertools.starmap(setattr, [(torch.nn.Linear, 'forward', None)]))\n",
        "Linear.forward",
    ),
    "accumulate_reaches_a_refused_function": (
        "import itertools\nprint(list(itertools.accumulate([torch, 'load'], getattr)))\n",
        "torch.load",
    ),
    "tee": ("import itertools\na, b = itertools.tee(iter([1, 2]))\n", "tee"),
    "note_over_grad_fn": ("x = torch.ones(2)\nx.grad_fn = None\n", "grad_fn"),
    "note_over_hooks": (
        "x = torch.ones(2)\nsetattr(x, '_backward_hooks', {})\n",
        "_backward_hooks",
    ),
    "note_over_class": (
        "x = torch.ones(2)\nsetattr(x, '__class__', torch.nn.Parameter)\n",
        "__class__",
    ),
    "note_over_dict": ("x = torch.ones(2)\nsetattr(x, '__dict__', {})\n", "__dict__"),
    "note_of_a_number": ("x = torch.ones(2)\nx.note = 5\n", "note"),
    "note_of_an_array": ("x = torch.ones(2)\nx.note = torch.ones(1).numpy()\n", "note"),
    "note_on_a_node": (
        "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn.note = torch.ones(1)\n",
        "note",
    ),
}


@pytest.mark.parametrize("way", sorted(REFUSED))
def test_admissions_refuse_what_they_refused(owner_cycle: pristine.Settings, way: str) -> None:
    code, word = REFUSED[way]
    assert_refused(_run(code), word)


STOPPED = (
    "import itertools\nx = list(itertools.repeat(1, 10**12))\n",
    "print(torch.fft.fftfreq(10**12).shape)\n",
    "print(torch.fft.rfftfreq(2**62, device='meta').shape)\n",
    "print(torch.fft.fftfreq(-5))\n",
    "print(torch.fft.rfftfreq(5, d=torch.tensor([1.0, 2.0])))\n",
    "print(torch.fft.fftfreq(4, dtype=torch.int64))\n",
    "torch.nn.Embedding.from_pretrained(torch.ones(3, 2), padding_idx=10)\n",
    "torch.nn.Embedding.from_pretrained(torch.ones(3, 2), padding_idx=-10)\n",
    "e = torch.nn.Embedding.from_pretrained(torch.arange(6).reshape(3, 2), max_norm=1.0)\n"
    "print(e(torch.tensor([0, 2])))\n",
)


@pytest.mark.parametrize("code", STOPPED)
def test_hostile_arguments_end_with_one_sentence(owner_cycle: pristine.Settings, code: str) -> None:
    result = _run(code)
    assert result.error is not None and result.error.kind != "engine-crashed", result.error
    assert result.error.message and len(result.error.message) < 2000


# Same numbers as plain torch: what the admissions compute for an ordinary learner.
AS_PLAIN = (
    "v = torch.__version__\nprint(v.split('.')[0].isdigit(), v.upper(), v == str(v), len(v))\n",
    "x = torch.ones(3)\nx.g = torch.full((3,), 2.0)\np = torch.nn.Parameter(torch.ones(2))\n"
    "p.g = None\nprint(x.g * x, p.g)\n",
    "w = torch.ones(2)\ne = torch.nn.Embedding.from_pretrained(w.expand(3, 2), max_norm=0.5)\n"
    "print(e(torch.tensor([0, 2])), w)\n",
    "import itertools\n"
    "print(list(itertools.islice(itertools.count(torch.tensor(1.0), 0.5), 3)))\n"
    "print(list(itertools.accumulate([torch.ones(2), torch.ones(2)], torch.add)))\n",
)


@pytest.mark.parametrize("code", AS_PLAIN)
def test_admissions_compute_as_plain_torch(owner_cycle: pristine.Settings, code: str) -> None:
    result = _run(code)
    assert result.error is None, result.error
    plain = run_plain("import torch\n" + code)
    assert plain.error is None, plain.error
    assert "\n".join(printed(result)).split("\n") == plain.printed


# Settings that hold the program's objects, whose methods loop for ever.
HOSTILE_SETTINGS = (
    "import numpy as np\n"
    "def fmt(v):\n    while True:\n        pass\n"
    "np.set_printoptions(formatter={'float': fmt})\na = np.ones(3)\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * 2).sum()\nprint('done')\n",
    "class W:\n"
    "    def __gt__(self, o):\n        while True:\n            pass\n"
    "    def __lt__(self, o):\n        while True:\n            pass\n"
    "torch.set_printoptions(linewidth=W(), threshold=W(), edgeitems=W())\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * 2).sum()\nprint('done')\n",
)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="forks a process per program")
def test_settings_holding_looping_objects_leave_nothing_behind(
    engine_process: EngineProcess,
) -> None:
    for code in HOSTILE_SETTINGS:
        for _ in range(2):
            result = engine_process.run(RunRequest(Program(code="import torch\n" + code)))
            assert result.error is None and printed(result) == ["done"], result.error
    _assert_ordinary(engine_process)


# 5.-6. Saved tensors given another form, and weight norm's magnitude.
LAYER_NORM_DATA = (
    "import torch.nn.functional as F\n"
    "x = torch.randn(1000, 64, requires_grad=True)\n"
    "y = F.layer_norm(x, (64,)).sum()\n"
    "x.data = torch.ones({rows}, 64{dtype})\n"
    "y.backward()\nprint(x.grad.abs().sum())\n"
)
WEIGHT_NORM = (
    "from torch.nn.utils.parametrizations import weight_norm\n"
    "m = weight_norm(torch.nn.Linear(3, 200000))\n"
)
FORMS = {
    "bigger_data": (LAYER_NORM_DATA.format(rows=400000, dtype=""), ".data"),
    "other_dtype_data": (LAYER_NORM_DATA.format(rows=1000, dtype=", dtype=torch.float64"), ".data"),
    "saved_data": (
        "x = torch.randn(1000, 64, requires_grad=True)\n"
        "y = torch.nn.functional.layer_norm(x * 2, (64,)).sum()\n"
        "y.grad_fn.next_functions[0][0]._saved_input.data = torch.ones(400000, 64)\n"
        "y.backward()\n",
        "",
    ),
    "weight_norm_magnitude": (
        WEIGHT_NORM + "m.parametrizations.weight.original0 = torch.nn.Parameter(torch.ones(1, 1))\n"
        "print(m(torch.ones(3)).sum())\n",
        "weight norm",
    ),
    "weight_norm_numpy_dim": (
        "import numpy as np\n"
        "from torch.nn.utils.parametrizations import weight_norm\n"
        "m = weight_norm(torch.nn.Linear(3, 200000), dim=np.int64(0))\n"
        "m.parametrizations.weight[0].dim = torch.tensor(0)\n"
        "m.parametrizations.weight.original0 = torch.nn.Parameter(torch.ones(1, 1))\n"
        "print(m(torch.ones(3)).sum())\n",
        "weight norm",
    ),
    "weight_norm_functional_call": (
        WEIGHT_NORM + "g = torch.ones(1, 1)\n"
        "out = torch.func.functional_call(m, {'parametrizations.weight.original0': g}, "
        "(torch.ones(3),))\n",
        "weight norm",
    ),
    "weight_norm_saved_magnitude": (
        WEIGHT_NORM + "y = m(torch.ones(3)).sum()\n"
        "m.parametrizations.weight.original0.data = torch.ones(1, 1)\n"
        "y.backward()\n",
        ".data",
    ),
}


@pytest.mark.parametrize("way", sorted(FORMS))
def test_saved_tensors_never_change_form_under_a_kernel(
    owner_cycle: pristine.Settings, way: str
) -> None:
    code, word = FORMS[way]
    result = _run(code)
    if way == "saved_data":  # torch's own error or the guard's: never the kernel's read
        assert result.error is not None and result.error.kind != "engine-crashed", result.error
        return
    assert_refused(result, word)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="forks a process per program")
def test_other_forms_through_the_engine_then_an_ordinary_program(
    engine_process: EngineProcess,
) -> None:
    ways = (
        "bigger_data",
        "weight_norm_magnitude",
        "weight_norm_numpy_dim",
        "weight_norm_saved_magnitude",
    )
    for way in ways:
        code, _ = FORMS[way]
        for _ in range(2):
            result = engine_process.run(RunRequest(Program(code="import torch\n" + code)))
            # Before the fix: SIGSEGV, or SIGABRT with "malloc(): ... corrupted".
            assert result.error is not None and result.error.kind == "unsafe-code", result.error
    _assert_ordinary(engine_process)


SAME_FORM = (
    "w = torch.randn(3, requires_grad=True)\nw.data = w.data - 0.1 * torch.ones(3)\nprint(w)\n",
    "from torch.nn.utils.parametrizations import weight_norm\n"
    "torch.manual_seed(0)\nm = weight_norm(torch.nn.Linear(3, 4))\n"
    "y = m(torch.ones(3)).sum()\ny.backward()\n"
    "print(y, m.parametrizations.weight.original0.grad.flatten())\n",
    "from torch.nn.utils.parametrizations import weight_norm\n"
    "torch.manual_seed(0)\nm = weight_norm(torch.nn.Conv1d(2, 4, 3), dim=2)\n"
    "y = m(torch.ones(1, 2, 5)).sum()\ny.backward()\nprint(y)\n",
)


@pytest.mark.parametrize("code", SAME_FORM)
def test_same_form_data_and_weight_norm_are_plain_torch(
    owner_cycle: pristine.Settings, code: str
) -> None:
    result = _run(code)
    assert result.error is None, result.error
    plain = run_plain("import torch\n" + code)
    assert plain.error is None, plain.error
    assert "\n".join(printed(result)).split("\n") == plain.printed
