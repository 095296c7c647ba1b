"""SliderHold: when a value starts and stops being moved, by mouse, keys or wheel."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QSlider
from pytestqt.qtbot import QtBot

from gui.widgets import slider_hold
from gui.widgets.slider_hold import SliderHold


def _watched(qtbot: QtBot) -> tuple[QSlider, SliderHold, list[bool], list[tuple[bool, int]]]:
    slider = QSlider(Qt.Orientation.Horizontal)
    slider.setRange(0, 100)
    slider.setValue(50)
    qtbot.addWidget(slider)
    hold = SliderHold(slider)
    hold.watch(slider)
    seen: list[bool] = []
    order: list[tuple[bool, int]] = []  # (held when the value changed, value)
    hold.held.connect(seen.append)
    slider.valueChanged.connect(lambda v: order.append((hold.is_held, v)))
    return slider, hold, seen, order


def test_a_key_step_is_held_before_the_value_moves_and_settles_after_a_pause(
    qtbot: QtBot,
) -> None:
    slider, _hold, seen, order = _watched(qtbot)
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert order == [(True, 51)]  # the run this step makes knows it is part of a gesture
    assert seen == [True]
    qtbot.keyClick(slider, Qt.Key.Key_PageUp)  # a second tap, within the pause
    assert seen == [True] and slider.value() > 51
    qtbot.waitUntil(lambda: seen == [True, False], timeout=slider_hold.SETTLE_MS * 10)


def test_a_held_key_repeats_without_settling(qtbot: QtBot) -> None:
    slider, _hold, seen, _ = _watched(qtbot)
    qtbot.keyPress(slider, Qt.Key.Key_Left)
    for _ in range(4):  # a held key: a release and a press per repeat, both marked
        qtbot.wait(slider_hold.SETTLE_MS // 2)
        for kind in (QEvent.Type.KeyRelease, QEvent.Type.KeyPress):
            QApplication.sendEvent(
                slider, QKeyEvent(kind, Qt.Key.Key_Left, Qt.KeyboardModifier.NoModifier, "", True)
            )
    assert seen == [True] and slider.value() == 45  # never paused for a whole SETTLE_MS
    qtbot.keyRelease(slider, Qt.Key.Key_Left)
    qtbot.waitUntil(lambda: seen == [True, False], timeout=slider_hold.SETTLE_MS * 10)


def test_a_release_that_never_comes_still_ends_the_hold(qtbot: QtBot) -> None:
    slider, _hold, seen, _ = _watched(qtbot)
    qtbot.keyPress(slider, Qt.Key.Key_Right)  # focus moves away: the release goes elsewhere
    assert seen == [True]
    qtbot.waitUntil(lambda: seen == [True, False], timeout=slider_hold.SETTLE_MS * 10)


def test_other_keys_and_shortcuts_are_not_steps(qtbot: QtBot) -> None:
    slider, hold, seen, _ = _watched(qtbot)
    qtbot.keyClick(slider, Qt.Key.Key_A)
    qtbot.keyClick(slider, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    assert seen == [] and not hold.is_held


def _wheel(slider: QSlider) -> None:
    centre = QPointF(slider.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(slider.mapToGlobal(QPoint(int(centre.x()), int(centre.y())))),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(slider, event)


def test_a_focused_wheel_steps_and_settles_an_unfocused_one_is_not_a_step(
    qtbot: QtBot,
) -> None:
    slider, _hold, seen, _ = _watched(qtbot)
    slider.show()
    qtbot.waitExposed(slider)
    slider.clearFocus()
    _wheel(slider)
    assert seen == []
    slider.activateWindow()
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus, timeout=2000)
    _wheel(slider)
    assert seen == [True]
    qtbot.waitUntil(lambda: seen == [True, False], timeout=slider_hold.SETTLE_MS * 10)


def test_a_key_pause_does_not_let_go_of_a_held_handle(qtbot: QtBot) -> None:
    slider, hold, seen, _ = _watched(qtbot)
    slider.setSliderDown(True)  # the mouse holds the handle
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    qtbot.wait(slider_hold.SETTLE_MS * 2)
    assert seen == [True] and hold.is_held
    slider.setSliderDown(False)
    assert seen == [True, False]


def test_release_lets_go_at_once(qtbot: QtBot) -> None:
    slider, hold, seen, _ = _watched(qtbot)
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    hold.release()
    assert seen == [True, False]
    qtbot.wait(slider_hold.SETTLE_MS * 2)
    assert seen == [True, False]  # the pending pause timer was stopped
