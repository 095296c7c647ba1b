"""The step-through bar under the graph's toolbar: reset, back, play or pause, step, done,
a speed slider, and where the replay of torch's backward stands.

The replay's state lives in the session (:mod:`gui.model.session.replay`); the bar only
calls it. Its timer is the one thing here with a clock: while the session says the replay
plays, every ``1 / speed`` seconds it asks the session for the next node.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QSlider, QToolButton, QWidget

from gui.model.session import Session, Snapshot
from gui.model.session.replay import DEFAULT_SPEED, FASTEST, SLOWEST
from gui.model.views.step_through import bar_texts
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.qt_text import plain_label

# The speed slider is logarithmic: each step multiplies the speed by the same factor.
SPEED_STEPS = 40


def speed_to_slider(speed: float) -> int:
    """The slider position of ``speed`` nodes per second."""
    fraction = math.log(speed / SLOWEST) / math.log(FASTEST / SLOWEST)
    return round(min(max(fraction, 0.0), 1.0) * SPEED_STEPS)


def slider_to_speed(position: int) -> float:
    """The speed in nodes per second at slider ``position``."""
    return SLOWEST * (FASTEST / SLOWEST) ** (position / SPEED_STEPS)


class ReplayBar(QWidget):
    """Controls that replay the graph's backward call node by node, in torch's order."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("replay")
        self._session = session
        self.reset_button = self._button("|◀", "Back to the start: only the seed at the output")
        self.back_button = self._button("◀", "One node back (Shift+F7)")
        self.play_button = self._button("▶ Play", "Replay torch's backward node by node (F6)")
        self.step_button = self._button("▶|", "One node on, as torch ran them (F7)")
        self.done_button = self._button("Done", "Show the whole backward call again")
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(0, SPEED_STEPS)
        self.speed.setValue(speed_to_slider(DEFAULT_SPEED))
        self.speed.setToolTip("Speed: nodes per second while playing")
        self.speed.setMaximumWidth(90)
        self.speed.setMinimumWidth(40)
        # One row: the buttons, where the replay stands (never cut), then the current
        # node and its rule with numbers (a narrow column cuts their end).
        self.where = plain_label()
        self.where.setObjectName("replayWhere")
        bold = self.where.font()
        bold.setBold(True)
        self.where.setFont(bold)
        self.headline = ElidedLabel()
        self.headline.setContentsMargins(4, 0, 4, 0)
        top = QHBoxLayout()
        top.setContentsMargins(4, 0, 4, 0)
        top.setSpacing(2)
        for button in (self.reset_button, self.back_button, self.play_button, self.step_button):
            top.addWidget(button)
        top.addWidget(self.speed)
        top.addWidget(self.where)
        top.addWidget(self.headline, 1)
        top.addWidget(self.done_button)
        self.setLayout(top)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_timer)
        self.reset_button.clicked.connect(self._on_view_reset)
        self.back_button.clicked.connect(self._on_view_back)
        self.play_button.clicked.connect(self._on_view_play)
        self.step_button.clicked.connect(self._on_view_step)
        self.done_button.clicked.connect(self._on_view_done)
        self.speed.valueChanged.connect(self._on_view_speed)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    def _button(self, text: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        # Clicks leave the focus where it was (a lesson's arrow keys, the editor).
        button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        return button

    # -- user actions ------------------------------------------------------------------

    def _on_view_reset(self) -> None:
        self._session.start_replay(playing=False)

    def _on_view_back(self) -> None:
        self._session.step_replay(-1)

    def _on_view_step(self) -> None:
        self._session.step_replay(1)

    def _on_view_play(self) -> None:
        replay = self._session.snapshot.replay_state
        self._session.play_replay(not (replay is not None and replay.playing))

    def _on_view_done(self) -> None:
        self._session.stop_replay()

    def _on_view_speed(self, position: int) -> None:
        self._session.set_replay_speed(slider_to_speed(position))

    def _on_timer(self) -> None:
        self._session.step_replay(1)

    # -- rendering ---------------------------------------------------------------------

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show where the replay stands; run the timer while it plays."""
        texts = bar_texts(snapshot)
        self.where.setText(f"{texts.where}:" if texts.where else "")
        self.where.setVisible(bool(texts.where))
        self.headline.setText(f"{texts.headline} — {texts.rule}" if texts.rule else texts.headline)
        replay = snapshot.replay_state
        playing = replay is not None and replay.playing
        for button in (self.reset_button, self.back_button, self.play_button, self.step_button):
            button.setEnabled(texts.enabled)
        self.back_button.setEnabled(texts.enabled and replay is not None and replay.position > 0)
        self.play_button.setText("⏸ Pause" if playing else "▶ Play")
        self.done_button.setVisible(replay is not None)
        if replay is not None:
            with QSignalBlocker(self.speed):
                self.speed.setValue(speed_to_slider(replay.speed))
        if playing and replay is not None:
            interval = round(1000 / replay.speed)
            if not self._timer.isActive() or self._timer.interval() != interval:
                self._timer.start(interval)
        elif self._timer.isActive():
            self._timer.stop()
