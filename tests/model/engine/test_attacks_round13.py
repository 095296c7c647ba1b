"""Round 13's red team: what was admitted lately (activation checkpointing, round 12's
distributions, ``torch.func``, optimizers and schedulers) and the state a program can
leave for the next run, read as an attacker who has the source. Each test is an attack
that worked before its fix, or one that held and must keep holding.

1. ``checkpoint(block, w, use_reentrant=False)`` keeps a placeholder for every tensor the
   block's nodes save, and backward uses what running the block *again* saves in its
   place; torch compares shapes, dtypes and devices only (nothing at all with
   ``determinism_check="none"``). A block that made other indices the second time (a
   counter, a global) handed an embedding's backward indices past its weight: with
   ``scale_grad_by_freq=True`` it counted ``counts[index]++`` far outside its buffer
   (SIGSEGV; a smaller index wrote silently past it). A hook between two nodes of the
   block could also change a recomputed index tensor the block kept, after torch's check,
   and a block that left its own saved-tensor hooks pushed (a suspended generator) left
   checkpoint's on the stack instead, so a later embedding's indices were "recomputed" by
   the block (plain torch crashes on all of these). Now every recomputed tensor must be like the one the forward saved (shape, dtype,
   layout, device) and whole numbers keep their forward values, as for a program's own
   saved-tensor hooks (``autograd_nodes.check_checkpoint_recomputation``).
2. A layer entry may be named with any string (``add_module``,
   ``ModuleDict`` keys) and nested without end in a loop: the engine names each parameter
   ``<variable>.<qualified name>`` (``bindings.module_parameters``), and a 90,000-character
   name (HTML, a bidi override and a bell in it, all shown as plain text) kept the window's
   node details and value panels laying it out for 3-4 s per click. Now such a parameter
   is left unnamed (``bindings.module_parameters``: no qualified name past
   ``safety.MAX_SOURCE_CHARS``, a fix made by the module's owner during this round).
3. (Held) Resource exhaustion through round 12's admissions: huge ``Dirichlet`` and
   ``MultivariateNormal``, ``vmap`` with ``chunk_size=1``, ``hessian`` of a big input,
   ``cdist``, ``cartesian_prod``: each stopped with one sentence, the next program runs.
"""

from __future__ import annotations

import sys

import pytest

from gui.model import safety
from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from tests.corpus.harness import differences, run_plain
from tests.model.engine.sandbox_helpers import assert_refused, assert_same_as_plain, printed

ORDINARY = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * x).sum()\ny.backward()\nprint(y.item(), x.grad)\n"
)

# 1. A checkpointed block that saves other whole numbers when backward runs it again.
RECOMPUTED_INDICES = (
    "import torch.nn.functional as F\n"
    "from torch.utils.checkpoint import checkpoint\n"
    "W = torch.randn(10, 3, requires_grad=True)\n"
    "calls = [0]\n"
    "def block(w):\n"
    "    calls[0] += 1\n"
    "    idx = torch.tensor([1, 2]) if calls[0] == 1 else torch.tensor({later})\n"
    "    return F.embedding(idx, w, scale_grad_by_freq=True)\n"
    "y = checkpoint(block, W, use_reentrant=False{extra})\n"
    "y.sum().backward()\n"
    "print(W.grad.sum().item())\n"
)
# torch's checkpoint pops the top of autograd's saved-tensor hooks when its block ends: a
# block that leaves its own hooks pushed (a generator suspended in the `with`) leaves
# checkpoint's on the stack instead, and the embedding made after it saves its indices
# into the block's frame; backward runs the block again to "recompute" them.
HOOKS_LEFT_ON_THE_STACK = (
    "import torch.nn.functional as F\n"
    "from torch.utils.checkpoint import checkpoint\n"
    "kept = []\n"
    "calls = [0]\n"
    "def block(t):\n"
    "    calls[0] += 1\n"
    "    if calls[0] == 1:\n"
    "        def gen():\n"
    "            with torch.autograd.graph.saved_tensors_hooks(lambda a: a, lambda a: a):\n"
    "                yield 1\n"
    "        it = gen()\n"
    "        next(it)\n"
    "        kept.append(it)\n"
    "        return t.exp()\n"
    "    return torch.full((2,), 10**11) * t\n"
    "x = torch.ones(2, requires_grad=True)\n"
    "y = checkpoint(block, x, use_reentrant=False)\n"
    "W = torch.randn(10, 3, requires_grad=True)\n"
    "e = F.embedding(torch.tensor([1, 2]), W, scale_grad_by_freq=True)\n"
    "(e.sum() + y.sum()).backward()\n"
    "print(W.grad.sum().item())\n"
)
RECOMPUTED = {
    "far": RECOMPUTED_INDICES.format(later=[10**11, 10**11], extra=""),  # SIGSEGV before
    "just_past": RECOMPUTED_INDICES.format(later=[12, 12], extra=""),  # a silent write
    "no_check": RECOMPUTED_INDICES.format(later=[12, 12], extra=', determinism_check="none"'),
    "hooks_left_on_the_stack": HOOKS_LEFT_ON_THE_STACK,  # SIGSEGV in plain torch too
    "other_shape": RECOMPUTED_INDICES.format(later=[1, 2, 3], extra=', determinism_check="none"'),
    "no_early_stop": RECOMPUTED_INDICES.format(later=[12, 12], extra=", early_stop=False"),
}
# The block keeps its recomputed indices; a hook on a tensor between two of its nodes
# (run after torch's check, before the embedding's backward) changes them in place.
CHANGED_AFTER_THE_CHECK = (
    "import torch.nn.functional as F\n"
    "from torch.utils.checkpoint import checkpoint\n"
    "held = []\n"
    "W = torch.randn(10, 3, requires_grad=True)\n"
    "v = torch.randn(2, 3, requires_grad=True)\n"
    "def spoil(g):\n"
    "    if len(held) > 1:\n"
    "        held[-1].fill_(10**11)\n"
    "    return g\n"
    "def block(w, v):\n"
    "    idx = torch.tensor([1, 2])\n"
    "    held.append(idx)\n"
    "    e = F.embedding(idx, w, scale_grad_by_freq=True)\n"
    "    e.register_hook(spoil)\n"
    "    return e * v\n"
    "y = checkpoint(block, W, v, use_reentrant=False)\n"
    "y.sum().backward()\n"
    "print(W.grad.sum().item())\n"
)
# What tutorials checkpoint: whole numbers saved inside the block (pooling's indices, an
# embedding's input) recomputed as they were.
CHECKPOINTED_INDICES = (
    "import torch.nn.functional as F\n"
    "from torch.utils.checkpoint import checkpoint\n"
    "torch.manual_seed(0)\n"
    "W = torch.randn(10, 4, requires_grad=True)\n"
    "idx = torch.tensor([[1, 2, 2, 7]])\n"
    "def block(w, i):\n"
    "    e = F.embedding(i, w, scale_grad_by_freq=True)\n"
    "    p, where = F.max_pool1d(e.transpose(1, 2), 2, return_indices=True)\n"
    "    return p.sum(), where\n"
    "out, where = checkpoint(block, W, idx, use_reentrant=False)\n"
    "out.backward()\n"
    "print(where.tolist(), W.grad)\n"
)


def _run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code="import torch\n" + code), time_limit=60))


@pytest.mark.parametrize("way", sorted(RECOMPUTED))
def test_a_checkpointed_block_recomputing_other_indices_is_refused(
    owner_cycle: pristine.Settings, way: str
) -> None:
    result = _run(RECOMPUTED[way])
    if way in ("other_shape", "no_early_stop"):
        # torch's own error (the block's forward checks the indices when it runs to its
        # end, or torch the shapes), or the app's: never a kernel reading past a buffer.
        assert result.error is not None, printed(result)
        return
    assert_refused(result, "checkpointed block", "whole numbers")


def test_recomputed_indices_changed_after_the_check_never_reach_backward(
    owner_cycle: pristine.Settings,
) -> None:
    result = _run(CHANGED_AFTER_THE_CHECK)
    # Refused, or the forward's own indices used: before the fix, SIGSEGV.
    if result.error is not None:
        assert_refused(result, "checkpointed block")
    else:
        assert printed(result) == ["2.0"]


def test_checkpointed_blocks_saving_whole_numbers_run_as_in_plain_torch(
    owner_cycle: pristine.Settings,
) -> None:
    assert_same_as_plain(CHECKPOINTED_INDICES)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
def test_checkpoint_attacks_through_the_engine_then_an_ordinary_program(
    engine_process: EngineProcess,
) -> None:
    attacks = (RECOMPUTED["far"], RECOMPUTED["no_check"], HOOKS_LEFT_ON_THE_STACK)
    for code in (*attacks, CHANGED_AFTER_THE_CHECK):
        for _ in range(2):  # a first run, and a re-run in the same process
            result = engine_process.run(RunRequest(Program(code="import torch\n" + code)))
            # Before the fix: "the process that ran the program ended early" (SIGSEGV).
            assert result.error is not None and result.error.kind == "unsafe-code", result.error
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    assert lesson.error is None, lesson.error
    plain = run_plain("import torch\n" + ORDINARY)
    assert differences(lesson, plain) == [] and printed(lesson) == plain.printed


# 2. Names longer than any program could write, made at run time.
LONG_LAYER_NAMES = {
    "one_entry": (
        "import torch.nn as nn\n"
        "m = nn.Sequential()\n"
        "m.add_module('<img src=\"/dev/zero\">\\u202e' + 'a' * 90000, nn.Linear(2, 2))\n"
        "out = m(torch.randn(3, 2)).sum()\nout.backward()\n"
    ),
    "nested": (
        "import torch.nn as nn\n"
        "root = nn.Sequential()\nm = root\n"
        "for i in range(400):\n"
        "    c = nn.Sequential()\n    m.add_module('a' * 99 + str(i % 10), c)\n    m = c\n"
        "m.add_module('lin', nn.Linear(2, 2))\n"
        "out = (torch.randn(3, 2) @ m.lin.weight).sum()\nout.backward()\n"
    ),
}


@pytest.mark.parametrize("way", sorted(LONG_LAYER_NAMES))
def test_no_name_in_an_answer_is_longer_than_a_program(
    owner_cycle: pristine.Settings, way: str
) -> None:
    result = _run(LONG_LAYER_NAMES[way])
    assert result.error is None, result.error
    names = list(result.tensors) + [t.name for t in result.tensors.values()]
    if result.graph is not None:
        names += [node.label for node in result.graph.nodes]
    # A variable's name (at most a program long), a dot, and a qualified name.
    assert max(map(len, names)) <= 2 * safety.MAX_SOURCE_CHARS + 1


# 3. Resource exhaustion through round 12's admissions (held): each is stopped by the
# address-space limit or the time limit with one sentence, and the next program runs.
EXHAUSTING = (
    "d = torch.distributions.Dirichlet(torch.ones(10**9) * 0.5)\nprint(d.sample().sum())\n",
    "d = torch.distributions.MultivariateNormal(torch.zeros(30000), torch.eye(30000))\n"
    "print(d.sample().sum())\n",
    "print(torch.func.vmap(lambda t: t.sum(), chunk_size=1)(torch.ones(10**7, 1)).sum())\n",
    "x = torch.ones(60000, requires_grad=True)\n"
    "h = torch.func.hessian(lambda t: (t ** 3).sum())(x)\n",
    "a = torch.ones(200000, 1)\nprint(torch.cdist(a, a).sum())\n",
    "print(torch.cartesian_prod(*[torch.arange(10)] * 12).shape)\n",
)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_exhausting_admissions_are_stopped_and_the_next_program_runs(
    engine_process: EngineProcess,
) -> None:
    for code in EXHAUSTING:
        result = engine_process.run(RunRequest(Program(code="import torch\n" + code)))
        assert result.error is not None and result.error.kind == "runaway-code", result.error
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    plain = run_plain("import torch\n" + ORDINARY)
    assert lesson.error is None and differences(lesson, plain) == []
