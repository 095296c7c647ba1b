"""The Python editor of the code panel: line numbers, highlighting, error underlines, keys.

It emits ``edited`` for the user's typing only (never for text set from the session) and
``run_requested`` on Ctrl+Enter, which it claims before any window shortcut can. Errors and
warnings are underlined where they point (:mod:`gui.widgets.qt_text`) and marked in the
gutter, with their message as the marker's tooltip.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QEvent, QPoint, QRect, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QTextEdit, QToolTip, QWidget

from gui.model.result import Explanation
from gui.model.views.diagnostics import ERROR_COLOR, ERROR_TINT, WARNING_COLOR
from gui.model.visible_text import visible_controls
from gui.widgets.python_highlighter import (
    INDENT,
    PythonHighlighter,
    dedent_width,
    next_line_indent,
)
from gui.widgets.qt_text import (
    diagnostic_span,
    line_selection,
    monospace_font,
    show_tooltip,
    underline_selection,
)

CURRENT_LINE_COLOR = "#eef3fa"
GUTTER_BACKGROUND = "#f4f4f4"
GUTTER_TEXT = "#7a7a7a"
GUTTER_CURRENT_TEXT = "#202020"


class _Gutter(QWidget):
    """Line numbers and error/warning markers, painted by the editor (Qt's classic pattern)."""

    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self._editor = editor

    def paintEvent(self, event: QPaintEvent) -> None:
        self._editor.paint_gutter(self, event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self._editor.marker_tooltip(event.pos().y())
            if text:
                show_tooltip(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


class _Marker(NamedTuple):
    """A gutter marker; the cursor follows the text when lines are inserted above it."""

    cursor: QTextCursor
    color: str
    tooltip: str


# What QTextDocument.toPlainText writes as "\n": its paragraph and line separators and
# the frame marks (see CodeEditor.code).
_LINE_BREAKS = str.maketrans(dict.fromkeys("\u2029\u2028\ufdd0\ufdd1", "\n"))


class CodeEditor(QPlainTextEdit):
    """A Python editor: monospace, line numbers, highlighting, error underlines.

    Emits ``edited`` when the user changes the text (never for :meth:`replace_text`) and
    ``run_requested`` on Ctrl+Enter.
    """

    edited = Signal()
    run_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeEditor")
        self.setFont(monospace_font(QApplication.font().pointSizeF()))
        # Long lines wrap (continuation rows get no line number): a narrow column or
        # presentation mode's big font must never cut code off at the right edge.
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        # Three lines at least, not Qt's taller default: the window shares a short column
        # between the code, its explanation and the controls (MainWindow.fit_left_column).
        self.setMinimumHeight(3 * self.fontMetrics().lineSpacing() + 2 * self.frameWidth() + 8)
        self.setPlaceholderText("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x**2).sum()")
        self._highlighter = PythonHighlighter(self.document())
        self._gutter = _Gutter(self)
        self._applying = False
        self._diagnostics: list[QTextEdit.ExtraSelection] = []
        self._markers: list[_Marker] = []
        self._error_line: _Marker | None = None
        self.blockCountChanged.connect(self._update_gutter_width)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.fontChanged.connect(self._follow_application_font)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._refresh_selections)
        self.textChanged.connect(self._on_text_changed)
        self._update_gutter_width()
        self._refresh_selections()

    # -- text --------------------------------------------------------------------------

    def _follow_application_font(self, font: QFont) -> None:
        # The editor sets its own (monospace) font, which application font changes never
        # reach: follow the size by hand, so presentation mode enlarges the code too.
        self.setFont(monospace_font(font.pointSizeF()))
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self._update_gutter_width()  # the digits got wider too
        self._place_gutter()

    def code(self) -> str:
        """The text as written: ``toPlainText`` turns a no-break space into a plain one, so
        a string in a session file (`"10\u00a0kg"`) changed at the first edit anywhere.
        Line and paragraph separators are the editor's line breaks, as there (code holding
        one raw is refused: see :data:`gui.model.visible_text.EDITOR_LINE_BREAKS`)."""
        return self.document().toRawText().translate(_LINE_BREAKS)

    def replace_text(self, text: str, keep_undo: bool) -> None:
        """Show ``text`` without emitting ``edited``; with ``keep_undo`` one Ctrl+Z brings
        the old text back, otherwise the undo history starts afresh (a new document)."""
        self._applying = True
        try:
            if not keep_undo:
                self.setPlainText(text)
                return
            old = self.textCursor()
            line, column = old.blockNumber(), old.positionInBlock()
            scroll = self.verticalScrollBar().value()
            cursor = QTextCursor(self.document())
            cursor.beginEditBlock()
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(text)
            cursor.endEditBlock()
            self._place_cursor(line, column)
            self.verticalScrollBar().setValue(scroll)
        finally:
            self._applying = False

    def _place_cursor(self, line: int, column: int) -> None:
        doc = self.document()
        block = doc.findBlockByNumber(min(line, doc.blockCount() - 1))
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + min(column, len(block.text())))
        self.setTextCursor(cursor)

    def _on_text_changed(self) -> None:
        if not self._applying:
            self.edited.emit()

    # -- errors and warnings -----------------------------------------------------------

    def set_diagnostics(self, error: Explanation | None, warnings: tuple[Explanation, ...]) -> None:
        """Underline the error's line in red (and warnings' in orange), mark them in the gutter."""
        self._diagnostics = []
        self._markers = []
        for item in (*warnings, *([] if error is None else [error])):
            if item.line is None or not self.document().blockCount():
                continue
            is_error = item.severity == "error"
            color = ERROR_COLOR if is_error else WARNING_COLOR
            cursor = diagnostic_span(self.document(), item)
            if is_error:
                self._diagnostics.append(line_selection(cursor, ERROR_TINT))
            self._diagnostics.append(underline_selection(cursor, color))
            # The first line of a program's own text (its exception): controls as escapes.
            first = visible_controls(item.message.strip().split("\n")[0])
            self._markers.append(_Marker(cursor, color, first))
        self._error_line = None if error is None or error.line is None else self._markers[-1]
        self._refresh_selections()
        self.reveal_error()

    def reveal_error(self) -> None:
        """Scroll the error's line into view (unless the user is typing here: the text
        cursor's line wins then), so a short editor still shows where it went wrong."""
        marker = self._error_line
        if marker is None or self.hasFocus():
            return
        if self.viewport().rect().contains(self.cursorRect(marker.cursor)):
            return
        block = marker.cursor.block()
        self.verticalScrollBar().setValue(max(0, block.firstLineNumber() - 1))

    def lines_height(self, rows: int) -> int:
        """The height that shows ``rows`` lines (margins included)."""
        margins = self.contentsMargins()
        document = 2 * round(self.document().documentMargin())
        # Half a line spare: a line's wrapping is measured at the width the editor has now,
        # and the splitter settling it a few pixels narrower can wrap one more line.
        spacing = self.fontMetrics().lineSpacing()
        return rows * spacing + spacing // 2 + margins.top() + margins.bottom() + document

    def _refresh_selections(self) -> None:
        # The current line first, so the error's tint wins on the error's own line.
        current = line_selection(self.textCursor(), CURRENT_LINE_COLOR)
        self.setExtraSelections([current, *self._diagnostics])
        self._gutter.update()

    def marker_tooltip(self, y: int) -> str:
        """The messages of the markers at gutter height ``y`` ('' if none)."""
        number = self.cursorForPosition(QPoint(0, y)).blockNumber()
        return "\n".join(m.tooltip for m in self._markers if m.cursor.blockNumber() == number)

    def needed_height(self) -> int:
        """The height that shows every line, wrapped lines counted at the current width."""
        rows = 0
        block = self.document().firstBlock()
        while block.isValid():
            layout = block.layout()
            rows += max(1, layout.lineCount() if layout is not None else 1)
            block = block.next()
        margins = self.contentsMargins()
        document = 2 * round(self.document().documentMargin())
        # Half a line spare: a line's wrapping is measured at the width the editor has now,
        # and the splitter settling it a few pixels narrower can wrap one more line.
        spacing = self.fontMetrics().lineSpacing()
        return rows * spacing + spacing // 2 + margins.top() + margins.bottom() + document

    # -- gutter ------------------------------------------------------------------------

    def gutter_width(self) -> int:
        """Room for the marker dot and the widest line number."""
        digits = max(2, len(str(self.blockCount())))
        return 10 + self._marker_size() + self.fontMetrics().horizontalAdvance("9") * digits

    def _marker_size(self) -> int:
        return max(8, self.fontMetrics().height() // 2)

    def paint_gutter(self, gutter: QWidget, event: QPaintEvent) -> None:
        """Paint line numbers, and a dot on lines with an error (red) or warning (orange)."""
        painter = QPainter(gutter)
        painter.fillRect(event.rect(), QColor(GUTTER_BACKGROUND))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        markers = {m.cursor.blockNumber(): m.color for m in reversed(self._markers)}
        current = self.textCursor().blockNumber()
        size, height = self._marker_size(), self.fontMetrics().height()
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= event.rect().top():
                number = block.blockNumber()
                color = markers.get(number)
                if color is not None:
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(QColor(color))
                    painter.drawEllipse(4, top + (height - size) // 2, size, size)
                pen = color or (GUTTER_CURRENT_TEXT if number == current else GUTTER_TEXT)
                painter.setPen(QColor(pen))
                painter.drawText(
                    0, top, gutter.width() - 4, height, Qt.AlignmentFlag.AlignRight, str(number + 1)
                )
            block = block.next()
            top = bottom
        painter.end()

    def _update_gutter_width(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_gutter()

    def _place_gutter(self) -> None:
        area = self.contentsRect()
        self._gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(), area.height()))

    # -- keys --------------------------------------------------------------------------

    @staticmethod
    def _is_run_key(event: QKeyEvent) -> bool:
        return event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and bool(
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
        )

    def event(self, event: QEvent) -> bool:
        # Claim Ctrl+Enter before any window shortcut does, so the text is sent first.
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and self._is_run_key(event)
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, mods = event.key(), event.modifiers()
        if self._is_run_key(event):
            self.run_requested.emit()
        elif key == Qt.Key.Key_Tab and mods == Qt.KeyboardModifier.NoModifier:
            self.insertPlainText(INDENT)
        elif key == Qt.Key.Key_Backtab:
            self._dedent()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not mods & ~(
            Qt.KeyboardModifier.KeypadModifier
        ):
            self._newline_with_indent()
        else:
            super().keyPressEvent(event)

    def _newline_with_indent(self) -> None:
        cursor = self.textCursor()
        before = cursor.block().text()[: cursor.positionInBlock()]
        self.insertPlainText("\n" + next_line_indent(before))

    def _dedent(self) -> None:
        cursor = self.textCursor()
        if remove := dedent_width(cursor.block().text()):
            cursor.setPosition(cursor.block().position())
            cursor.setPosition(cursor.block().position() + remove, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
