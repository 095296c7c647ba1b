"""The window in front of a class: every shipped lesson at 1280x720 and 1024x768, normal and
presentation mode (F11), readable, with nothing cut off and the controls it talks about on
screen; the graph-only view; and the small things a class notices (start-up, a slider that
jumps, panels that scroll themselves, a lesson that asks to be saved).

Everything is asserted on data: font sizes times view scales, widget geometry, visibility.
``benchmarks/screenshots.py`` takes the pictures to look at.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QLayout,
    QScrollArea,
    QSplitter,
    QStyle,
    QWidget,
    QWidgetItem,
)
from pytestqt.qtbot import QtBot

from gui.model.drawing.layout import FONT_SIZE
from gui.model.request import Program
from gui.model.session import Document, save_session
from gui.model.views.lesson_controls import lesson_text, named_controls
from gui.resources import lesson_paths
from gui.widgets.edge_label_item import EDGE_FONT_SIZE
from gui.widgets.graph_view import READABLE_TEXT_PX
from gui.widgets.main_window import GRAPH_LEAST_SHARE, PRESENTATION_SCALE, MainWindow
from tests.e2e.conftest import Explorer, open_lesson, press, settle, status_bar_texts
from tests.fixtures import drag_slider, handle_center

pytestmark = pytest.mark.slow

LESSONS = [p.stem for p in lesson_paths()]
SIZES = ((1280, 720), (1024, 768))
MakeExplorer = Callable[..., Explorer]


# -- measuring ------------------------------------------------------------------------------


def graph_text_pixels(window: MainWindow) -> float:
    """The graph's smallest text on screen in pixels: the box and edge-label fonts (scene
    units) times the view's scale."""
    items = window.graph.items
    assert items is not None, "the lesson draws a graph"
    sizes = [FONT_SIZE * items.text_scale]
    if any(not e.link for e in items.edges.values()):
        sizes.append(EDGE_FONT_SIZE)
    return min(sizes) * window.graph.view().transform().m11()


def _inside_scroll_content(widget: QWidget) -> bool:
    """Whether ``widget`` lies in a scroll area's content (where vertical scrolling is fine)."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def _in_layout(layout: QLayout | None, widget: QWidget) -> bool:
    if layout is None:
        return False
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item is None:
            continue
        if item.widget() is widget or _in_layout(item.layout(), widget):
            return True
    return False


def laid_out(widget: QWidget) -> bool:
    """Whether a layout or a splitter places ``widget`` (not a widget's own insides, such as
    a spin box's line edit, which its style places)."""
    parent = widget.parentWidget()
    return parent is not None and (
        isinstance(parent, QSplitter) or _in_layout(parent.layout(), widget)
    )


def clipped(window: MainWindow) -> list[str]:
    """Every shown widget that is cut off: smaller than the least size its layout would give
    it (its text or rows cannot all show), or sticking out of its parent; and every
    sideways-fixed scroll area whose content is wider than its view."""
    problems = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow() or not laid_out(widget):
            continue
        name = f"{type(widget).__name__} {widget.objectName()!r} {getattr(widget, 'text', str)()!r}"
        least = QWidgetItem(widget).minimumSize()
        if widget.width() < least.width() or widget.height() < least.height():
            problems.append(f"{name}: {widget.size().toTuple()} < least {least.toTuple()}")
        parent = widget.parentWidget()
        if (
            parent is None
            or _inside_scroll_content(widget)
            or isinstance(parent, QAbstractScrollArea)
        ):
            continue
        if not parent.rect().contains(widget.geometry()):
            problems.append(f"{name}: {widget.geometry()} outside its parent's {parent.rect()}")
    for area in window.findChildren(QScrollArea):
        content = area.widget()
        if not area.isVisible() or content is None:
            continue
        off = area.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        if off and content.width() > area.viewport().width():
            problems.append(f"{type(area.parentWidget()).__name__}: content cut off at the right")
    return problems


def assert_nothing_cut_off(qtbot: QtBot, window: MainWindow) -> None:
    """Once the window has settled (a new font relayouts over a few event loop turns),
    nothing is cut off."""
    try:
        qtbot.waitUntil(lambda: clipped(window) == [], timeout=3000)
    except Exception:
        assert clipped(window) == []  # says what is cut off
        raise


def on_screen(widget: QWidget, window: MainWindow) -> bool:
    """Whether all of ``widget`` shows: visible, inside the window, and inside the view of
    every scroll area it sits in (not scrolled away)."""
    if not widget.isVisible():
        return False
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    if not window.rect().contains(rect):
        return False
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if isinstance(parent, QAbstractScrollArea):
            port = parent.viewport()
            seen = QRect(port.mapTo(window, QPoint(0, 0)), port.size())
            if not seen.contains(rect):
                return False
        parent = parent.parentWidget()
    return True


def named_widgets(window: MainWindow, explorer: Explorer) -> list[tuple[str, QWidget]]:
    """The controls the open lesson's words name, as the widgets that show them (each
    looked up here, so a control the window cannot find fails the test)."""
    backward = window.backward
    found = []
    for control in named_controls(lesson_text(explorer.snapshot)):
        if control.kind == "sliders":
            group = window.inputs.groups[control.name or ""]
            assert group.editor is not None
            widgets: list[QWidget] = [row.slider for row in group.editor.sliders]
        elif control.kind == "gradient":
            assert backward.editor is not None, "the gradient's sliders exist"
            widgets = [row.slider for row in backward.editor.sliders]
        elif control.kind == "retain_grad":
            widgets = [backward.retain[control.name or ""]]
        else:
            widgets = [
                {
                    "retain_graph": backward.retain_graph,
                    "zero_first": backward.zero_first,
                    "backward_button": backward.backward,
                }[control.kind]
            ]
        found += [(f"{control.kind} {control.name or ''}", w) for w in widgets]
    return found


def open_at(
    qtbot: QtBot, make_explorer: MakeExplorer, stem: str, size: tuple[int, int], big: bool
) -> Explorer:
    explorer = make_explorer(size=size)
    if big:
        explorer.window.commands["presentation"].trigger()
    open_lesson(qtbot, explorer, stem)
    qtbot.wait(50)  # the window arranges itself for the lesson once its result is drawn
    return explorer


# -- every lesson, both sizes, both modes ----------------------------------------------------


@pytest.mark.parametrize("stem", LESSONS)
def test_graph_labels_are_at_least_12_pixels_at_1280_by_720(
    qtbot: QtBot, make_explorer: MakeExplorer, stem: str
) -> None:
    explorer = open_at(qtbot, make_explorer, stem, (1280, 720), big=False)
    assert graph_text_pixels(explorer.window) >= READABLE_TEXT_PX - 1e-6
    assert graph_text_pixels(explorer.window) == pytest.approx(
        explorer.window.graph.smallest_text_pixels()
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("stem", LESSONS)
def test_every_control_a_lesson_names_is_on_screen_and_nothing_is_cut_off(
    qtbot: QtBot, make_explorer: MakeExplorer, stem: str, size: tuple[int, int]
) -> None:
    explorer = open_at(qtbot, make_explorer, stem, size, big=False)
    window = explorer.window
    named = named_widgets(window, explorer)
    # The window arranges itself once the lesson's result is drawn (on a loaded machine,
    # later than open_at's short wait): give it the time, then say what is off screen.
    with contextlib.suppress(Exception):
        qtbot.waitUntil(lambda: all(on_screen(w, window) for _, w in named), timeout=3000)
    for name, widget in named:
        assert on_screen(widget, window), f"{stem} names {name}: it is not on screen"
    assert_nothing_cut_off(qtbot, window)
    assert graph_text_pixels(window) >= READABLE_TEXT_PX - 1e-6


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("stem", LESSONS)
def test_presentation_mode_enlarges_everything_and_cuts_nothing_off(
    qtbot: QtBot, make_explorer: MakeExplorer, stem: str, size: tuple[int, int]
) -> None:
    normal = open_at(qtbot, make_explorer, stem, size, big=False)
    window = normal.window
    before = {
        "graph": graph_text_pixels(window),
        "handle": _handle(window),
        "box": _box(window).fontInfo().pixelSize(),
        "ticks": _tick_font(window),
    }
    window.commands["presentation"].trigger()
    qtbot.waitUntil(lambda: _tick_font(window) > before["ticks"])
    qtbot.wait(50)
    assert graph_text_pixels(window) >= PRESENTATION_SCALE * READABLE_TEXT_PX - 1e-6
    assert graph_text_pixels(window) > before["graph"]
    assert _handle(window) > before["handle"]
    assert _box(window).fontInfo().pixelSize() > before["box"]
    assert _tick_font(window) >= before["ticks"] * 1.3
    assert_nothing_cut_off(qtbot, window)


@pytest.mark.parametrize("big", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_window_fits_the_screen_and_the_graph_gets_its_share(
    qtbot: QtBot, make_explorer: MakeExplorer, size: tuple[int, int], big: bool
) -> None:
    # The widest lesson controls (lesson 5: a 2x2 gradient) in the narrowest window.
    explorer = open_at(qtbot, make_explorer, "05-gradients-accumulate", size, big)
    window = explorer.window
    qtbot.wait(50)
    assert window.size().toTuple() == size, "no minimum wider or taller than the screen"
    assert window.minimumSizeHint().width() <= size[0]
    assert window.graph.width() >= GRAPH_LEAST_SHARE * size[0] - 10
    # Too narrow for three columns: the plots and node details are tabs beside the controls.
    assert window.compact() == (size[0] < 1280 or big)
    tabs = [window.controls.tabText(i) for i in range(window.controls.count())]
    assert ("Views" in tabs) == window.compact()
    assert_nothing_cut_off(qtbot, window)


# A model whose parameters have long qualified names (model.layers.0.self_attn.in_proj_bias):
# the sliders' labels, the leaf titles, their .grad lines and the plots' leaf chooser once
# made a 1280x720 window 1,620 pixels wide.
TRANSFORMER = """import torch
import torch.nn as nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
x = torch.randn(2, 5, 16)
loss = model(x).pow(2).mean()
"""


@pytest.mark.parametrize("big", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_models_long_names_never_make_the_window_wider_than_the_screen(
    qtbot: QtBot, make_explorer: MakeExplorer, size: tuple[int, int], big: bool
) -> None:
    explorer = make_explorer(size=size)
    window = explorer.window
    if big:
        window.commands["presentation"].trigger()
    explorer.session.set_code(TRANSFORMER)
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.error is None and "model.layers.1.linear2.bias" in snapshot.leaves
    qtbot.wait(50)
    assert window.size().toTuple() == size
    assert window.minimumSizeHint().width() <= size[0]
    assert_nothing_cut_off(qtbot, window)


def test_compact_node_details_come_up_when_a_node_is_clicked(
    qtbot: QtBot, make_explorer: MakeExplorer
) -> None:
    explorer = open_at(qtbot, make_explorer, "03-chain-rule-leaves-only", (1024, 768), False)
    window = explorer.window
    assert window.compact()
    before = window.controls.currentWidget()
    explorer.session.select_node(next(iter(explorer.snapshot.result.graph.nodes)).key)  # type: ignore[union-attr]
    assert window.controls.currentWidget() is window.details
    window.details.close_button.click()
    assert window.controls.currentWidget() is before
    window.resize(1280, 720)  # wide enough again: the right column comes back
    qtbot.waitUntil(lambda: not window.compact())
    assert window.plots.isVisible() and window.details.isVisible()
    assert window.controls.count() == 2


BROKEN = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x**2\ny.backward()\n"


@pytest.mark.parametrize("big", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_broken_code_shows_its_line_the_explanation_and_the_fix_without_scrolling(
    qtbot: QtBot, make_explorer: MakeExplorer, size: tuple[int, int], big: bool
) -> None:
    explorer = open_at(qtbot, make_explorer, "05-gradients-accumulate", size, big)
    window = explorer.window
    explorer.session.set_code(BROKEN)
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.error is not None and snapshot.error.fix
    browser = window.editor._tabs._explanation
    editor = window.editor.editor()

    def fix_in_view() -> bool:
        document = browser.document()
        found = document.find("Fix:")
        if found.isNull():
            return False
        bottom = browser.cursorRect(found).bottom()
        # The whole explanation down to the end of the fix's paragraph.
        end = document.find(snapshot.error.fix.split()[-1], found)  # type: ignore[union-attr]
        bottom = max(bottom, browser.cursorRect(end).bottom())
        return browser.verticalScrollBar().value() == 0 and bottom <= browser.viewport().height()

    qtbot.waitUntil(fix_in_view, timeout=3000)
    line = editor.document().findBlockByNumber(2)  # y.backward(), the line that failed
    rect = editor.blockBoundingGeometry(line).translated(editor.contentOffset())
    assert editor.viewport().rect().contains(rect.toRect()), "the failing line shows"


def _box(window: MainWindow) -> QWidget:
    group = next(iter(window.inputs.groups.values()))
    assert group.editor is not None
    return group.editor.sliders[0].box


def _handle(window: MainWindow) -> int:
    group = next(iter(window.inputs.groups.values()))
    assert group.editor is not None
    slider = group.editor.sliders[0].slider
    return slider.style().pixelMetric(QStyle.PixelMetric.PM_SliderLength, None, slider)


def _tick_font(window: MainWindow) -> float:
    leaf = window.plots.shown_leaves()[0]
    return float(window.plots.bars(leaf).tick_font().pointSizeF())


# -- the graph-only view ---------------------------------------------------------------------


def test_one_key_shows_only_the_graph_and_back(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    open_lesson(qtbot, explorer, "00-welcome")
    sizes = window._splitters["columns"].sizes()
    small = graph_text_pixels(window)
    press(qtbot, window, Qt.Key.Key_F9)
    assert window.graph_only()
    assert not window.editor.isVisible() and not window.plots.isVisible()
    graph = window.graph.view()
    qtbot.waitUntil(lambda: graph.width() > 0.9 * window.width())
    assert graph_text_pixels(window) >= small, "the graph refits, never smaller"
    press(qtbot, window, Qt.Key.Key_F9)
    assert not window.graph_only() and window.editor.isVisible() and window.plots.isVisible()
    assert window._splitters["columns"].sizes() == sizes
    press(qtbot, window, Qt.Key.Key_F9)
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.graph_only() and window.inputs.isVisible()


# -- small things a class notices -------------------------------------------------------------


def test_a_lesson_opens_on_the_tab_of_the_controls_it_names(
    qtbot: QtBot, explorer: Explorer
) -> None:
    window = explorer.window
    open_lesson(qtbot, explorer, "02-backward-of-a-vector")  # "drag the gradient sliders"
    qtbot.waitUntil(lambda: window.controls.currentWidget() is window.backward)
    open_lesson(qtbot, explorer, "00-welcome")  # "drag a slider for x or w"
    qtbot.waitUntil(lambda: window.controls.currentWidget() is window.inputs)


def test_the_first_gradient_drag_does_not_jump(qtbot: QtBot, explorer: Explorer) -> None:
    # Lesson 3's output is a scalar: one "v (implicit 1)" slider, which the first
    # drag turns into an explicit v; its label changes then, and must not move the slider.
    window = explorer.window
    open_lesson(qtbot, explorer, "03-chain-rule-leaves-only")
    window.controls.setCurrentWidget(window.backward)
    editor = window.backward.editor
    assert editor is not None
    qtbot.wait(20)
    slider = editor.sliders[0].slider
    geometry, start = slider.geometry(), handle_center(slider)
    drag_slider(qtbot, slider, 6, 12)
    settle(qtbot, explorer.session)
    assert explorer.snapshot.current_step.gradient is not None, "v is explicit now"
    editor = window.backward.editor
    assert editor is not None and editor.sliders[0].slider is slider
    assert slider.geometry() == geometry
    # The handle went where the mouse let go (a step's rounding aside).
    assert abs(handle_center(slider).x() - (start.x() + 12)) <= 2


def test_reset_and_clear_leave_the_panels_where_they_were(
    qtbot: QtBot, make_explorer: MakeExplorer
) -> None:
    explorer = make_explorer(size=(1280, 720))
    window = explorer.window
    window.set_presentation(True)  # big: the backward tab scrolls
    open_lesson(qtbot, explorer, "05-gradients-accumulate")
    window.controls.setCurrentWidget(window.backward)
    window.backward.backward.click()
    settle(qtbot, explorer.session)
    # Opening a lesson arranges the window in three deferred steps, the last scrolling this
    # tab to the controls the lesson names: let them finish before scrolling by hand.
    qtbot.wait(50)
    clear = window.backward.clear
    assert clear.isEnabled()
    area = window.backward.findChild(QScrollArea)
    assert area is not None and area.widget() is not None
    bar = area.verticalScrollBar()
    top = clear.mapTo(area.widget(), QPoint(0, 0)).y()
    bar.setValue(top + clear.height() - area.viewport().height() + 2)
    before = bar.value()
    assert before > 0
    qtbot.mouseClick(clear, Qt.MouseButton.LeftButton)
    settle(qtbot, explorer.session)
    qtbot.wait(20)
    assert not clear.isEnabled(), "the steps were cleared"
    assert bar.value() == min(before, bar.maximum())


def test_switching_lessons_after_a_slider_demo_asks_nothing(
    qtbot: QtBot, explorer: Explorer
) -> None:
    window = explorer.window
    open_lesson(qtbot, explorer, "06-mean-reduces-to-a-scalar")
    group = window.inputs.groups["x"]
    assert group.editor is not None
    drag_slider(qtbot, group.editor.sliders[0].slider, 10, 20)
    settle(qtbot, explorer.session)
    assert explorer.snapshot.modified
    open_lesson(qtbot, explorer, "01-why-sum")
    assert explorer.questions == [], "only dragged: nothing to save"
    explorer.session.set_code(explorer.snapshot.code + "# mine\n")
    settle(qtbot, explorer.session)
    window.commands["lesson:00-welcome"].trigger()
    assert len(explorer.questions) == 1, "code of one's own is kept: the window asks"


def test_a_users_own_file_asks_after_a_slider_is_dragged(
    qtbot: QtBot, explorer: Explorer, tmp_path: Path
) -> None:
    path = tmp_path / "mine.json"
    code = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x**2).sum()\n"
    save_session(Document(Program(code=code)), path)
    assert explorer.window.open_path(path)
    settle(qtbot, explorer.session)
    group = explorer.window.inputs.groups["x"]
    assert group.editor is not None
    drag_slider(qtbot, group.editor.sliders[0].slider, 10, 20)
    settle(qtbot, explorer.session)
    assert explorer.window.isWindowModified()
    explorer.window.commands["lesson:00-welcome"].trigger()
    assert len(explorer.questions) == 1, "their values are their work"


def test_the_status_bar_links_to_the_whole_explanation(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    open_lesson(qtbot, explorer, "07-old-tutorial-code")
    assert any("Mismatch in shape" in t for t in status_bar_texts(window))
    link = window._explain_link
    assert link.isVisible()
    window.set_graph_only(True)
    window.editor._tabs.setCurrentIndex(1)
    link.linkActivated.emit("explain")
    assert not window.graph_only()
    assert window.editor._tabs.currentIndex() == 0
    open_lesson(qtbot, explorer, "01-why-sum")
    assert not link.isVisible()


def test_start_up_says_the_engine_is_starting(qtbot: QtBot, make_explorer: MakeExplorer) -> None:
    explorer = make_explorer()
    window = explorer.window
    window.commands["lesson:00-welcome"].trigger()
    # The first result has not come back: nothing may claim "No errors" yet.
    assert explorer.snapshot.running and explorer.snapshot.result is None
    assert "Starting the engine…" in status_bar_texts(window)
    settle(qtbot, explorer.session)
    assert "Starting the engine…" not in status_bar_texts(window)


def test_the_guide_says_where_the_backward_tab_is(explorer: Explorer) -> None:
    from gui.widgets.main_window import GUIDE

    assert "Backward</b> (right)" not in GUIDE
    assert "beside Inputs, on the left" in GUIDE
