"""File > Save as Lesson: the window as it is now, as a new lesson file's contents.

The lesson keeps the session's code, values, output and backward calls (its starting
state), and takes the title, notes, prompts and scale lock the teacher gives; it has no
steps. Whether it is a valid file is decided by the format itself when it is written
(:func:`.file_format.session_text` reads it back), so a prompt too many is refused with
the format's own sentence naming the field.
"""

from __future__ import annotations

from dataclasses import replace

from gui.model.session.document import Document
from gui.model.session.lesson import LessonExtras


def prompts_from_text(text: str) -> tuple[str, ...]:
    """One prompt per non-empty line, trimmed (a leading ``- `` bullet is dropped)."""
    lines = (line.strip() for line in text.splitlines())
    return tuple(line.removeprefix("- ").strip() for line in lines if line.strip())


def as_lesson(
    document: Document,
    title: str,
    notes: str,
    prompts: tuple[str, ...],
    scale_lock: bool,
    locked_scale: float | None = None,
) -> Document:
    """``document`` as a lesson: these texts, no steps, the colour scale locked (at
    ``locked_scale``; ``None``: at the first result's) or not. Empty title or notes are
    left out."""
    return replace(
        document,
        title=title.strip() or None,
        notes=notes.strip() or None,
        scale_lock=scale_lock,
        locked_scale=locked_scale if scale_lock else None,
        lesson=LessonExtras(prompts=prompts),
    )
