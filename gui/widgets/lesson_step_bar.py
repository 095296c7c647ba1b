"""The lesson step bar: "Step 2 of 5  ◀ ▶" and the step's own note, like a slide's caption.

Shown (by the window) only while the open lesson has steps. The arrows are the window's
Lessons > Previous Step / Next Step actions (the window asks before a step replaces
unsaved work), so the bar itself changes nothing; it renders the snapshot's
``lesson_step``. The note is lesson text from a file: rendered by
:mod:`gui.model.views.lesson_text` (escaped, a small Markdown) in a
:class:`~gui.widgets.qt_text.SafeTextBrowser`, which loads nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QTextBrowser, QToolButton, QWidget

from gui.model.session import Snapshot
from gui.model.session.lesson import LessonPosition
from gui.model.views.lesson_text import step_html
from gui.widgets.qt_text import SafeTextBrowser

# The note gets at most this many lines of the window's height; longer notes scroll.
MAX_NOTE_LINES = 4


class LessonStepBar(QFrame):
    """A slim bar for a lesson's steps.

    Parameters
    ----------
    previous, following
        The window's actions that go to the previous and the next step (the arrows).
    parent
        The Qt parent.
    """

    # The note's height changed (a new step, another width or font): the window's other
    # rows moved, and it may want to arrange them again.
    resized = Signal()

    def __init__(
        self, previous: QAction, following: QAction, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("lesson-step-bar")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._shown: LessonPosition | None = None
        self.counter = QLabel()
        self.counter.setTextFormat(Qt.TextFormat.PlainText)
        self.previous_button = _arrow(previous)
        self.next_button = _arrow(following)
        self.note = SafeTextBrowser()
        self.note.setObjectName("lesson-step-note")
        self.note.setOpenLinks(False)
        self.note.setFrameShape(QFrame.Shape.NoFrame)
        self.note.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Clicking the note must not take the arrow keys from the window (they advance).
        self.note.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.note.viewport().setAutoFillBackground(False)
        self.note.document().setDocumentMargin(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 1, 6, 1)
        layout.addWidget(self.counter, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.previous_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.next_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.note, 1)

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``'s lesson step (the window hides the bar without one)."""
        position = snapshot.lesson_step
        if position == self._shown:
            return
        self._shown = position
        if position is None:
            return
        self.counter.setText(position.label)
        self.note.setHtml(step_html(position))
        self.note.setVisible(bool(position.note))
        self._fit_note()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_note()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode: the note rewraps
            self._fit_note()

    def _fit_note(self) -> None:
        """The note as tall as its text at this width, up to :data:`MAX_NOTE_LINES` lines."""
        document = self.note.document()
        document.setTextWidth(max(50, self.note.viewport().width()))
        line = self.note.fontMetrics().lineSpacing()
        wanted = int(document.size().height() + 0.99) + 2 * self.note.frameWidth()
        least = max(line + 2, self.counter.sizeHint().height())
        height = max(least, min(wanted, MAX_NOTE_LINES * line + 8))
        if self.note.height() != height or self.note.minimumHeight() != height:
            self.note.setFixedHeight(height)
            self.resized.emit()


def _arrow(action: QAction) -> QToolButton:
    """A button for ``action``, showing its icon text (the window sets ◀ and ▶)."""
    button = QToolButton()
    button.setDefaultAction(action)
    button.setAutoRaise(True)
    # Clicked with the mouse, the arrows leave the focus where it was.
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return button
