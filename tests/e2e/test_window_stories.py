"""The learners' stories (/work/shared/docs/learners.md) played on the whole window.

Each test drives the window as a user does (Lessons menu, mouse, keys, typing) and checks
that every panel shows the numbers plain PyTorch gives for the same code, run the ordinary
way in the test.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import pytest
import torch
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS
from gui.model.session import Snapshot
from gui.model.tensor_format import format_tensor
from gui.widgets.main_window import MainWindow
from tests.e2e.conftest import (
    Explorer,
    assert_grad_shown,
    data,
    open_lesson,
    press,
    settle,
    status_bar_texts,
)
from tests.fixtures import (
    V1,
    V2,
    X3,
    X5,
    click,
    cube_grad,
    curves,
    drag_slider,
    explanation_text,
    heights,
    leaf_key,
    shown,
    text_of,
    type_into,
    type_lines,
    underlines,
    viewport_point,
)

pytestmark = pytest.mark.slow

LEFT = Qt.MouseButton.LeftButton
CTRL = Qt.KeyboardModifier.ControlModifier
ERROR_RED = "#c62828"


# -- what the panels show -----------------------------------------------------------------


def function_key(snapshot: Snapshot, name: str) -> str:
    """The key of the (first) function node of class ``name``, e.g. ``SumBackward0``."""
    assert snapshot.graph is not None
    return next(n.key for n in snapshot.graph.nodes if n.kind == "function" and n.name == name)


def var_key(snapshot: Snapshot, var: str) -> str:
    """The key of the function node that made the user's variable ``var``."""
    assert snapshot.graph is not None
    return next(n.key for n in snapshot.graph.nodes if n.kind == "function" and n.var == var)


def node_names(snapshot: Snapshot) -> set[str]:
    assert snapshot.graph is not None
    return {n.name for n in snapshot.graph.nodes if n.kind == "function"}


def click_node(qtbot: QtBot, window: MainWindow, key: str) -> None:
    """Click the box of node ``key`` in the graph view, where the user sees it."""
    item = window.graph.node_item(key)
    assert item is not None
    viewport = window.graph.view().viewport()
    point = viewport_point(window.graph, item)
    assert viewport.rect().contains(point), "the box is on screen"
    qtbot.mouseClick(viewport, LEFT, pos=point)
    assert item.highlighted, "the click selected it"


def replace_code(qtbot: QtBot, window: MainWindow, text: str) -> None:
    """Click into the editor, select all, type ``text`` and run it with Ctrl+Return."""
    editor = window.editor.editor()
    qtbot.mouseClick(editor.viewport(), LEFT, pos=QPoint(40, 10))
    qtbot.keyClick(editor, Qt.Key.Key_A, CTRL)
    type_lines(qtbot, editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return, CTRL)


def click_tab(qtbot: QtBot, window: MainWindow, panel: QWidget) -> None:
    bar = window.controls.tabBar()
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(window.controls.indexOf(panel)).center())
    assert window.controls.currentWidget() is panel


# -- the stories ----------------------------------------------------------------------------


def test_1_why_sum_then_one_sum_node_same_numbers(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    snapshot = open_lesson(qtbot, explorer, "01-why-sum")
    x = torch.tensor([3.0, 4.0, 10.0]).requires_grad_()
    y = sum(x**2)
    assert isinstance(y, torch.Tensor)
    y.backward()
    assert x.grad is not None and x.grad.tolist() == [6.0, 8.0, 20.0]
    assert y.grad_fn is not None and type(y.grad_fn).__name__ == "AddBackward0"
    names = node_names(snapshot)
    assert {"UnbindBackward0", "AddBackward0", "PowBackward0"} <= names
    assert "SumBackward0" not in names
    assert_grad_shown(window, snapshot, "x", x.grad)
    assert window.windowTitle().startswith("Why sum?")
    click_node(qtbot, window, leaf_key(snapshot, "x"))
    assert f"x.grad now {shown(x.grad)}" in text_of(window.details)

    replace_code(qtbot, window, "x = tensor([3., 4., 10.]).requires_grad_()\ny = (x**2).sum()")
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.code == "x = tensor([3., 4., 10.]).requires_grad_()\ny = (x**2).sum()"
    assert snapshot.error is None
    x2 = torch.tensor([3.0, 4.0, 10.0]).requires_grad_()
    (x2**2).sum().backward()
    names = node_names(snapshot)
    assert "SumBackward0" in names
    assert not names & {"UnbindBackward0", "AddBackward0"}
    assert x2.grad is not None and torch.equal(x2.grad, x.grad)
    assert_grad_shown(window, snapshot, "x", x2.grad)


def test_2_backward_of_a_vector_and_the_ones_like_fix(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    snapshot = open_lesson(qtbot, explorer, "02-backward-of-a-vector")
    # The lesson passes gradient = ones: the same as y.sum().backward().
    x = torch.tensor([3.0, 4.0, 10.0], requires_grad=True)
    y = x**2
    y.backward(torch.ones_like(x))
    x_sum = torch.tensor([3.0, 4.0, 10.0], requires_grad=True)
    (x_sum**2).sum().backward()
    assert x.grad is not None and x_sum.grad is not None
    assert torch.equal(x.grad, x_sum.grad)
    assert_grad_shown(window, snapshot, "x", x.grad)
    assert window.backward.editor is not None
    assert [s.value() for s in window.backward.editor.sliders] == [1.0, 1.0, 1.0]
    # The notes talk about the gradient argument: the lesson opens where its sliders are
    # (once the window has arranged itself for the document, a turn of the event loop on).
    qtbot.waitUntil(lambda: window.controls.currentWidget() is window.backward)

    # A vector of another shape: the lesson's gradient no longer fits, so backward() is
    # called without one, and torch refuses.
    replace_code(qtbot, window, "x = torch.tensor([1., 2.], requires_grad=True)\ny = x**2")
    snapshot = settle(qtbot, explorer.session)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as raised:
        (x**2).backward()
    message = str(raised.value)
    assert message == "grad can be implicitly created only for scalar outputs"
    assert snapshot.error is not None and snapshot.error.message == message
    assert message in explanation_text(window.editor)
    assert window.controls.currentWidget() is window.backward, "the fixes are in sight"
    fix = window.backward.fixes["ones_like"]
    assert fix.isVisible()
    click(qtbot, fix)
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.error is None
    (x**2).sum().backward()
    assert x.grad is not None
    assert_grad_shown(window, snapshot, "x", x.grad)
    assert "grad can be implicitly created" not in explanation_text(window.editor)


def test_3_chain_rule_grad_lives_on_the_leaf(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    snapshot = open_lesson(qtbot, explorer, "03-chain-rule-leaves-only")
    x = torch.tensor(X3, requires_grad=True)
    y = 2 * x
    z = y**3
    z.backward()
    assert x.grad is not None
    assert torch.allclose(x.grad, 24 * x.detach() ** 2)
    assert shown(x.grad) == "[[35.11]]"
    assert_grad_shown(window, snapshot, "x", x.grad)
    z_item = window.graph.node_item(function_key(snapshot, "PowBackward0"))
    assert z_item is not None and f"value {format_tensor(data(z))}" in z_item.lines

    y_key = var_key(snapshot, "y")
    click_node(qtbot, window, y_key)
    assert explorer.snapshot.selected_node == y_key
    text = text_of(window.details)
    assert "backward of y = x * 2" in text
    assert f"value {shown(y)}" in text
    assert f"leaving → x {shown(x.grad)}" in text
    # The engine read y.grad and z.grad as torch does: None, with torch's warning.
    result = explorer.snapshot.result
    assert result is not None
    with pytest.warns(UserWarning, match="not a leaf Tensor") as caught:
        assert y.grad is None
    for name in ("y", "z"):
        info = result.tensors[name]
        assert info.grad is None
        assert info.grad_warning is not None and info.grad_warning.kind == "non-leaf-grad"
        assert info.grad_warning.message.startswith(str(caught[0].message)[:60])


def test_3_details_of_y_say_its_grad_is_none(qtbot: QtBot, explorer: Explorer) -> None:
    snapshot = open_lesson(qtbot, explorer, "03-chain-rule-leaves-only")
    click_node(qtbot, explorer.window, var_key(snapshot, "y"))
    text = text_of(explorer.window.details)
    assert "y.grad" in text and "None" in text
    assert "not a leaf" in text


def test_4_gradient_argument_scales_x_grad(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    open_lesson(qtbot, explorer, "04-gradient-argument-scales")
    click_tab(qtbot, window, window.backward)
    assert window.backward.editor is not None
    row = window.backward.editor.sliders[0]

    def x_grad_for(v: float) -> torch.Tensor:
        x = torch.tensor(X3, requires_grad=True)
        z = (2 * x) ** 3
        z.backward(torch.tensor([[v]]))
        assert x.grad is not None
        return x.grad

    type_into(qtbot, row.box, "1")
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.current_step.gradient == [[1.0]]
    full = x_grad_for(1.0)
    assert shown(full) == "[[35.11]]"
    assert_grad_shown(window, snapshot, "x", full)

    type_into(qtbot, row.box, "0.1")
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.current_step.gradient == [[0.1]]
    tenth = x_grad_for(0.1)
    assert shown(tenth) == "[[3.511]]"
    assert torch.allclose(tenth, full / 10)
    assert_grad_shown(window, snapshot, "x", tenth)
    assert heights(window.plots.bars("x"))[1] == pytest.approx([tenth.item()], rel=1e-5)

    # One arrow key on the slider: one step of the gradient's range.
    step = snapshot.range_for("@gradient").step
    row.slider.setFocus()
    qtbot.keyClick(row.slider, Qt.Key.Key_Right)
    snapshot = settle(qtbot, explorer.session)
    v = snapshot.current_step.gradient
    assert v is not None and v[0][0] == pytest.approx(0.1 + step)
    assert_grad_shown(window, snapshot, "x", x_grad_for(v[0][0]))


def test_5_gradients_accumulate_zero_then_backward(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    snapshot = open_lesson(qtbot, explorer, "05-gradients-accumulate")
    first = cube_grad(X5, V1).clone()
    both = cube_grad(X5, V1, V2)
    # learners.md quotes 5.405; 24 * 0.4746**2 = 5.4059, which torch rounds to 5.406.
    assert shown(both) == "[[43.40, 2.052], [5.406, 18.76]]"
    assert_grad_shown(window, snapshot, "x", both)
    lines = curves(window.plots.history("x"))
    assert [xs for xs, _ in lines] == [[1.0, 2.0]] * 4
    for k, (_, ys) in enumerate(lines):
        assert ys == pytest.approx([first.flatten()[k].item(), both.flatten()[k].item()])
    click_node(qtbot, window, leaf_key(snapshot, "x"))
    text = text_of(window.details)
    assert f"x.grad now {shown(both)}" in text
    assert f"added by this call {shown(both - first)}" in text

    window.commands["zero_grad"].trigger()  # Run > Zero Grad
    snapshot = settle(qtbot, explorer.session)
    zeros = torch.zeros(2, 2)
    assert_grad_shown(window, snapshot, "x", zeros)
    assert f"x.grad now {shown(zeros)}" in text_of(window.details)

    # Ctrl+B: backward once more with the last v ([[0, 1], [0, 1]]), onto the zeroed grad.
    press(qtbot, window, Qt.Key.Key_B, CTRL)
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.steps is not None and len(snapshot.steps) == 3
    alone = cube_grad(X5, V2)
    assert_grad_shown(window, snapshot, "x", alone)
    assert f"x.grad now {shown(alone)}" in text_of(window.details)
    assert "backward calls: 3" in status_bar_texts(window)
    lines = curves(window.plots.history("x"))
    # A point per call, and the zeroing between calls 2 and 3 drawn as a drop to 0.
    assert [xs for xs, _ in lines] == [[1.0, 2.0, 2.5, 3.0]] * 4
    assert [ys[2] for _, ys in lines] == [0.0] * 4
    assert [ys[-1] for _, ys in lines] == pytest.approx(alone.flatten().tolist())


def test_5_backward_after_zero_grad_accumulates_again(qtbot: QtBot, explorer: Explorer) -> None:
    # torch: x.grad.zero_(); z.backward(v2, retain_graph=True); z.backward(v2, ...) adds up.
    window = explorer.window
    open_lesson(qtbot, explorer, "05-gradients-accumulate")
    window.commands["zero_grad"].trigger()
    settle(qtbot, explorer.session)
    press(qtbot, window, Qt.Key.Key_B, CTRL)
    settle(qtbot, explorer.session)
    press(qtbot, window, Qt.Key.Key_B, CTRL)
    snapshot = settle(qtbot, explorer.session)
    assert "backward calls: 4" in status_bar_texts(window)
    assert_grad_shown(window, snapshot, "x", cube_grad(X5, V2, V2))
    assert not window.backward.zero_first.isChecked(), "the user never asked to zero first"


def test_6_mean_divides_by_n(qtbot: QtBot, explorer: Explorer) -> None:
    snapshot = open_lesson(qtbot, explorer, "06-mean-reduces-to-a-scalar")
    x = torch.tensor([-0.4230, -1.2352], requires_grad=True)
    out = ((2 * x) ** 3).mean()
    out.backward()
    assert x.grad is not None
    assert torch.allclose(x.grad, 24 * x.detach() ** 2 / 2)
    assert shown(x.grad) == "[2.147, 18.31]"
    assert_grad_shown(explorer.window, snapshot, "x", x.grad)
    click_node(qtbot, explorer.window, function_key(snapshot, "MeanBackward0"))
    assert "= [0.5000, 0.5000]" in text_of(explorer.window.details)


def test_7_old_tutorial_code_fails_at_its_line(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    snapshot = open_lesson(qtbot, explorer, "07-old-tutorial-code")
    # The lesson's code, run the ordinary way (Variable and FloatTensor as old posts wrote).
    from torch.autograd import Variable

    x = Variable(torch.tensor(X3), requires_grad=True)
    z = (2 * x) ** 3
    with pytest.raises(RuntimeError) as raised:
        z.backward(torch.FloatTensor([1]))
    message = str(raised.value)
    assert message.startswith("Mismatch in shape")
    error = snapshot.error
    assert error is not None and error.line == 7 and error.message == message
    line_7 = snapshot.code.splitlines()[6]
    assert line_7 == "z.backward(T.FloatTensor([1]))"
    assert (7, line_7, ERROR_RED) in underlines(window.editor)
    assert all(line == 7 for line, _, color in underlines(window.editor) if color == ERROR_RED)
    assert message in explanation_text(window.editor)
    assert any("line 7" in t and "Mismatch in shape" in t for t in status_bar_texts(window))


def test_runaway_code_keeps_the_window_responsive(
    qtbot: QtBot, make_explorer: Callable[..., Explorer]
) -> None:
    explorer = make_explorer(time_limit=DEFAULT_TIME_LIMIT_SECONDS)  # the app's own limit
    window = explorer.window
    ticks: list[float] = []
    timer = QTimer(window)
    timer.setInterval(50)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start()
    started = time.monotonic()
    replace_code(qtbot, window, "while True:\npass")
    assert window.editor.editor().toPlainText() == "while True:\n    pass"
    assert explorer.snapshot.running
    qtbot.waitUntil(lambda: explorer.snapshot.error is not None, timeout=30_000)
    elapsed = time.monotonic() - started
    timer.stop()
    error = explorer.snapshot.error
    assert error is not None and error.kind == "runaway-code"
    assert DEFAULT_TIME_LIMIT_SECONDS * 0.9 <= elapsed < DEFAULT_TIME_LIMIT_SECONDS + 10
    # The GUI thread kept serving events the whole time.
    in_run = [t for t in ticks if started <= t]
    assert len(in_run) >= 10
    gaps = [b - a for a, b in itertools.pairwise(in_run)]
    assert max(gaps) < 1.0, "a blocked GUI thread would miss the whole run (1.5 s)"
    explained = explanation_text(window.editor)
    assert error.message.startswith("The program was stopped") and error.message in explained
    assert "Fix: Check that every loop ends" in explained
    assert any(t.startswith("runaway-code:") for t in status_bar_texts(window))

    replace_code(
        qtbot, window, "x = torch.tensor([2., -3.], requires_grad=True)\ny = (x * x).sum()"
    )
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.error is None
    x = torch.tensor([2.0, -3.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad is not None
    assert_grad_shown(window, snapshot, "x", x.grad)


def test_dragging_an_input_slider_updates_every_panel(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    open_lesson(qtbot, explorer, "06-mean-reduces-to-a-scalar")
    group = window.inputs.groups["x"]
    assert group.editor is not None
    drag_slider(qtbot, group.editor.sliders[1].slider, 8, 16, 24)
    snapshot = settle(qtbot, explorer.session)
    values = snapshot.values["x"]
    assert values[0] == pytest.approx(-0.4230) and values[1] > -1.2352
    x = torch.tensor(values, requires_grad=True)
    ((2 * x) ** 3).mean().backward()
    assert x.grad is not None
    assert_grad_shown(window, snapshot, "x", x.grad)
    assert snapshot.modified, "the session has changed"
    # ...but a lesson whose sliders were only dragged has nothing to save (see
    # gui.model.views.unsaved): no "modified" mark in the title.
    assert window.windowHandle().title().count("*") == 0
