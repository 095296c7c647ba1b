"""The node details pane: follows the session's selection, shows torch's numbers, no echo."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import torch
from PySide6.QtCore import Qt, QUrl
from pytestqt.qtbot import QtBot

from gui.model.explain.local_rules import FAILED_STEP_TEXT
from gui.model.session import Session, Snapshot
from gui.model.views.node_details import DETAILS_LINK, EMPTY_TEXT
from gui.widgets import node_details_panel
from gui.widgets.node_details_panel import NodeDetailsPanel
from tests.fixtures import load_lesson, shown, text_of


def key_of(snapshot: Snapshot, name: str) -> str:
    assert snapshot.graph is not None
    return next(n.key for n in snapshot.graph.nodes if n.name == name or n.kind == name)


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> NodeDetailsPanel:
    widget = NodeDetailsPanel(session)
    qtbot.addWidget(widget)
    widget.resize(380, 600)
    return widget


def chain_rule_in_torch(x_value: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Lessons 3-5 the ordinary way: ``y = 2 * x; z = y ** 3``; returns (y, x)."""
    x = torch.tensor(x_value, requires_grad=True)
    y = 2 * x
    y.retain_grad()
    z = y**3
    z.backward(torch.ones_like(z))
    assert y.grad is not None and x.grad is not None
    return y, x


def test_empty_until_a_node_is_selected(panel: NodeDetailsPanel, session: Session) -> None:
    snapshot = load_lesson(session, 3)
    assert text_of(panel).startswith(EMPTY_TEXT)
    assert snapshot.notes is not None
    assert " ".join(snapshot.notes.split()) in text_of(panel), "the lesson's notes show meanwhile"
    assert not panel.close_button.isEnabled()


def test_lesson_three_pow_and_mul_show_torchs_numbers(
    panel: NodeDetailsPanel, session: Session
) -> None:
    snapshot = load_lesson(session, 3)
    y, x = chain_rule_in_torch([[-1.2095]])
    session.select_node(key_of(snapshot, "PowBackward0"))
    text = text_of(panel)
    assert "PowBackward0 backward of z = y ** 3" in text
    assert "∂(y³)/∂y = 3·y² → grad_y = g · 3 · y²" in text
    assert f"= [[1.]] · 3 · {shown(y)}²" in text
    assert f"leaving → y {shown(y.grad)}" in text  # type: ignore[arg-type]
    # The rule with the numbers comes first, ending in torch's own gradient.
    numbers = text.index("With this call's numbers")
    assert text.index(f"= {shown(y.grad)}", numbers) < text.index("leaving → y")  # type: ignore[arg-type]
    assert panel.close_button.isEnabled()
    session.select_node(key_of(snapshot, "MulBackward0"))
    text = text_of(panel)
    assert "backward of y = x * 2" in text
    assert f"leaving → x {shown(x.grad)}" in text  # type: ignore[arg-type]
    assert shown(x.grad) == "[[35.11]]"  # type: ignore[arg-type]  # docs/learners.md
    assert "2: no gradient" in text


def test_lesson_one_sum_chain(panel: NodeDetailsPanel, session: Session) -> None:
    snapshot = load_lesson(session, 1)
    x = torch.tensor([3.0, 4.0, 10.0], requires_grad=True)
    sum(x**2).backward()  # type: ignore[union-attr]
    session.select_node(key_of(snapshot, "PowBackward0"))
    text = text_of(panel)
    assert "∂(x²)/∂x = 2·x" in text
    assert f"= [1., 1., 1.] · 2 · {shown(x.detach())}" in text
    assert f"= {shown(x.grad)}" in text  # type: ignore[arg-type]
    session.select_node(key_of(snapshot, "UnbindBackward0"))
    assert "grad_u = stack([g₀, g₁, g₂], dim=0)" in text_of(panel)
    session.select_node(key_of(snapshot, "leaf"))
    text = text_of(panel)
    assert "x leaf tensor (AccumulateGrad)" in text
    assert f"x.grad now {shown(x.grad)}" in text  # type: ignore[arg-type]


def test_lesson_five_leaf_shows_grad_and_what_each_call_added(
    panel: NodeDetailsPanel, session: Session
) -> None:
    snapshot = load_lesson(session, 5)
    x = torch.tensor([[1.3448, -0.2924], [-0.4746, 0.8842]], requires_grad=True)
    z = (2 * x) ** 3
    z.backward(torch.tensor([[1.0, 0.0], [1.0, 0.0]]), retain_graph=True)
    first = x.grad.clone()  # type: ignore[union-attr]
    z.backward(torch.tensor([[0.0, 1.0], [0.0, 1.0]]), retain_graph=True)
    session.select_node(key_of(snapshot, "leaf"))
    text = text_of(panel)
    assert f"x.grad now {shown(x.grad)}" in text  # type: ignore[arg-type]
    # docs/learners.md: [[43.40, 2.052], [5.405, 18.76]] (24 * 0.4746² = 5.4059 rounds up)
    assert shown(x.grad) == "[[43.40, 2.052], [5.406, 18.76]]"  # type: ignore[arg-type]
    assert f"added by this call {shown(x.grad - first)}" in text  # type: ignore[operator]
    assert "backward call 2 of 2" in text
    session.select_step(0)
    text = text_of(panel)
    assert f"added by this call {shown(first)}" in text
    assert "backward call 1 of 2" in text


def test_lesson_six_mean(panel: NodeDetailsPanel, session: Session) -> None:
    snapshot = load_lesson(session, 6)
    session.select_node(key_of(snapshot, "MeanBackward0"))
    text = text_of(panel)
    assert "∂(z.mean())/∂zᵢ = 1/2 for every element of z" in text
    assert "= [0.5000, 0.5000]" in text


def test_selecting_through_the_session_emits_once_and_never_echoes(
    panel: NodeDetailsPanel, session: Session, emitted: list[Snapshot], qtbot: QtBot
) -> None:
    snapshot = load_lesson(session, 3)
    emitted.clear()
    with qtbot.assertNotEmitted(panel.close_button.clicked):
        session.select_node(key_of(snapshot, "PowBackward0"))
    assert len(emitted) == 1
    assert "PowBackward0" in text_of(panel)
    session.select_node(None)
    assert len(emitted) == 2
    assert text_of(panel).startswith(EMPTY_TEXT)


def test_close_button_clears_the_selection(
    panel: NodeDetailsPanel, session: Session, emitted: list[Snapshot], qtbot: QtBot
) -> None:
    snapshot = load_lesson(session, 3)
    session.select_node(key_of(snapshot, "MulBackward0"))
    emitted.clear()
    qtbot.mouseClick(panel.close_button, Qt.MouseButton.LeftButton)
    assert session.snapshot.selected_node is None
    assert len(emitted) == 1
    assert text_of(panel).startswith(EMPTY_TEXT)


def test_unrelated_changes_do_not_redraw(
    panel: NodeDetailsPanel, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = load_lesson(session, 3)
    session.select_node(key_of(snapshot, "PowBackward0"))
    calls: list[str] = []
    original = node_details_panel.details_html
    monkeypatch.setattr(
        node_details_panel, "details_html", lambda *a: calls.append("x") or original(*a)
    )
    session.set_live(False)  # changes "live" only
    assert calls == []
    session.set_input("x", 0, 0.5)  # live is off: a change of values, no new result
    assert calls == []
    session.run_now()  # the result arrives: numbers change
    assert calls == ["x"]
    y, _ = chain_rule_in_torch([[0.5]])
    assert f"leaving → y {shown(y.grad)}" in text_of(panel)  # type: ignore[arg-type]


@pytest.mark.parametrize(("lesson", "op"), [(1, "PowBackward0"), (3, "MulBackward0"),
                                            (3, "PowBackward0"), (5, "MulBackward0"),
                                            (5, "PowBackward0")])  # fmt: skip
def test_readable_at_380_px_without_clipping(
    panel: NodeDetailsPanel, session: Session, qtbot: QtBot, lesson: int, op: str
) -> None:
    snapshot = load_lesson(session, lesson)
    session.select_node(key_of(snapshot, op))
    panel.show()
    qtbot.waitExposed(panel)
    # Everything wraps: nothing runs off to the right.
    assert panel.browser.horizontalScrollBar().maximum() == 0
    assert panel.browser.font().pointSizeF() >= panel.font().pointSizeF()
    panel.grab().save(f"/tmp/node_details_lesson{lesson}_{op}.png")


def test_slow_drawings_make_value_updates_wait_and_coalesce(
    panel: NodeDetailsPanel, session: Session, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        node_details_panel, "SLOW_DRAW_SECONDS", -1.0
    )  # every drawing counts as slow
    snapshot = load_lesson(session, 3)
    session.select_node(key_of(snapshot, "PowBackward0"))  # a selection draws at once
    before = text_of(panel)
    assert "PowBackward0" in before
    # A drag: each result comes while the next run is already on its way.
    mid_drag: list[Snapshot] = []
    session.changed.disconnect(panel.render)
    session.changed.connect(mid_drag.append)
    try:
        session.set_input("x", 0, 0.5)
        session.set_input("x", 0, 0.25)
    finally:
        session.changed.disconnect(mid_drag.append)
        session.changed.connect(panel.render)
    for tick in mid_drag:
        panel.render(replace(tick, running=True))
    assert text_of(panel) == before  # the new numbers wait for the timer...
    y, _ = chain_rule_in_torch([[0.25]])
    qtbot.waitUntil(lambda: f"leaving → y {shown(y.grad)}" in text_of(panel))  # type: ignore[arg-type]
    session.select_node(key_of(snapshot, "MulBackward0"))  # ...but a selection never waits
    assert "MulBackward0" in text_of(panel)
    # The drag's last result, with no run after it, is drawn at once.
    session.select_node(key_of(snapshot, "PowBackward0"))
    session.set_input("x", 0, 0.75)
    y, _ = chain_rule_in_torch([[0.75]])
    assert f"leaving → y {shown(y.grad)}" in text_of(panel)  # type: ignore[arg-type]


def test_old_tutorial_lesson_explains_that_the_call_failed(
    panel: NodeDetailsPanel, session: Session
) -> None:
    snapshot = load_lesson(session, 7)
    assert snapshot.error is not None and "Mismatch in shape" in snapshot.error.message
    session.select_node(key_of(snapshot, "PowBackward0"))
    text = text_of(panel)
    assert "∂(y³)/∂y = 3·y²" in text  # the rule is still there to read
    assert FAILED_STEP_TEXT in text


def test_the_details_link_shows_torchs_names_and_hides_them_again(
    qtbot: QtBot, panel: NodeDetailsPanel, session: Session
) -> None:
    snapshot = load_lesson(session, 6)
    session.select_node(key_of(snapshot, "MeanBackward0"))
    text = text_of(panel)
    assert "self_sym_numel" not in text and "Show details" in text
    assert text.index("Local rule") < text.index("value")
    panel.browser.anchorClicked.emit(QUrl(DETAILS_LINK))
    assert "self_sym_numel" in text_of(panel) and "Hide details" in text_of(panel)
    # Kept open from one node to the next: the reader asked for details.
    session.select_node(key_of(snapshot, "PowBackward0"))
    assert "exponent" in text_of(panel) and "Hide details" in text_of(panel)
    panel.browser.anchorClicked.emit(QUrl(DETAILS_LINK))
    assert "Show details" in text_of(panel)
