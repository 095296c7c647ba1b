"""Where a session's runs happen: the seam between the model and the app's threads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")


class Dispatcher(Protocol):
    """Runs ``work`` somewhere and hands its return value to ``done`` on the caller's thread.

    ``inline`` says ``submit`` returns only after ``done`` ran (no event loop involved).
    The window passes a worker-thread dispatcher (:mod:`gui.widgets.thread_dispatcher`).
    """

    inline: bool

    def submit(self, work: Callable[[], T], done: Callable[[T], None]) -> None: ...


class ImmediateDispatcher:
    """Runs work inline: deterministic, for tests and scripts without an event loop."""

    inline = True

    def submit(self, work: Callable[[], T], done: Callable[[T], None]) -> None:
        done(work())
