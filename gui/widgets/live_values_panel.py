"""Explore mode's values tab: the leaves' numbers and ``.grad``, read-only.

Stands where the inputs panel's sliders stand for typed code (see
:mod:`gui.model.views.live_values` for why there are no sliders).
"""

from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from gui.model.session import Session, Snapshot
from gui.model.views.live_values import READ_ONLY_REASON, values_text
from gui.widgets.qt_text import plain_label


class LiveValuesPanel(QWidget):
    """One line saying why the values are read-only, then every leaf's value and grad."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("values")
        self.reason = plain_label(READ_ONLY_REASON)
        self.reason.setWordWrap(True)
        # Plain text: the names come from the user's model, never taken for markup.
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.reason)
        layout.addWidget(self.text, 1)
        self._result: object = None
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # The panel protocol's render(snapshot) shadows QWidget.render(painter...) on purpose.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show the leaves of the result on screen (only when the result changed)."""
        if snapshot.result is self._result:
            return
        self._result = snapshot.result
        text = values_text(snapshot.result)
        if text != self.text.toPlainText():
            scrolled = self.text.verticalScrollBar().value()
            self.text.setPlainText(text)
            self.text.verticalScrollBar().setValue(scrolled)
