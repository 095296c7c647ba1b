"""What a running program says besides its tensors: printed text, warnings, positions.

Everything here finds "where in the user's code" by looking for frames compiled from
:data:`PROGRAM_FILENAME`, so a print or a warning inside a helper ``def`` is attributed to
the line in that helper, as a traceback would show it.
"""

from __future__ import annotations

import re
import sys
import traceback
import warnings
from collections import deque
from collections.abc import Callable
from types import FrameType
from typing import Generic, TypeVar

import torch

from gui.model import explain
from gui.model.result import Explanation, PrintedLine, bounded_text, left_out

PROGRAM_FILENAME = "<program>"
# What a result keeps of the printed text: the first and the last chunks (one chunk per
# ``print`` call), up to these counts and characters each, and each chunk cut to
# :data:`~gui.model.result.MAX_TEXT_CHARS`. 100,000 characters fill the printed-output tab
# in a few milliseconds; the start shows what the program did, the end where it got to.
KEPT_PRINTED_CHUNKS = 500
KEPT_PRINTED_CHARS = 50_000
# A program that prints this often is stopped (a loop that never ends, usually): printing
# costs time even when the text is not kept.
MAX_PRINT_CALLS = 100_000
# Distinct warnings kept, first and last (a warning whose text changes every iteration of a
# loop would otherwise add one explanation per iteration).
KEPT_WARNINGS = 10
# The set of warnings already seen is only a shortcut (repeats are dropped before they are
# explained); past this size repeats are explained again and dropped by the bound above.
MAX_SEEN_WARNINGS = 10_000
# Categories Python's default filters show only when the warning points at the program's
# own code (``default::DeprecationWarning:__main__``, the rest ignored): a deprecation inside
# a library (``torch.func.jacfwd`` warning about ``torch.jit.script`` it calls) is not the
# learner's to act on, and their own Python would not show it.
LIBRARY_ONLY_CATEGORIES: tuple[type[Warning], ...] = (
    DeprecationWarning,
    PendingDeprecationWarning,
    ImportWarning,
    ResourceWarning,
)

T = TypeVar("T")


class OutputLimitReached(BaseException):
    """The program printed more than the app keeps (a runaway loop, usually).

    A ``BaseException`` so a program's ``except Exception:`` does not swallow it."""


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


def program_frames(exc: BaseException) -> list[tuple[FrameType, int]]:
    """The frames of the user's code in ``exc``'s traceback and the line each was at,
    outermost first (the last one is where it was raised)."""
    return [
        (frame, line)
        for frame, line in traceback.walk_tb(exc.__traceback__)
        if frame.f_code.co_filename == PROGRAM_FILENAME
    ]


# `name.grad` written on a line: a plain name (not an attribute's: `(?<![\w.])`), bounded.
_GRAD_READ = re.compile(r"(?<![\w.])([A-Za-z_]\w{0,99})\.grad\b")


def none_grads(frame: FrameType, source: str | None) -> tuple[str, ...]:
    """The names written ``name.grad`` on ``source`` whose ``.grad`` is None in ``frame``
    (where the line failed). Plain tensors and parameters only: reading ``grad`` of
    anything else (a program's own class with a ``grad`` property) could run its code."""
    found = []
    for name in dict.fromkeys(_GRAD_READ.findall(source or "")):
        value = frame.f_locals.get(name, frame.f_globals.get(name))
        if value is None or type(value) not in (torch.Tensor, torch.nn.Parameter):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a non-leaf's `.grad` warns; the program did
            if value.grad is None:
                found.append(name)
    return tuple(found)


class FirstAndLast(Generic[T]):
    """Keeps the first ``count`` items and the last ``count`` (each side also within
    ``chars`` by ``size``), and counts the ones in between it let go.

    Memory stays bounded however many items arrive: the tail is a window that slides.
    """

    def __init__(self, count: int, chars: int = 0, size: Callable[[T], int] = lambda _: 0):
        self._count = count
        self._chars = chars
        self._size = size
        self.head: list[T] = []
        self.tail: deque[T] = deque()
        self._head_chars = 0
        self._tail_chars = 0
        self.left_out = 0
        self.last_left_out: T | None = None

    def add(self, item: T) -> None:
        size = self._size(item)
        head_full = len(self.head) >= self._count or (
            self._chars and self._head_chars + size > self._chars
        )
        if not head_full and not self.tail:
            self.head.append(item)
            self._head_chars += size
            return
        self.tail.append(item)
        self._tail_chars += size
        while len(self.tail) > self._count or (
            self._chars and self._tail_chars > self._chars and len(self.tail) > 1
        ):
            dropped = self.tail.popleft()
            self._tail_chars -= self._size(dropped)
            self.left_out += 1
            self.last_left_out = dropped

    def __len__(self) -> int:
        return len(self.head) + len(self.tail)


class PrintCapture:
    """The ``print`` the program gets: keeps each call's text with its line.

    ``steps_done`` tells how many backward steps ran before each print, so a view can
    interleave printed text with the steps as they happened; ``step_running`` which one
    (from 1) is running, if any. Only the first and the last chunks are kept
    (:class:`FirstAndLast`); :attr:`lines` says how many were left out.
    """

    def __init__(
        self,
        steps_done: Callable[[], int],
        step_running: Callable[[], int | None] = lambda: None,
    ) -> None:
        self._kept: FirstAndLast[PrintedLine] = FirstAndLast(
            KEPT_PRINTED_CHUNKS, KEPT_PRINTED_CHARS, lambda p: len(p.text)
        )
        self._calls = 0
        self._steps_done = steps_done
        self._step_running = step_running

    @property
    def truncated(self) -> bool:
        """Whether some printed text is not kept (left out, or printing was stopped)."""
        return self._kept.left_out > 0 or self._calls > MAX_PRINT_CALLS

    @property
    def lines(self) -> list[PrintedLine]:
        """The chunks kept, with one entry saying how many were left out between them."""
        kept = self._kept
        if not kept.left_out:
            return [*kept.head, *kept.tail]
        last = kept.last_left_out
        marker = PrintedLine(
            line=None,
            text=left_out(kept.left_out, "printed lines" if kept.left_out > 1 else "printed line"),
            after_step=last.after_step if last is not None else 0,
            left_out=kept.left_out,
        )
        return [*kept.head, marker, *kept.tail]

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
        self._calls += 1
        if self._calls > MAX_PRINT_CALLS:
            raise OutputLimitReached
        text = (" " if sep is None else sep).join(str(a) for a in args)
        text += "\n" if end is None else end
        self._kept.add(
            PrintedLine(
                line=program_line(),
                text=bounded_text(text.removesuffix("\n")),
                after_step=self._steps_done(),
                during_step=self._step_running(),
            )
        )


class WarningCapture:
    """Stands in for ``warnings.showwarning``: explains each distinct warning once per line.

    Keeps the first and the last :data:`KEPT_WARNINGS` (see :attr:`explained`).
    """

    def __init__(self, context_for: Callable[[int | None], explain.ErrorContext]) -> None:
        self._kept: FirstAndLast[Explanation] = FirstAndLast(KEPT_WARNINGS)
        self._seen: set[tuple[str, int | None]] = set()
        self._context_for = context_for

    @property
    def explained(self) -> list[Explanation]:
        """The warnings kept, with one saying how many were left out between them."""
        kept = self._kept
        if not kept.left_out:
            return [*kept.head, *kept.tail]
        count = kept.left_out
        marker = Explanation(
            kind="warnings-left-out",
            message=left_out(count, "warnings" if count > 1 else "warning"),
            explanation=f"The program raised {len(kept) + count:,} different warnings; the "
            f"app keeps the first {len(kept.head)} and the last {len(kept.tail)}.",
            fix="Fix the first warning: the others often follow from it.",
            severity="warning",
        )
        return [*kept.head, marker, *kept.tail]

    def __call__(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: object = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, LIBRARY_ONLY_CATEGORIES) and filename != PROGRAM_FILENAME:
            return
        where = program_line()
        text = bounded_text(str(message))
        key = (text, where)
        if key in self._seen:  # a loop repeats a warning; once per line is enough to learn from
            return
        if len(self._seen) < MAX_SEEN_WARNINGS:
            self._seen.add(key)
        self._kept.add(
            explain.explain_warning(
                category.__name__, text, line=where, context=self._context_for(where)
            )
        )
