"""What the code panel tells the user: a status strip, the newest error and warnings in
plain words (and where they point in the editor), and what the program printed.

An error shows the exception class, torch's exact message (selectable, so it can be pasted
into a search engine), the plain explanation and the suggested fix; warnings look the same
in a calmer colour. A second tab holds what the program's ``print()`` calls wrote.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QPlainTextEdit,
    QTabWidget,
    QTextBrowser,
    QTextEdit,
    QWidget,
)

from gui.model.result import Explanation, PrintedLine
from gui.model.session.snapshot import Snapshot

# Status colours: red for what stopped the program, orange for what merely looks wrong.
# Deliberately not the diverging scale's red/blue, which means "gradient sign" everywhere else.
ERROR_COLOR = "#c62828"
ERROR_TINT = "#fdecea"
WARNING_COLOR = "#e07000"
WARNING_TEXT = "#8a4b00"
WARNING_TINT = "#fff4e0"
OK_TEXT = "#2e6b2e"

# Enough of torch's message to recognise and search for it; some run to a dozen lines.
MAX_MESSAGE_LINES = 6
MAX_WARNINGS = 3
# Runs usually take milliseconds: flashing "Running…" on every slider tick would only distract.
RUNNING_NOTICE_DELAY_MS = 150
_CODE_SPAN = re.compile(r"`([^`]+)`")


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


def status_for(snapshot: Snapshot, pending: bool) -> tuple[str, str]:
    """The status strip's text and style (a :data:`STATUS_STYLES` key)."""
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


def monospace_font(point_size: float) -> QFont:
    """The system's fixed-pitch font at ``point_size`` (never below 11 pt: projectors)."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(max(11.0, point_size))
    return font


def rich_text(text: str, mono_family: str) -> str:
    """``text`` as HTML with every ``backticked`` span in the monospace font."""
    family = html.escape(mono_family, quote=True)
    return _CODE_SPAN.sub(
        lambda m: f"<span style=\"font-family:'{family}'\">{m.group(1)}</span>",
        html.escape(text, quote=False),
    )


def diagnostic_span(document: QTextDocument, item: Explanation) -> QTextCursor:
    """The text to underline for ``item``: from its column (1-based) if known, else its
    line without the indent. Lines past the end mean the last line (an unclosed bracket)."""
    count = document.blockCount()
    block = document.findBlockByNumber(min(max(item.line or 1, 1), count) - 1)
    text = block.text()
    start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    if item.column is not None and start < item.column <= end:
        start = item.column - 1
    if end <= start:
        start, end = 0, len(text)
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + start)
    cursor.setPosition(block.position() + end, QTextCursor.MoveMode.KeepAnchor)
    return cursor


def underline_selection(cursor: QTextCursor, color: str) -> QTextEdit.ExtraSelection:
    """A wavy underline under ``cursor``'s selection; it follows the text as it is edited."""
    selection = QTextEdit.ExtraSelection()
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SpellCheckUnderline)
    fmt.setUnderlineColor(QColor(color))
    selection.format = fmt
    selection.cursor = cursor
    return selection


def line_selection(cursor: QTextCursor, background: str) -> QTextEdit.ExtraSelection:
    """A full-width background on ``cursor``'s line."""
    selection = QTextEdit.ExtraSelection()
    fmt = QTextCharFormat()
    fmt.setBackground(QColor(background))
    fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
    line = QTextCursor(cursor)
    line.clearSelection()
    selection.format = fmt
    selection.cursor = line
    return selection


def _first_lines(message: str) -> str:
    lines = message.strip("\n").splitlines()
    if len(lines) <= MAX_MESSAGE_LINES:
        return "\n".join(lines)
    return "\n".join([*lines[:MAX_MESSAGE_LINES], "…"])


def _heading(item: Explanation) -> str:
    name = item.exception or ("Warning" if item.severity == "warning" else "Error")
    return name if item.line is None else f"{name} on line {item.line}"


def explanation_html(item: Explanation, mono_family: str) -> str:
    """One error or warning: heading, torch's exact message, explanation, fix."""
    is_error = item.severity == "error"
    color = ERROR_COLOR if is_error else WARNING_TEXT
    tint = ERROR_TINT if is_error else WARNING_TINT
    family = html.escape(mono_family, quote=True)
    parts = [f'<p style="margin:0 0 3px 0; color:{color}"><b>{html.escape(_heading(item))}</b></p>']
    message = _first_lines(item.message)
    if message:
        parts.append(
            f'<p style="margin:0 0 5px 0; background-color:{tint}; white-space:pre-wrap; '
            f"font-family:'{family}'\">{html.escape(message, quote=False)}</p>"
        )
    if item.explanation:
        parts.append(f'<p style="margin:0 0 5px 0">{rich_text(item.explanation, mono_family)}</p>')
    if item.fix:
        parts.append(
            f'<p style="margin:0 0 10px 0"><b>Fix:</b> {rich_text(item.fix, mono_family)}</p>'
        )
    return "".join(parts)


def diagnostics_html(
    error: Explanation | None, warnings: Sequence[Explanation], mono_family: str
) -> str:
    """The whole explanation box: the error first, then up to :data:`MAX_WARNINGS`."""
    if error is None and not warnings:
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
        prefix = f"{'?' if p.line is None else p.line:>{width}} │ "
        lines = p.text.split("\n")
        out.append(prefix + lines[0])
        out += [" " * (width + 1) + "│ " + rest for rest in lines[1:]]
    if truncated:
        out.append("… printing stopped here (too many lines)")
    return "\n".join(out)


class DiagnosticsTabs(QTabWidget):
    """Two tabs under the editor: "Explanation" (errors, warnings) and "Printed output"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self._mono = monospace_font(self.font().pointSizeF())
        self._explanation = QTextBrowser(self)
        self._explanation.setObjectName("codeExplanation")
        self._explanation.setOpenLinks(False)
        self._printed = QPlainTextEdit(self)
        self._printed.setObjectName("codePrinted")
        self._printed.setReadOnly(True)
        self._printed.setFont(self._mono)
        self._printed.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self._printed.setPlaceholderText("Nothing printed yet: print(x.grad) shows up here.")
        self.addTab(self._explanation, "Explanation")
        self.addTab(self._printed, "Printed output")
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.fontChanged.connect(self._follow_application_font)
        self._diagnostics: tuple[Explanation | None, tuple[Explanation, ...]] | None = None
        self._printed_lines: tuple[PrintedLine, ...] | None = None
        self._printed_truncated = False

    def _follow_application_font(self, font: QFont) -> None:
        # See CodeEditor._follow_application_font: an own font never follows by itself.
        self._mono = monospace_font(font.pointSizeF())
        self._printed.setFont(self._mono)

    def show_diagnostics(
        self, error: Explanation | None, warnings: tuple[Explanation, ...]
    ) -> None:
        """Show the newest run's error and warnings (no work if they did not change)."""
        if self._diagnostics == (error, warnings):
            return
        self._diagnostics = (error, warnings)
        self._explanation.setHtml(diagnostics_html(error, warnings, self._mono.family()))
        color = ERROR_COLOR if error is not None else WARNING_TEXT if warnings else None
        self.tabBar().setTabTextColor(0, QColor(color) if color else self.palette().text().color())

    def show_printed(self, printed: tuple[PrintedLine, ...], truncated: bool = False) -> None:
        """Show what the program printed (no work if it did not change)."""
        if printed == self._printed_lines and truncated == self._printed_truncated:
            return
        self._printed_lines = printed
        self._printed_truncated = truncated
        self._printed.setPlainText(printed_text(printed, truncated))
        count = len(printed)
        self.setTabText(1, f"Printed output ({count})" if count else "Printed output")


class StatusStrip(QLabel):
    """One line over the editor saying whether the picture matches the code."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeStatus")
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self._state: tuple[str, str] | None = None
        self._shown: tuple[Snapshot, bool] | None = None
        self._long_run = False
        self._run_timer = QTimer(self, singleShot=True, interval=RUNNING_NOTICE_DELAY_MS)
        self._run_timer.timeout.connect(self._on_run_taking_long)

    def show_status(self, snapshot: Snapshot, pending: bool) -> None:
        """Show :func:`status_for`; a run says "Running…" only once it takes a while."""
        self._shown = (snapshot, pending)
        if not snapshot.running:
            self._run_timer.stop()
            self._long_run = False
        elif not self._long_run:
            if not self._run_timer.isActive():
                self._run_timer.start()
            return
        self._apply(status_for(snapshot, pending))

    def _on_run_taking_long(self) -> None:
        self._long_run = True
        if self._shown is not None:
            self.show_status(*self._shown)

    def _apply(self, state: tuple[str, str]) -> None:
        if state == self._state:
            return
        self._state = state
        text, style = state
        background, foreground = STATUS_STYLES[style]
        self.setText(text)
        self.setProperty("status", style)
        self.setStyleSheet(
            f"QLabel {{ background-color: {background}; color: {foreground}; "
            f"padding: 4px 8px; border-radius: 3px; }}"
        )
