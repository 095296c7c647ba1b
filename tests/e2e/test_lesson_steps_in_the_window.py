"""Lessons in the full window: steps advanced by keys and menus, the shipped lessons' prompts
and the controls they name, and ``main.py LESSON --step N --screenshot``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractSlider, QDialog, QFileDialog, QMenu, QWidget
from pytestqt.qtbot import QtBot

from gui.model.session import load_session
from gui.model.views.lesson_controls import named_controls
from gui.resources import lesson_paths
from gui.widgets.save_lesson_dialog import SaveLessonDialog
from tests.e2e.conftest import Explorer, activate, run_main, settle

pytestmark = pytest.mark.slow

MakeExplorer = Callable[..., Explorer]
CODE = "x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\n"
X = -1.2095
LESSON = {
    "format": "autograd-explorer/1",
    "title": "Steps",
    "notes": "For `z = (2x)³`: **∂z/∂x = 24x²**",
    "code": CODE,
    "values": {"x": [[X]]},
    "prompts": ["Drag the gradient slider to 0.1", "Press Backward twice"],
    "steps": [
        {"note": "With **v = 1**", "select": "x"},
        {"note": "Now v = 0.1", "gradient": [[0.1]], "view": "plots"},
        {"note": "Again", "backward": True, "view": "replay"},
    ],
}


def chain_grad(*gradients: float) -> float:
    """x.grad for z = (2x)^3 after z.backward(v) per v (graph retained): plain torch."""
    x = torch.tensor([[X]], requires_grad=True)
    z = (2 * x) ** 3
    for i, v in enumerate(gradients):
        z.backward(torch.tensor([[v]]), retain_graph=i < len(gradients) - 1)
    assert x.grad is not None
    return float(x.grad.item())


def x_grad(explorer: Explorer) -> float:
    grad = explorer.snapshot.leaf_grads["x"]
    assert grad is not None and isinstance(grad.values, list)
    return float(grad.values[0][0])  # type: ignore[index]


@pytest.fixture
def lesson_file(tmp_path: Path) -> Path:
    path = tmp_path / "steps.json"
    path.write_text(json.dumps(LESSON), encoding="utf-8")
    return path


def open_steps(qtbot: QtBot, make_explorer: MakeExplorer, path: Path) -> Explorer:
    explorer = make_explorer()
    assert explorer.window.open_path(path)
    settle(qtbot, explorer.session)
    return explorer


def test_the_step_bar_shows_the_step_and_its_note(
    qtbot: QtBot, make_explorer: MakeExplorer, lesson_file: Path
) -> None:
    explorer = open_steps(qtbot, make_explorer, lesson_file)
    lessons = explorer.window.lessons
    assert lessons.toolbar.isVisible()
    assert lessons.bar.counter.text() == "Step 1 of 3"
    assert lessons.bar.note.toPlainText() == "With v = 1"
    assert "<b>" in lessons.bar.note.toHtml() or "font-weight" in lessons.bar.note.toHtml()
    assert not lessons.previous_step.isEnabled() and lessons.next_step.isEnabled()
    assert x_grad(explorer) == pytest.approx(chain_grad(1.0), rel=1e-5)
    # The prompts show with the notes in the node details pane until a node is clicked.
    explorer.session.select_node(None)
    text = explorer.window.details.browser.toPlainText()
    assert "Try this" in text and "Press Backward twice" in text


def test_right_and_left_keys_advance_and_go_back_unless_a_control_keeps_them(
    qtbot: QtBot, make_explorer: MakeExplorer, lesson_file: Path
) -> None:
    explorer = open_steps(qtbot, make_explorer, lesson_file)
    window = explorer.window
    activate(qtbot, window)
    window.graph.setFocus()
    qtbot.keyClick(window.graph, Qt.Key.Key_Right)
    settle(qtbot, explorer.session)
    assert window.lessons.bar.counter.text() == "Step 2 of 3"
    assert x_grad(explorer) == pytest.approx(chain_grad(0.1), rel=1e-5)
    qtbot.waitUntil(lambda: window.views.currentWidget() is window.plots)
    qtbot.keyClick(window.graph, Qt.Key.Key_PageDown)
    settle(qtbot, explorer.session)
    assert explorer.snapshot.result is not None and explorer.snapshot.result.step_count == 2
    assert x_grad(explorer) == pytest.approx(chain_grad(0.1, 0.1), rel=1e-5)
    assert window.lessons.bar.counter.text() == "Step 3 of 3"
    # The code editor keeps its arrow keys: the caret moves, the lesson stays.
    editor = window.editor.editor()
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_Left)
    assert window.lessons.bar.counter.text() == "Step 3 of 3"
    # So does a slider: the value moves, the lesson stays.
    group = window.inputs.groups["x"]
    assert group.editor is not None
    slider = group.editor.sliders[0].findChild(QAbstractSlider)
    assert slider is not None
    before = slider.value()
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    settle(qtbot, explorer.session)
    assert slider.value() != before
    assert window.lessons.bar.counter.text() == "Step 3 of 3"
    explorer.answer = explorer.answer.Discard  # the dragged value was a lesson's demo
    qtbot.keyClick(window.graph, Qt.Key.Key_PageUp)
    settle(qtbot, explorer.session)
    qtbot.keyClick(window.graph, Qt.Key.Key_Left)
    settle(qtbot, explorer.session)
    assert window.lessons.bar.counter.text() == "Step 1 of 3"
    assert x_grad(explorer) == pytest.approx(chain_grad(1.0), rel=1e-5)
    assert not explorer.snapshot.modified


def test_the_lessons_menu_steps_with_alt_arrows_everywhere(
    qtbot: QtBot, make_explorer: MakeExplorer, lesson_file: Path
) -> None:
    explorer = open_steps(qtbot, make_explorer, lesson_file)
    window = explorer.window
    menu = next(m for m in window.menuBar().findChildren(QMenu) if m.title() == "&Lessons")
    texts = [a.text() for a in menu.actions()]
    assert texts[:5] == ["&Browse Lessons…", "", "&Next Step", "&Previous Step", ""]
    assert any(t.endswith("Why sum? Python's sum over a tensor") for t in texts[5:])
    assert window.commands["next_step"].shortcut().toString() == "Alt+Right"
    activate(qtbot, window)
    window.editor.editor().setFocus()
    qtbot.keyClick(window.editor.editor(), Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    settle(qtbot, explorer.session)
    assert explorer.snapshot.lesson_step is not None and explorer.snapshot.lesson_step.index == 1
    window.commands["previous_step"].trigger()
    settle(qtbot, explorer.session)
    assert explorer.snapshot.lesson_step is not None and explorer.snapshot.lesson_step.index == 0
    file_menu = next(m for m in window.menuBar().findChildren(QMenu) if m.title() == "&File")
    assert window.commands["save_as_lesson"] in file_menu.actions()


def test_a_step_asks_before_it_replaces_typed_code(
    qtbot: QtBot, make_explorer: MakeExplorer, lesson_file: Path
) -> None:
    explorer = open_steps(qtbot, make_explorer, lesson_file)
    explorer.session.set_code(CODE + "w = z * 2\n")
    settle(qtbot, explorer.session)
    explorer.answer = explorer.answer.Cancel
    explorer.window.commands["next_step"].trigger()
    assert len(explorer.questions) == 1
    assert explorer.snapshot.code.endswith("w = z * 2\n"), "cancelled: the typed code stays"
    explorer.answer = explorer.answer.Discard
    explorer.window.commands["next_step"].trigger()
    settle(qtbot, explorer.session)
    assert explorer.snapshot.code == CODE and explorer.snapshot.lesson_step is not None


def test_a_lesson_without_steps_has_no_bar_and_arrows_do_nothing(
    qtbot: QtBot, make_explorer: MakeExplorer
) -> None:
    explorer = make_explorer()
    without = next(p for p in lesson_paths() if not load_session(p).lesson.steps)
    assert explorer.window.open_path(without)
    settle(qtbot, explorer.session)
    assert not explorer.window.lessons.toolbar.isVisible()
    assert not explorer.window.commands["next_step"].isEnabled()
    explorer.window.graph.setFocus()
    qtbot.keyClick(explorer.window.graph, Qt.Key.Key_Right)
    assert explorer.snapshot.lesson_step is None


@pytest.mark.parametrize("path", lesson_paths(), ids=lambda p: p.stem)
def test_every_shipped_lesson_has_prompts_naming_controls_that_exist(
    qtbot: QtBot, make_explorer: MakeExplorer, path: Path
) -> None:
    document = load_session(path)
    prompts = document.lesson.prompts
    assert 2 <= len(prompts) <= 4, f"{path.name}: {len(prompts)} Try this prompts"
    explorer = make_explorer()
    assert explorer.window.open_path(path)
    settle(qtbot, explorer.session)
    missing = {c for p in prompts for c in named_controls(p)}
    # A prompt's control may belong to a later step (a gradient argument it introduces).
    for index in range(max(1, len(document.lesson.steps))):
        if index:
            explorer.session.go_to_lesson_step(index)
            settle(qtbot, explorer.session)
        missing = {c for c in missing if not explorer.window.control_widgets(c)}
    assert not missing, f"{path.name}: prompts name controls the window lacks: {missing}"


def test_step_n_renders_the_window_after_step_n(tmp_path: Path, lesson_file: Path) -> None:
    out = tmp_path / "step2.png"
    done = run_main(str(lesson_file), "--step", "2", "--screenshot", str(out))
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert not image.isNull() and image.size() == QSize(1280, 720)


def test_a_step_the_lesson_lacks_exits_2_with_one_line(tmp_path: Path, lesson_file: Path) -> None:
    out = tmp_path / "never.png"
    for step in ("4", "0", "two"):
        done = run_main(str(lesson_file), "--step", step, "--screenshot", str(out))
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "--step" in done.stderr
        assert not out.exists()
    done = run_main(str(lesson_file), "--step", "4", "--screenshot", str(out))
    assert "the lesson has 3 steps (1 to 3)" in done.stderr


def test_browse_lessons_opens_the_chosen_lesson(
    qtbot: QtBot, make_explorer: MakeExplorer, lesson_file: Path
) -> None:
    explorer = open_steps(qtbot, make_explorer, lesson_file)
    browser = explorer.window.lessons.make_browser()
    qtbot.addWidget(browser)
    wanted = lesson_paths()[3]
    browser.select_path(wanted)
    assert browser.chosen == wanted
    assert explorer.window.commands["browse_lessons"].shortcut().toString() == "Ctrl+Shift+L"
    browser.open_button.click()
    settle(qtbot, explorer.session)
    assert explorer.snapshot.path == str(wanted)
    assert explorer.questions == [], "the stepped lesson had nothing unsaved"


def test_save_as_lesson_writes_a_lesson_that_loads_back(
    qtbot: QtBot,
    make_explorer: MakeExplorer,
    lesson_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    explorer = open_steps(qtbot, make_explorer, lesson_file)
    explorer.window.commands["next_step"].trigger()  # v = 0.1
    settle(qtbot, explorer.session)
    target = tmp_path / "saved-lesson.json"

    def fill(dialog: SaveLessonDialog) -> int:
        dialog.title.setText("My scaling lesson")
        dialog.prompts.setPlainText("Drag the gradient slider\nPress Backward twice")
        dialog.lock.setChecked(True)
        return QDialog.DialogCode.Accepted.value

    monkeypatch.setattr(SaveLessonDialog, "exec", fill)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    explorer.window.commands["save_as_lesson"].trigger()
    saved = load_session(target)
    assert saved.title == "My scaling lesson"
    assert saved.program == explorer.snapshot.state.program, "code, values and calls as shown"
    assert saved.lesson.prompts == ("Drag the gradient slider", "Press Backward twice")
    assert saved.lesson.steps == () and saved.scale_lock and saved.locked_scale == 4.0
    assert explorer.errors == []


def test_a_hostile_lesson_steps_through_without_harm(
    qtbot: QtBot, make_explorer: MakeExplorer, tmp_path: Path
) -> None:
    hostile = {
        **LESSON,
        "notes": '<img src="/dev/zero"> **<b>x</b>**',
        "prompts": ['<a href="file:///etc/passwd">click</a>'],
        "steps": [
            {"note": '<img src="/dev/zero"><script>alert(1)</script>', "select": "<b>x</b>"},
            {"code": "import os\nos.system('echo hi')\n", "note": "refused code"},
            {"code": CODE, "values": {"x": [[1.0, 2.0]], "nope": 3}, "gradient": [1.0, 2.0]},
            {"backward": True, "select": "9:NoSuchBackward"},
            {"code": "x = torch.ones(2, requires_grad=True)\ny = x * x\n", "backward": True},
        ],
    }
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile), encoding="utf-8")
    explorer = open_steps(qtbot, make_explorer, path)
    bar = explorer.window.lessons.bar
    assert bar.note.toPlainText() == '<img src="/dev/zero"><script>alert(1)</script>'
    assert explorer.snapshot.selected_node is None
    for index in (1, 2, 3, 4, 3, 0, 4):
        explorer.session.go_to_lesson_step(index)
        settle(qtbot, explorer.session)
        assert bar.counter.text() == f"Step {index + 1} of 5"
    explorer.window.commands["previous_step"].trigger()
    settle(qtbot, explorer.session)
    assert explorer.snapshot.error is not None, "torch's error for the wrong gradient shows"
    assert explorer.errors == []


def test_in_compact_mode_the_view_a_step_asks_for_stays_up(
    qtbot: QtBot, make_explorer: MakeExplorer, tmp_path: Path
) -> None:
    lesson = {**LESSON, "steps": [{"note": "one"}, {"note": "J", "view": "jacobian"}]}
    path = tmp_path / "jacobian.json"
    path.write_text(json.dumps(lesson), encoding="utf-8")
    explorer = make_explorer(size=(1024, 768))
    window = explorer.window
    assert window.open_path(path)
    settle(qtbot, explorer.session)
    qtbot.wait(50)  # the window arranges itself for the lesson
    assert window.compact() and window.controls.currentWidget() is not window.views
    window.commands["next_step"].trigger()
    settle(qtbot, explorer.session)
    qtbot.waitUntil(lambda: window.controls.currentWidget() is window.views)
    page = window.views.findChild(QWidget, "jacobian")
    if page is not None:  # the Jacobian view is another part of the app
        assert window.views.currentWidget() is page
    qtbot.wait(50)
    assert window.controls.currentWidget() is window.views, "the arrangement did not undo it"


def test_in_compact_mode_a_step_asking_for_the_details_raises_them(
    qtbot: QtBot, make_explorer: MakeExplorer, tmp_path: Path
) -> None:
    # The lesson format lists "details" among the views; the window once skipped it.
    other = CODE.replace("y ** 3", "y ** 2")  # a step that changes the code too
    steps = [{"note": "one"}, {"note": "y's", "code": other, "select": "y", "view": "details"}]
    path = tmp_path / "details.json"
    path.write_text(json.dumps({**LESSON, "steps": steps}), encoding="utf-8")
    explorer = make_explorer(size=(1024, 768))
    window = explorer.window
    assert window.open_path(path)
    settle(qtbot, explorer.session)
    qtbot.wait(50)
    assert window.compact() and window.controls.currentWidget() is not window.details
    window.commands["next_step"].trigger()
    settle(qtbot, explorer.session)
    qtbot.waitUntil(lambda: window.controls.currentWidget() is window.details)
    assert explorer.snapshot.selected_node is not None
    qtbot.wait(50)
    assert window.controls.currentWidget() is window.details, "the arrangement did not undo it"
