"""The window and files that may come from anyone: refusals in words, reads that cannot
freeze it, saves that keep work, autosave and the restore offer after a crash."""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from gui.model.request import Program
from gui.model.session import Document, file_format, load_session, save_session
from gui.model.session.autosave import Autosave, find_unsaved
from tests.e2e.conftest import Explorer, open_lesson, settle

pytestmark = pytest.mark.slow

Button = QMessageBox.StandardButton
CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
GONE = 4_194_999  # no process has this id (above Linux's pid_max)


def answer_open(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), "sessions (*.json)")
    )


def answer_save(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), "sessions (*.json)")
    )


def title(explorer: Explorer) -> str:
    handle = explorer.window.windowHandle()
    assert handle is not None
    return handle.title()


# -- opening ------------------------------------------------------------------------------


def test_a_file_name_holding_a_reordering_control_is_titled_with_its_escape(
    qtbot: QtBot, explorer: Explorer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "homework-\u202enosj.json"
    save_session(Document(Program(code=CODE)), path)
    answer_open(monkeypatch, path)
    explorer.window.commands["open"].trigger()
    settle(qtbot, explorer)
    assert explorer.errors == []
    assert "homework-\\u202enosj.json" in title(explorer)
    assert "\u202e" not in title(explorer)


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/random"])
def test_opening_a_pipe_or_a_device_is_refused_at_once(
    qtbot: QtBot, explorer: Explorer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    open_lesson(qtbot, explorer, "01-why-sum")
    before = explorer.snapshot
    path = tmp_path / "from-a-student.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(kind)
    answer_open(monkeypatch, path)
    started = time.monotonic()
    explorer.window.commands["open"].trigger()
    assert time.monotonic() - started < 3, "the window did not wait on the file"
    assert explorer.errors == [
        (
            "Cannot open this session",
            f"{path}: cannot open it: it is {'a named pipe' if kind == 'fifo' else 'a device'}"
            ", not a session file (choose a .json file)",
        )
    ]
    assert explorer.snapshot is before


def test_a_file_that_does_not_answer_is_given_up_while_the_window_paints(
    qtbot: QtBot, explorer: Explorer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    release = threading.Event()

    def unreachable(path: object) -> Document:  # a network folder that went away
        release.wait(30)
        raise AssertionError("never answers in time")

    monkeypatch.setattr(file_format, "load_session", unreachable)
    explorer.window.read_timeout = 0.5
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    answer_open(monkeypatch, tmp_path / "far.json")
    started = time.monotonic()
    explorer.window.commands["open"].trigger()
    waited = time.monotonic() - started
    timer.stop()
    release.set()
    assert 0.4 < waited < 3
    assert len(ticks) >= 5, "timers (and paints) ran while the file was being read"
    assert len(explorer.errors) == 1
    assert explorer.errors[0][1] == (
        f"{tmp_path / 'far.json'}: the file did not answer within 0.5 seconds (a network folder "
        "that is not reachable?); copy it to this computer and open the copy"
    )


def test_a_file_with_a_byte_order_mark_opens(
    qtbot: QtBot, explorer: Explorer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "notepad.json"
    text = json.dumps({"format": "autograd-explorer/1", "code": CODE, "title": "From Notepad"})
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    answer_open(monkeypatch, path)
    explorer.window.commands["open"].trigger()
    snapshot = settle(qtbot, explorer.session)
    assert explorer.errors == []
    assert snapshot.code == CODE and title(explorer).startswith("From Notepad")


# -- saving -------------------------------------------------------------------------------


def test_an_infinite_gradient_saves_and_opens_again(
    qtbot: QtBot, explorer: Explorer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    explorer.session.set_code(CODE + "z = x * 3\n")
    settle(qtbot, explorer.session)
    explorer.session.set_output("z")
    settle(qtbot, explorer.session)
    explorer.session.set_gradient([math.inf, -math.inf])
    settle(qtbot, explorer.session)
    path = tmp_path / "inf.json"
    answer_save(monkeypatch, path)
    explorer.window.commands["save_as"].trigger()
    assert explorer.errors == []
    assert json.loads(path.read_text())["backward"][-1]["gradient"] == ["inf", "-inf"]
    steps = load_session(path).program.steps
    assert steps is not None and steps[-1].gradient == [math.inf, -math.inf]


def test_saving_over_a_link_keeps_the_link(
    qtbot: QtBot, explorer: Explorer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = tmp_path / "real.json"
    save_session(Document(Program(code="y = 1\n")), target)
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    answer_open(monkeypatch, link)
    explorer.window.commands["open"].trigger()
    settle(qtbot, explorer.session)
    explorer.session.set_code(CODE)
    settle(qtbot, explorer.session)
    explorer.window.commands["save"].trigger()
    assert explorer.errors == []
    assert link.is_symlink() and load_session(target).program.code == CODE
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_session_past_the_limits_is_not_saved_and_says_why(
    qtbot: QtBot, explorer: Explorer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    explorer.session.set_code("x = 1\n" * 20_000)
    settle(qtbot, explorer.session)
    path = tmp_path / "big.json"
    answer_save(monkeypatch, path)
    explorer.window.commands["save_as"].trigger()
    assert explorer.errors == [
        (
            "Cannot save the session",
            f"{path}: code: 120,000 characters is too long (at most 100,000)",
        )
    ]
    assert not path.exists() and explorer.snapshot.modified


# -- autosave and the restore offer --------------------------------------------------------


@pytest.fixture
def autosaved(make_explorer: Callable[..., Explorer], tmp_path: Path) -> tuple[Explorer, Autosave]:
    autosave = Autosave(tmp_path / "data", pid=GONE)
    explorer = make_explorer(autosave=autosave)
    explorer.window._autosave_timer.setInterval(100)  # the app waits a few seconds
    return explorer, autosave


def test_unsaved_work_is_copied_soon_after_a_change_and_removed_by_a_save(
    qtbot: QtBot,
    autosaved: tuple[Explorer, Autosave],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    explorer, autosave = autosaved
    open_lesson(qtbot, explorer, "01-why-sum")
    assert not autosave.file.exists()
    explorer.session.set_code(CODE)
    qtbot.waitUntil(autosave.file.exists, timeout=5_000)
    copy = json.loads(autosave.file.read_text())
    assert copy["session"]["code"] == CODE and copy["path"].endswith("01-why-sum.json")
    answer_save(monkeypatch, tmp_path / "saved.json")
    explorer.window.commands["save"].trigger()  # a lesson: asks for a new file
    assert explorer.errors == [] and not autosave.file.exists()


def test_closing_cleanly_removes_the_copy(
    qtbot: QtBot, autosaved: tuple[Explorer, Autosave]
) -> None:
    explorer, autosave = autosaved
    explorer.session.set_code(CODE)
    settle(qtbot, explorer.session)
    explorer.window.flush_autosave()
    assert autosave.file.exists()
    explorer.answer = Button.Discard
    assert explorer.window.close()
    assert explorer.questions == ["This session has changes that are not saved. Save them first?"]
    assert not autosave.file.exists()


def write_left_behind(folder: Path, path: Path | None) -> None:
    """What a window killed mid-work leaves: its copy under an id no process has now."""
    dead = Autosave(folder, pid=GONE + 1)
    dead._waiting = (
        Document(Program(code=CODE, values={"x": [4.0, 5.0]}), title="Mine"),
        str(path) if path else None,
    )
    dead.flush()


def test_work_left_by_a_crash_is_offered_and_restored_unsaved(
    qtbot: QtBot,
    autosaved: tuple[Explorer, Autosave],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    explorer, autosave = autosaved
    path = tmp_path / "mine.json"
    save_session(Document(Program(code="old = 1\n")), path)
    write_left_behind(autosave.folder, path)
    recovered = find_unsaved(autosave.folder)
    explorer.answer = Button.Yes
    assert explorer.window.offer_restore(recovered)
    assert explorer.questions == [
        "Autograd Explorer did not close properly last time. Restore the unsaved work on "
        f"{recovered[0].describe()}?\n\nYes restores it; Discard deletes the copy."
    ]
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.code == CODE and snapshot.values == {"x": [4.0, 5.0]}
    assert snapshot.path == str(path)
    assert explorer.window.editor.editor().toPlainText() == CODE
    assert title(explorer) == "Mine* — Autograd Explorer", "restored work is not saved yet"
    assert not recovered[0].file.exists() and autosave.file.exists(), "the copy is ours now"
    explorer.answer = Button.Save
    assert explorer.window.close(), "closing asks, and Save writes the work where it belongs"
    assert load_session(path).program.code == CODE
    assert not autosave.file.exists()


def test_declining_the_offer_deletes_the_copy(
    qtbot: QtBot, autosaved: tuple[Explorer, Autosave]
) -> None:
    explorer, autosave = autosaved
    open_lesson(qtbot, explorer, "01-why-sum")
    before = explorer.snapshot
    write_left_behind(autosave.folder, None)
    explorer.answer = Button.Discard
    assert not explorer.window.offer_restore(find_unsaved(autosave.folder))
    assert len(explorer.questions) == 1 and "an untitled" not in explorer.questions[0]
    assert find_unsaved(autosave.folder) == []
    assert explorer.snapshot is before
