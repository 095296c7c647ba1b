"""What counts as unsaved work: a lesson's code only, everything in a user's file."""

from __future__ import annotations

from pathlib import Path

from gui.model.request import Program
from gui.model.session import Document, Session, save_session
from gui.model.views.unsaved import has_unsaved_work
from tests.fixtures import load_lesson

CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x**2).sum()\n"


def test_a_lesson_played_with_has_nothing_unsaved(session: Session) -> None:
    snapshot = load_lesson(session, 5)
    saved = snapshot.code
    assert not has_unsaved_work(snapshot, saved, lesson=True)
    session.set_input("x", 0, 2.5)  # a slider dragged
    session.backward()  # Backward pressed
    session.set_gradient_element(0, 0.5)  # the gradient slider dragged
    snapshot = session.snapshot
    assert snapshot.modified, "the session changed..."
    assert not has_unsaved_work(snapshot, saved, lesson=True), "...but only as a demo"


def test_a_lessons_edited_code_is_unsaved_work(session: Session) -> None:
    saved = load_lesson(session, 5).code
    session.set_code(saved + "w = z.sum()\n")
    assert has_unsaved_work(session.snapshot, saved, lesson=True)


def test_a_users_file_counts_every_change(session: Session, tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    save_session(Document(Program(code=CODE)), path)
    session.open(path)
    saved = session.snapshot.code
    assert not has_unsaved_work(session.snapshot, saved, lesson=False)
    session.set_input("x", 0, 3.0)  # their values are their work
    assert has_unsaved_work(session.snapshot, saved, lesson=False)
    session.save(path)
    assert not has_unsaved_work(session.snapshot, session.snapshot.code, lesson=False)


def test_without_the_saved_code_the_sessions_verdict_stands(session: Session) -> None:
    load_lesson(session, 3)
    session.set_input("x", 0, 1.0)
    assert has_unsaved_work(session.snapshot, None, lesson=True)
