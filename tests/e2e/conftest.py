"""Full-window fixtures: the real MainWindow on a real session, built the way the app does.

Runs go through the app's worker-thread dispatcher to the shared engine process, so tests
wait for results with :func:`settle`. No modal dialog can ever block: the file dialogs and
message boxes are answered by the test, and ``show_error`` records what it would show.
Settings live in a throwaway INI file, never in the user's real settings.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import torch
from PySide6.QtCore import QEvent, QSettings, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QFileDialog, QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from gui.model.engine_process import EngineProcess
from gui.model.result import TensorData
from gui.model.session import Session, Snapshot
from gui.model.session.autosave import Autosave
from gui.model.tensor_format import format_number, format_tensor
from gui.widgets.main_window import MainWindow
from gui.widgets.thread_dispatcher import ThreadDispatcher
from gui.window_app import application
from tests.fixtures import final_marks, leaf_key

# Generous: the first run after an engine restart waits for a torch import.
REPO = Path(__file__).resolve().parents[2]
RESULT_TIMEOUT_MS = 60_000
# Lessons run in milliseconds; a long limit keeps a busy 2-core machine from turning a
# slow run into a "runaway" (the runaway story asks for the app's own 1.5 s).
RELAXED_TIME_LIMIT = 10.0
Button = QMessageBox.StandardButton


@dataclass
class Explorer:
    """One window and what the test answers or observes around it."""

    window: MainWindow
    session: Session
    settings_path: Path
    dispatcher: ThreadDispatcher
    errors: list[tuple[str, str]] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    answer: QMessageBox.StandardButton = Button.Discard

    @property
    def snapshot(self) -> Snapshot:
        return self.session.snapshot


def settled(session: Session) -> bool:
    snap = session.snapshot
    return not snap.running and snap.result is not None


def settle(qtbot: QtBot, session: Session) -> Snapshot:
    """Wait until the run in flight (and any follow-up run) has come back."""
    qtbot.waitUntil(lambda: settled(session), timeout=RESULT_TIMEOUT_MS)
    return session.snapshot


def open_lesson(qtbot: QtBot, explorer: Explorer, stem: str) -> Snapshot:
    """Lessons menu > the lesson ``stem`` (e.g. ``"01-why-sum"``), then wait for its result."""
    explorer.window.commands[f"lesson:{stem}"].trigger()
    assert explorer.snapshot.running, "opening a lesson starts a run"
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.path is not None and snapshot.path.endswith(f"{stem}.json")
    return snapshot


def press(
    qtbot: QtBot,
    window: MainWindow,
    key: Qt.Key,
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Press a window shortcut, the window activated first as a user's click would
    (offscreen, activation is not guaranteed after other windows were shown)."""
    activate(qtbot, window)
    qtbot.keyClick(window, key, modifier)


def data(t: torch.Tensor) -> TensorData:
    """A tensor torch computed as the engine would hand it over."""
    return TensorData(tuple(t.shape), "float32", t.detach().tolist())


def assert_grad_shown(
    window: MainWindow, snapshot: Snapshot, leaf: str, grad: torch.Tensor
) -> None:
    """``leaf.grad`` equals torch's ``grad`` in the session and in every panel showing it."""
    app_grad = snapshot.leaf_grads[leaf]
    assert app_grad is not None
    assert torch.allclose(torch.tensor(app_grad.values), grad, rtol=1e-5, atol=1e-6)
    text = format_tensor(data(grad))
    group = window.inputs.groups[leaf]
    assert group.grad_label.text() == f"{leaf}.grad = {text}"
    assert group.editor is not None
    flat = grad.flatten().tolist()
    assert [row.swatch.text() for row in group.editor.sliders] == [format_number(v) for v in flat]
    item = window.graph.node_item(leaf_key(snapshot, leaf))
    assert item is not None and item.lines[-1] == f"{leaf}.grad {text}"
    if leaf not in window.plots.shown_leaves():  # more leaves than rows: pick it, as a user
        picker = window.plots.findChild(QComboBox)
        assert picker is not None and picker.findText(leaf) >= 0, leaf
        picker.setCurrentText(leaf)
    assert final_marks(window.plots.bars(leaf)) == pytest.approx(flat, rel=1e-5, abs=1e-6)


def status_bar_texts(window: MainWindow) -> list[str]:
    """The texts of the status bar's labels (message, backward calls, live)."""
    return [label.text() for label in window.statusBar().findChildren(QLabel)]


def _no_dialog(name: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"unexpected {name} dialog: {args[1:3]}")

    return refuse


def activate(qtbot: QtBot, window: MainWindow) -> None:
    """Make ``window`` the active window, as a user's click on it does: window shortcuts
    (F5, Ctrl+B...) only fire in the active window."""
    window.activateWindow()
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()
    qtbot.waitUntil(window.isActiveWindow, timeout=5_000)


@pytest.fixture
def app_font(qapp: QApplication) -> Iterator[None]:
    """The app's own QApplication set-up (11 pt font, names), undone afterwards so no other
    test inherits a font (presentation mode changes it too)."""
    font = qapp.font()
    names = (qapp.organizationName(), qapp.applicationName())
    application()
    yield
    qapp.setFont(font)
    qapp.setOrganizationName(names[0])
    qapp.setApplicationName(names[1])


@pytest.fixture
def make_explorer(
    qtbot: QtBot,
    engine_process: EngineProcess,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    app_font: None,
) -> Iterator[Callable[..., Explorer]]:
    """Build windows like ``gui.window_app.run_window`` does; all are closed at teardown.

    ``make(time_limit=..., settings_path=..., size=..., autosave=...)``: a second window may
    share the first's settings file (``size=None`` keeps the geometry it restores from there);
    without ``autosave`` nothing is copied anywhere.
    """
    made: list[Explorer] = []
    active: list[Explorer] = []

    def question(*args: Any, **kwargs: Any) -> QMessageBox.StandardButton:
        explorer = active[-1]
        explorer.questions.append(str(args[2]) if len(args) > 2 else "")
        return explorer.answer

    monkeypatch.setattr(QMessageBox, "question", question)
    for name in ("warning", "information", "critical", "about"):
        monkeypatch.setattr(QMessageBox, name, _no_dialog(f"QMessageBox.{name}"))
    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, _no_dialog(f"QFileDialog.{name}"))

    def make(
        time_limit: float = RELAXED_TIME_LIMIT,
        settings_path: Path | None = None,
        size: tuple[int, int] | None = (1280, 720),
        autosave: Autosave | None = None,
    ) -> Explorer:
        path = settings_path or tmp_path / "s.ini"
        settings = QSettings(str(path), QSettings.Format.IniFormat)
        dispatcher = ThreadDispatcher()
        session = Session(engine_process.run, dispatcher, time_limit, sweep=engine_process.sweep)
        window = MainWindow(session, settings, autosave)
        explorer = Explorer(window, session, path, dispatcher)
        monkeypatch.setattr(
            window, "show_error", lambda title, text: explorer.errors.append((title, text))
        )
        made.append(explorer)
        active.append(explorer)
        if size is not None:  # None: the size the window restored from its settings
            window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
        activate(qtbot, window)
        return explorer

    yield make
    for explorer in reversed(made):
        _close(qtbot, explorer)


def _close(qtbot: QtBot, explorer: Explorer) -> None:
    # Let runs in flight land before the window goes: a result delivered later would reach
    # panels of a deleted window. Closing may flush typed text and start one more run.
    explorer.answer = Button.Discard
    qtbot.waitUntil(lambda: not explorer.snapshot.running, timeout=RESULT_TIMEOUT_MS)
    explorer.window.close()
    qtbot.waitUntil(lambda: not explorer.snapshot.running, timeout=RESULT_TIMEOUT_MS)
    # Nor a function-view sweep (the window hid the view: no new one starts).
    qtbot.waitUntil(lambda: not explorer.snapshot.function.sweeping, timeout=RESULT_TIMEOUT_MS)
    explorer.dispatcher.close()
    QApplication.processEvents()
    explorer.window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def explorer(make_explorer: Callable[..., Explorer]) -> Explorer:
    """The window at 1280x720 on an empty session, shown and active."""
    return make_explorer()


def run_main(*args: str) -> subprocess.CompletedProcess[str]:
    """``python main.py ARGS`` from the repository, offscreen, its output captured."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "main.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
