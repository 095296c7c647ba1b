"""The node details pane's HTML: the selected node, the lesson's notes when there is none."""

from __future__ import annotations

import torch

from gui.model.session import Session
from gui.model.views.node_details import (
    DETAILS_LINK,
    EMPTY_TEXT,
    HIDE_DETAILS,
    SHOW_DETAILS,
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


def test_the_rule_with_the_numbers_comes_before_the_values(session: Session) -> None:
    snapshot = load_lesson(session, 3)
    node = next(n for n in snapshot.graph.nodes if n.name == "PowBackward0")  # type: ignore[union-attr]
    page = details_html(node, snapshot, "Mono")
    assert page.index("Local rule") < page.index("With this call's numbers") < page.index(">value<")


def test_torchs_internal_names_wait_behind_the_details_link(session: Session) -> None:
    snapshot = load_lesson(session, 6)
    node = next(n for n in snapshot.graph.nodes if n.name == "MeanBackward0")  # type: ignore[union-attr]
    page = details_html(node, snapshot, "Mono")
    assert "self_sym_numel" not in page and "self_sym_sizes" not in page
    assert f'href="{DETAILS_LINK}"' in page and SHOW_DETAILS in page
    opened = details_html(node, snapshot, "Mono", details=True)
    assert "self_sym_numel" in opened and HIDE_DETAILS in opened
    assert opened.index("With this call's numbers") < opened.index("self_sym_numel")


def test_torchs_raw_warning_waits_behind_the_details_link(session: Session) -> None:
    snapshot = load_lesson(session, 3)
    node = next(n for n in snapshot.graph.nodes if n.var == "y")  # type: ignore[union-attr]
    info = snapshot.result.tensors["y"]  # type: ignore[union-attr]
    assert info.grad_warning is not None, "reading y.grad warns in torch"
    page = details_html(node, snapshot, "Mono")
    assert "y.grad" in page and "torch warns" not in page
    assert "torch warns" in details_html(node, snapshot, "Mono", details=True)
