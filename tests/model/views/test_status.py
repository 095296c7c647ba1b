"""The status strip and the status bar say whether the picture matches the code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gui.model.engine.run import run_program
from gui.model.explain import explain_runaway
from gui.model.request import RunRequest
from gui.model.result import RunResult, failed_result
from gui.model.session import Session
from gui.model.views.status import (
    NOT_RUN_TEXT,
    STARTING_TEXT,
    STATUS_MESSAGE_CHARS,
    STATUS_STYLES,
    has_explanation,
    starting,
    status_bar_text,
    status_for,
    waiting_text,
)

GOOD = "x = torch.tensor([3., 4.], requires_grad=True)\ny = (x ** 2).sum()\n"


def test_an_empty_session_asks_for_code(session: Session) -> None:
    assert status_for(session.snapshot, False) == ("Type some PyTorch code to start", "pending")
    assert status_bar_text(session.snapshot) == "Ready"


def test_a_good_run_is_up_to_date_and_names_its_output(session: Session) -> None:
    session.set_code(GOOD)
    assert status_for(session.snapshot, False) == ("Up to date", "ok")
    assert status_for(session.snapshot, True) == ("Edited: runs when you stop typing", "pending")
    assert status_bar_text(session.snapshot) == (
        "Up to date · output y: the app adds y.backward() (your code does not call backward)"
    )
    session.set_code(GOOD + "y.backward()\n")
    assert status_bar_text(session.snapshot) == "Up to date · output y"
    session.set_code("x = torch.tensor([3., 4.], requires_grad=True)\n")
    assert status_bar_text(session.snapshot) == (
        "No tensor has a grad_fn: nothing to differentiate, no backward ran "
        "(the graph is the last one)"
    )


def test_an_error_points_at_its_line(session: Session) -> None:
    session.set_code("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * 2\n")
    snapshot = session.snapshot
    assert snapshot.error is not None and snapshot.error.line is not None
    text, style = status_for(snapshot, False)
    assert style == "error"
    assert text == f"Error on line {snapshot.error.line}: see the explanation below"
    assert status_bar_text(snapshot).startswith(
        f"{snapshot.error.kind} (line {snapshot.error.line}): "
    )


def test_live_off_asks_for_a_run(session: Session) -> None:
    session.set_code(GOOD)
    session.set_live(False)
    session.set_input("x", 0, 1.0)
    assert status_for(session.snapshot, False) == ("Live is off: press Ctrl+Enter to run", "off")
    assert status_bar_text(session.snapshot) == "Changed: press F5 to run (live is off)"


def test_every_status_has_colours() -> None:
    styles = {"ok", "pending", "running", "stale", "off", "error", "warning"}
    assert set(STATUS_STYLES) == styles
    assert all(len(colours) == 2 for colours in STATUS_STYLES.values())


class Held:
    """A dispatcher that keeps runs until released: the window's wait for the engine."""

    inline = False

    def __init__(self) -> None:
        self.held: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []

    def submit(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        self.held.append((work, done))

    def release(self) -> None:
        while self.held:
            work, done = self.held.pop(0)
            done(work())


def test_the_first_run_says_the_engine_is_starting_never_no_errors() -> None:
    held = Held()
    session = Session(run_program, held)
    session.set_code(GOOD)
    snapshot = session.snapshot
    assert snapshot.running and snapshot.result is None
    assert starting(snapshot, ever_ran=False)
    assert status_for(snapshot, False, ever_ran=False) == (STARTING_TEXT, "running")
    assert status_bar_text(snapshot, ever_ran=False) == STARTING_TEXT
    assert waiting_text(snapshot, ever_ran=False) == STARTING_TEXT
    # A later document's first run is only running: the engine answered before.
    assert status_bar_text(snapshot, ever_ran=True) == "Running…"
    assert waiting_text(snapshot, ever_ran=True) == "Running…"
    held.release()
    assert waiting_text(session.snapshot, ever_ran=False) is None, "a result: errors or none"


def test_nothing_run_yet_is_not_no_errors(session: Session) -> None:
    assert waiting_text(session.snapshot, ever_ran=False) == NOT_RUN_TEXT


def test_the_status_bar_cuts_a_long_first_line_and_offers_the_explanation(
    session: Session,
) -> None:
    session.set_code("assert False, 'a' * 500\n")
    snapshot = session.snapshot
    assert snapshot.error is not None and has_explanation(snapshot)
    text = status_bar_text(snapshot)
    assert text.endswith("…") and len(text) < STATUS_MESSAGE_CHARS + 60
    session.set_code(GOOD)
    assert not has_explanation(session.snapshot)


def test_a_run_stopped_by_the_time_limit_points_at_the_control() -> None:
    # What EngineProcess answers for a run it stopped (engine_process.py).
    def stopped(request: RunRequest) -> RunResult:
        return failed_result(explain_runaway("time", seconds=request.time_limit))

    session = Session(stopped)
    session.set_code("x = 1\n")
    text = status_bar_text(session.snapshot)
    assert text.endswith("A long loop may need more: Run > Time Limit (up to 30 s).")
    session.set_time_limit(30.0)
    assert "Run > Time Limit" not in status_bar_text(session.snapshot)


def test_a_message_that_would_read_backwards_is_shown_as_written(session: Session) -> None:
    """A program's own exception text with a right-to-left override: the status bar shows
    the escape, not "Saved to /home/u enod"."""
    session.set_code("raise ValueError('Saved to \\u2066/home/u\\u2069 \\u202edone')\n")
    text = status_bar_text(session.snapshot)
    assert "\u202e" not in text and "\u2066" not in text
    assert text.endswith("Saved to \\u2066/home/u\\u2069 \\u202edone")
