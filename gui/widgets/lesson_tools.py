"""The window's lesson tools: the browser, the step bar and its keys, Save as Lesson.

Menus: Lessons > Browse Lessons… (Ctrl+Shift+L), Next Step (Alt+Right), Previous Step
(Alt+Left) above the lessons' own entries; File > Save as Lesson…. A presenter's clicker
sends Right/Left or PageDown/PageUp: those advance or go back too, unless the focus is in
a control that uses them (the code editor, a number box, a slider, a table), which keeps
them. A step that changes the program asks first when the window holds unsaved work
(the window's own question), then goes through one session method. Moving to a step that
asks for a view raises it (``MainWindow.show_view``; a view the window lacks is skipped);
opening a lesson leaves the window arranged for the controls the lesson names.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QFileDialog,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QTextEdit,
    QToolBar,
    QWidget,
)

from gui.model.session import Document, Session, SessionFileError, Snapshot, save_session
from gui.resources import lesson_paths
from gui.widgets.lesson_browser import LessonBrowser
from gui.widgets.lesson_step_bar import LessonStepBar
from gui.widgets.save_lesson_dialog import SaveLessonDialog

NEXT_KEYS = frozenset({Qt.Key.Key_Right, Qt.Key.Key_PageDown})
PREVIOUS_KEYS = frozenset({Qt.Key.Key_Left, Qt.Key.Key_PageUp})
LESSON_FILTER = "Autograd Explorer lessons (*.json);;All files (*)"


class LessonTools(QObject):
    """Lesson actions, the step bar and the clicker keys of one window.

    Parameters
    ----------
    window
        The main window: the step bar goes in a toolbar at its top, dialogs over it.
    session
        The window's session.
    show_view
        Raises a view page by name (``MainWindow.show_view``); ``False`` if there is none.
    open_lesson
        Opens a session file, asking about unsaved work (``MainWindow.open_path``).
    confirm
        Asks before unsaved work is replaced; ``True``: go on.
    show_error
        Reports a problem (title, text) to the user.
    refit
        Arranges the window's columns again (``MainWindow.fit_left_column``): the bar
        takes height from them when it shows or grows.
    """

    def __init__(
        self,
        window: QMainWindow,
        session: Session,
        show_view: Callable[[str], bool],
        open_lesson: Callable[[Path], bool],
        confirm: Callable[[], bool],
        show_error: Callable[[str, str], None],
        refit: Callable[[], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._session = session
        self._show_view = show_view
        self._open_lesson = open_lesson
        self._confirm = confirm
        self._show_error = show_error
        self._refit = refit
        self._shown_step: tuple[int, int, str | None] | None = None
        # The view the step on screen asks for, raised once its result is drawn.
        self._pending_view: str | None = None
        self.browse = _action(window, "&Browse Lessons…", "Ctrl+Shift+L", self._on_view_browse)
        self.browse.setStatusTip("Every lesson with what it teaches and what to try")
        self.next_step = _action(window, "&Next Step", "Alt+Right", self._on_view_next)
        self.next_step.setIconText("▶")
        self.next_step.setToolTip("Next step (→ or Page Down; Alt+→ anywhere)")
        self.previous_step = _action(window, "&Previous Step", "Alt+Left", self._on_view_previous)
        self.previous_step.setIconText("◀")
        self.previous_step.setToolTip("Previous step (← or Page Up; Alt+← anywhere)")
        self.save_as_lesson = _action(window, "Save as &Lesson…", None, self._on_view_save_lesson)
        self.save_as_lesson.setStatusTip(
            "Save the window as a new lesson: title, notes, Try this prompts, scale lock"
        )
        self.bar = LessonStepBar(self.previous_step, self.next_step)
        self.bar.resized.connect(self._on_view_bar_resized)
        self.toolbar = QToolBar("Lesson steps")
        self.toolbar.setObjectName("lesson-steps-toolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setFloatable(False)
        self.toolbar.toggleViewAction().setVisible(False)
        # As slim as the note allows: every pixel here is taken from the graph's height.
        self.toolbar.setContentsMargins(0, 0, 0, 0)
        layout = self.toolbar.layout()
        if layout is not None:
            layout.setSpacing(0)
            layout.setContentsMargins(0, 0, 0, 0)
        self.toolbar.addWidget(self.bar)
        self.toolbar.setVisible(False)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    @property
    def commands(self) -> dict[str, QAction]:
        """The actions by the names the window's ``commands`` knows them by."""
        return {
            "browse_lessons": self.browse,
            "next_step": self.next_step,
            "previous_step": self.previous_step,
            "save_as_lesson": self.save_as_lesson,
        }

    def add_to_menus(self, lessons: QMenu, after: QAction) -> None:
        """Put the actions in the Lessons menu (above its lessons) and in the menu that
        holds ``after`` (Save Session As… in File), just after it."""
        first = lessons.actions()[0] if lessons.actions() else None
        if first is None:
            lessons.addActions([self.browse, self.next_step, self.previous_step])
        else:
            lessons.insertActions(first, [self.browse])
            lessons.insertSeparator(first)
            lessons.insertActions(first, [self.next_step, self.previous_step])
            lessons.insertSeparator(first)
        for menu in self._window.menuBar().findChildren(QMenu):
            actions = menu.actions()
            if after in actions:
                index = actions.index(after) + 1
                before = actions[index] if index < len(actions) else None
                menu.insertAction(before, self.save_as_lesson)  # type: ignore[arg-type]

    # -- from the session ----------------------------------------------------------------

    def render(self, snapshot: Snapshot) -> None:
        """The bar, the arrows' state, and the view a step just reached asks for."""
        position = snapshot.lesson_step
        self.bar.render(snapshot)
        if self.toolbar.isVisibleTo(self._window) != (position is not None):
            self.toolbar.setVisible(position is not None)
            self._on_view_bar_resized()
        self.next_step.setEnabled(position is not None and not position.at_last)
        self.previous_step.setEnabled(position is not None and not position.at_first)
        key = None if position is None else (position.index, position.count, snapshot.path)
        if key != self._shown_step:
            self._shown_step = key
            # Moving to a step raises its view; opening a lesson does not: the window then
            # shows the controls the lesson names (in compact mode the views are a tab
            # among them).
            moved = position is not None and "lesson" in snapshot.changes
            self._pending_view = position.view if moved and position is not None else None
        if self._pending_view is not None and not snapshot.running:
            # Two turns of the event loop later: once the window has arranged itself for
            # this result (it raises the tab of controls the lesson names one turn after
            # the result), so the view the step asks for is raised last, and stays up.
            QTimer.singleShot(0, self, lambda: QTimer.singleShot(0, self, self._raise_view))

    def _raise_view(self) -> None:
        view, self._pending_view = self._pending_view, None
        if view is not None:
            self._show_view(view)  # a view this window lacks is skipped

    # -- from the user -------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Right/Left, PageDown/PageUp advance the lesson where no control needs them."""
        if event.type() != QEvent.Type.KeyPress or self._session.lesson_step_count == 0:
            return False
        if not isinstance(event, QKeyEvent) or not isinstance(watched, QWidget):
            return False
        key = event.key()
        if key not in NEXT_KEYS and key not in PREVIOUS_KEYS:
            return False
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if modifiers != Qt.KeyboardModifier.NoModifier or watched.window() is not self._window:
            return False
        if keeps_arrow_keys(watched):
            return False
        action = self.next_step if key in NEXT_KEYS else self.previous_step
        if action.isEnabled():
            action.trigger()
        return True

    def _on_view_bar_resized(self) -> None:
        # Once Qt has laid the window out again around the bar's new height.
        QTimer.singleShot(0, self, self._refit)

    def _on_view_next(self) -> None:
        position = self._session.snapshot.lesson_step
        if position is not None and not position.at_last and self._confirm():
            self._session.next_lesson_step()

    def _on_view_previous(self) -> None:
        position = self._session.snapshot.lesson_step
        if position is not None and not position.at_first and self._confirm():
            self._session.previous_lesson_step()

    def _on_view_browse(self) -> None:
        browser = self.make_browser()
        browser.exec()

    def make_browser(self) -> LessonBrowser:
        """The lesson browser over the window, on the lesson open now (if it is one)."""
        browser = LessonBrowser(lesson_paths(), self._open_lesson, self._window)
        browser.select_path(self._session.snapshot.path)
        return browser

    def _on_view_save_lesson(self) -> None:
        dialog = SaveLessonDialog(self._session.snapshot, self._window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        document = dialog.lesson()
        suggested = str(Path.home() / f"{file_stem(document.title)}.json")
        path, _ = QFileDialog.getSaveFileName(
            self._window, "Save as Lesson", suggested, LESSON_FILTER
        )
        if path:
            self.save_lesson_to(path, document)

    def save_lesson_to(self, path: str | os.PathLike[str], document: Document) -> bool:
        """Write ``document`` as a lesson file (atomically); a failure is reported."""
        try:
            save_session(document, path)
        except OSError as exc:
            self._show_error("Cannot save the lesson", f"{path}: {exc.strerror or exc}")
            return False
        except SessionFileError as exc:
            self._show_error("Cannot save the lesson", f"{path}: {exc}")
            return False
        self._window.statusBar().showMessage(f"Saved the lesson as {path}", 5000)
        return True


def keeps_arrow_keys(widget: QWidget) -> bool:
    """Whether ``widget`` uses the arrow and page keys itself (typing, values, rows)."""
    if isinstance(widget, QTextEdit | QPlainTextEdit):
        return not widget.isReadOnly()
    return isinstance(
        widget, QAbstractSpinBox | QAbstractSlider | QAbstractItemView | QLineEdit | QComboBox
    )


def file_stem(title: str | None) -> str:
    """A file name for a lesson titled ``title``: lower case words joined by hyphens."""
    words = re.findall(r"[A-Za-z0-9]+", title or "")
    return "-".join(words).lower()[:60] or "lesson"


def _action(
    window: QMainWindow, text: str, shortcut: str | None, slot: Callable[[], object]
) -> QAction:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    action.triggered.connect(slot)
    return action
