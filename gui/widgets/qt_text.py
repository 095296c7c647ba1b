"""Qt text helpers the widgets share: the monospace font, following the application font,
and the QTextCursor selections that underline an error or tint its line in the editor."""

from __future__ import annotations

from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QApplication, QTextEdit, QWidget

from gui.model.result import Explanation


def monospace_font(point_size: float) -> QFont:
    """The system's fixed-pitch font at ``point_size`` (never below 11 pt: projectors)."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(max(11.0, point_size))
    return font


def follow_application_font(widget: QWidget) -> None:
    """Keep ``widget`` in the application font as it changes (presentation mode).

    A widget with a style sheet stops following the application font (Qt resolves its
    font once, when the sheet is applied): without this, badges and status lines keep
    their old size while the rest of the window grows.
    """
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.fontChanged.connect(widget.setFont)  # disconnected when the widget goes


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
