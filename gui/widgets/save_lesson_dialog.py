"""File > Save as Lesson: title, notes, "Try this" prompts and the scale lock for a new
lesson made of the window as it is now.

The dialog only gathers the texts; :meth:`SaveLessonDialog.lesson` makes the document
(:func:`gui.model.session.lesson_save.as_lesson`) and checks it against the session format
before the window asks where to write it, so a refusal (a fifth prompt, a title with a
line break) shows here, in the format's own words, and nothing is lost.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.model.drawing.colors import nice_scale
from gui.model.session import Document, SessionFileError, Snapshot
from gui.model.session.file_format import session_text
from gui.model.session.lesson import MAX_PROMPTS
from gui.model.session.lesson_save import as_lesson, prompts_from_text
from gui.model.tensor_format import format_short


class SaveLessonDialog(QDialog):
    """Gathers a new lesson's texts, starting from the open session's.

    Parameters
    ----------
    snapshot
        The session as it is now: its document is the lesson's starting state, and its
        title, notes, prompts and scale lock fill the fields.
    parent
        The Qt parent (the window).
    """

    def __init__(self, snapshot: Snapshot, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("save-lesson")
        self.setWindowTitle("Save as Lesson")
        self._document = snapshot.state.document
        locked = snapshot.locked_scale
        natural = snapshot.natural_scale
        # The scale on screen: the locked one, else the numbers' own, rounded up as the
        # "Lock scale" button does.
        self._scale = locked if locked is not None else (nice_scale(natural) if natural else None)
        self.title = QLineEdit(snapshot.title or "")
        self.title.setPlaceholderText("What the lesson shows, in a few words")
        self.notes = QPlainTextEdit(snapshot.notes or "")
        self.notes.setPlaceholderText(
            "What to look at, for a beginner. **bold**, *italic*, `code`, "
            "lines starting with - make a list; formulas in Unicode: ∂z/∂x = 24x²"
        )
        self.prompts = QPlainTextEdit("\n".join(self._document.lesson.prompts))
        self.prompts.setPlaceholderText(
            f"Try this: one per line, at most {MAX_PROMPTS} (e.g. Drag the gradient slider "
            "to 0.1: what happens to x.grad?)"
        )
        self.prompts.setTabChangesFocus(True)
        # One prompt per line: wrapped lines would hide where one ends.
        self.prompts.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.notes.setTabChangesFocus(True)
        self.lock = QCheckBox("Lock the colour scale and the plots' axes")
        self.lock.setChecked(snapshot.scale_lock)
        if self._scale is not None:
            self.lock.setText(f"{self.lock.text()} (at {format_short(self._scale)})")
        # The format's refusal, shown as written (plain text: it quotes the teacher's own).
        self.problem = QLabel()
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020")
        self.problem.setVisible(False)
        form = QFormLayout()
        form.addRow("Title", self.title)
        form.addRow("Notes", self.notes)
        form.addRow("Try this\n(one per line)", self.prompts)
        form.addRow("", self.lock)
        buttons = QDialogButtonBox()
        self.save_button = QPushButton("Save…")
        self.save_button.setDefault(True)
        buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.save_button.clicked.connect(self._on_view_save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        # Sized by the font, so presentation mode's bigger text still fits.
        metrics = self.fontMetrics()
        self.resize(metrics.averageCharWidth() * 80, metrics.lineSpacing() * 24)

    def lesson(self) -> Document:
        """The lesson the fields make; raises ``SessionFileError`` if the format refuses it."""
        lock = self.lock.isChecked()
        document = as_lesson(
            self._document,
            self.title.text(),
            self.notes.toPlainText(),
            prompts_from_text(self.prompts.toPlainText()),
            lock,
            self._scale if lock else None,
        )
        session_text(document)  # the format's own checks: a saved lesson opens again
        return document

    def _on_view_save(self) -> None:
        try:
            self.lesson()
        except SessionFileError as exc:
            self.problem.setText(str(exc))
            self.problem.setVisible(True)
            return
        self.accept()
