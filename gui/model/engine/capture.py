"""What a running program says besides its tensors: printed text, warnings, positions.

Everything here finds "where in the user's code" by looking for frames compiled from
:data:`PROGRAM_FILENAME`, so a print or a warning inside a helper ``def`` is attributed to
the line in that helper, as a traceback would show it.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from types import FrameType

from gui.model import explain
from gui.model.result import Explanation, PrintedLine

PROGRAM_FILENAME = "<program>"
MAX_PRINTED_LINES = 1000
MAX_PRINTED_CHARS = 100_000


class OutputLimitReached(Exception):
    """The program printed more than the app keeps (a runaway loop, usually)."""


def program_line() -> int | None:
    """The line of the user's program currently running (innermost frame), if any."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == PROGRAM_FILENAME:
            return frame.f_lineno
        frame = frame.f_back
    return None


def exception_position(exc: BaseException) -> tuple[int | None, int | None]:
    """Line and 1-based column of the innermost frame of the user's code in ``exc``."""
    line = column = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == PROGRAM_FILENAME:
            line = frame.lineno
            column = frame.colno + 1 if frame.colno is not None else None
    return line, column


class PrintCapture:
    """The ``print`` the program gets: keeps each call's text with its line.

    ``steps_done`` tells how many backward steps ran before each print, so a view can
    interleave printed text with the steps as they happened.
    """

    def __init__(self, steps_done: Callable[[], int]) -> None:
        self.lines: list[PrintedLine] = []
        self.truncated = False
        self._chars = 0
        self._steps_done = steps_done

    def __call__(
        self,
        *args: object,
        sep: str | None = " ",
        end: str | None = "\n",
        file: object = None,
        flush: bool = False,
    ) -> None:
        if file is not None:
            raise TypeError("print(file=...) is not available here: printed text goes to the app")
        text = (" " if sep is None else sep).join(str(a) for a in args)
        text += "\n" if end is None else end
        self._chars += len(text)
        if len(self.lines) >= MAX_PRINTED_LINES or self._chars > MAX_PRINTED_CHARS:
            self.truncated = True
            raise OutputLimitReached
        self.lines.append(
            PrintedLine(
                line=program_line(), text=text.removesuffix("\n"), after_step=self._steps_done()
            )
        )


class WarningCapture:
    """Stands in for ``warnings.showwarning``: explains each distinct warning once per line."""

    def __init__(self, context_for: Callable[[int | None], explain.ErrorContext]) -> None:
        self.explained: list[Explanation] = []
        self._seen: set[tuple[str, int | None]] = set()
        self._context_for = context_for

    def __call__(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: object = None,
        line: str | None = None,
    ) -> None:
        where = program_line()
        key = (str(message), where)
        if key in self._seen:  # a loop repeats a warning; once per line is enough to learn from
            return
        self._seen.add(key)
        self.explained.append(
            explain.explain_warning(
                category.__name__, str(message), line=where, context=self._context_for(where)
            )
        )
