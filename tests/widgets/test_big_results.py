"""Huge text from a program reaches the window bounded, and the window draws it quickly.

A one-megabyte assertion message once froze the window for minutes: Qt lays one long line
out in quadratic time (the explanation tab took 1.4 s for 100,000 characters). The result
now carries at most :data:`~gui.model.result.MAX_TEXT_CHARS` per message and per printed
chunk, and a bounded amount of printed text in all.
"""

from __future__ import annotations

import time

from PySide6.QtWidgets import QApplication, QPlainTextEdit
from pytestqt.qtbot import QtBot

from gui.model.session import Session
from gui.model.views.status import status_bar_text
from gui.widgets.code_editor_panel import CodeEditorPanel
from tests.fixtures import explanation_text

# The budget is tens of milliseconds; the margin absorbs a busy shared test machine.
BUDGET_SECONDS = 0.25


def shown_within(qtbot: QtBot, session: Session) -> tuple[CodeEditorPanel, float]:
    """A code panel built on the session's result, and how long building and drawing took."""
    started = time.perf_counter()
    panel = CodeEditorPanel(session)
    qtbot.addWidget(panel)
    panel.resize(700, 500)
    panel.show()
    QApplication.processEvents()
    return panel, time.perf_counter() - started


def test_a_huge_assertion_message_is_shown_cut_and_quickly(qtbot: QtBot, session: Session) -> None:
    # 200,000 characters: unbounded, the explanation tab alone takes seconds to lay out.
    session.set_code("x = torch.tensor([1.], requires_grad=True)\nassert False, 'a' * 200_000\n")
    panel, seconds = shown_within(qtbot, session)
    assert seconds < BUDGET_SECONDS
    text = explanation_text(panel)
    assert "AssertionError" in text and "characters left out" in text
    assert len(status_bar_text(session.snapshot)) < 200


def test_a_flood_of_printed_lines_is_shown_with_its_ends_and_quickly(
    qtbot: QtBot, session: Session
) -> None:
    session.set_code("for i in range(20000):\n    print(i, 'x' * 3000)\n")
    result = session.snapshot.result
    assert result is not None and result.error is None
    panel, seconds = shown_within(qtbot, session)
    assert seconds < BUDGET_SECONDS
    text = panel.findChild(QPlainTextEdit, "codePrinted").toPlainText()
    assert "printed lines left out" in text and "19999 xxx" in text
    assert len(text) < 150_000
