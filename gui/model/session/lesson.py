"""A lesson's extras over a session: its "Try this" prompts and its steps (slides).

Plain data only; the file format is read by :mod:`.lesson_format`, steps are applied by
:mod:`.lesson_steps`. The format is documented in ``docs/session-format.md`` ("Lessons:
prompts and steps").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gui.model.result import NestedValues

# The pages a step may raise: each is the objectName of a page the window shows
# (MainWindow.show_view); "details" is the node details pane.
VIEWS = ("plots", "jacobian", "function", "memory", "replay", "details")
MAX_PROMPTS = 4
MAX_PROMPT_CHARS = 300
MAX_LESSON_STEPS = 30
MAX_STEP_NOTE_CHARS = 2_000
MAX_SELECT_CHARS = 200


@dataclass(frozen=True)
class LessonStep:
    """One slide of a lesson: what it changes, and its note.

    ``None`` means "leaves it as it is", except where a ``sets_*`` flag says the field was
    given: ``gradient`` and ``select`` may be set to ``null`` on purpose (the implicit
    gradient; no selection).
    """

    note: str | None = None
    code: str | None = None
    values: Mapping[str, NestedValues] | None = None
    gradient: NestedValues | None = None
    sets_gradient: bool = False
    backward: bool = False
    select: str | None = None
    sets_select: bool = False
    view: str | None = None


@dataclass(frozen=True)
class LessonPosition:
    """Where a lesson with steps stands, for the step bar and the window.

    ``index`` counts from 0 (the bar shows ``index + 1``); ``note`` is this step's own;
    ``view`` is the page the steps so far last asked for (``None``: none asked).
    """

    index: int
    count: int
    note: str | None = None
    view: str | None = None

    @property
    def label(self) -> str:
        """``"Step 2 of 5"``."""
        return f"Step {self.index + 1} of {self.count}"

    @property
    def at_first(self) -> bool:
        return self.index == 0

    @property
    def at_last(self) -> bool:
        return self.index == self.count - 1


@dataclass(frozen=True)
class LessonExtras:
    """What a session file adds to be a lesson: prompts and steps (both may be empty)."""

    prompts: tuple[str, ...] = ()
    steps: tuple[LessonStep, ...] = field(default=())
