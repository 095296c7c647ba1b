"""Save as Lesson: the session as it is, with a title, notes, prompts and the scale lock."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui.model.request import BackwardStep, Program
from gui.model.session import Document, SessionFileError, load_session, save_session
from gui.model.session.lesson import LessonExtras, LessonStep
from gui.model.session.lesson_save import as_lesson, prompts_from_text

PROGRAM = Program(
    code="x = torch.randn(1, 1, requires_grad=True)\nz = (2 * x) ** 3\n",
    values={"x": [[-1.2095]]},
    steps=(BackwardStep(gradient=[[0.1]]), BackwardStep(gradient=[[0.2]], zero_grad=True)),
)


def test_prompts_are_the_non_empty_lines() -> None:
    assert prompts_from_text("  Drag v \n\n- Press Backward\n") == ("Drag v", "Press Backward")
    assert prompts_from_text("") == ()


def test_a_saved_lesson_loads_back_identically(tmp_path: Path) -> None:
    steps = (LessonStep(note="old"),)
    document = Document(PROGRAM, "old", None, lesson=LessonExtras(("old",), steps))
    saved = as_lesson(
        document, " Scaling ", "**v** scales x.grad\n", ("Drag v", "Press"), True, 40.0
    )
    assert saved.program == PROGRAM, "the code, values and backward calls are kept"
    assert saved.title == "Scaling" and saved.notes == "**v** scales x.grad"
    assert saved.lesson == LessonExtras(("Drag v", "Press")), "prompts given, no steps"
    assert saved.scale_lock and saved.locked_scale == 40.0
    path = tmp_path / "lesson.json"
    save_session(saved, path)
    assert load_session(path) == saved


def test_unlocked_and_empty_texts(tmp_path: Path) -> None:
    saved = as_lesson(Document(PROGRAM), "", "  ", (), False, 40.0)
    assert saved.title is None and saved.notes is None
    assert not saved.scale_lock and saved.locked_scale is None
    save_session(saved, tmp_path / "l.json")
    assert load_session(tmp_path / "l.json") == saved


def test_a_lesson_the_format_refuses_is_not_written(tmp_path: Path) -> None:
    saved = as_lesson(Document(PROGRAM), "T", "", ("1", "2", "3", "4", "5"), False)
    with pytest.raises(SessionFileError, match="prompts: 5 prompts"):
        save_session(saved, tmp_path / "l.json")
    assert not (tmp_path / "l.json").exists()
