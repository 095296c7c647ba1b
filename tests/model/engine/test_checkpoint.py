"""``torch.utils.checkpoint`` as the docs and tutorials write it: the numbers and the
printed lines of plain torch (the block runs exactly as often: once forward, once more in
backward), the nodes made inside the block shown recomputed and never read (reading one
would run the block again), the memory view counting nothing for them; the variants and
``checkpoint_sequential`` the same; what the stand-in cannot offer refused in a sentence;
and behind the operating system's wall, the next program unaffected."""

from __future__ import annotations

import pytest

from gui.model.drawing.layout import node_lines
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.explain.local_rules.describe import describe
from gui.model.request import Detail, Program, RunRequest
from gui.model.result import GraphNode, RunResult
from gui.model.views.memory import memory_view, totals
from tests.corpus.harness import differences, run_in_engine, run_plain

# A block that says when it runs, between a node made before it and one made after.
BLOCK = """
import torch
from torch.utils.checkpoint import checkpoint

def block(h, w):
    print("block runs")
    return torch.tanh(h @ w).exp() * h

torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(4, 4, requires_grad=True)
h = x.sin()
y = checkpoint(block, h, w, use_reentrant=REENTRANT)
loss = (y * y).sum()
"""
WITH_BACKWARD = BLOCK + "loss.backward()\nprint(x.grad.sum().item(), w.grad.sum().item())\n"
SEQUENTIAL = """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential

torch.manual_seed(1)
model = nn.Sequential(
    nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Dropout(0.3), nn.ReLU(), nn.Linear(8, 2)
)
data = torch.randn(5, 4, requires_grad=True)
out = checkpoint_sequential(model, 3, data, use_reentrant=REENTRANT)
loss = out.pow(2).mean()
loss.backward()
"""


def _code(template: str, reentrant: str) -> str:
    return template.replace("REENTRANT", reentrant)


def _nodes(result: RunResult) -> list[GraphNode]:
    assert result.graph is not None
    return list(result.graph.nodes)


def _recomputed(result: RunResult) -> set[str]:
    return {n.name for n in _nodes(result) if any(s.recomputed for s in n.saved)}


def _same_as_plain(code: str) -> RunResult:
    result = run_in_engine(code)
    assert result.error is None, result.error
    plain = run_plain(code, result.tensors)
    assert plain.error is None, plain.error
    assert differences(result, plain) == []
    return result


def test_non_reentrant_runs_the_block_as_often_as_plain_torch() -> None:
    result = _same_as_plain(_code(WITH_BACKWARD, "False"))
    assert [p.text for p in result.printed][:2] == ["block runs", "block runs"]
    # The block's nodes: recomputed, nothing read; before and after it: read as usual.
    assert _recomputed(result) == {"MmBackward0", "TanhBackward0", "ExpBackward0", "MulBackward0"}
    by_name = {n.name: n for n in _nodes(result) if n.kind == "function"}
    assert all(s.tensor is None for s in by_name["TanhBackward0"].saved)
    assert any(s.tensor is not None for s in by_name["SinBackward0"].saved)
    # `y * y` is outside the block: its MulBackward0 keeps `y` twice.
    outside = [
        n
        for n in _nodes(result)
        if n.name == "MulBackward0" and not any(s.recomputed for s in n.saved)
    ]
    assert len(outside) == 1 and any(s.tensor is not None for s in outside[0].saved)


def test_the_added_backward_recomputes_once_too() -> None:
    # No backward in the program: the app's own (the gradient slider's) is the one.
    code = _code(BLOCK, "False")
    result = run_program(RunRequest(Program(code=code), time_limit=30))
    assert result.error is None, result.error
    assert [p.text for p in result.printed] == ["block runs", "block runs"]
    # The second time, backward ran it: the printed output says so.
    assert [p.during_step for p in result.printed] == [None, 1]
    plain = run_plain(_code(WITH_BACKWARD, "False"), ("x.grad", "w.grad"))
    assert result.tensors["x"].grad is not None
    assert result.tensors["x"].grad.values == plain.namespace["x.grad"].values
    assert result.tensors["w"].grad.values == plain.namespace["w.grad"].values


def test_a_drag_tick_does_not_run_the_block_again() -> None:
    code = _code(BLOCK, "False")
    shown = run_program(RunRequest(Program(code=code), time_limit=30))
    assert shown.graph is not None
    read = tuple(n.key for n in shown.graph.nodes if n.kind == "function")
    detail = Detail(shown.graph.structure_key, read)
    values = {"x": [[0.1 * (i + j) for j in range(4)] for i in range(3)]}
    tick = run_program(RunRequest(Program(code=code, values=values), time_limit=30, detail=detail))
    assert tick.error is None and tick.graph is not None and tick.graph.partial
    assert [p.text for p in tick.printed] == ["block runs", "block runs"]
    assert _recomputed(tick) == _recomputed(shown) != set()


def test_node_details_and_the_box_say_what_checkpointing_did() -> None:
    result = run_in_engine(_code(WITH_BACKWARD, "False"))
    assert result.graph is not None
    tanh = next(n for n in _nodes(result) if n.name == "TanhBackward0")
    step = result.steps[-1]
    rows = dict(describe(tanh, step.flows.get(tanh.key), result.graph, step).saved)
    assert "backward() runs the checkpointed block again" in rows["result"]
    sin = next(n for n in _nodes(result) if n.name == "SinBackward0")
    rows = dict(describe(sin, step.flows.get(sin.key), result.graph, step).saved)
    assert "recomputed" not in rows["self"] and "[" in rows["self"]
    assert "checkpointed: saved recomputed" in node_lines(tanh, None, None)
    assert not any("checkpointed" in line for line in node_lines(sin, None, None))


def test_the_memory_view_counts_nothing_for_the_block() -> None:
    result = run_in_engine(_code(BLOCK, "False"))
    view = memory_view(result.graph, result)
    assert view.recomputed_nodes == 4
    recomputed = [r for r in view.rows if r.recomputed]
    assert recomputed and all(r.bytes == 0 and not r.saved for r in recomputed)
    assert "recomputed in backward" in recomputed[0].saved_text
    # The same program without checkpoint holds more: what the block's nodes save.
    plain = run_in_engine(
        BLOCK.replace("checkpoint(block, h, w, use_reentrant=REENTRANT)", "block(h, w)")
    )
    whole = memory_view(plain.graph, plain)
    assert whole.recomputed_nodes == 0
    assert view.total_bytes < whole.total_bytes
    labels = [line.label for line in totals(view)]
    assert "Recomputed in backward: 4 nodes" in labels


@pytest.mark.parametrize("reentrant", ["True", "None"])
def test_the_reentrant_variant_is_torchs_own(reentrant: str) -> None:
    result = _same_as_plain(_code(WITH_BACKWARD, reentrant))
    assert [p.text for p in result.printed][:2] == ["block runs", "block runs"]
    assert _recomputed(result) == set()  # one node, saving the block's inputs
    assert "CheckpointFunctionBackward" in {n.name for n in _nodes(result)}
    if reentrant == "None":  # torch's warning, as plain Python prints it
        assert any("use_reentrant" in w.message for w in result.warnings)


@pytest.mark.parametrize("reentrant", ["False", "True"])
def test_checkpoint_sequential_as_plain_torch(reentrant: str) -> None:
    result = _same_as_plain(_code(SEQUENTIAL, reentrant))
    if reentrant == "False":
        # Segments of two: Linear+Tanh and Linear+Dropout checkpointed; the last one not.
        recomputed = [n for n in _nodes(result) if any(s.recomputed for s in n.saved)]
        assert {n.name for n in recomputed} == {"AddmmBackward0", "TanhBackward0", "MulBackward0"}
        assert len(recomputed) == 4
        relu = next(n for n in _nodes(result) if n.name == "ReluBackward0")
        assert any(s.tensor is not None for s in relu.saved)


def test_nested_checkpoints_keyword_arguments_and_no_grad() -> None:
    code = """
import torch
from torch.utils import checkpoint as cp

def inner(a, scale=1.0):
    return (a * scale).sigmoid()

def outer(a, b):
    return cp.checkpoint(inner, a @ b, use_reentrant=False, scale=0.5).log1p()

torch.manual_seed(2)
a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(3, 3, requires_grad=True)
with torch.no_grad():
    quiet = cp.checkpoint(outer, a, b, use_reentrant=False)
out = torch.utils.checkpoint.checkpoint(outer, a, b, use_reentrant=False, preserve_rng_state=False)
loss = out.sum() + quiet.sum()
loss.backward()
"""
    result = _same_as_plain(code)
    assert _recomputed(result) >= {"MmBackward0", "SigmoidBackward0", "Log1PBackward0"}


@pytest.mark.parametrize(
    ("call", "said"),
    [
        ("checkpoint(f, x, use_reentrant=False, debug=True)", "debug=True"),
        ("checkpoint(f, x, use_reentrant=False, context_fn=f)", "context_fn"),
    ],
)
def test_what_the_stand_in_cannot_offer_is_refused(call: str, said: str) -> None:
    code = (
        "import torch\nfrom torch.utils.checkpoint import checkpoint\n"
        "def f(t):\n    return t.exp()\n"
        f"x = torch.ones(2, requires_grad=True)\ny = {call}\n"
    )
    result = run_in_engine(code)
    assert result.error is not None
    assert said in result.error.message and "leave it out" in result.error.message


def test_behind_the_walls_and_the_next_program() -> None:
    engine = EngineProcess()
    engine.start()
    try:
        code = _code(WITH_BACKWARD, "False")
        first = engine.run(RunRequest(Program(code=code, steps=()), time_limit=30))
        assert first.error is None, first.error
        plain = run_plain(code, ())
        assert [p.text for p in first.printed] == plain.printed
        # An ordinary program in the same engine: every node read, nothing recomputed.
        ordinary = BLOCK.replace("checkpoint(block, h, w, use_reentrant=REENTRANT)", "block(h, w)")
        second = engine.run(RunRequest(Program(code=ordinary, steps=()), time_limit=30))
        assert second.error is None and _recomputed(second) == set()
        assert [p.text for p in second.printed] == ["block runs"]
    finally:
        engine.close()


def test_only_what_a_node_saved_is_called_recomputed() -> None:
    # Data that needs no gradient: the first layer's product saves its input, not its
    # weight (plain torch: `_saved_mat2` is None), inside the checkpoint or not.
    code = (
        "import torch\nfrom torch.utils.checkpoint import checkpoint\n"
        "torch.manual_seed(0)\nlayer = torch.nn.Linear(2, 3)\ndata = torch.randn(4, 2)\n"
        "y = checkpoint(lambda t: torch.tanh(layer(t)), data, use_reentrant=False)\n"
        "loss = y.sum()\n"
    )
    result = run_in_engine(code)
    addmm = next(n for n in _nodes(result) if n.name == "AddmmBackward0")
    saved = {s.name: s for s in addmm.saved}
    assert saved["mat1"].recomputed and not saved["mat2"].recomputed
    assert saved["mat2"].tensor is None and not saved["mat2"].freed


def test_the_engine_runs_no_second_backward_of_its_own() -> None:
    # A vector output: the app's Jacobian would be a second backward through the block,
    # which would run it (and print) once more than plain torch does.
    code = (
        "import torch\nfrom torch.utils.checkpoint import checkpoint\n"
        "def block(h):\n    print('block runs')\n    return h.sin() * 2\n"
        "x = torch.tensor([0.5, 1.0, -0.3], requires_grad=True)\n"
        "y = checkpoint(block, x, use_reentrant=False)\n"
    )
    failing = run_program(RunRequest(Program(code=code), time_limit=30))
    assert failing.error is not None and failing.error.kind == "non-scalar-backward"
    assert [p.text for p in failing.printed] == ["block runs"]  # plain torch: no recompute
    seeded = code + "y.backward(torch.tensor([1.0, 0.5, 2.0]))\n"
    result = _same_as_plain(seeded)
    assert [p.text for p in result.printed] == ["block runs", "block runs"]
    assert (
        result.steps[-1].jacobian_note is not None and "own code" in result.steps[-1].jacobian_note
    )


def test_the_ranges_of_nested_and_later_blocks() -> None:
    from gui.model.engine import checkpoint_stand_in as stand_in

    class Node:
        def __init__(self, number: int) -> None:
            self.number = number

        def _sequence_nr(self) -> int:
            return self.number

    stand_in.forget_checkpoints()
    try:
        # Inner blocks end first: (5, 8) inside (3, 12), (21, 22) inside (20, 25).
        for first, past in [(5, 8), (9, 9), (3, 12), (21, 22), (20, 25), (30, 31)]:
            stand_in._note_range(first, past)
        inside = [n for n in range(40) if stand_in.made_in_checkpoint(Node(n))]
        assert inside == [*range(3, 12), *range(20, 25), 30]
    finally:
        stand_in.forget_checkpoints()
