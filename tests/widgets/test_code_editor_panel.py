"""The code panel: typing reaches the session after a pause, errors point at their line,
text from elsewhere (lessons, one-click fixes) replaces the editor's without echoing back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QKeySequence, QTextCursor
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QPlainTextEdit,
    QTabWidget,
    QTextBrowser,
    QWidget,
)
from pytestqt.qtbot import QtBot

from gui.model.engine_process import EngineProcess
from gui.model.session import Session, Snapshot
from gui.widgets.code_editor_panel import CodeEditorPanel
from tests.fixtures import (
    HeldDispatcher,
    explanation_text,
    load_lesson,
    type_lines,
    underlines,
)

pytestmark = pytest.mark.slow

NON_SCALAR = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\n"
SYNTAX_ERROR = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * 2\n"
PRINTS = (
    "x = torch.tensor([[1.3448, -0.2924], [-0.4746, 0.8842]], requires_grad=True)\n"
    "print(x * 2)\ny = (x ** 2).sum()\ny.backward()\nprint(x.grad)\n"
)
GOOD = "x = torch.tensor([3., 4.], requires_grad=True)\ny = (x ** 2).sum()\n"


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> CodeEditorPanel:
    widget = CodeEditorPanel(session, debounce_ms=30)
    qtbot.addWidget(widget)
    widget.resize(600, 650)
    return widget


def status_text(panel: CodeEditorPanel) -> str:
    return panel.findChild(QLabel, "codeStatus").text()


def printed_text(panel: CodeEditorPanel) -> str:
    return panel.findChild(QPlainTextEdit, "codePrinted").toPlainText()


def type_code(qtbot: QtBot, panel: CodeEditorPanel, session: Session, text: str) -> None:
    """Type ``text`` into an empty editor and wait until the pause sent it."""
    editor = panel.editor()
    type_lines(qtbot, editor, text)
    qtbot.waitUntil(lambda: session.snapshot.code == editor.toPlainText(), timeout=2000)


def test_typing_reaches_the_session_after_the_pause(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session
) -> None:
    editor = panel.editor()
    qtbot.keyClicks(editor, "x = torch.tensor(3., requires_grad=True); y = x * 2")
    assert session.snapshot.code == ""  # nothing sent while typing
    assert status_text(panel) == "Edited: runs when you stop typing"
    qtbot.waitUntil(lambda: session.snapshot.code.startswith("x = torch.tensor"), timeout=2000)
    assert session.snapshot.code == editor.toPlainText()
    assert session.snapshot.leaves == ("x",)
    assert status_text(panel) == "Up to date"


def test_one_pause_sends_the_text_once(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session, emitted: list[Snapshot]
) -> None:
    qtbot.keyClicks(panel.editor(), "x = 1")
    qtbot.waitUntil(lambda: session.snapshot.code == "x = 1", timeout=2000)
    code_changes = [s for s in emitted if "code" in s.changes]
    assert len(code_changes) == 1


def test_tab_inserts_four_spaces_and_return_keeps_the_indent(
    qtbot: QtBot, panel: CodeEditorPanel
) -> None:
    editor = panel.editor()
    qtbot.keyClicks(editor, "for i in range(2):")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "a = i")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == "for i in range(2):\n    a = i\n        "
    assert "\t" not in editor.toPlainText()


def test_ctrl_enter_runs_at_once(qtbot: QtBot, session: Session, emitted: list[Snapshot]) -> None:
    # A long pause: only Ctrl+Enter can have sent the text.
    panel = CodeEditorPanel(session, debounce_ms=60_000)
    qtbot.addWidget(panel)
    editor = panel.editor()
    qtbot.keyClicks(editor, "x = torch.tensor([2.], requires_grad=True); y = x * 2")
    assert session.snapshot.code == ""
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert session.snapshot.code == "x = torch.tensor([2.], requires_grad=True); y = x * 2"
    assert session.snapshot.result is not None
    assert session.snapshot.leaves == ("x",)
    assert "\n" not in editor.toPlainText()  # Ctrl+Enter runs, it does not break the line
    assert status_text(panel) == "Up to date"


def test_ctrl_enter_in_the_editor_wins_over_a_window_shortcut(
    qtbot: QtBot, session: Session
) -> None:
    # The main window may bind Ctrl+Return to "Run" as well; in the editor the editor's own
    # handling must win, so the typed text is sent before the run.
    window = QWidget()
    qtbot.addWidget(window)
    panel = CodeEditorPanel(session, parent=window, debounce_ms=60_000)
    triggered: list[bool] = []
    action = QAction("Run", window)
    action.setShortcut(QKeySequence("Ctrl+Return"))
    action.triggered.connect(lambda: triggered.append(True))
    window.addAction(action)
    window.show()
    window.windowHandle().requestActivate()  # shortcuts only fire in the active window
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    panel.editor().setFocus()
    assert QApplication.focusWidget() is panel.editor()
    qtbot.keyClicks(panel.editor(), "x = torch.tensor(1., requires_grad=True)")
    qtbot.keyClick(panel.editor(), Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert triggered == []
    assert session.snapshot.code == "x = torch.tensor(1., requires_grad=True)"
    # Elsewhere in the window the window's shortcut still works.
    window.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert triggered == [True]


def test_ctrl_enter_runs_even_with_live_off(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session
) -> None:
    session.set_live(False)
    editor = panel.editor()
    type_lines(qtbot, editor, GOOD.strip())
    qtbot.waitUntil(lambda: session.snapshot.code == GOOD.strip(), timeout=2000)
    assert session.snapshot.result is None
    assert status_text(panel) == "Live is off: press Ctrl+Enter to run"
    qtbot.keyClick(editor, Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier)
    assert session.snapshot.result is not None
    assert not session.snapshot.stale
    assert session.snapshot.leaves == ("x",)


def test_syntax_error_is_underlined_at_its_line_and_explained(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session
) -> None:
    panel.show()
    qtbot.waitExposed(panel)
    session.set_code(SYNTAX_ERROR)
    panel.grab()  # paints the gutter with its marker
    error = session.snapshot.error
    assert error is not None and error.kind == "syntax-error" and error.line == 2
    lines = underlines(panel)
    assert lines == [(2, "(x * 2", "#c62828")]  # from the column of the "(" on
    editor = panel.editor()
    line_two = QTextCursor(editor.document().findBlockByNumber(1))
    assert editor.marker_tooltip(editor.cursorRect(line_two).center().y()) == error.message
    assert (
        editor.marker_tooltip(editor.cursorRect(QTextCursor(editor.document())).center().y()) == ""
    )
    text = explanation_text(panel)
    assert "SyntaxError on line 2" in text
    assert error.message in text
    assert "was never closed" in text
    assert "Fix: Look at line 2, column 5" in text


def test_non_scalar_backward_shows_torchs_exact_message(
    panel: CodeEditorPanel, session: Session
) -> None:
    session.set_code(NON_SCALAR)
    assert session.snapshot.error is not None
    assert session.snapshot.error.kind == "non-scalar-backward"
    text = explanation_text(panel)
    assert "RuntimeError" in text
    assert "grad can be implicitly created only for scalar outputs" in text
    # The fix's backticked code is shown in the monospace font.
    assert "y.sum().backward()" in text
    html = panel.findChild(QTextBrowser, "codeExplanation").toHtml()
    family = panel.editor().font().family()
    assert family in html
    assert underlines(panel) == [(2, "y = x * 2", "#c62828")]
    assert status_text(panel) == "Error on line 2: see the explanation below"


def test_broken_code_keeps_the_last_good_result_and_says_so(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session
) -> None:
    type_code(qtbot, panel, session, GOOD)
    good = session.snapshot.result
    assert good is not None and good.graph is not None
    assert status_text(panel) == "Up to date"
    assert "No errors" in explanation_text(panel)
    qtbot.keyClicks(panel.editor(), "z = (y")
    qtbot.waitUntil(lambda: session.snapshot.error is not None, timeout=2000)
    snap = session.snapshot
    assert snap.stale and snap.result is good
    assert status_text(panel) == "Showing the last good result: fix the error to update"
    assert underlines(panel)[0][0] == 3


def test_warnings_are_underlined_in_orange_and_explained(
    panel: CodeEditorPanel, session: Session
) -> None:
    session.set_code(
        "x = torch.tensor([1.], requires_grad=True)\ny = x * 2\nz = y * 2\n"
        "z.backward()\nprint(y.grad)\n"
    )
    snap = session.snapshot
    assert snap.error is None and [w.kind for w in snap.warnings] == ["non-leaf-grad"]
    assert underlines(panel) == [(5, "print(y.grad)", "#e07000")]
    text = explanation_text(panel)
    assert "UserWarning on line 5" in text
    assert "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed" in text
    assert status_text(panel) == "1 warning: see the explanation below"


def test_printed_output_appears_with_its_line(panel: CodeEditorPanel, session: Session) -> None:
    snap = load_lesson(session, 7)
    assert snap.error is not None  # the old-tutorial error stops the program before print
    assert printed_text(panel) == ""
    session.set_code(
        "x = torch.tensor([3., 4.], requires_grad=True)\nprint(x * 2)\ny = (x ** 2).sum()\n"
        "y.backward()\nprint(x.grad)\n"
    )
    assert (
        printed_text(panel) == "2 │ tensor([6., 8.], grad_fn=<MulBackward0>)\n5 │ tensor([6., 8.])"
    )
    tabs = panel.findChild(QTabWidget)
    assert tabs.tabText(1) == "Printed output (2)"


def test_loading_a_lesson_replaces_the_text(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session
) -> None:
    type_code(qtbot, panel, session, "x = 1")
    snap = load_lesson(session, 7)
    editor = panel.editor()
    assert editor.toPlainText() == snap.code
    # A new document: its undo history starts afresh.
    assert not editor.document().isUndoAvailable()
    error = snap.error
    assert error is not None and error.kind == "gradient-shape-mismatch"
    assert underlines(panel) == [(7, "z.backward(T.FloatTensor([1]))", "#c62828")]
    text = explanation_text(panel)
    assert "Mismatch in shape: grad_output[0] has a shape of torch.Size([1])" in text
    assert "torch.ones_like(z)" in text


def test_an_edit_keeps_a_no_break_space_in_a_string(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session
) -> None:
    """A session file's `"10\u00a0kg"` (written raw) stays as written after an edit
    anywhere: ``toPlainText`` made it a plain space."""
    code = 'unit = "10\u00a0kg"\nx = torch.tensor([1.0], requires_grad=True)\n'
    session.set_code(code)
    editor = panel.editor()
    assert editor.code() == code
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    qtbot.keyClicks(editor, "y = x * 2")
    qtbot.waitUntil(lambda: session.snapshot.code == code + "y = x * 2", timeout=2000)
    assert "\u00a0" in session.snapshot.code


def test_a_lesson_wins_over_unsent_typing(qtbot: QtBot, session: Session) -> None:
    panel = CodeEditorPanel(session, debounce_ms=60_000)
    qtbot.addWidget(panel)
    qtbot.keyClicks(panel.editor(), "half typed")
    snap = load_lesson(session, 1)
    assert panel.editor().toPlainText() == snap.code
    assert session.snapshot.code == snap.code
    assert status_text(panel) == "Up to date"


def test_one_click_fix_appends_and_undo_brings_the_old_text_back(
    qtbot: QtBot, panel: CodeEditorPanel, session: Session
) -> None:
    type_code(qtbot, panel, session, NON_SCALAR.rstrip("\n"))
    assert session.snapshot.fixes == ("sum", "mean", "ones_like")
    before = panel.editor().toPlainText()
    editor = panel.editor()
    cursor = QTextCursor(editor.document().findBlockByNumber(0))
    cursor.setPosition(cursor.position() + 3)
    editor.setTextCursor(cursor)
    session.apply_fix("sum")
    assert (editor.textCursor().blockNumber(), editor.textCursor().positionInBlock()) == (0, 3)
    assert editor.toPlainText() == session.snapshot.code == before + "\nloss = y.sum()\n"
    assert session.snapshot.error is None
    assert underlines(panel) == []
    editor.undo()
    assert editor.toPlainText() == before
    # The undo is the user's edit: it reaches the session after the pause.
    qtbot.waitUntil(lambda: session.snapshot.code == before, timeout=2000)
    assert session.snapshot.error is not None


def test_outside_code_change_shows_without_echo(
    panel: CodeEditorPanel, session: Session, emitted: list[Snapshot], qtbot: QtBot
) -> None:
    session.set_code(GOOD)
    assert panel.editor().toPlainText() == GOOD
    # The session itself emits the run's result and the code change; the panel adds nothing,
    # not even after its typing pause has had time to pass.
    code_changes = [s for s in emitted if "code" in s.changes]
    assert len(code_changes) == 1
    count, generation = len(emitted), session.snapshot.generation
    qtbot.wait(80)
    assert len(emitted) == count and session.snapshot.generation == generation


def test_outside_change_without_a_run_emits_exactly_one_snapshot(
    panel: CodeEditorPanel, session: Session, emitted: list[Snapshot], qtbot: QtBot
) -> None:
    session.set_live(False)
    emitted.clear()
    session.set_code(GOOD)
    assert panel.editor().toPlainText() == GOOD
    qtbot.wait(80)
    assert len(emitted) == 1


def test_fix_waits_while_the_user_is_typing(qtbot: QtBot, session: Session) -> None:
    session.set_code(NON_SCALAR)
    panel = CodeEditorPanel(session, debounce_ms=60_000)
    qtbot.addWidget(panel)
    editor = panel.editor()
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor, "# note")
    session.apply_fix("sum")
    assert editor.toPlainText() == NON_SCALAR + "# note"  # the user's typing is kept
    panel.flush()
    assert session.snapshot.code == NON_SCALAR + "# note"


def test_flush_sends_pending_text(qtbot: QtBot, session: Session) -> None:
    panel = CodeEditorPanel(session, debounce_ms=60_000)
    qtbot.addWidget(panel)
    qtbot.keyClicks(panel.editor(), "x = torch.tensor(2., requires_grad=True); y = x * 2")
    assert session.snapshot.code == ""
    assert status_text(panel) == "Edited: runs when you stop typing"
    panel.flush()
    assert session.snapshot.code == "x = torch.tensor(2., requires_grad=True); y = x * 2"
    assert status_text(panel) == "Up to date"


def test_running_and_live_off_states(panel: CodeEditorPanel, session: Session) -> None:
    session.set_code(GOOD)
    session.set_live(False)
    session.set_code(GOOD + "z = y * 2\n")
    assert panel.editor().toPlainText() == GOOD + "z = y * 2\n"
    assert status_text(panel) == "Live is off: press Ctrl+Enter to run"


def test_the_first_run_says_the_engine_is_starting_not_no_errors(
    qtbot: QtBot, engine_process: EngineProcess
) -> None:
    dispatcher = HeldDispatcher()
    session = Session(engine_process.run, dispatcher=dispatcher)
    panel = CodeEditorPanel(session, debounce_ms=30)
    qtbot.addWidget(panel)
    session.set_code(GOOD)
    assert session.snapshot.running and session.snapshot.result is None
    # At once: the engine's process is still importing torch, which takes seconds.
    assert status_text(panel) == "Starting the engine…"
    assert explanation_text(panel) == "Starting the engine…"
    assert "No errors" not in explanation_text(panel)
    dispatcher.finish_all()
    assert status_text(panel) == "Up to date"
    assert "No errors" in explanation_text(panel)


def test_running_shows_only_when_a_run_takes_a_while(
    qtbot: QtBot, engine_process: EngineProcess
) -> None:
    dispatcher = HeldDispatcher()
    session = Session(engine_process.run, dispatcher=dispatcher)
    panel = CodeEditorPanel(session, debounce_ms=30)
    qtbot.addWidget(panel)
    session.set_code(GOOD)
    dispatcher.finish_all()  # the engine has started: later runs are plain runs
    session.set_code(GOOD + "z = y * 2\n")
    assert session.snapshot.running
    assert status_text(panel) != "Running…"  # not at once: most runs take milliseconds
    qtbot.waitUntil(lambda: status_text(panel) == "Running…", timeout=2000)
    dispatcher.finish_all()
    assert not session.snapshot.running
    assert status_text(panel) == "Up to date"


def test_long_lines_wrap_instead_of_being_cut_off(qtbot: QtBot, session: Session) -> None:
    panel = CodeEditorPanel(session, debounce_ms=30)
    qtbot.addWidget(panel)
    panel.resize(360, 500)
    panel.show()
    load_lesson(session, 7)  # "x = Variable(T.randn(1, 1), requires_grad=True)"
    editor = panel.editor()
    qtbot.waitUntil(lambda: editor.toPlainText() == session.snapshot.code)
    assert editor.horizontalScrollBar().maximum() == 0, "no line runs past the right edge"
    long_line = editor.document().findBlockByNumber(3)
    assert "requires_grad=True" in long_line.text()
    assert long_line.layout().lineCount() > 1
    assert editor.needed_height() > editor.document().blockCount() * editor.fontMetrics().height()


def test_the_explanation_and_its_fix_show_without_scrolling(qtbot: QtBot, session: Session) -> None:
    # A code panel as short as a 1280x720 window gives it beside big controls.
    panel = CodeEditorPanel(session, debounce_ms=30)
    qtbot.addWidget(panel)
    panel.resize(420, 340)
    panel.show()
    qtbot.waitExposed(panel)
    snapshot = load_lesson(session, 7)
    assert snapshot.error is not None and snapshot.error.fix
    browser = panel.findChild(QTextBrowser, "codeExplanation")
    qtbot.waitUntil(lambda: "Fix:" in browser.toPlainText())
    qtbot.wait(20)
    document = browser.document()
    cursor = document.find("Fix:")
    fix_block = cursor.block()
    bottom = document.documentLayout().blockBoundingRect(fix_block).bottom()
    assert browser.verticalScrollBar().value() == 0
    assert bottom <= browser.viewport().height(), "the fix is in view, not below it"
    assert panel.findChild(QTabWidget).currentIndex() == 0


def test_screenshots(qtbot: QtBot, session: Session) -> None:
    """Not an assertion on pixels: saves pictures to look at (AE_SCREENSHOTS=dir)."""
    folder = os.environ.get("AE_SCREENSHOTS")
    if not folder:
        pytest.skip("set AE_SCREENSHOTS to a folder to save screenshots")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    old_font = app.font()
    font = QFont(old_font)
    font.setPointSize(11)  # what the app sets
    app.setFont(font)
    try:
        for width, height in ((600, 650), (420, 560)):
            panel = CodeEditorPanel(session, debounce_ms=30)
            qtbot.addWidget(panel)
            panel.resize(width, height)
            panel.show()
            qtbot.waitExposed(panel)
            load_lesson(session, 7)
            panel.grab().save(str(Path(folder) / f"code_editor_lesson7_{width}.png"))
            session.set_code(SYNTAX_ERROR)
            panel.grab().save(str(Path(folder) / f"code_editor_syntax_error_{width}.png"))
            session.set_code(PRINTS)
            panel.grab().save(str(Path(folder) / f"code_editor_ok_{width}.png"))
            panel.findChild(QTabWidget).setCurrentIndex(1)
            panel.grab().save(str(Path(folder) / f"code_editor_printed_{width}.png"))
            panel.close()
    finally:
        app.setFont(old_font)
