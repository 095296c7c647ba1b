"""The line over the code editor saying whether the picture matches the code.

What it says comes from :func:`gui.model.views.status.status_for`; this widget shows it in
the state's colours, and says "Running…" only once a run takes a while.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from gui.model.session import Snapshot
from gui.model.views.status import STATUS_STYLES, starting, status_for
from gui.widgets.qt_text import follow_application_font

# Runs usually take milliseconds: flashing "Running…" on every slider tick would only distract.
RUNNING_NOTICE_DELAY_MS = 150


class StatusStrip(QLabel):
    """One line over the editor saying whether the picture matches the code."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeStatus")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        follow_application_font(self)
        self._state: tuple[str, str] | None = None
        self._shown: tuple[Snapshot, bool] | None = None
        self._long_run = False
        self._ever_ran = False
        self._run_timer = QTimer(self, singleShot=True, interval=RUNNING_NOTICE_DELAY_MS)
        self._run_timer.timeout.connect(self._on_run_taking_long)

    def show_status(self, snapshot: Snapshot, pending: bool) -> None:
        """Show :func:`status_for`; a run says "Running…" only once it takes a while, and
        the first one says "Starting the engine…" at once (torch is loading)."""
        self._shown = (snapshot, pending)
        self._ever_ran = self._ever_ran or snapshot.result is not None or snapshot.error is not None
        if starting(snapshot, self._ever_ran):
            self._apply(status_for(snapshot, pending, self._ever_ran))
            return
        if not snapshot.running:
            self._run_timer.stop()
            self._long_run = False
        elif not self._long_run:
            if not self._run_timer.isActive():
                self._run_timer.start()
            return
        self._apply(status_for(snapshot, pending, self._ever_ran))

    def _on_run_taking_long(self) -> None:
        self._long_run = True
        if self._shown is not None:
            self.show_status(*self._shown)

    def _apply(self, state: tuple[str, str]) -> None:
        if state == self._state:
            return
        self._state = state
        text, style = state
        background, foreground = STATUS_STYLES[style]
        self.setText(text)
        self.setProperty("status", style)
        self.setStyleSheet(
            f"QLabel {{ background-color: {background}; color: {foreground}; "
            f"padding: 4px 8px; border-radius: 3px; }}"
        )
