"""What a session file holds: a program, and a lesson's title and notes."""

from __future__ import annotations

from dataclasses import dataclass, field

from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS, Program, RunRequest
from gui.model.session.lesson import LessonExtras


@dataclass(frozen=True)
class Document:
    """The contents of a session file (format in ``docs/session-format.md``).

    ``program.steps`` is ``None`` when the file has no ``"backward"`` field: one implicit
    step, unless the code calls backward itself (see :class:`~gui.model.request.Program`).
    ``scale_lock``/``locked_scale``: see the session format's "Scale lock".
    """

    program: Program
    title: str | None = None
    notes: str | None = None
    # The colour scale and the plots' axes stay put while values change (a lesson that
    # compares values); ``locked_scale`` is the magnitude they are locked at (``None``:
    # the first result's, rounded up: see Session.set_scale_lock).
    scale_lock: bool = False
    locked_scale: float | None = None
    # A lesson's "Try this" prompts and steps (docs: "Lessons: prompts and steps").
    lesson: LessonExtras = field(default_factory=LessonExtras)

    def request(self, time_limit: float = DEFAULT_TIME_LIMIT_SECONDS) -> RunRequest:
        """What to ask the engine for to run this document as it is."""
        return RunRequest(self.program, time_limit=time_limit)
