"""What the code panel explains: the newest error and warnings in plain words, as HTML, and
what the program printed.

An error shows the exception class, torch's exact message (selectable, so it can be pasted
into a search engine), the plain explanation and the suggested fix; warnings look the same
in a calmer colour. Printed chunks follow the line number that printed them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from gui.model.result import Explanation, PrintedLine
from gui.model.visible_text import visible_controls

# Status colours: red for what stopped the program, orange for what merely looks wrong.
# Deliberately not the diverging scale's red/blue, which means "gradient sign" everywhere else.
ERROR_COLOR = "#c62828"
ERROR_TINT = "#fdecea"
WARNING_COLOR = "#e07000"
WARNING_TEXT = "#8a4b00"
WARNING_TINT = "#fff4e0"
OK_TEXT = "#2e6b2e"
WAITING_TEXT = "#505050"

# Enough of torch's message to recognise and search for it; some run to a dozen lines.
MAX_MESSAGE_LINES = 6
MAX_WARNINGS = 3
_CODE_SPAN = re.compile(r"`([^`]+)`")


def rich_text(text: str, mono_family: str) -> str:
    """``text`` as HTML with every ``backticked`` span in the monospace font."""
    family = html.escape(mono_family, quote=True)
    return _CODE_SPAN.sub(
        lambda m: f"<span style=\"font-family:'{family}'\">{m.group(1)}</span>",
        html.escape(visible_controls(text), quote=False),
    )


def _first_lines(message: str) -> str:
    lines = message.strip("\n").splitlines()
    if len(lines) <= MAX_MESSAGE_LINES:
        return "\n".join(lines)
    return "\n".join([*lines[:MAX_MESSAGE_LINES], "…"])


def _heading(item: Explanation) -> str:
    name = item.exception or ("Warning" if item.severity == "warning" else "Error")
    return name if item.line is None else f"{name} on line {item.line}"


def explanation_html(item: Explanation, mono_family: str) -> str:
    """One error or warning: heading, explanation, fix, then torch's exact message.

    The plain words and the fix come first, so they are what shows without scrolling in a
    short panel; torch's message (kept whole, to paste into a search engine) follows.
    """
    is_error = item.severity == "error"
    color = ERROR_COLOR if is_error else WARNING_TEXT
    tint = ERROR_TINT if is_error else WARNING_TINT
    family = html.escape(mono_family, quote=True)
    parts = [f'<p style="margin:0 0 3px 0; color:{color}"><b>{html.escape(_heading(item))}</b></p>']
    if item.explanation:
        parts.append(f'<p style="margin:0 0 5px 0">{rich_text(item.explanation, mono_family)}</p>')
    if item.fix:
        parts.append(
            f'<p style="margin:0 0 5px 0"><b>Fix:</b> {rich_text(item.fix, mono_family)}</p>'
        )
    message = visible_controls(_first_lines(item.message))
    if message:
        parts.append(
            f'<p style="margin:0 0 10px 0; background-color:{tint}; white-space:pre-wrap; '
            f"font-family:'{family}'\">{html.escape(message, quote=False)}</p>"
        )
    return "".join(parts)


def diagnostics_html(
    error: Explanation | None,
    warnings: Sequence[Explanation],
    mono_family: str,
    waiting: str | None = None,
) -> str:
    """The whole explanation box: the error first, then up to :data:`MAX_WARNINGS`.

    ``waiting`` says why nothing has run yet ("Starting the engine…"): without errors it
    is shown instead of "No errors", which would claim a run that has not happened.
    """
    if error is None and not warnings:
        if waiting:
            return f'<p style="color:{WAITING_TEXT}">{html.escape(waiting)}</p>'
        return f'<p style="color:{OK_TEXT}">✓ No errors: the code ran cleanly.</p>'
    parts = [] if error is None else [explanation_html(error, mono_family)]
    parts += [explanation_html(w, mono_family) for w in warnings[:MAX_WARNINGS]]
    hidden = len(warnings) - MAX_WARNINGS
    if hidden > 0:
        more = "warning" if hidden == 1 else "warnings"
        parts.append(f'<p style="color:{WARNING_TEXT}">…and {hidden} more {more}.</p>')
    return "".join(parts)


def printed_text(printed: Sequence[PrintedLine], truncated: bool = False) -> str:
    """What the program printed, each chunk after the line number that printed it."""
    width = max((len(str(p.line)) for p in printed if p.line is not None), default=1)
    out = []
    for p in printed:
        if p.left_out:  # a long output keeps its start and end: say what is missing between
            out.append(f"{'':>{width}} ┆ {p.text}")
            continue
        prefix = f"{'?' if p.line is None else p.line:>{width}} │ "
        lines = visible_controls(p.text).split("\n")
        if p.during_step is not None:  # why a line is printed twice: backward ran it again
            lines[-1] += f"   ← inside backward call {p.during_step}"
        out.append(prefix + lines[0])
        out += [" " * (width + 1) + "│ " + rest for rest in lines[1:]]
    if truncated and not any(p.left_out for p in printed):
        out.append("… printing stopped here (too many lines)")
    return "\n".join(out)
