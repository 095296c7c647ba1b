"""The tabs under the code editor: the newest error and warnings in plain words, and what
the program printed.

The texts come from :mod:`gui.model.views.diagnostics`; this widget shows them (the
explanation as selectable rich text, the printed output in the monospace font) and colours
the tab by the worst thing it holds.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QTabWidget, QWidget

from gui.model.result import Explanation, PrintedLine
from gui.model.views.diagnostics import ERROR_COLOR, WARNING_TEXT, diagnostics_html, printed_text
from gui.widgets.qt_text import SafeTextBrowser, monospace_font


class DiagnosticsTabs(QTabWidget):
    """Two tabs under the editor: "Explanation" (errors, warnings) and "Printed output"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self._mono = monospace_font(self.font().pointSizeF())
        # Never loads what the HTML names (the program's text in it is escaped anyway).
        self._explanation = SafeTextBrowser(self)
        self._explanation.setObjectName("codeExplanation")
        self._explanation.setOpenLinks(False)
        # As short as two lines when the code panel is short: the window gives it the
        # height its text needs (CodeEditorPanel.fit_explanation), not Qt's default.
        self._explanation.setMinimumHeight(2 * self.fontMetrics().lineSpacing())
        self._printed_minimum = 2 * self.fontMetrics().lineSpacing()
        self._printed = QPlainTextEdit(self)
        self._printed.setObjectName("codePrinted")
        self._printed.setReadOnly(True)
        self._printed.setFont(self._mono)
        self._printed.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self._printed.setMinimumHeight(self._printed_minimum)
        self._printed.setPlaceholderText("Nothing printed yet: print(x.grad) shows up here.")
        self.addTab(self._explanation, "Explanation")
        self.addTab(self._printed, "Printed output")
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.fontChanged.connect(self._follow_application_font)
        self._diagnostics: tuple[Explanation | None, tuple[Explanation, ...], str | None] | None
        self._diagnostics = None
        self._printed_lines: tuple[PrintedLine, ...] | None = None
        self._printed_truncated = False

    def _follow_application_font(self, font: QFont) -> None:
        # See CodeEditor._follow_application_font: an own font never follows by itself.
        self._mono = monospace_font(font.pointSizeF())
        self._printed.setFont(self._mono)

    def show_diagnostics(
        self,
        error: Explanation | None,
        warnings: tuple[Explanation, ...],
        waiting: str | None = None,
    ) -> None:
        """Show the newest run's error and warnings, or ``waiting`` (why nothing has run
        yet) when there are none; no work if nothing changed."""
        if self._diagnostics == (error, warnings, waiting):
            return
        self._diagnostics = (error, warnings, waiting)
        html = diagnostics_html(error, warnings, self._mono.family(), waiting)
        self._explanation.setHtml(html)
        color = ERROR_COLOR if error is not None else WARNING_TEXT if warnings else None
        self.tabBar().setTabTextColor(0, QColor(color) if color else self.palette().text().color())

    def needed_height(self) -> int:
        """The height that shows the whole explanation without scrolling (tab bar, frame and
        the text wrapped at the current width)."""
        browser = self._explanation
        document = browser.document().clone(browser)
        document.setTextWidth(browser.maximumViewportSize().width())
        text = round(document.size().height())
        document.deleteLater()
        frame = 2 * browser.frameWidth()
        return self.tabBar().sizeHint().height() + text + frame + 2

    def show_printed(self, printed: tuple[PrintedLine, ...], truncated: bool = False) -> None:
        """Show what the program printed (no work if it did not change)."""
        if printed == self._printed_lines and truncated == self._printed_truncated:
            return
        self._printed_lines = printed
        self._printed_truncated = truncated
        self._printed.setPlainText(printed_text(printed, truncated))
        count = len(printed)
        self.setTabText(1, f"Printed output ({count})" if count else "Printed output")
