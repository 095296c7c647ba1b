"""No Qt signal is connected straight to a session's method.

PySide watches a slot that is a bound method of an object that is not a ``QObject`` (the
session is plain Python) through a weak reference, and disconnects when the object goes.
When that happens in a garbage collection on the engine's worker thread, the disconnect
takes Qt's connection lock there and then waits for the GIL, while the GUI thread holds
the GIL and waits for that lock to connect something: the window froze that way in the
test suite. Widgets connect to their own ``_on_view_*`` methods (or functions of their
own), which call the session.
"""

from __future__ import annotations

import ast
from pathlib import Path

import gui

SOURCES = sorted(Path(gui.__file__).parent.rglob("*.py"))


def _is_session(node: ast.expr) -> bool:
    """``session``, ``self._session``, ``self.session`` (any ``...session`` name)."""
    if isinstance(node, ast.Name):
        return node.id.endswith("session")
    return isinstance(node, ast.Attribute) and node.attr.endswith("session")


def _session_slots(source: str) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "connect" or not node.args:
            continue
        target = node.func.value  # the signal
        if isinstance(target, ast.Attribute) and _is_session(target.value):
            continue  # the session's own signal (psygnal): not a Qt connection
        slot = node.args[0]
        if isinstance(slot, ast.Attribute) and _is_session(slot.value):
            lines.append(node.lineno)
    return lines


def test_no_qt_signal_is_connected_to_a_session_method() -> None:
    found = {
        str(path.relative_to(Path(gui.__file__).parent)): lines
        for path in SOURCES
        if (lines := _session_slots(path.read_text()))
    }
    assert found == {}


def test_the_check_sees_such_a_connection() -> None:
    source = (
        "class W:\n"
        "    def build(self, session):\n"
        "        self.button.clicked.connect(session.backward)\n"
        "        self.box.dragging.connect(self._session.set_dragging)\n"
        "        session.changed.connect(self.render)\n"
        "        self.button.clicked.connect(self._on_view_backward)\n"
    )
    assert _session_slots(source) == [3, 4]
