"""The window around the panels: files, export, settings, menus, live mode, the title, and
the command line's screenshot mode."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt
from PySide6.QtGui import QAction, QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from gui.model.request import Program
from gui.model.session import Document, load_session, save_session
from gui.resources import lesson_paths
from gui.widgets.main_window import DEFAULT_SIZES, PRESENTATION_SCALE, MainWindow
from tests.e2e.conftest import (
    Explorer,
    assert_grad_shown,
    open_lesson,
    press,
    run_main,
    settle,
    status_bar_texts,
)
from tests.fixtures import V1 as X5_V1
from tests.fixtures import V2 as X5_V2
from tests.fixtures import X5, cube_grad, drag_slider, type_into

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
LEFT = Qt.MouseButton.LeftButton
CTRL = Qt.KeyboardModifier.ControlModifier
Button = QMessageBox.StandardButton
# Lines that a headless Qt or fontconfig may print whatever the app does.
ENVIRONMENT_NOISE = ("This plugin does not support", "Fontconfig")


# -- helpers ------------------------------------------------------------------------------


class Dialogs:
    """Answers the file dialogs and remembers each call."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        self._monkeypatch = monkeypatch

    def answer(self, name: str, path: Path | str) -> None:
        def dialog(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            if name == "getExistingDirectory":
                return str(path)
            return str(path), "Autograd Explorer sessions (*.json)"

        self._monkeypatch.setattr(QFileDialog, name, dialog)


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> Dialogs:
    return Dialogs(monkeypatch)


def set_x00(qtbot: QtBot, window: MainWindow, text: str) -> None:
    """Type a new value for x[0, 0] (or x[0]) into its number box on the Inputs tab."""
    editor = window.inputs.groups["x"].editor
    assert editor is not None
    type_into(qtbot, editor.sliders[0].box, text)


def shown_title(window: MainWindow) -> str:
    """The title as the window system shows it ([*] replaced by the modified marker)."""
    handle = window.windowHandle()
    assert handle is not None
    return handle.title()


def lessons_menu_actions(window: MainWindow) -> list[QAction]:
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Lessons")
    assert isinstance(menu, QMenu)
    # The lessons' own entries (Browse Lessons… and the step actions come first).
    lessons = {a for key, a in window.commands.items() if key.startswith("lesson:")}
    return [a for a in menu.actions() if a in lessons]


def lesson5_with_x00(qtbot: QtBot, explorer: Explorer, value: float) -> None:
    open_lesson(qtbot, explorer, "05-gradients-accumulate")
    set_x00(qtbot, explorer.window, f"{value}")
    settle(qtbot, explorer.session)
    assert explorer.snapshot.values["x"][0][0] == value
    assert explorer.snapshot.modified


def edit_lesson_code(qtbot: QtBot, explorer: Explorer) -> None:
    """Change the open lesson's code (a comment line): work of the user's own, unsaved."""
    explorer.session.set_code(explorer.snapshot.code + "# my own line\n")
    settle(qtbot, explorer.session)
    assert explorer.window.isWindowModified()


def x_with(value: float) -> list[list[float]]:
    return [[value, X5[0][1]], X5[1]]


@contextlib.contextmanager
def immutable(folder: Path) -> Iterator[None]:
    """A folder nobody can write into, root included (``chattr +i``); skips if unsupported."""
    chattr = shutil.which("chattr")
    made = chattr is not None and not (
        subprocess.run([chattr, "+i", str(folder)], capture_output=True, check=False).returncode
    )
    if chattr is None or not made:
        pytest.skip("cannot make a read-only folder here (chattr +i)")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


# -- files ----------------------------------------------------------------------------------


def test_save_as_then_open_brings_the_session_back(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs, tmp_path: Path
) -> None:
    window = explorer.window
    lesson5_with_x00(qtbot, explorer, 1.5)
    assert shown_title(window).count("*") == 0, "a lesson only played with: nothing unsaved"
    saved = explorer.snapshot
    path = tmp_path / "mine.json"
    dialogs.answer("getSaveFileName", path)
    window.commands["save_as"].trigger()
    assert dialogs.calls == ["getSaveFileName"]
    assert explorer.errors == []
    file = load_session(path)
    assert file.program.code == saved.code
    assert file.program.values == {"x": x_with(1.5)}
    assert file.program.steps == saved.steps and file.program.steps is not None
    assert [step.gradient for step in file.program.steps] == [X5_V1, X5_V2]
    assert file.title == "Gradients accumulate across backward calls"
    assert explorer.snapshot.path == str(path)
    assert not explorer.snapshot.modified and "*" not in shown_title(window)

    open_lesson(qtbot, explorer, "01-why-sum")
    dialogs.answer("getOpenFileName", path)
    window.commands["open"].trigger()
    snapshot = settle(qtbot, explorer.session)
    assert dialogs.calls == ["getSaveFileName", "getOpenFileName"]
    assert snapshot.path == str(path) and not snapshot.modified
    assert snapshot.code == saved.code == window.editor.editor().toPlainText()
    assert snapshot.values == {"x": x_with(1.5)}
    assert_grad_shown(window, snapshot, "x", cube_grad(x_with(1.5), X5_V1, X5_V2))
    assert explorer.questions == [], "nothing unsaved: nothing to ask"


def test_save_writes_the_open_file_without_asking(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs, tmp_path: Path
) -> None:
    path = tmp_path / "mine.json"
    save_session(
        Document(
            Program(code="x = torch.tensor([1., 2.], requires_grad=True)\ny = (x**2).sum()\n")
        ),
        path,
    )
    dialogs.answer("getOpenFileName", path)
    explorer.window.commands["open"].trigger()
    settle(qtbot, explorer.session)
    set_x00(qtbot, explorer.window, "3")
    settle(qtbot, explorer.session)
    press(qtbot, explorer.window, Qt.Key.Key_S, CTRL)
    assert dialogs.calls == ["getOpenFileName"], "Ctrl+S on an opened file asks nothing"
    assert load_session(path).program.values == {"x": [3.0, 2.0]}
    assert not explorer.snapshot.modified


def test_save_on_a_lesson_asks_for_a_new_file(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs
) -> None:
    lesson = next(p for p in lesson_paths() if p.name.startswith("01-"))
    before = lesson.read_bytes()
    open_lesson(qtbot, explorer, "01-why-sum")
    set_x00(qtbot, explorer.window, "5")
    dialogs.answer("getSaveFileName", "")  # the user cancels
    explorer.window.commands["save"].trigger()
    assert dialogs.calls == ["getSaveFileName"]
    assert lesson.read_bytes() == before
    assert explorer.snapshot.modified


def test_open_of_a_corrupt_file_reports_and_changes_nothing(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs, tmp_path: Path
) -> None:
    lesson5_with_x00(qtbot, explorer, 2.0)
    edit_lesson_code(qtbot, explorer)
    before = explorer.snapshot
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"format": "autograd-explorer/1", "code": ', encoding="utf-8")
    dialogs.answer("getOpenFileName", corrupt)
    explorer.window.commands["open"].trigger()
    assert len(explorer.questions) == 1, "unsaved changes: the window asked first"
    assert len(explorer.errors) == 1
    title, text = explorer.errors[0]
    assert title == "Cannot open this session" and "corrupt.json" in text
    after = explorer.snapshot
    assert not after.running
    assert (after.code, after.values, after.steps, after.path) == (
        before.code,
        before.values,
        before.steps,
        before.path,
    )
    assert after.modified and after.result is before.result


def test_cancel_keeps_unsaved_work_on_open_and_close(qtbot: QtBot, explorer: Explorer) -> None:
    lesson5_with_x00(qtbot, explorer, 2.0)
    edit_lesson_code(qtbot, explorer)
    before = explorer.snapshot
    explorer.answer = Button.Cancel
    # The file dialog is never reached (the fixture fails any dialog it did not expect).
    explorer.window.commands["open"].trigger()
    explorer.window.commands["lesson:01-why-sum"].trigger()
    assert not explorer.window.close()
    assert explorer.window.isVisible()
    assert len(explorer.questions) == 3
    assert explorer.snapshot is before


def test_saving_where_nothing_can_be_written_reports_it(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs, tmp_path: Path
) -> None:
    lesson5_with_x00(qtbot, explorer, 1.5)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    dialogs.answer("getSaveFileName", blocker / "session.json")
    explorer.window.commands["save_as"].trigger()
    assert [title for title, _ in explorer.errors] == ["Cannot save the session"]
    assert "session.json" in explorer.errors[0][1]
    assert explorer.snapshot.modified
    assert explorer.snapshot.path is not None and explorer.snapshot.path.endswith(
        "05-gradients-accumulate.json"
    )
    assert blocker.read_text(encoding="utf-8") == "not a folder"


def test_a_failed_save_keeps_the_old_file(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs, tmp_path: Path
) -> None:
    folder = tmp_path / "kept"
    folder.mkdir()
    path = folder / "session.json"
    lesson5_with_x00(qtbot, explorer, 1.5)
    dialogs.answer("getSaveFileName", path)
    explorer.window.commands["save_as"].trigger()
    old = path.read_bytes()
    set_x00(qtbot, explorer.window, "-1")
    settle(qtbot, explorer.session)
    with immutable(folder):
        press(qtbot, explorer.window, Qt.Key.Key_S, CTRL)
        assert [title for title, _ in explorer.errors] == ["Cannot save the session"]
        assert path.read_bytes() == old
        assert sorted(p.name for p in folder.iterdir()) == ["session.json"]
    assert explorer.snapshot.modified
    assert load_session(path).program.values == {"x": x_with(1.5)}


def test_export_writes_result_script_and_graph(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs, tmp_path: Path
) -> None:
    snapshot = open_lesson(qtbot, explorer, "05-gradients-accumulate")
    out = tmp_path / "report"
    dialogs.answer("getExistingDirectory", out)
    explorer.window.commands["export"].trigger()
    assert explorer.errors == []
    assert sorted(p.name for p in out.iterdir()) == [
        "graph.dot",
        "graph.png",
        "graph.svg",
        "plots.png",
        "result.json",
        "script.py",
    ]
    expected = cube_grad(X5, X5_V1, X5_V2)
    document = json.loads((out / "result.json").read_text(encoding="utf-8"))
    grad = document["tensors"]["x"]["grad"]["values"]
    assert torch.allclose(torch.tensor(grad), expected)
    # The script is plain PyTorch: run it, it prints the same x.grad.
    printed = io.StringIO()
    with torch.random.fork_rng(), contextlib.redirect_stdout(printed):
        exec(compile((out / "script.py").read_text(encoding="utf-8"), "script.py", "exec"), {})
    line = next(t for t in printed.getvalue().splitlines() if t.startswith("x.grad = "))
    assert torch.allclose(torch.tensor(ast.literal_eval(line.removeprefix("x.grad = "))), expected)
    svg = ET.parse(out / "graph.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    texts = " ".join(t for t in svg.itertext())
    assert snapshot.graph is not None
    assert all(n.name in texts for n in snapshot.graph.nodes if n.kind == "function")
    assert explorer.window.statusBar().currentMessage().startswith("Exported result.json")


def test_export_into_a_bad_folder_reports_it(
    qtbot: QtBot, explorer: Explorer, dialogs: Dialogs, tmp_path: Path
) -> None:
    open_lesson(qtbot, explorer, "01-why-sum")
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    dialogs.answer("getExistingDirectory", blocker / "report")
    explorer.window.commands["export"].trigger()
    assert [title for title, _ in explorer.errors] == ["Cannot export"]


# -- settings -------------------------------------------------------------------------------


def drag_handle(
    qtbot: QtBot, window: MainWindow, splitter: str, index: int, dx: int, dy: int = 0
) -> None:
    owner = window._splitters[splitter]
    handle = owner.handle(index)
    # Positions in the splitter's coordinates: the handle moves under the mouse.
    start = handle.mapTo(owner, handle.rect().center())
    qtbot.mousePress(handle, LEFT, pos=handle.mapFrom(owner, start))
    for step in range(1, 5):
        moved = QPoint(dx * step // 4, dy * step // 4)
        qtbot.mouseMove(handle, handle.mapFrom(owner, start + moved))
    qtbot.mouseRelease(handle, LEFT, pos=handle.mapFrom(owner, start + QPoint(dx, dy)))


def splitter_sizes(window: MainWindow) -> dict[str, list[int]]:
    return {name: s.sizes() for name, s in window._splitters.items()}


def test_geometry_and_splitters_come_back_in_a_new_window(
    qtbot: QtBot, make_explorer: Callable[..., Explorer]
) -> None:
    # Qt fits a restored window to the screen: offscreen's is 800x800.
    # A narrow window is compact (the plots and node details are tabs, see
    # MainWindow.compact), and keeps the size it was given: the vertical splitter of the
    # code and the controls is dragged.
    first = make_explorer(size=(780, 640))
    size = first.window.size()
    assert size.toTuple() == (780, 640) and first.window.compact()
    start = splitter_sizes(first.window)["left"]
    drag_handle(qtbot, first.window, "left", 1, 0, -40)
    moved = splitter_sizes(first.window)
    assert moved["left"][0] == pytest.approx(start[0] - 40, abs=3)
    assert first.window.close()
    second = make_explorer(settings_path=first.settings_path, size=None)
    assert second.window.size() == size and second.window.compact()
    assert splitter_sizes(second.window) == moved
    second.window.commands["reset_layout"].trigger()
    assert splitter_sizes(second.window)["left"] != moved["left"]


def test_a_first_window_starts_at_1280_by_720(
    qtbot: QtBot, make_explorer: Callable[..., Explorer]
) -> None:
    explorer = make_explorer(size=None)
    assert explorer.window.size() == QSize(1280, 720)
    sizes = splitter_sizes(explorer.window)
    assert {name: len(v) for name, v in sizes.items()} == {
        name: len(v) for name, v in DEFAULT_SIZES.items()
    }
    assert all(v > 100 for values in sizes.values() for v in values), sizes


def test_presentation_mode_scales_fonts_and_back(
    qtbot: QtBot, explorer: Explorer, qapp: QApplication
) -> None:
    open_lesson(qtbot, explorer, "03-chain-rule-leaves-only")
    base = qapp.font().pointSizeF()
    assert base >= 11
    action = explorer.window.commands["presentation"]
    panels = (explorer.window.inputs, explorer.window.details, explorer.window.backward)
    action.trigger()
    assert action.isChecked()
    big = base * PRESENTATION_SCALE
    assert qapp.font().pointSizeF() == pytest.approx(big)
    # Panels follow the application font as Qt delivers the change.
    qtbot.waitUntil(lambda: all(p.font().pointSizeF() == pytest.approx(big) for p in panels))
    action.trigger()
    assert not action.isChecked()
    assert qapp.font().pointSizeF() == pytest.approx(base)
    qtbot.waitUntil(lambda: all(p.font().pointSizeF() == pytest.approx(base) for p in panels))


def test_presentation_mode_makes_the_code_big_too(
    qtbot: QtBot, explorer: Explorer, qapp: QApplication
) -> None:
    base = explorer.window.editor.editor().font().pointSizeF()
    explorer.window.commands["presentation"].trigger()
    assert explorer.window.editor.editor().font().pointSizeF() == pytest.approx(
        base * PRESENTATION_SCALE
    )


# -- menus, live mode, title ----------------------------------------------------------------


def test_lessons_menu_lists_every_lesson_and_opens_it(qtbot: QtBot, explorer: Explorer) -> None:
    files = sorted((REPO / "resources" / "lessons").glob("*.json"))
    assert len(files) >= 8
    actions = lessons_menu_actions(explorer.window)
    assert len(actions) == len(files)
    for action, file in zip(actions, files, strict=True):
        title = json.loads(file.read_text(encoding="utf-8"))["title"]
        assert action.text().replace("&", "").split(" ", 1)[1] == title
        action.trigger()
        snapshot = settle(qtbot, explorer.session)
        assert Path(snapshot.path or "") == file
        assert snapshot.title == title and shown_title(explorer.window).startswith(title)
        assert snapshot.graph is not None, f"{file.name} draws a graph"


def test_live_off_waits_for_f5(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    snapshot = open_lesson(qtbot, explorer, "01-why-sum")
    old_grad = snapshot.leaf_grads["x"]
    window.commands["live"].trigger()
    assert not explorer.snapshot.live and not window.commands["live"].isChecked()
    assert "live off" in status_bar_texts(window)
    group = window.inputs.groups["x"]
    assert group.editor is not None
    drag_slider(qtbot, group.editor.sliders[0].slider, 20)
    snapshot = explorer.snapshot
    values = snapshot.values["x"]
    assert values[0] > 3.0 and not snapshot.running
    assert snapshot.stale and snapshot.leaf_grads["x"] == old_grad
    assert group.editor.sliders[0].swatch.text() == "6."
    assert "live is off" in group.grad_label.text()
    assert any("press F5" in t for t in status_bar_texts(window))

    press(qtbot, window, Qt.Key.Key_F5)
    snapshot = settle(qtbot, explorer.session)
    assert not snapshot.stale and snapshot.values["x"] == values
    x = torch.tensor(values, requires_grad=True)
    y = sum(x**2)
    assert isinstance(y, torch.Tensor)
    y.backward()
    assert x.grad is not None
    assert_grad_shown(window, snapshot, "x", x.grad)
    window.commands["live"].trigger()
    assert explorer.snapshot.live and "live" in status_bar_texts(window)


def test_title_names_the_lesson_and_marks_changes(qtbot: QtBot, explorer: Explorer) -> None:
    window = explorer.window
    assert shown_title(window).startswith("untitled")
    open_lesson(qtbot, explorer, "03-chain-rule-leaves-only")
    title = shown_title(window)
    assert title.startswith("The chain rule, and why y.grad is None")
    assert title.endswith("Autograd Explorer") and "*" not in title
    set_x00(qtbot, window, "0.5")
    settle(qtbot, explorer.session)
    assert explorer.snapshot.modified and not window.isWindowModified(), "values: a demo"
    edit_lesson_code(qtbot, explorer)
    assert shown_title(window).startswith("The chain rule, and why y.grad is None")
    assert shown_title(window).count("*") == 1


class TopLevelShows(QObject):
    """Records every top-level widget other than ``main`` that gets shown."""

    def __init__(self, main: QWidget) -> None:
        super().__init__()
        self.main = main
        self.seen: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Show
            and isinstance(watched, QWidget)
            and watched.isWindow()
            and watched is not self.main
        ):
            self.seen.append(type(watched).__name__)
        return False


def test_opening_a_lesson_keeps_the_window_active(
    qtbot: QtBot, explorer: Explorer, qapp: QApplication
) -> None:
    shows = TopLevelShows(explorer.window)
    qapp.installEventFilter(shows)
    try:
        open_lesson(qtbot, explorer, "05-gradients-accumulate")
    finally:
        qapp.removeEventFilter(shows)
    assert shows.seen == []
    assert explorer.window.isActiveWindow()


# -- the command line -----------------------------------------------------------------------


def test_screenshot_mode_saves_a_1280x720_png(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    done = run_main("resources/lessons/05-gradients-accumulate.json", "--screenshot", str(out))
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert not image.isNull()
    assert image.size() == QSize(1280, 720)
    colours = {image.pixel(x, y) for x in range(0, 1280, 16) for y in range(0, 720, 16)}
    assert len(colours) > 20, "a drawn window, not a blank image"


def test_screenshot_of_a_bad_session_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "autograd-explorer/1", "code": 5}', encoding="utf-8")
    out = tmp_path / "shot.png"
    done = run_main(str(bad), "--screenshot", str(out))
    assert done.returncode == 2
    lines = [t for t in done.stderr.splitlines() if t and not t.startswith(ENVIRONMENT_NOISE)]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error:") and "code" in lines[0]
    assert not out.exists()
