"""Whether the user is in the middle of moving a value with its sliders.

A mouse drag holds a value from the handle's press to its release. Keys (arrows, Page
Up/Down, Home/End) and a focused slider's wheel move it in steps that have no release of
their own: those count as held until they pause for :data:`SETTLE_MS`. The session reads
only what is on screen of a big graph while a value is held, and every number once it is
let go (:mod:`gui.model.session.drag_detail`); a run of key presses is then as quick as a
drag, and the last press is followed by one whole read.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractSlider

# How long key or wheel steps may pause and still be one gesture. A learner tapping an
# arrow key presses every 150-250 ms; holding it repeats every 30-40 ms (after a delay of
# about half a second, which may end the gesture once: one whole read, harmless).
SETTLE_MS = 300

# The keys a focused QSlider moves its value with (QAbstractSlider::keyPressEvent).
STEP_KEYS = frozenset(
    {
        Qt.Key.Key_Left,
        Qt.Key.Key_Right,
        Qt.Key.Key_Up,
        Qt.Key.Key_Down,
        Qt.Key.Key_PageUp,
        Qt.Key.Key_PageDown,
        Qt.Key.Key_Home,
        Qt.Key.Key_End,
    }
)


class SliderHold(QObject):
    """Watches sliders; ``held(bool)`` says when a value starts and stops being moved.

    ``held(True)`` comes before the step's own value change (the press is seen before the
    slider acts on it), so the run that step makes already knows it is part of a gesture.
    """

    held = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._mouse = False
        self._stepping = False
        self._emitted = False
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._on_settled)

    @property
    def is_held(self) -> bool:
        return self._emitted

    def watch(self, slider: QAbstractSlider) -> None:
        slider.sliderPressed.connect(self._on_pressed)
        slider.sliderReleased.connect(self._on_released)
        slider.installEventFilter(self)

    def release(self) -> None:
        """Let go of everything now (the sliders are going away: no release will come)."""
        self._mouse = False
        self._stepping = False
        self._settle.stop()
        self._update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            assert isinstance(event, QKeyEvent)
            if event.key() in STEP_KEYS and event.modifiers() in _PLAIN_MODIFIERS:
                if kind == QEvent.Type.KeyPress:
                    self._step_started()
                # Counted from every key event, not only the release: a release can go
                # astray (focus moved away with the key down) and must not hold forever.
                self._settle.start()
        elif (
            kind == QEvent.Type.Wheel
            and isinstance(watched, QAbstractSlider)
            and watched.hasFocus()  # (unfocused, the wheel scrolls the panel: _Slider)
        ):
            self._step_started()
            self._settle.start()  # a wheel step has no release: the pause counts from now
        return False  # the slider still handles the event itself

    def _step_started(self) -> None:
        self._settle.stop()
        self._stepping = True
        self._update()

    def _on_settled(self) -> None:
        self._stepping = False
        self._update()

    def _on_pressed(self) -> None:
        self._mouse = True
        self._update()

    def _on_released(self) -> None:
        self._mouse = False
        self._update()

    def _update(self) -> None:
        held = self._mouse or self._stepping
        if held != self._emitted:
            self._emitted = held
            self.held.emit(held)


# A slider moves on a step key with no modifier or with the keypad's (arrows on a
# keypad); Ctrl or Alt with an arrow is a shortcut of something else.
_PLAIN_MODIFIERS = (
    Qt.KeyboardModifier.NoModifier,
    Qt.KeyboardModifier.KeypadModifier,
)
