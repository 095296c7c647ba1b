"""Errors and warnings as HTML, and what the program printed, line by line."""

from __future__ import annotations

from gui.model.result import Explanation, PrintedLine
from gui.model.views.diagnostics import (
    ERROR_COLOR,
    MAX_MESSAGE_LINES,
    MAX_WARNINGS,
    WARNING_TEXT,
    diagnostics_html,
    explanation_html,
    printed_text,
    rich_text,
)

ERROR = Explanation(
    kind="non-scalar-backward",
    message="grad can be implicitly created only for scalar outputs",
    explanation="`y` has two elements",
    fix="Call `y.sum().backward()`",
    line=2,
    exception="RuntimeError",
)


def warning(n: int) -> Explanation:
    return Explanation("w", f"warning {n}", "", "", severity="warning")


def test_backticks_become_monospace_and_the_rest_is_escaped() -> None:
    assert rich_text("a `b<c>` & d", "Mono") == (
        "a <span style=\"font-family:'Mono'\">b&lt;c&gt;</span> &amp; d"
    )


def test_an_error_shows_class_line_message_explanation_and_fix() -> None:
    page = explanation_html(ERROR, "Mono")
    assert f"color:{ERROR_COLOR}" in page
    assert "<b>RuntimeError on line 2</b>" in page
    assert "grad can be implicitly created only for scalar outputs" in page
    assert "<b>Fix:</b> Call <span" in page


def test_long_messages_are_cut_to_their_first_lines() -> None:
    long = Explanation("k", "\n".join(f"line {i}" for i in range(20)), "", "")
    page = explanation_html(long, "Mono")
    assert f"line {MAX_MESSAGE_LINES - 1}\n…" in page
    assert f"line {MAX_MESSAGE_LINES}" not in page


def test_no_errors_says_so_and_extra_warnings_are_counted() -> None:
    assert "No errors: the code ran cleanly." in diagnostics_html(None, (), "Mono")
    warnings = tuple(warning(n) for n in range(MAX_WARNINGS + 2))
    page = diagnostics_html(ERROR, warnings, "Mono")
    assert page.startswith(explanation_html(ERROR, "Mono"))
    assert page.count(f'color:{WARNING_TEXT}"><b>Warning</b>') == MAX_WARNINGS
    assert page.endswith("…and 2 more warnings.</p>")


def test_printed_chunks_follow_their_line_numbers() -> None:
    printed = (
        PrintedLine(2, "tensor([6., 8.])", 0),
        PrintedLine(10, "a\nb", 0),
        PrintedLine(None, "?", 1),
    )
    assert printed_text(printed) == " 2 │ tensor([6., 8.])\n10 │ a\n   │ b\n ? │ ?"
    assert printed_text((), truncated=True) == "… printing stopped here (too many lines)"


def test_a_chunk_printed_inside_backward_says_which_call() -> None:
    # A hook, a custom Function's backward, a checkpointed block run again.
    printed = (
        PrintedLine(10, "block runs", 0),
        PrintedLine(10, "two\nlines", 0, during_step=1),
        PrintedLine(14, "after", 1),
    )
    assert printed_text(printed) == (
        "10 │ block runs\n10 │ two\n   │ lines   ← inside backward call 1\n14 │ after"
    )


def test_printed_text_says_what_was_left_out_between_start_and_end() -> None:
    printed = (
        PrintedLine(3, "0", 0),
        PrintedLine(None, "… 4,000 printed lines left out …", 0, left_out=4000),
        PrintedLine(3, "4999", 0),
    )
    assert (
        printed_text(printed, truncated=True)
        == "3 │ 0\n  ┆ … 4,000 printed lines left out …\n3 │ 4999"
    )


def test_the_plain_words_and_the_fix_come_before_torchs_message() -> None:
    # In a short panel the top is what shows without scrolling: the explanation and its fix.
    page = explanation_html(ERROR, "Mono")
    heading = page.index("RuntimeError on line 2")
    explanation = page.index("has two elements")
    fix = page.index("<b>Fix:</b>")
    message = page.index("grad can be implicitly created")
    assert heading < explanation < fix < message


def test_before_any_run_it_says_why_instead_of_no_errors() -> None:
    page = diagnostics_html(None, (), "Mono", waiting="Starting the engine…")
    assert "Starting the engine…" in page and "No errors" not in page
    assert "grad can be" in diagnostics_html(ERROR, (), "Mono", waiting="Starting the engine…")


def test_controls_a_program_prints_or_raises_are_shown_as_escapes() -> None:
    """A right-to-left override would turn the rest of the line around on screen (and the
    app's own mark after it); a bell, a lone carriage return or a line separator hide or
    break text. Each reads as the escape a learner would write."""
    printed = (PrintedLine(3, "loss \u202e0.5 = ssol\tok\rback\x07\u2028x", 0, during_step=1),)
    text = printed_text(printed)
    assert text == "3 │ loss \\u202e0.5 = ssol\tok\\rback\\x07\\u2028x   ← inside backward call 1"
    raised = Explanation(
        "program-error",
        "Saved to \u2066/home/x\u2069 \u200fdone",
        "`w\u202e` is \u061cnot",
        "",
        exception="ValueError",
    )
    shown = explanation_html(raised, "mono")
    for control in "\u202e\u2066\u2069\u200f\u061c":
        assert control not in shown
    assert "\\u2066/home/x\\u2069 \\u200fdone" in shown and "\\u202e" in shown
    assert printed_text((PrintedLine(1, "مرحبا hello", 0),)) == "1 │ مرحبا hello"
