"""The code panel: the user's program, where it went wrong, and whether the picture is current.

Typing restarts a short timer; when the user pauses, the text goes to the session (which
re-runs it when live). Ctrl+Enter sends and runs at once. Text coming back from the session
(a lesson loaded, a one-click fix appended) replaces the editor's text only when it did not
come from the editor itself, and never while the user is in the middle of typing.

The panel stacks a :class:`~gui.widgets.status_strip.StatusStrip`, the
:class:`~gui.widgets.code_editor.CodeEditor` and the
:class:`~gui.widgets.diagnostics_tabs.DiagnosticsTabs`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from gui.model.result import Explanation
from gui.model.session import Session, Snapshot
from gui.model.views.status import waiting_text
from gui.widgets.code_editor import CodeEditor
from gui.widgets.diagnostics_tabs import DiagnosticsTabs
from gui.widgets.status_strip import StatusStrip

# The most of the code panel the explanation takes by itself to show its whole text...
MAX_EXPLANATION_SHARE = 0.6
# ...or more, while the code keeps this many lines (an error and its fix come first).
CODE_LINES_KEPT = 4


class CodeEditorPanel(QWidget):
    """The program's text, its errors explained, its printed output, and a status strip.

    Parameters
    ----------
    session
        The window's session: typing ends in :meth:`Session.set_code` after
        ``debounce_ms`` of quiet; Ctrl+Enter sends and calls :meth:`Session.run_now`.
    debounce_ms
        The pause after the last keystroke before the text is sent (tests shorten it).
    """

    debounce_ms: int = 350

    def __init__(
        self, session: Session, parent: QWidget | None = None, debounce_ms: int | None = None
    ) -> None:
        super().__init__(parent)
        self._session = session
        if debounce_ms is not None:
            self.debounce_ms = debounce_ms
        # The text the editor and the session last agreed on (None: nothing shown yet).
        self._sent: str | None = None
        self._snapshot = session.snapshot
        self._timer = QTimer(self, singleShot=True, interval=self.debounce_ms)
        self._timer.timeout.connect(self._on_view_typing_paused)
        self._status = StatusStrip(self)
        self._editor = CodeEditor(self)
        self._editor.edited.connect(self._on_view_edited)
        self._editor.run_requested.connect(self._on_view_run_now)
        self._tabs = DiagnosticsTabs(self)
        splitter = self._splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self._editor)
        splitter.addWidget(self._tabs)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self._status)
        layout.addWidget(splitter, 1)
        self._diagnostics: tuple[Explanation | None, tuple[Explanation, ...], str | None] | None
        self._diagnostics = None
        self._ever_ran = False
        session.changed.connect(self.render)
        self.render(session.snapshot)

    def editor(self) -> CodeEditor:
        """The text editor (the main window gives it focus)."""
        return self._editor

    def show_explanation(self) -> None:
        """Bring the explanation tab forward and give it the room its text needs."""
        self._tabs.setCurrentIndex(0)
        self.fit_explanation()

    def needed_height(self) -> int:
        """The height that shows every line of the code and the whole explanation."""
        layout = self.layout()
        spacing = layout.spacing() if layout is not None else 0
        return (
            self._status.sizeHint().height()
            + spacing
            + self._editor.needed_height()
            + self._splitter.handleWidth()
            + self._tabs.needed_height()
        )

    def fit_explanation(self, shrink: bool = False) -> None:
        """Give the explanation the height its text needs (at most
        :data:`MAX_EXPLANATION_SHARE` of the panel, or more while the code keeps
        :data:`CODE_LINES_KEPT` lines), the code the rest. Without
        ``shrink`` it only ever grows: an error that comes and goes while typing must not
        move the editor's edge back and forth."""
        total = sum(self._splitter.sizes())
        if total <= 0:
            return
        least = self._tabs.minimumSizeHint().height()
        code_least = min(self._editor.needed_height(), self._editor.lines_height(CODE_LINES_KEPT))
        most = max(round(total * MAX_EXPLANATION_SHARE), total - code_least)
        need = max(least, min(self._tabs.needed_height(), most))
        tabs = self._splitter.sizes()[1]
        if need > tabs or (shrink and need != tabs):
            self._splitter.setSizes([total - need, need])
        self._editor.reveal_error()

    def flush(self) -> None:
        """Send text still waiting for the typing pause to the session now (before saving)."""
        self._timer.stop()
        self._send()
        self._show_status()

    # -- from the session --------------------------------------------------------------

    # Shadows QWidget.render(QPaintDevice) on purpose: every panel's public entry point.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``: new code (if not typed here), errors, printed output, status."""
        self._snapshot = snapshot
        replaced = self._sync_text(snapshot)
        self._ever_ran = self._ever_ran or snapshot.result is not None or snapshot.error is not None
        waiting = waiting_text(snapshot, self._ever_ran)
        diagnostics = (snapshot.error, snapshot.warnings, waiting)
        if replaced or diagnostics != self._diagnostics:
            self._diagnostics = diagnostics
            self._editor.set_diagnostics(snapshot.error, snapshot.warnings)
            self._tabs.show_diagnostics(snapshot.error, snapshot.warnings, waiting)
            if snapshot.error is not None or snapshot.warnings:
                self._tabs.setCurrentIndex(0)  # what went wrong before what was printed
                self.fit_explanation()
        result = snapshot.result
        if result is None:
            self._tabs.show_printed(())
        else:
            self._tabs.show_printed(result.printed, result.output_truncated)
        self._show_status()

    def _show_status(self) -> None:
        self._status.show_status(self._snapshot, self._timer.isActive())

    def _sync_text(self, snapshot: Snapshot) -> bool:
        """Take the session's code if it changed elsewhere; True if the editor's text changed.

        A lesson or file (``"file"`` with ``"code"``) wins over unsent typing and starts a
        fresh undo history; any other outside change (a one-click fix) waits until the
        user's typing has been sent, and can be undone with Ctrl+Z.
        """
        code = snapshot.code
        new_document = self._sent is None or {"file", "code"} <= snapshot.changes
        if code == self._sent and not new_document:
            return False
        if self._timer.isActive():
            if not new_document:
                return False
            self._timer.stop()
        self._sent = code
        if code == self._editor.code():
            # The text may have come in already with an earlier snapshot (the session can
            # emit the run's result before the change that caused it).
            if new_document:
                self._editor.document().clearUndoRedoStacks()
            return False
        self._editor.replace_text(code, keep_undo=not new_document)
        return True

    # -- from the user -----------------------------------------------------------------

    def _on_view_edited(self) -> None:
        self._timer.start(self.debounce_ms)
        self._show_status()

    def _on_view_typing_paused(self) -> None:
        self._send()
        self._show_status()

    def _on_view_run_now(self) -> None:
        self._timer.stop()
        self._send()
        self._session.run_now()

    def _send(self) -> None:
        self._sent = self._editor.code()
        self._session.set_code(self._sent)
