"""A one-line label that shows as much of its text as fits, ending in "…", and the whole
text as its tooltip.

For lines that must never wrap into a column of one word per line nor push a narrow panel
wider (the graph's caption, the status bar's error): the height stays one line whatever
the width, and nothing is lost, only shortened where the room ends. ``text()`` is always
the whole text; only the painting is shortened.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from gui.widgets.qt_text import set_tooltip


class ElidedLabel(QLabel):
    """One line of plain text, elided where it does not fit: at the right unless ``mode``
    says otherwise (a tensor's element keeps both ends, ``model.layers.0…bias[12]``)."""

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        super().__init__(text, parent)
        self._mode = mode
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def shown_text(self) -> str:
        """What fits: the text, or as much of it as fits with "…" where it is cut."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), self._mode, width)

    def is_elided(self) -> bool:
        """Whether the label shows less than its whole text."""
        return self.shown_text() != self.text()

    def setText(self, text: str) -> None:
        if text != self.text():  # setText relayouts even when nothing changed
            super().setText(text)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        shown = self.shown_text()
        # The whole text on hover whenever it is cut short (set here: only painting knows),
        # as written: a tooltip takes text that looks like HTML for HTML.
        set_tooltip(self, self.text() if shown != self.text() else "")
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        align = self.alignment() | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(self.contentsRect(), align, shown)
        painter.end()
