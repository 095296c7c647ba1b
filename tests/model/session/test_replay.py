"""Step-through backward: the replay visits the nodes in the order torch's engine ran them
and shows, at each node, the numbers torch's engine computed there.

The expected order and numbers come from plain torch: the same program with a prehook on
every node of its graph, recording the order the engine calls them and what arrives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.session import Session, Snapshot
from gui.model.session.replay import Replay, run_order
from gui.model.views.step_through import bar_texts
from tests.fixtures import CUBE_FUNCTION_CODE, approx, load_lesson

DIAMOND = """\
x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
w = torch.tensor([1.5, 0.25, -2.0], requires_grad=True)
a = x * w
b = torch.sin(x)
c = a * b + a.exp()
s = c.sum()
"""


def torch_order(
    build: Callable[[], torch.Tensor], gradient: torch.Tensor | None = None
) -> list[tuple[str, list[Any]]]:
    """(node class name, gradient arriving) for each node, in the order torch ran them."""
    out = build()
    ran: list[tuple[str, list[Any]]] = []
    seen: set[int] = set()
    stack = [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))

        def prehook(grads: tuple[torch.Tensor, ...], fn: Any = fn) -> None:
            ran.append((type(fn).__name__, [g.tolist() for g in grads if g is not None]))

        fn.register_prehook(prehook)
        stack.extend(next_fn for next_fn, _ in fn.next_functions)
    out.backward(gradient)
    return ran


def replay_sequence(session: Session) -> list[tuple[str, list[Any]]]:
    """(node name, gradient arriving shown) at each position of a replay, stepping on."""
    session.start_replay(playing=False)
    seen = []
    while True:
        before = session.snapshot.replay_state
        session.step_replay(1)
        snapshot = session.snapshot
        if snapshot.replay_state == before:
            break
        key = snapshot.replay_active_node
        assert key is not None and snapshot.selected_node == key
        assert snapshot.graph is not None and snapshot.graph_step is not None
        node = snapshot.graph.node(key)
        flow = snapshot.graph_step.flows[key]
        seen.append((node.name, [t.values for t in flow.arriving if t is not None]))
    return seen


def make(code: str) -> Session:
    session = Session(run_program)
    session.set_code(code)
    return session


def test_the_replay_visits_nodes_in_torchs_order_with_torchs_numbers() -> None:
    session = make(DIAMOND)

    def build() -> torch.Tensor:
        x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
        w = torch.tensor([1.5, 0.25, -2.0], requires_grad=True)
        a = x * w
        b = torch.sin(x)
        c = a * b + a.exp()
        return c.sum()

    expected = torch_order(build)
    seen = replay_sequence(session)
    assert [name for name, _ in seen] == [name for name, _ in expected]
    for (_, shown), (_, grads) in zip(seen, expected, strict=True):
        assert shown == approx(grads, rel=1e-6, abs=1e-7)


def test_a_non_scalar_output_replays_with_its_gradient_argument() -> None:
    session = make("x = torch.tensor([1.0, -2.0], requires_grad=True)\ny = 2 * x\nz = y ** 3\n")
    session.set_gradient([0.5, -3.0])

    def build() -> torch.Tensor:
        x = torch.tensor([1.0, -2.0], requires_grad=True)
        return (2 * x) ** 3

    expected = torch_order(lambda: build(), torch.tensor([0.5, -3.0]))
    assert replay_sequence(session) == [(n, approx(g, rel=1e-6)) for n, g in expected]


def leaf_shown(snapshot: Snapshot, name: str) -> object:
    assert snapshot.graph is not None and snapshot.paint is not None
    key = next(n.key for n in snapshot.graph.nodes if n.kind == "leaf" and n.var == name)
    grad = snapshot.paint.nodes[key]
    return None if grad is None else grad.values


def test_leaves_fill_in_when_their_accumulate_grad_runs_and_a_second_call_adds_on_top() -> None:
    session = Session(run_program)
    snapshot = load_lesson(session, 5)  # two calls with different v, accumulating
    assert snapshot.result is not None and len(snapshot.result.steps) == 2
    first, second = snapshot.result.steps
    before = first.grads_after["x"]
    assert before is not None
    session.start_replay(playing=False)
    order = run_order(second)
    last = len(order)
    for position in range(last + 1):
        snapshot = session.snapshot
        assert snapshot.replay_state == Replay(position)
        reached = set(order[:position])
        leaf = next(k for k in order if snapshot.graph and snapshot.graph.node(k).kind == "leaf")
        shown = leaf_shown(snapshot, "x")
        if leaf in reached:
            assert shown == second.grads_after["x"].values  # type: ignore[union-attr]
        else:
            assert shown == before.values  # the first call's .grad, not yet added to
        # Only the nodes that ran carry gradients; the whole call's colour scale stays.
        assert snapshot.graph_step is not None and set(snapshot.graph_step.flows) == reached
        assert snapshot.paint is not None
        session.step_replay(1)
    session.stop_replay()
    assert session.snapshot.replay_state is None
    assert leaf_shown(session.snapshot, "x") == session.snapshot.leaf_grads["x"].values  # type: ignore[union-attr]


def test_the_scale_stays_the_whole_calls_while_replaying() -> None:
    session = make(DIAMOND)
    whole = session.snapshot.paint
    assert whole is not None
    session.start_replay(playing=False)
    for _ in range(3):
        session.step_replay(1)
        part = session.snapshot.paint
        assert part is not None and part.scale == whole.scale


def test_playing_stops_at_the_end_and_play_again_starts_over() -> None:
    session = make(DIAMOND)
    session.start_replay()
    count = len(session.snapshot.replayed_call.flows)  # type: ignore[union-attr]
    for _ in range(count + 3):
        session.step_replay(1)
    replay = session.snapshot.replay_state
    assert replay is not None and replay.position == count and not replay.playing
    session.play_replay(True)
    replay = session.snapshot.replay_state
    assert replay is not None and replay.position == 0 and replay.playing
    session.step_replay(-1)
    assert session.snapshot.replay_state == Replay(0, playing=False)


def test_speed_is_kept_within_its_range() -> None:
    session = make(DIAMOND)
    session.set_replay_speed(1e9)
    assert session.snapshot.replay_state is not None
    assert session.snapshot.replay_state.speed == pytest.approx(20.0)
    session.set_replay_speed(-5)
    assert session.snapshot.replay_state.speed == pytest.approx(0.25)


def test_the_bar_shows_the_local_rule_with_this_calls_numbers() -> None:
    session = make("x = torch.tensor([[-1.2095]], requires_grad=True)\ny = 2 * x\nz = y ** 3\n")
    session.step_replay(1)  # no replay yet: starts one at the first node
    texts = bar_texts(session.snapshot)
    assert texts.where == "Node 1 of 3" and "PowBackward0" in texts.headline
    assert "17.55" in texts.rule  # 3 * (-2.419)^2 * 1
    session.step_replay(2)
    assert "(done)" in bar_texts(session.snapshot).headline


def test_editing_the_code_keeps_the_replay_within_the_new_call() -> None:
    session = make(DIAMOND)
    session.step_replay(-1)  # from the end
    assert session.snapshot.replay_state is not None
    session.set_code("x = torch.tensor([2.0], requires_grad=True)\ny = x * x\n")
    replay = session.snapshot.replay_state
    call = session.snapshot.replayed_call
    assert replay is not None and call is not None
    assert 0 <= replay.position <= len(call.flows)


def test_nothing_to_replay_says_why() -> None:
    session = make("x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\n")
    texts = bar_texts(session.snapshot)  # non-scalar, no gradient: the call failed
    assert not texts.enabled and "failed" in texts.headline
    session.step_replay(1)
    assert session.snapshot.graph_step is None or not session.snapshot.graph_step.flows


MLP = """\
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
inputs = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
target = torch.tensor([[1.0], [-1.0]])
loss = F.mse_loss(model(inputs), target)
loss.backward()
"""


def test_a_two_layer_mlp_whose_code_calls_backward_replays_in_torchs_order() -> None:
    session = make("import torch.nn as nn\nimport torch.nn.functional as F\n" + MLP)
    assert session.snapshot.error is None

    def build() -> torch.Tensor:
        nn, F = torch.nn, torch.nn.functional
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        inputs = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
        target = torch.tensor([[1.0], [-1.0]])
        return F.mse_loss(model(inputs), target)

    expected = torch_order(build)
    seen = replay_sequence(session)
    assert [name for name, _ in seen] == [name for name, _ in expected]
    for (_, shown), (_, grads) in zip(seen, expected, strict=True):
        assert shown == approx(grads, rel=1e-5, abs=1e-6)


def test_a_custom_autograd_function_replays_with_its_own_backward() -> None:
    session = make(CUBE_FUNCTION_CODE)
    session.set_gradient([1.0, 1.0, 1.0])
    assert session.snapshot.error is None
    seen = replay_sequence(session)
    names = [name for name, _ in seen]
    assert names[0] == "CumsumBackward0" and "CubeBackward" in names
    assert names[-1] == "AccumulateGrad"
    # What arrives at x's AccumulateGrad is x.grad of the same calls in plain torch.
    x = torch.tensor([1.0, 2.0, -0.5], requires_grad=True)
    (x**3).cumsum(0).backward(torch.ones(3))
    assert x.grad is not None
    assert seen[-1][1] == [approx(x.grad.tolist(), rel=1e-6)]


def test_the_details_of_a_leaf_say_its_grad_at_this_point_of_the_replay() -> None:
    from gui.model.views.node_details import details_html

    session = make("x = torch.tensor([[-1.2095]], requires_grad=True)\ny = 2 * x\nz = y ** 3\n")
    snapshot = session.snapshot
    assert snapshot.graph is not None
    leaf = next(n for n in snapshot.graph.nodes if n.kind == "leaf")
    session.start_replay(playing=False)
    html = details_html(leaf, session.snapshot, "monospace")
    assert "x.grad at this point" in html and "35.11" not in html
    session.step_replay(3)
    assert "35.11" in details_html(leaf, session.snapshot, "monospace")
