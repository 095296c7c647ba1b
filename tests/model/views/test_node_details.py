"""The node details pane's HTML: the selected node, the lesson's notes when there is none."""

from __future__ import annotations

import torch

from gui.model.session import Session
from gui.model.views.node_details import (
    EMPTY_TEXT,
    details_html,
    empty_page,
    selected_node,
    step_note,
)
from tests.fixtures import X5, cube_grad, leaf_key, load_lesson, shown


def test_without_a_selection_the_lessons_notes_show(session: Session) -> None:
    snapshot = load_lesson(session, 3)
    assert selected_node(snapshot) is None
    page = empty_page(snapshot)
    assert EMPTY_TEXT in page
    assert snapshot.title is not None and snapshot.title in page


def test_a_leaf_shows_its_grad_and_the_call_the_numbers_come_from(session: Session) -> None:
    snapshot = load_lesson(session, 5)
    session.select_node(leaf_key(snapshot, "x"))
    snapshot = session.snapshot
    node = selected_node(snapshot)
    assert node is not None and node.kind == "leaf"
    page = details_html(node, snapshot, "Mono")
    grad = cube_grad(X5, [[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]])
    assert "x.grad now" in page and shown(grad) in page
    assert step_note(snapshot) == "Numbers from backward call 2 of 2."


def test_a_function_shows_its_local_rule(session: Session) -> None:
    snapshot = load_lesson(session, 3)
    node = next(n for n in snapshot.graph.nodes if n.name == "PowBackward0")  # type: ignore[union-attr]
    page = details_html(node, snapshot, "Mono")
    assert "Local rule" in page and "With this call's numbers" in page
    y = 2 * torch.tensor([[-1.2095]])
    assert shown(y) in page
