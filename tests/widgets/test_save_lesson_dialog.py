"""Save as Lesson's dialog: it starts from the session's texts and scale lock, makes a
lesson that loads back identically, and shows the format's refusal instead of closing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog
from pytestqt.qtbot import QtBot

from gui.model.request import BackwardStep, Program
from gui.model.session import Document, Session, load_session, save_session
from gui.model.session.lesson import LessonExtras
from gui.widgets.save_lesson_dialog import SaveLessonDialog

PROGRAM = Program(
    code="x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\n",
    values={"x": [[-1.2095]]},
    steps=(BackwardStep(gradient=[[0.1]]), BackwardStep(gradient=[[0.1]])),
)


def make(qtbot: QtBot, session: Session) -> SaveLessonDialog:
    dialog = SaveLessonDialog(session.snapshot)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_starts_from_the_session_and_saves_a_lesson_that_loads_back(
    qtbot: QtBot, session: Session, tmp_path: Path
) -> None:
    session.load(Document(PROGRAM, "Old title", "old notes", lesson=LessonExtras(("Try",))))
    dialog = make(qtbot, session)
    assert dialog.title.text() == "Old title" and dialog.notes.toPlainText() == "old notes"
    assert dialog.prompts.toPlainText() == "Try" and not dialog.lock.isChecked()
    assert "(at 8)" in dialog.lock.text(), "x.grad = 7.022 locks at 8, rounded up"
    dialog.title.setText("Scaling")
    dialog.notes.setPlainText("**v** scales `x.grad`")
    dialog.prompts.setPlainText("Drag the gradient slider\n\nPress Backward twice\n")
    qtbot.mouseClick(dialog.lock, Qt.MouseButton.LeftButton)
    lesson = dialog.lesson()
    assert lesson.program == PROGRAM
    assert lesson.lesson.prompts == ("Drag the gradient slider", "Press Backward twice")
    assert lesson.scale_lock and lesson.locked_scale == 8.0
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
    save_session(lesson, tmp_path / "scaling.json")
    assert load_session(tmp_path / "scaling.json") == lesson


def test_a_refused_lesson_keeps_the_dialog_open_with_the_reason(
    qtbot: QtBot, session: Session
) -> None:
    session.load(Document(PROGRAM))
    dialog = make(qtbot, session)
    dialog.prompts.setPlainText("1\n2\n3\n4\n5")
    dialog.title.setText("<b>bold</b>")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.problem.isVisibleTo(dialog)
    assert dialog.problem.text().startswith("prompts: 5 prompts; a lesson has at most 4")
    assert dialog.problem.textFormat() == Qt.TextFormat.PlainText
