"""The lesson step bar: "Step N of M", the step's note as safe rich text, and arrows that
are the window's actions (the bar itself calls no session method)."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from gui.model.session import Session
from gui.model.session.file_format import parse_session
from gui.widgets.lesson_step_bar import MAX_NOTE_LINES, LessonStepBar
from tests.fixtures import SessionSpy

LESSON = {
    "format": "autograd-explorer/1",
    "code": "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n",
    "steps": [
        {"note": "**Bold** and `code` <img src='/dev/zero'>"},
        {"values": {"x": [3.0, 4.0]}},
        {"note": " ".join(["A long note that wraps."] * 60)},
    ],
}


def make(qtbot: QtBot, session: Session) -> tuple[LessonStepBar, QAction, QAction]:
    previous, following = QAction("Previous"), QAction("Next")
    previous.setIconText("◀")
    following.setIconText("▶")
    previous.triggered.connect(session.previous_lesson_step)
    following.triggered.connect(session.next_lesson_step)
    bar = LessonStepBar(previous, following)
    qtbot.addWidget(bar)
    session.changed.connect(bar.render)
    bar.resize(900, 200)
    bar.show()
    qtbot.waitExposed(bar)
    return bar, previous, following


def test_the_bar_follows_the_steps(qtbot: QtBot, session: Session) -> None:
    bar, _, _ = make(qtbot, session)
    session.load(parse_session(json.dumps(LESSON)))
    assert bar.counter.text() == "Step 1 of 3"
    assert bar.note.toPlainText() == "Bold and code <img src='/dev/zero'>"
    assert bar.next_button.text() == "▶" and bar.previous_button.text() == "◀"
    qtbot.mouseClick(bar.next_button, Qt.MouseButton.LeftButton)
    assert bar.counter.text() == "Step 2 of 3"
    assert session.snapshot.values == {"x": [3.0, 4.0]}
    assert not bar.note.isVisibleTo(bar), "a step without a note shows none"
    qtbot.mouseClick(bar.previous_button, Qt.MouseButton.LeftButton)
    assert bar.counter.text() == "Step 1 of 3" and session.snapshot.values == {}


def test_a_long_note_is_capped_and_scrolls(qtbot: QtBot, session: Session) -> None:
    bar, _, _ = make(qtbot, session)
    session.load(parse_session(json.dumps(LESSON)))
    one_line = bar.note.height()
    session.go_to_lesson_step(2)
    line = bar.note.fontMetrics().lineSpacing()
    assert one_line < bar.note.height() <= MAX_NOTE_LINES * line + 8
    assert bar.note.verticalScrollBar().maximum() > 0


def test_the_arrows_go_through_one_session_method_each(
    qtbot: QtBot, session: Session, spy: SessionSpy
) -> None:
    bar, _, _ = make(qtbot, session)
    spy.direct("load", parse_session(json.dumps(LESSON)))
    qtbot.mouseClick(bar.next_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(bar.previous_button, Qt.MouseButton.LeftButton)
    assert spy.calls == ["next_lesson_step", "previous_lesson_step"]
