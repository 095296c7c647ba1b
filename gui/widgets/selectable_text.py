"""A word-wrapped line of plain text the mouse can select and copy, cheap to change.

Drawn like a ``QLabel`` with ``TextSelectableByMouse`` (same wrapping, same pixels), but
without the text document such a label keeps, which lays the text out again at several
times the cost whenever it changes: a leaf's ``.grad`` line changes on every slider tick.
It also never asks for a new layout unless the room its text needs changed (another height
at its width, or a word wider than any before), where a ``QLabel`` asks on every new text.

Mouse selection works as in a label: drag, double-click a word, Ctrl+C, Ctrl+A, and a
context menu with Copy and Select All; the selection is copied to the X11 selection too.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPoint, QPointF, QSize, Qt, QTextBoundaryFinder
from PySide6.QtGui import (
    QClipboard,
    QColor,
    QContextMenuEvent,
    QFocusEvent,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QShowEvent,
    QTextCharFormat,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QLabel, QMenu, QSizePolicy, QWidget

# The characters of numbers as tensor_format writes them, with brackets and commas.
_NUMBER_CHARS = frozenset("0123456789.,-+e[]()")
_WORDS_MAX = 1024  # words whose width the widget remembers
_LAYOUTS_MAX = 8  # layouts kept per text (one per width asked about)
_WRAP = QTextOption()  # as a word-wrapped label's text document
_WRAP.setWrapMode(QTextOption.WrapMode.WordWrap)
# Words wider than the line break where the line ends (a model's qualified name).
_WRAP_ANYWHERE = QTextOption()
_WRAP_ANYWHERE.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)


class SelectableText(QWidget):
    """Plain text, word-wrapped to the widget's width, selectable with the mouse.

    ``least_words`` are words the widget makes room for from the start (the widest text a
    value can have): its least width then does not grow, and the panel does not move, when
    the numbers do. With ``break_long_words`` a word wider than the widget (a model's
    ``model.layers.0.self_attn.out_proj.weight.grad``) breaks where the line ends instead
    of making the widget, its panel and the window that wide; only ``least_words`` are
    kept whole.
    """

    def __init__(
        self,
        text: str = "",
        least_words: tuple[str, ...] = (),
        parent: QWidget | None = None,
        break_long_words: bool = False,
    ) -> None:
        super().__init__(parent)
        self._text = text
        self._least_words = least_words
        self._break_long_words = break_long_words
        self._option = _WRAP_ANYWHERE if break_long_words else _WRAP
        self._layouts: dict[int, tuple[QTextLayout, float]] = {}
        self._main = QTextLayout()
        self._main.setTextOption(self._option)
        self._words: dict[str, int] = {}
        self._number_char = 0
        self._least = 0
        self._height: int | None = None  # what the text needs at the current width
        self._anchor = 0
        self._cursor = 0
        self._by_words = False
        self._ink: QColor | None = None  # the text's colour, asked for once
        # A hidden label with the same text and font answers the size questions layouts
        # ask now and then exactly as the label this replaces did; its text is laid out
        # only when they are asked (setting it costs nothing).
        self._sizes = QLabel(self)
        self._sizes.setTextFormat(Qt.TextFormat.PlainText)  # as painted: never HTML
        self._sizes.setText(text)
        self._sizes.setWordWrap(True)
        self._sizes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._sizes.hide()
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setAccessibleName(text)
        self._measure_font()

    # -- the text ----------------------------------------------------------------------

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        """Show ``text`` (the selection goes); ask for a new layout only if the text needs
        another height at this width or more width than before. Hidden (another tab is
        shown), the text is laid out only once it shows."""
        if text == self._text:
            return
        self._text = text
        self._layouts.clear()
        self._anchor = self._cursor = 0
        self.setAccessibleName(text)  # what a screen reader says, as a label's text
        least = self._widest(text)
        if not self.isVisible():
            if least != self._least:
                self._least = least
                self.updateGeometry()
            self._height = None  # measured when shown
            return
        height = self.heightForWidth(self.width())  # the layout painting will use
        if height != self._height or least != self._least:
            self._height, self._least = height, least
            self.updateGeometry()
        self.update()

    def selectedText(self) -> str:
        start, end = sorted((self._anchor, self._cursor))
        return self._text[start:end]

    def hasSelectedText(self) -> bool:
        return self._anchor != self._cursor

    def setSelection(self, start: int, length: int) -> None:
        """Select ``length`` characters from ``start`` (as ``QLabel.setSelection``)."""
        count = len(self._text)
        self._anchor = max(0, min(start, count))
        self._cursor = max(0, min(start + length, count))
        self.update()

    def selectAll(self) -> None:
        self.setSelection(0, len(self._text))
        self._copy_to(QClipboard.Mode.Selection)

    def copy(self) -> None:
        """The selection to the clipboard."""
        self._copy_to(QClipboard.Mode.Clipboard)

    def _copy_to(self, mode: QClipboard.Mode) -> None:
        clipboard = QGuiApplication.clipboard()
        if self.hasSelectedText() and (
            mode != QClipboard.Mode.Selection or clipboard.supportsSelection()
        ):
            clipboard.setText(self.selectedText(), mode)

    # -- measuring ---------------------------------------------------------------------

    def _measure_font(self) -> None:
        metrics = self.fontMetrics()
        self._layouts.clear()
        self._main.setFont(self.font())
        self._words.clear()
        # A number word ("-0.1461,") is never wider than its length in its widest character.
        self._number_char = max(metrics.horizontalAdvance(c) for c in _NUMBER_CHARS)
        self._least = max((metrics.horizontalAdvance(w) for w in self._least_words), default=0)
        self._least = self._widest(self._text)

    def _widest(self, text: str) -> int:
        """The least width ``text`` needs (its widest word), never less than before: a drag
        never narrows, then widens, the panel. A number word too short to be wider is not
        measured; other words are measured once."""
        least = self._least
        for word in text.split():
            number = _NUMBER_CHARS.issuperset(word)
            if (number and len(word) * self._number_char <= least) or (
                self._break_long_words and not number
            ):
                continue  # a short number, or a word that may break
            width = self._words.get(word)
            if width is None:
                if len(self._words) >= _WORDS_MAX:
                    self._words.clear()
                width = self._words[word] = self.fontMetrics().horizontalAdvance(word)
            least = max(least, width)
        return least

    def _layout(self, width: int) -> tuple[QTextLayout, float]:
        """The text laid out at ``width``, as a label's text document lays it out, and its
        height. The first width asked about reuses one long-lived layout (a tick lays out
        one new text at one width: making a layout costs more than laying one out)."""
        known = self._layouts.get(width)
        if known is not None:
            return known
        if self._layouts:
            layout = QTextLayout(self._text, self.font())
            layout.setTextOption(self._option)
        else:
            layout = self._main
            layout.setText(self._text)
        y = 0.0
        layout.beginLayout()
        line = layout.createLine()
        while line.isValid():
            line.setLineWidth(width)
            line.setPosition(QPointF(0, y))
            y += line.height()
            line = layout.createLine()
        layout.endLayout()
        if len(self._layouts) >= _LAYOUTS_MAX:
            self._layouts.clear()
        known = self._layouts[width] = (layout, y)
        return known

    # -- sizes -------------------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return math.ceil(self._layout(max(width, 0))[1])

    def _size_label(self) -> QLabel:
        """The hidden label, given the text now (layouts ask rarely; ticks change it often)."""
        if self._sizes.text() != self._text:
            self._sizes.setText(self._text)
        return self._sizes

    def sizeHint(self) -> QSize:
        return self._size_label().sizeHint()

    def minimumSizeHint(self) -> QSize:
        least = self._size_label().minimumSizeHint()
        if self._break_long_words:
            return QSize(self._least, least.height())
        return QSize(max(self._least, least.width()), least.height())

    # -- events ------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._measure_font()
            self._height = None
        self._ink = None  # another palette or enabled state: ask again
        super().changeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        height = self.heightForWidth(self.width())
        if height != self._height:
            self._height = height
            self.updateGeometry()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._height = self.heightForWidth(self.width())

    def paintEvent(self, event: QPaintEvent) -> None:
        layout, needed = self._layout(self.width())
        if self._ink is None:
            self._ink = self.palette().color(self.foregroundRole())
        painter = QPainter(self)
        painter.setPen(self._ink)
        # As a label centres its text document (QLabel's layoutRect().toAlignedRect()).
        at = QPointF(0, math.floor(max((self.height() - needed) / 2, 0.0)))
        if self._anchor == self._cursor:
            layout.draw(painter, at)
        else:
            layout.draw(painter, at, [self._selection_format()])
        painter.end()

    def _selection_format(self) -> QTextLayout.FormatRange:
        start, end = sorted((self._anchor, self._cursor))
        group = QPalette.ColorGroup.Active if self.hasFocus() else QPalette.ColorGroup.Inactive
        char = QTextCharFormat()
        char.setBackground(self.palette().brush(group, QPalette.ColorRole.Highlight))
        char.setForeground(self.palette().brush(group, QPalette.ColorRole.HighlightedText))
        selected = QTextLayout.FormatRange()
        selected.start, selected.length, selected.format = start, end - start, char
        return selected

    def _position_at(self, point: QPoint) -> int:
        """The cursor position (between characters) nearest to ``point``."""
        layout, needed = self._layout(self.width())
        y = point.y() - math.floor(max((self.height() - needed) / 2, 0.0))
        count = layout.lineCount()
        if count == 0:
            return 0
        for i in range(count):
            line = layout.lineAt(i)
            if y < line.y() + line.height() or i == count - 1:
                return line.xToCursor(point.x())
        return len(self._text)

    def _word_at(self, position: int) -> tuple[int, int]:
        """The word (as a text editor finds words) around ``position``."""
        finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Word, self._text)
        finder.setPosition(min(position, len(self._text)))
        start = position if finder.isAtBoundary() else finder.toPreviousBoundary()
        finder.setPosition(min(position, len(self._text)))
        end = finder.toNextBoundary()
        if start < 0:
            start = 0
        if end < 0:
            end = len(self._text)
        return start, end

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            event.ignore()
            return
        position = self._position_at(event.position().toPoint())
        if not (event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            self._anchor = position
        self._cursor = position
        self._by_words = False
        self.update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if not (event.buttons() & Qt.MouseButton.LeftButton):
            event.ignore()
            return
        position = self._position_at(event.position().toPoint())
        if self._by_words:
            start, end = self._word_at(position)
            position = end if position >= self._anchor else start
        if position != self._cursor:
            self._cursor = position
            self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            event.ignore()
            return
        self._copy_to(QClipboard.Mode.Selection)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            event.ignore()
            return
        start, end = self._word_at(self._position_at(event.position().toPoint()))
        self._anchor, self._cursor = start, end
        self._by_words = True
        self.update()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.selectAll()
        else:
            super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        # As a label: a click elsewhere drops the selection; a menu or another window
        # taking the focus for a while keeps it.
        reasons = (Qt.FocusReason.PopupFocusReason, Qt.FocusReason.ActiveWindowFocusReason)
        if event.reason() not in reasons and self.hasSelectedText():
            self._anchor = self._cursor = 0
        self.update()
        super().focusOutEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusInEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        copy = menu.addAction("&Copy", self.copy)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setEnabled(self.hasSelectedText())
        menu.addSeparator()
        select = menu.addAction("Select All", self.selectAll)
        select.setShortcut(QKeySequence.StandardKey.SelectAll)
        select.setEnabled(bool(self._text))
        menu.exec(event.globalPos())
        menu.deleteLater()
