"""The controls a lesson's words name, and the tab a lesson opens on."""

from __future__ import annotations

import pytest

from gui.model.session import Session, load_session
from gui.model.views.lesson_controls import (
    Control,
    controls_tab,
    lesson_text,
    named_controls,
)
from gui.resources import lesson_paths
from tests.fixtures import load_lesson


def test_sliders_for_named_leaves() -> None:
    assert named_controls("Drag the sliders for x and w, then the slider for b.") == (
        Control("inputs", "sliders", "x"),
        Control("inputs", "sliders", "w"),
        Control("inputs", "sliders", "b"),
    )
    assert controls_tab(named_controls("Drag a slider for x or w.")) == "inputs"


def test_backward_controls_by_their_words() -> None:
    text = (
        "Drag the gradient sliders. retain_graph=True keeps it. Zero x.grad between the "
        "calls. Ask for y.retain_grad(). Press Backward again."
    )
    assert named_controls(text) == (
        Control("backward", "gradient"),
        Control("backward", "retain_graph"),
        Control("backward", "zero_first"),
        Control("backward", "retain_grad", "y"),
        Control("backward", "backward_button"),
    )
    assert controls_tab(named_controls(text)) == "backward"


def test_words_that_name_no_control() -> None:
    text = (
        "Try (x**2).sum() instead: one SumBackward0, the same numbers. It is backward(1). "
        "The slider for the learning rate comes later."
    )
    assert named_controls(text) == ()
    assert controls_tab(()) == "inputs"


def test_each_control_is_named_once_in_the_order_first_named() -> None:
    text = "With v = [[1.]] ... then v = [[0.1]]; drag the slider for x, and the sliders for x."
    assert named_controls(text) == (
        Control("backward", "gradient"),
        Control("inputs", "sliders", "x"),
    )


@pytest.mark.parametrize("path", lesson_paths(), ids=lambda p: p.stem)
def test_every_shipped_lesson_names_controls_on_one_tab_only(path: object) -> None:
    document = load_session(path)  # type: ignore[arg-type]
    text = "\n".join(t for t in (document.title, document.notes) if t)
    tabs = {c.tab for c in named_controls(text)}
    assert len(tabs) <= 1, f"{path}: a lesson shows one tab of controls at a time: {tabs}"


def test_the_lesson_about_the_gradient_argument_opens_on_the_backward_tab(
    session: Session,
) -> None:
    assert controls_tab(named_controls(lesson_text(load_lesson(session, 2)))) == "backward"
    assert controls_tab(named_controls(lesson_text(load_lesson(session, 4)))) == "backward"
    assert controls_tab(named_controls(lesson_text(load_lesson(session, 0)))) == "inputs"
