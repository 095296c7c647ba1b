"""Qt text helpers the widgets share: text from a program or a file shown as written (never
as HTML, never loading a file), the monospace font, following the application font, and the
QTextCursor selections that underline an error or tint its line in the editor.

Qt takes a string that *looks like* HTML (``Qt::mightBeRichText``: a known tag before the
first line break) for rich text in tooltips, labels left at ``Qt::AutoText`` and message
boxes, and rich text loads the files its images name: ``<img src="/dev/zero">`` in an error
message read the device until memory ran out (the app aborted), a named pipe there blocked
the window for ever. So every text that comes from a program run or a file goes through
one of these:

- :func:`plain_label` (or ``setTextFormat(Qt.TextFormat.PlainText)``) for a label;
- :func:`literal_html` for a tooltip or a message box (:func:`set_tooltip`,
  :func:`show_tooltip`): text that looks like HTML is escaped into HTML that shows it as
  written, any other text is passed as it is;
- ``html.escape`` for the program's parts of rich text the app builds itself;
- :class:`SafeTextBrowser` for a rich-text view: it never loads a resource at all.
"""

from __future__ import annotations

import base64
import html

from PySide6 import QtGui
from PySide6.QtCore import QByteArray, QPoint, Qt, QUrl
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontDatabase,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QApplication, QLabel, QTextBrowser, QTextEdit, QToolTip, QWidget

from gui.model.result import Explanation
from gui.model.visible_text import visible_controls


def literal_html(text: str) -> str:
    """``text`` for a tooltip or a message box, shown as written.

    Text Qt would take for HTML is escaped, line breaks and runs of spaces kept, so no tag
    in it survives; any other text is passed as it is (Qt shows it as plain text). Either
    way its invisible controls are written as their escapes (:mod:`gui.model.visible_text`):
    a file name holding a right-to-left override read backwards in an error box.
    """
    text = visible_controls(text.replace("\r\n", "\n").replace("\r", "\n"))
    if not QtGui.Qt.mightBeRichText(text):
        return text
    body = html.escape(text)
    return f'<p style="white-space:pre-wrap">{body}</p>'


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label that shows ``text`` as written: plain text, whatever it looks like."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def set_tooltip(target: QWidget | QAction, text: str) -> None:
    """Give ``target`` the tooltip ``text``, shown as written (see :func:`literal_html`)."""
    tip = literal_html(text)
    if target.toolTip() != tip:
        target.setToolTip(tip)


def show_tooltip(at: QPoint, text: str, widget: QWidget) -> None:
    """``QToolTip.showText`` for ``text`` shown as written (a tooltip made when asked for)."""
    QToolTip.showText(at, literal_html(text), widget)


# A 1x1 transparent PNG: what a SafeTextBrowser answers for any image (made without Qt,
# which must not be asked to encode anything while it is laying a page out).
_BLANK_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII="
)


class SafeTextBrowser(QTextBrowser):
    """A read-only rich-text view that never loads a resource: no image, style sheet or
    page from a file, whatever its HTML names (the app's pages use none).

    Escaping keeps the program's text out of the markup; this is the second wall. It must
    answer every request with *something*: Qt reads the file itself when the view answers
    nothing, and tries the image's path directly when the answer is not an image. So
    images get a transparent pixel, everything else nothing at all.
    """

    IMAGE = int(QTextDocument.ResourceType.ImageResource.value)

    def loadResource(self, type: int, name: QUrl | str) -> object:
        # Nothing here may raise: an exception in this override crashed the app.
        return QByteArray(_BLANK_PNG) if type == self.IMAGE else QByteArray()


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
