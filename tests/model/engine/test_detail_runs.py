"""Runs that read only the nodes in view (``RunRequest.detail``), against whole runs and
plain torch: what they read equals what a whole run reads, exactly; what a tick always
needs (leaves, gradients, named tensors, the output) is whole; and a structure that is
not the one on screen is read whole."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from gui.model import detail_merge
from gui.model.engine import run as engine_run
from gui.model.engine.run import run_program
from gui.model.engine.tensors import NO_NUMBERS
from gui.model.request import Detail, Program, RunRequest
from gui.model.result import GraphNode, RunResult
from gui.model.session.drag_detail import detail_of

CHAIN = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
    "for i in range(60):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
)
MLP = """
import torch.nn as nn
torch.manual_seed(3)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.tensor([[0.1, -0.2, 0.3, 0.4], [1.0, 0.5, -0.5, 0.0]], requires_grad=True)
loss = model(x).pow(2).mean()
"""
# A value changed in place after it was recorded (ReLU(inplace=True) after a Linear).
IN_PLACE = """
import torch.nn as nn
torch.manual_seed(1)
lin = nn.Linear(3, 3)
x = torch.tensor([0.3, -1.2, 0.8], requires_grad=True)
z = lin(x)
z2 = z * 2
y = torch.relu_(z2)
out = (y * x).sum()
"""
LOOP = (
    "w = torch.tensor([0.4, -0.7], requires_grad=True)\n"
    "for step in range(3):\n"
    "    loss = (w.sin() * 3).pow(2).sum()\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        w -= 0.1 * w.grad\n"
    "    w.grad.zero_()\n"
)


def _run(code: str, values: dict[str, object] | None = None, detail: Detail | None = None):
    program = Program(code=code, values=values or {})
    return run_program(RunRequest(program, time_limit=60, detail=detail))


def _nodes(result: RunResult) -> dict[str, GraphNode]:
    assert result.graph is not None
    return {n.key: n for n in result.graph.nodes}


def _function_keys(result: RunResult, count: int) -> tuple[str, ...]:
    assert result.graph is not None
    return tuple(n.key for n in result.graph.nodes if n.kind in ("function", "leaf"))[:count]


def _same_values(a: RunResult, b: RunResult) -> None:
    assert a.tensors == b.tensors
    assert a.output_value == b.output_value
    assert a.printed == b.printed and a.error == b.error
    for sa, sb in zip(a.steps, b.steps, strict=True):
        assert sa.grads_after == sb.grads_after and sa.jacobians == sb.jacobians


@pytest.mark.parametrize(
    ("code", "values"),
    [(CHAIN, {"x": [0.9, 0.1]}), (MLP, {"x": [[0.3, 0.2, -0.1, 0.6], [0.0, 1.0, 2.0, -1.0]]})],
)
def test_a_detail_run_reads_its_nodes_as_a_whole_run_does(code: str, values: dict) -> None:
    shown = _run(code)  # the structure on screen, at other values
    assert shown.graph is not None
    read = _function_keys(shown, 7)
    partial = _run(code, values, Detail(shown.graph.structure_key, read))
    whole = _run(code, values)
    assert partial.graph is not None and partial.graph.partial and not partial.graph.edges
    assert partial.graph.structure_key == whole.graph.structure_key
    _same_values(partial, whole)
    full = _nodes(whole)
    got = _nodes(partial)
    # The nodes read, with what they own (saved values, constants) and the output.
    assert set(read) <= set(got) and "output" in got
    assert all(n.key in read or n.owner in read or n.kind == "output" for n in got.values())
    for key, node in got.items():
        assert node.value == full[key].value, key
        assert [(s.name, s.tensor, s.value) for s in node.saved] == [
            (s.name, s.tensor, s.value) for s in full[key].saved
        ], key
    step, whole_step = partial.steps[-1], whole.steps[-1]
    leaves = {n.key for n in whole.graph.nodes if n.kind == "leaf"}
    assert set(step.flows) == (set(read) & set(whole_step.flows)) | leaves
    for key, flow in step.flows.items():
        assert (flow.arriving, flow.leaving) == (
            whole_step.flows[key].arriving,
            whole_step.flows[key].leaving,
        ), key
    # And merged into what was on screen: the whole run's numbers where read.
    merged = detail_merge.merge(shown, partial)
    assert merged is not None and merged.graph is not None and not merged.graph.partial
    assert merged.graph.structure_key == whole.graph.structure_key
    for key in got:
        assert _nodes(merged)[key] == full[key], key  # memory kept from the base, equal


def test_the_leaves_gradients_equal_plain_torch() -> None:
    shown = _run(CHAIN)
    assert shown.graph is not None
    partial = _run(CHAIN, {"x": [1.5, -2.0]}, Detail(shown.graph.structure_key, ()))
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    h = x
    for _ in range(60):
        h = torch.sin(h) * 1.01
    h.sum().backward()
    assert x.grad is not None
    assert partial.tensors["x"].grad.values == x.grad.tolist()
    assert partial.output_value.values == h.sum().item()
    assert partial.graph is not None and partial.graph.partial
    assert [n.kind for n in partial.graph.nodes] == ["output"]


@pytest.mark.parametrize("by_place", [False, True])
def test_another_structure_is_read_whole(by_place: bool) -> None:
    """With every value kept, or (as the window asks, by place) run again keeping them."""
    code = (
        "x = torch.tensor([0.5, 2.0], requires_grad=True)\n"
        "y = (x * x).sum() if x[0] > 0 else x.exp().sin().cos().sum()\n"
    )
    shown = _run(code)
    assert shown.graph is not None
    detail = Detail(shown.graph.structure_key, _function_keys(shown, 1))
    if by_place:
        detail = detail_of(shown.graph, detail.nodes)
        assert detail.made
    other = _run(code, {"x": [-0.5, 2.0]}, detail)
    assert other.graph is not None and not other.graph.partial
    assert other.graph.structure_key != shown.graph.structure_key
    assert other == replace(_run(code, {"x": [-0.5, 2.0]}), elapsed_seconds=other.elapsed_seconds)


def test_a_value_changed_in_place_since_keeps_the_numbers_read_before() -> None:
    shown = _run(IN_PLACE, {"x": [0.1, 0.2, 0.3]})
    assert shown.graph is not None
    mul = next(n for n in shown.graph.nodes if n.name == "MulBackward0" and n.var == "z2")
    partial = _run(IN_PLACE, detail=Detail(shown.graph.structure_key, (mul.key,)))
    # Recorded unread, then ReLU'd in place: its forward value is gone. Not sent (nor the
    # ReLU's numbers in its place): the window keeps what it read last.
    assert mul.key not in _nodes(partial)
    assert any(n.owner == mul.key for n in _nodes(partial).values())  # what it saved: read
    whole = _run(IN_PLACE)
    _same_values(partial, whole)
    merged = detail_merge.merge(shown, partial)
    assert merged is not None
    assert _nodes(merged)[mul.key].value == mul.value


def test_every_step_of_a_loop_is_read_partially_and_merges() -> None:
    shown = _run(LOOP)
    assert shown.graph is not None and len(shown.steps) == 3
    read = _function_keys(shown, 3)
    partial = _run(LOOP, {"w": [0.1, 0.2]}, Detail(shown.graph.structure_key, read))
    whole = _run(LOOP, {"w": [0.1, 0.2]})
    assert all(s.graph is not None and s.graph.partial for s in partial.steps)
    _same_values(partial, whole)
    merged = detail_merge.merge(shown, partial)
    assert merged is not None
    for step, whole_step in zip(merged.steps, whole.steps, strict=True):
        assert step.graph is not None and not step.graph.partial
        for key in read:
            assert step.flows[key].arriving == whole_step.flows[key].arriving
            assert step.flows[key].order == whole_step.flows[key].order
    # A base of another structure does not take it: the window runs it whole.
    other = _run("w = torch.tensor([1.0], requires_grad=True)\n(w * 2).sum().backward()\n")
    assert detail_merge.merge(other, partial) is None


def test_only_the_forward_values_in_view_are_kept_while_the_program_runs() -> None:
    """The window names the function nodes in view by the order the run makes them
    (``GraphNode.made``): the engine copies their forward values only. A node asked for by
    key whose place is not among them is left unread (the window keeps its numbers)."""
    shown = _run(CHAIN)
    assert shown.graph is not None
    functions = [n for n in shown.graph.nodes if n.kind == "function"]
    assert [n.made for n in functions[:3]] == [120, 119, 118]  # the sum, made last
    read = tuple(n.key for n in functions[1:4])
    detail = detail_of(shown.graph, read)
    assert detail.made == (117, 118, 119) and detail.nodes == tuple(sorted(read))
    values = {"x": [0.9, 0.1]}
    lean = _run(CHAIN, values, detail)
    whole = _nodes(_run(CHAIN, values))
    got = _nodes(lean)
    assert all(got[key].value == whole[key].value for key in read)
    # Asked for by key, but not by place: not copied, so not read.
    elsewhere = _run(CHAIN, values, replace(detail, made=(117, 118)))
    assert set(read) - set(_nodes(elsewhere)) == {functions[1].key}
    _same_values(elsewhere, lean)


ORDER_BY_SIGN = (
    "x = torch.tensor([0.5, 2.0], requires_grad=True)\n"
    "if x[0] > 0:\n    a = x.sin()\n    b = x.cos()\n"
    "else:\n    b = x.cos()\n    a = x.sin()\n"
    "y = (a * b).sum()\n"
)


def test_nodes_made_in_another_order_are_never_shown_with_anothers_numbers() -> None:
    """The same structure, made in another order this tick: the places the window names
    are other nodes now. Whatever is read is the node's own value; the rest is left
    unread, and the drag's end reads every node again."""
    shown = _run(ORDER_BY_SIGN)
    assert shown.graph is not None
    read = tuple(n.key for n in shown.graph.nodes if n.name in ("SinBackward0", "CosBackward0"))
    detail = detail_of(shown.graph, read[:1])
    flipped = {"x": [-0.5, 2.0]}
    lean = _run(ORDER_BY_SIGN, flipped, detail)
    assert lean.graph is not None and lean.graph.partial
    assert lean.graph.structure_key == shown.graph.structure_key
    whole = _nodes(_run(ORDER_BY_SIGN, flipped))
    got = _nodes(lean)
    assert read[0] not in got  # its place now holds the other node
    assert all(node.value == whole[key].value for key, node in got.items())


def test_a_long_run_of_another_structure_is_not_made_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The job's time limit covers both runs: a run that took much of it is answered as
    walked, its unread nodes without numbers until the drag ends."""
    monkeypatch.setattr(engine_run, "RERUN_SHARE", 0.0)
    code = (
        "x = torch.tensor([0.5, 2.0], requires_grad=True)\n"
        "y = (x * x).sum() if x[0] > 0 else x.exp().sin().cos().sum()\n"
    )
    shown = _run(code)
    assert shown.graph is not None
    detail = detail_of(shown.graph, _function_keys(shown, 1))
    other = _run(code, {"x": [-0.5, 2.0]}, detail)
    assert other.graph is not None and not other.graph.partial
    values = [n.value for n in other.graph.nodes if n.kind == "function"]
    assert any(v is not None and v.summary is NO_NUMBERS for v in values)
    assert other.tensors == _run(code, {"x": [-0.5, 2.0]}).tensors  # the rest is whole


@pytest.mark.parametrize(
    ("numbers", "dtype", "again"),
    [
        (4096, "torch.float32", True),
        (50_000, "torch.float32", False),
        (4096, "torch.complex64", False),
    ],
)
def test_a_tick_of_another_structure_is_made_twice_only_if_its_unread_numbers_are_few(
    numbers: int, dtype: str, again: bool
) -> None:
    """The run again copies every value the first left unread: a few numbers are copied
    at once; tens of thousands of complex ones took seconds (red team, round 16), and such
    a tick answers with its nodes unread until the drag ends."""
    code = (
        "s = torch.tensor([1.0])\n"
        f"x = torch.linspace(0.1, 1.0, {numbers}, dtype={dtype}).requires_grad_()\n"
        "h = x\n"
        "for i in range(8 if s[0] > 0 else 9):\n"
        "    h = torch.sin(h) * 1.01\n"
        "y = h.abs().sum()\n"
    )
    shown = _run(code)
    assert shown.graph is not None
    detail = detail_of(shown.graph, _function_keys(shown, 1))
    other = _run(code, {"s": [-1.0]}, detail)
    assert other.graph is not None and not other.graph.partial
    assert other.graph.structure_key != shown.graph.structure_key
    values = [n.value for n in other.graph.nodes if n.kind == "function" and n.value]
    assert any(v.summary is NO_NUMBERS for v in values) != again
    assert (engine_run._unread_numbers(other) == 0) == again


@pytest.mark.parametrize("read_split", [False, True])
def test_a_new_number_of_outputs_is_a_new_structure(read_split: bool) -> None:
    """``torch.split(x, sizes)`` with the sizes read from a value: the same nodes, edges
    and shapes, but the split's box has a gradient line per output, so its layout is new
    (read or not)."""
    code = (
        "k = torch.tensor(2.0)\nx = torch.arange(6.0, requires_grad=True)\n"
        "sizes = [2] + [4 // int(k.item())] * int(k.item())\n"
        "first = torch.split(x, sizes)[0]\nout = (first * first).sum()\n"
    )
    shown = _run(code)
    assert shown.graph is not None
    split = next(n for n in shown.graph.nodes if n.name == "SplitWithSizesBackward0")
    assert split.output_count == 3
    read = (split.key,) if read_split else _function_keys(shown, 1)
    detail = detail_of(shown.graph, read)
    same = _run(code, {"k": 2.0}, detail)
    assert same.graph is not None and same.graph.partial  # the structure on screen
    other = _run(code, {"k": 1.0}, detail)
    whole = _run(code, {"k": 1.0})
    assert other.graph is not None and not other.graph.partial
    assert other.graph.structure_key == whole.graph.structure_key != shown.graph.structure_key
    assert {n.key: n.output_count for n in whole.graph.nodes}[split.key] == 2
