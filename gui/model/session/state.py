"""The state of one window's session: the document being edited and what the window adds."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from gui.model.request import Program, RunRequest
from gui.model.session.document import Document
from gui.model.session.ranges import InputRange


@dataclass(frozen=True)
class SessionState:
    """What the user asked for, frozen: every user action makes a new one.

    ``document`` is what a save writes; ``ranges`` are the slider ranges the user set;
    ``zero_after`` is a pending "Zero grad" press (zero every ``.grad`` after the last
    backward call); ``one_off_zero`` is the index of the step whose zeroing came from such a
    press rather than from the "zero grads before each backward" option.
    """

    document: Document
    ranges: dict[str, InputRange] = field(default_factory=dict)
    zero_after: bool = False
    one_off_zero: int | None = None

    @property
    def program(self) -> Program:
        return self.document.program

    def with_program(self, **changes: Any) -> SessionState:
        """This state with some fields of the program replaced."""
        return replace(
            self, document=replace(self.document, program=replace(self.program, **changes))
        )

    def request(self, time_limit: float) -> RunRequest:
        """What this state asks the engine for."""
        return RunRequest(self.program, time_limit=time_limit, zero_grad_after=self.zero_after)
