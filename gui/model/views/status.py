"""Whether the picture matches the code, in one line: the code panel's status strip
(:func:`status_for`) and the window's status bar (:func:`status_bar_text`)."""

from __future__ import annotations

from gui.model.session import Snapshot
from gui.model.views.diagnostics import ERROR_TINT
from gui.model.visible_text import visible_controls

# (background, text) of the status strip in each state; dark text on light tints throughout.
STATUS_STYLES: dict[str, tuple[str, str]] = {
    "ok": ("#eef5ee", "#24522a"),
    "pending": ("#ececec", "#303030"),
    "running": ("#e4ecf7", "#1d3c63"),
    "stale": ("#fff0a6", "#4a3800"),
    "off": ("#ffe3bd", "#4a2e00"),
    "error": (ERROR_TINT, "#7f1d1d"),
    "warning": ("#fff4e0", "#6b3f00"),
}


STARTING_TEXT = "Starting the engine…"
STATUS_MESSAGE_CHARS = 150
NOT_RUN_TEXT = "Nothing has run yet."


def starting(snapshot: Snapshot, ever_ran: bool) -> bool:
    """Whether the window is still waiting for its very first result: the engine's process
    is importing torch. ``ever_ran``: a result (or error) has been shown before."""
    return not ever_ran and snapshot.running and snapshot.result is None


def waiting_text(snapshot: Snapshot, ever_ran: bool) -> str | None:
    """What the explanation box says before a run has answered (``None`` once one has):
    never "No errors", which would claim a run that has not happened."""
    if snapshot.result is not None or snapshot.error is not None:
        return None
    if starting(snapshot, ever_ran):
        return STARTING_TEXT
    return "Running…" if snapshot.running else NOT_RUN_TEXT


def status_for(snapshot: Snapshot, pending: bool, ever_ran: bool = True) -> tuple[str, str]:
    """The status strip's text and style (a :data:`STATUS_STYLES` key).

    ``pending`` is true while typed text waits for the typing pause; ``ever_ran`` is false
    until the first result has come back (before it, a run is the engine starting).
    """
    if starting(snapshot, ever_ran):
        return STARTING_TEXT, "running"
    if pending and snapshot.live:
        return "Edited: runs when you stop typing", "pending"
    if snapshot.running:
        return "Running…", "running"
    never_ran = snapshot.result is None and bool(snapshot.code.strip())
    if not snapshot.live and (snapshot.stale or pending or never_ran):
        return "Live is off: press Ctrl+Enter to run", "off"
    if snapshot.stale and snapshot.error is not None:
        return "Showing the last good result: fix the error to update", "stale"
    if snapshot.stale and snapshot.warnings:
        return "Showing the last good result: the new code makes no graph", "stale"
    if snapshot.stale:
        return "Updating…", "running"
    if snapshot.error is not None:
        where = "" if snapshot.error.line is None else f" on line {snapshot.error.line}"
        return f"Error{where}: see the explanation below", "error"
    if snapshot.warnings:
        count = len(snapshot.warnings)
        return f"{count} warning{'s' if count > 1 else ''}: see the explanation below", "warning"
    if not snapshot.code.strip():
        return "Type some PyTorch code to start", "pending"
    return "Up to date", "ok"


def status_bar_text(snapshot: Snapshot, ever_ran: bool = True) -> str:
    """The window's status bar: starting, the error's first line, or what is shown.

    A long first line is cut at :data:`STATUS_MESSAGE_CHARS` characters (and the bar
    shortens it further to its width, whole on hover); the bar's link opens the whole
    explanation (:func:`has_explanation`).
    """
    if starting(snapshot, ever_ran):
        return STARTING_TEXT
    if snapshot.running and snapshot.result is None:
        return "Running…"
    if snapshot.error is not None:
        line = f" (line {snapshot.error.line})" if snapshot.error.line else ""
        message = visible_controls(snapshot.error.message)  # a program's own text, as written
        first = message.splitlines()[0] if message else ""
        if len(first) > STATUS_MESSAGE_CHARS:
            first = first[: STATUS_MESSAGE_CHARS - 1] + "…"
        if stopped_by_time_limit(snapshot) and snapshot.time_limit < TIME_LIMIT_CHOICES[-1]:
            most = seconds_text(TIME_LIMIT_CHOICES[-1])
            first += f" A long loop may need more: Run > Time Limit (up to {most})."
        return f"{snapshot.error.kind}{line}: {first}"
    if snapshot.stale and not snapshot.live:
        return "Changed: press F5 to run (live is off)"
    result = snapshot.result
    if any(w.kind == "no-output" for w in snapshot.warnings):
        shown = " (the graph is the last one)" if result is not None else ""
        return f"No tensor has a grad_fn: nothing to differentiate, no backward ran{shown}"
    if result is None:
        return "Ready"
    # No timing here: a number changing on every slider tick relayouts the status bar.
    out = result.output or "—"
    added = snapshot.program.steps is None and not any(s.source == "code" for s in result.steps)
    if added and result.no_added_backward == "forward-ad":
        return f"Up to date · output {out}: forward-mode AD only, no backward() added"
    if added and result.output is not None:
        return (
            f"Up to date · output {out}: the app adds {out}.backward() "
            "(your code does not call backward)"
        )
    return f"Up to date · output {out}"


def stopped_by_time_limit(snapshot: Snapshot) -> bool:
    """Whether the newest run was stopped for running past its time limit."""
    error = snapshot.error
    return error is not None and error.kind == "runaway-code" and "ran longer than" in error.message


def has_explanation(snapshot: Snapshot) -> bool:
    """Whether the status bar offers its link to the explanation (an error or warnings)."""
    return snapshot.error is not None or bool(snapshot.warnings)


# The time limits the window offers (Run > Time Limit, and the status bar's button): the
# default suits a slider drag; a training loop of a few thousand steps needs more.
TIME_LIMIT_CHOICES: tuple[float, ...] = (1.5, 3.0, 5.0, 10.0, 30.0)
# A run taking longer than this shows its elapsed time in the status bar.
PROGRESS_AFTER_SECONDS = 0.3


def seconds_text(seconds: float) -> str:
    """``1.5`` -> ``"1.5 s"``, ``30.0`` -> ``"30 s"``."""
    return f"{seconds:g} s"


def time_limit_text(seconds: float) -> str:
    """The status bar button's text: ``"Time limit: 1.5 s"``."""
    return f"Time limit: {seconds_text(seconds)}"


def running_text(elapsed: float, limit: float) -> str:
    """The status bar while a long run goes on: ``"Running… 2.4 s (stops at 5 s)"``."""
    return f"Running… {elapsed:.1f} s (stops at {seconds_text(limit)}: Run > Time Limit)"
