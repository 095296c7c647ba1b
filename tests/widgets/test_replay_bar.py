"""The step-through bar and the graph during a replay: boxes fill in as torch's engine
reached them, the current node's edges glow, and the bar's buttons and timer drive the
session (one method each)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from gui.model.session import Session
from gui.model.session.replay import run_order
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.replay_bar import slider_to_speed, speed_to_slider
from tests.fixtures import SessionSpy, click, leaf_key, load_lesson, show_panel

CHAIN = "x = torch.tensor([[-1.2095]], requires_grad=True)\ny = 2 * x\nz = y ** 3\n"


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> GraphPanel:
    return show_panel(qtbot, GraphPanel(session), 700, 600)


def test_buttons_step_through_torchs_order(
    qtbot: QtBot, panel: GraphPanel, session: Session
) -> None:
    session.set_code(CHAIN)
    bar = panel.replay_bar
    call = session.snapshot.replayed_call
    assert call is not None
    order = run_order(call)
    assert [session.snapshot.graph.node(k).name for k in order] == [  # type: ignore[union-attr]
        "PowBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ]
    click(qtbot, bar.reset_button)
    assert session.snapshot.replay_state is not None
    assert session.snapshot.replay_state.position == 0
    x_item = panel.node_item(leaf_key(session.snapshot, "x"))
    assert x_item is not None and x_item.lines[-1] == "x.grad None"
    for position, key in enumerate(order, start=1):
        click(qtbot, bar.step_button)
        assert session.snapshot.replay_active_node == key
        assert panel.items is not None and panel.items.active == key
        # The edges feeding the node glow: the gradients it sends go back along them.
        graph = session.snapshot.graph
        assert graph is not None
        feeding = {i for i, e in enumerate(graph.edges) if e.target == key and e.kind == "data"}
        glowing = {i for i, e in panel.items.edges.items() if e.highlighted}
        assert glowing == feeding
        assert bar.where.text() == f"Node {position} of 3:"
    assert x_item.lines[-1] == "x.grad [[35.11]]"  # filled in when AccumulateGrad ran
    click(qtbot, bar.back_button)
    assert x_item.lines[-1] == "x.grad None"
    click(qtbot, bar.done_button)
    assert session.snapshot.replay_state is None
    assert x_item.lines[-1] == "x.grad [[35.11]]"
    assert not bar.done_button.isVisible()


def test_play_runs_the_timer_until_the_end(
    qtbot: QtBot, panel: GraphPanel, session: Session
) -> None:
    session.set_code(CHAIN)
    bar = panel.replay_bar
    bar.speed.setValue(bar.speed.maximum())  # the fastest: 20 nodes a second
    click(qtbot, bar.play_button)
    assert bar.play_button.text() == "⏸ Pause"
    qtbot.waitUntil(lambda: not session.snapshot.replay_state.playing, timeout=5000)  # type: ignore[union-attr]
    assert session.snapshot.replay_state is not None
    assert session.snapshot.replay_state.position == 3
    assert bar.play_button.text() == "▶ Play"
    assert "(done)" in bar.headline.text()


def test_each_button_calls_one_session_method(
    qtbot: QtBot, panel: GraphPanel, session: Session, spy: SessionSpy
) -> None:
    session.set_code(CHAIN)
    spy.calls.clear()
    bar = panel.replay_bar
    for button in (bar.reset_button, bar.step_button, bar.back_button, bar.play_button):
        click(qtbot, button)
    assert spy.calls == ["start_replay", "step_replay", "step_replay", "play_replay"]


def test_a_failed_call_disables_the_bar(qtbot: QtBot, panel: GraphPanel, session: Session) -> None:
    session.set_code("x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\n")
    bar = panel.replay_bar
    assert not bar.play_button.isEnabled() and not bar.step_button.isEnabled()
    assert "failed" in bar.headline.text()


def test_the_second_call_of_lesson_5_adds_on_top(
    qtbot: QtBot, panel: GraphPanel, session: Session
) -> None:
    snapshot = load_lesson(session, 5)
    x_item = panel.node_item(leaf_key(snapshot, "x"))
    assert x_item is not None
    session.start_replay(playing=False)
    assert x_item.lines[-1] == "x.grad [[43.40, 0.], [5.406, 0.]]"  # after the first call
    session.step_replay(100)
    assert x_item.lines[-1] == "x.grad [[43.40, 2.052], [5.406, 18.76]]"


@pytest.mark.parametrize("speed", [0.25, 1.5, 20.0])
def test_the_speed_slider_round_trips(speed: float) -> None:
    assert slider_to_speed(speed_to_slider(speed)) == pytest.approx(speed, rel=0.06)
