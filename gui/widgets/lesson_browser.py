"""The lesson browser: every shipped lesson by number and title, and the chosen one's
explanation, "Try this" prompts and number of steps, with an Open button.

Opening goes through the window's own ``open_path`` (which asks before replacing unsaved
work and reports a file it cannot use), handed in as ``open_lesson``. Lesson files are
read when the dialog opens; one that cannot be used is listed with its one-sentence
problem instead of its text, and cannot be opened.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.model.session import Document, SessionFileError, load_session
from gui.model.views.lesson_text import broken_lesson_page, lesson_number, lesson_page
from gui.widgets.qt_text import SafeTextBrowser


@dataclass(frozen=True)
class _Entry:
    path: Path
    label: str
    page: str
    usable: bool


class LessonBrowser(QDialog):
    """Choose a lesson by what it teaches, then open it.

    Parameters
    ----------
    paths
        The lesson files, in the order to list them.
    open_lesson
        Opens a lesson file in the window; ``True`` if it did (then the dialog closes).
    parent
        The Qt parent (the window).
    """

    def __init__(
        self,
        paths: Sequence[Path],
        open_lesson: Callable[[Path], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("lesson-browser")
        self.setWindowTitle("Lessons")
        self._open_lesson = open_lesson
        self._entries = [_entry(path) for path in paths]
        self.list = QListWidget()
        self.list.setObjectName("lesson-list")
        # Long titles wrap rather than hide behind a sideways scroll bar.
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(2)
        for entry in self._entries:
            item = QListWidgetItem(entry.label)
            if not entry.usable:
                item.setForeground(Qt.GlobalColor.darkRed)
            self.list.addItem(item)
        self.page = SafeTextBrowser()
        self.page.setObjectName("lesson-page")
        self.page.setOpenLinks(False)
        self.page.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.list)
        splitter.addWidget(self.page)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 530])
        buttons = QDialogButtonBox()
        self.open_button = QPushButton("Open")
        self.open_button.setDefault(True)
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.open_button.clicked.connect(self._on_view_open)
        buttons.rejected.connect(self.reject)
        self.list.currentRowChanged.connect(self._on_view_choose)
        self.list.itemActivated.connect(lambda _item: self._on_view_open())
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(buttons)
        # Sized by the font, so presentation mode's bigger text still fits.
        metrics = self.fontMetrics()
        self.resize(metrics.averageCharWidth() * 110, metrics.lineSpacing() * 30)
        if self._entries:
            self.list.setCurrentRow(0)
        else:
            self.page.setPlainText("No lessons were found.")
            self.open_button.setEnabled(False)

    def select_path(self, path: str | os.PathLike[str] | None) -> None:
        """Show the lesson at ``path`` (the one open in the window), if it is listed."""
        if path is None:
            return
        wanted = Path(path).resolve()
        for row, entry in enumerate(self._entries):
            if entry.path.resolve() == wanted:
                self.list.setCurrentRow(row)

    @property
    def chosen(self) -> Path | None:
        """The lesson file shown on the right (``None``: none)."""
        row = self.list.currentRow()
        return self._entries[row].path if 0 <= row < len(self._entries) else None

    def _on_view_choose(self, row: int) -> None:
        if not 0 <= row < len(self._entries):
            return
        entry = self._entries[row]
        self.page.setHtml(entry.page)
        self.open_button.setEnabled(entry.usable)

    def _on_view_open(self) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self._entries) or not self._entries[row].usable:
            return
        if self._open_lesson(self._entries[row].path):
            self.accept()


def _entry(path: Path) -> _Entry:
    number = lesson_number(path.stem)
    try:
        document: Document = load_session(path)
    except SessionFileError as exc:
        page = broken_lesson_page(path.name, str(exc))
        return _Entry(path, _label(number, path.stem), page, False)
    title = document.title or path.stem
    lesson = document.lesson
    page = lesson_page(title, document.notes, lesson.prompts, len(lesson.steps))
    return _Entry(path, _label(number, title), page, True)


def _label(number: str, title: str) -> str:
    return f"{number}  {title}" if number else title
