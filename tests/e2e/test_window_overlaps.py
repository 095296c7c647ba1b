"""Nothing in the window is painted over anything else: every shipped lesson at 1280x720
and 1024x768, normal and presentation mode (F11), plus the windows that once went wrong
(a model's module groups on a narrow graph column, numbers as big as a float gets).

:mod:`tests.e2e.test_window_projector` finds widgets that are cut off (smaller than their
least size, or sticking out of their parent); a slider painted over its label is neither,
and no test saw it. :func:`overlaps` compares every shown widget with its shown siblings:
two rectangles that share more than :data:`TOLERANCE_PX` pixels each way are a finding,
unless the two are meant to stack (:func:`stacks_by_design`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from itertools import combinations

import pytest
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QStackedWidget,
    QTabWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from gui.resources import lesson_paths
from gui.widgets.main_window import MainWindow
from tests.e2e.conftest import Explorer, open_lesson, settle
from tests.e2e.test_window_projector import assert_nothing_cut_off
from tests.fixtures import MLP_CODE

pytestmark = pytest.mark.slow

LESSONS = [p.stem for p in lesson_paths()]
SIZES = ((1280, 720), (1024, 768))
MakeExplorer = Callable[..., Explorer]

# Frames and the tab bar's base line touch or share a pixel or two with their neighbours.
TOLERANCE_PX = 2

# Widgets that float over others on purpose, by objectName, each with why:
FLOATING = {
    # The overview sits in the graph view's corner, over the graph it summarises.
    "minimap",
    # The progress page covers the graph while a big one is laid out.
    "layoutProgress",
}


def _shown_children(widget: QWidget) -> list[QWidget]:
    return [
        child
        for child in widget.children()
        if isinstance(child, QWidget)
        # Both: a tool bar hides its "»" button in a way that leaves isVisible() true.
        and child.isVisible()
        and not child.isHidden()
        and not child.isWindow()
        and not child.geometry().isEmpty()
    ]


def stacks_by_design(parent: QWidget, first: QWidget, second: QWidget) -> bool:
    """Whether ``first`` and ``second`` may cover each other: pages of a stack (only one
    shows), a scroll area's viewport under its own overlays (the minimap), and widgets
    that float on purpose (:data:`FLOATING`)."""
    if isinstance(parent, QStackedWidget):
        return True
    names = {first.objectName(), second.objectName()}
    if names & FLOATING:
        return True
    if isinstance(parent, QAbstractScrollArea):
        # An overlay the area's owner placed over its viewport (the graph's minimap); the
        # area's own scroll bars never cover the viewport.
        pair = {first, second}
        return parent.viewport() in pair and not any(
            w.objectName().startswith("qt_scrollarea_") for w in pair
        )
    return False


def _describe(widget: QWidget) -> str:
    text = getattr(widget, "text", None)
    shown = ""
    if callable(text):
        try:
            shown = f" {text()!r}"
        except TypeError:
            shown = ""
    return f"{type(widget).__name__} {widget.objectName()!r}{shown}"


def _walk(widget: QWidget) -> Iterator[QWidget]:
    yield widget
    for child in _shown_children(widget):
        yield from _walk(child)


def overlaps(window: QWidget) -> list[str]:
    """Every pair of shown sibling widgets in ``window`` whose rectangles share more than
    :data:`TOLERANCE_PX` pixels in both directions, except those meant to stack."""
    found = []
    for parent in _walk(window):
        for first, second in combinations(_shown_children(parent), 2):
            shared = first.geometry().intersected(second.geometry())
            if shared.width() <= TOLERANCE_PX or shared.height() <= TOLERANCE_PX:
                continue
            if stacks_by_design(parent, first, second):
                continue
            found.append(
                f"in {_describe(parent)}: {_describe(first)} {first.geometry().getRect()} "
                f"overlaps {_describe(second)} {second.geometry().getRect()}"
            )
    return found


def assert_nothing_overlaps(qtbot: QtBot, window: MainWindow) -> None:
    """Once the window has settled (a new font relayouts over a few event loop turns),
    no two widgets cover each other."""
    try:
        qtbot.waitUntil(lambda: overlaps(window) == [], timeout=3000)
    except Exception:
        assert overlaps(window) == []  # says what overlaps what
        raise


def open_at(
    qtbot: QtBot, make_explorer: MakeExplorer, stem: str, size: tuple[int, int], big: bool
) -> Explorer:
    explorer = make_explorer(size=size)
    if big:
        explorer.window.commands["presentation"].trigger()
    open_lesson(qtbot, explorer, stem)
    qtbot.wait(50)  # the window arranges itself for the lesson once its result is drawn
    return explorer


def every_page(qtbot: QtBot, window: MainWindow) -> Iterator[str]:
    """Raise each page of the window's tab widgets in turn (the controls, the teaching
    views, the editor's explanation and output), yielding its name once it is shown."""
    for tabs in window.findChildren(QTabWidget):
        if not tabs.isVisible():
            continue
        first = tabs.currentIndex()
        for index in range(tabs.count()):
            tabs.setCurrentIndex(index)
            yield f"{tabs.objectName() or type(tabs.parentWidget()).__name__}: {tabs.tabText(index)}"
        tabs.setCurrentIndex(first)


def assert_no_page_overlaps(qtbot: QtBot, window: MainWindow) -> None:
    found = []
    for page in every_page(qtbot, window):
        with contextlib.suppress(Exception):  # a raised page lays itself out first
            qtbot.waitUntil(lambda: overlaps(window) == [], timeout=1000)
        found += [f"{page}: {problem}" for problem in overlaps(window)]
    assert found == []


# -- the check itself ---------------------------------------------------------------------


def test_the_check_sees_a_slider_painted_over_its_label(
    qtbot: QtBot, make_explorer: MakeExplorer
) -> None:
    explorer = open_at(qtbot, make_explorer, "06-mean-reduces-to-a-scalar", (1280, 720), False)
    window = explorer.window
    window.controls.setCurrentWidget(window.inputs)
    editor = window.inputs.groups["x"].editor
    assert editor is not None
    row = editor.sliders[0]
    qtbot.waitUntil(lambda: row.isVisible() and overlaps(window) == [])
    row.slider.move(row.label.pos())  # what the last stop's bug did
    found = overlaps(window)
    assert len(found) == 1 and "ElidedLabel" in found[0] and "_Slider" in found[0]


def test_pages_of_a_stack_and_the_minimap_may_cover_others(qtbot: QtBot) -> None:
    stack = QStackedWidget()
    qtbot.addWidget(stack)
    for _ in range(2):
        stack.addWidget(QWidget())
    floating, under = QWidget(stack.widget(0)), QWidget(stack.widget(0))
    floating.setObjectName("minimap")
    for widget in (floating, under):
        widget.setGeometry(0, 0, 50, 50)
    stack.resize(200, 200)
    stack.show()
    qtbot.waitExposed(stack)
    for page in (stack.widget(0), stack.widget(1)):  # a hidden page is no finding anyway
        page.setVisible(True)
    assert overlaps(stack) == []
    floating.setObjectName("")
    assert len(overlaps(stack)) == 1


# -- every lesson, both sizes, both modes, every page -----------------------------------------


@pytest.mark.parametrize("big", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("stem", LESSONS)
def test_no_two_widgets_overlap_in_any_lesson(
    qtbot: QtBot, make_explorer: MakeExplorer, stem: str, size: tuple[int, int], big: bool
) -> None:
    explorer = open_at(qtbot, make_explorer, stem, size, big)
    assert_nothing_overlaps(qtbot, explorer.window)
    assert_no_page_overlaps(qtbot, explorer.window)


# -- the windows that once went wrong -------------------------------------------------------

# Numbers as big as a float64 gets, and one with all its digits, typed into the boxes of
# a usual range: every box widens for them.
BIG_NUMBERS = """import torch
x = torch.tensor([1.5, -2.5, 0.5], dtype=torch.float64, requires_grad=True)
y = (x * 0).sum()
"""
TYPED = (1.797e308, -1.797e308, -123456789.0)


CASES = [
    pytest.param(
        code,
        size,
        big,
        id=f"{name}-{size[0]}x{size[1]}-{'presentation' if big else 'normal'}",
    )
    for name, code in (("mlp", MLP_CODE), ("big-numbers", BIG_NUMBERS))
    for size in SIZES
    for big in (False, True)
]


@pytest.mark.parametrize(("code", "size", "big"), CASES)
def test_a_models_groups_and_huge_numbers_overlap_nothing_and_cut_nothing_off(
    qtbot: QtBot, make_explorer: MakeExplorer, code: str, size: tuple[int, int], big: bool
) -> None:
    explorer = make_explorer(size=size)
    window = explorer.window
    if big:
        window.commands["presentation"].trigger()
    explorer.session.set_code(code)
    snapshot = settle(qtbot, explorer.session)
    if code == BIG_NUMBERS:
        for index, value in enumerate(TYPED):
            explorer.session.set_input("x", index, value)
            snapshot = settle(qtbot, explorer.session)
        assert tuple(snapshot.values["x"]) == TYPED
    assert snapshot.error is None, snapshot.error
    window.controls.setCurrentWidget(window.inputs)
    qtbot.wait(50)
    assert window.size().toTuple() == size, "nothing made the window wider than the screen"
    assert_nothing_overlaps(qtbot, window)
    assert_nothing_cut_off(qtbot, window)
    assert_no_page_overlaps(qtbot, window)
    graph = window.graph
    if code == MLP_CODE:  # every graph tool on screen, none in a "»" menu
        tools = (graph.groups.button, graph.step_choice, graph.saved_toggle, graph.search)
        qtbot.waitUntil(lambda: all(tool.isVisible() for tool in tools), timeout=3000)
    else:  # every number whole in its box
        editor = window.inputs.groups["x"].editor
        assert editor is not None
        for row in editor.sliders:
            edit = row.box.lineEdit()
            assert edit is not None
            qtbot.waitUntil(
                lambda e=edit: e.fontMetrics().horizontalAdvance(e.text()) <= e.width() - 4
            )
