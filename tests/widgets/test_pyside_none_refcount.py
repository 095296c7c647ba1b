"""Regression guard for PySide6 6.12.0 on Python 3.11 (see platform notes).

That release drops a reference to ``None`` on every void-returning Qt call; after a few
thousand calls the interpreter aborts with ``none_dealloc``. The project pins a safe range;
this test fails loudly if a bad build ever sneaks in.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel, QWidget


def test_void_qt_calls_do_not_leak_none_references(qtbot: object) -> None:
    widget = QWidget()
    label = QLabel(widget)
    before = sys.getrefcount(None)
    for i in range(10_000):
        label.setText(str(i % 7))
        widget.update()
    after = sys.getrefcount(None)
    # Immortal None (3.12+) reports a huge constant; on 3.11 a leak shows as a large drop.
    assert after >= before - 100
