"""The real window on a big graph: a mouse drag reads the boxes in view, letting go reads
every node (through the engine's own process, numbers against a whole run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QSlider
from pytestqt.qtbot import QtBot

from gui.model.engine_process import EngineProcess
from gui.model.request import RunRequest
from gui.model.result import RunResult
from gui.model.session import Session, drag_detail
from gui.widgets.main_window import MainWindow
from gui.widgets.tensor_editor import TensorEditor
from tests.fixtures import handle_center

CODE = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
    "for i in range(40):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
)


@pytest.fixture
def window_and_runs(
    qtbot: QtBot,
    engine_process: EngineProcess,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[MainWindow, Session, list[RunRequest]]:
    monkeypatch.setattr(drag_detail, "DETAIL_FROM_NODES", 50)  # ~120 nodes count as big
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    requests: list[RunRequest] = []

    def run(request: RunRequest) -> RunResult:
        requests.append(request)
        return engine_process.run(request)

    session = Session(run)
    window = MainWindow(session, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    session.set_code(CODE)
    QApplication.processEvents()
    return window, session, requests


def _painted(window: MainWindow) -> None:
    window.graph.view().viewport().repaint()
    QApplication.processEvents()  # the boxes in view reach the session after the paint


def test_a_drag_reads_the_boxes_in_view_and_letting_go_reads_all(
    qtbot: QtBot,
    window_and_runs: tuple[MainWindow, Session, list[RunRequest]],
    engine_process: EngineProcess,
) -> None:
    window, session, requests = window_and_runs
    _painted(window)
    items = window.graph.items
    assert items is not None
    in_view = items.keys_in_view(window.graph.view().visible_area())
    assert 0 < len(in_view) < len(items.nodes)  # a readable view of a longer graph
    slider = window.inputs.findChildren(QSlider)[0]
    start = handle_center(slider)
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(slider, start + QPoint(25, 0))
    detail = requests[-1].detail
    assert detail is not None and set(in_view) <= set(detail.nodes)
    whole = engine_process.run(RunRequest(session.snapshot.state.program))
    assert whole.graph is not None and session.snapshot.graph is not None
    expected = {n.key: n.value for n in whole.graph.nodes}
    shown = {n.key: n.value for n in session.snapshot.graph.nodes}
    assert all(shown[key] == expected[key] for key in in_view if key in expected)
    assert session.snapshot.leaf_grads == {"x": whole.tensors["x"].grad}
    # Nodes out of view kept their older numbers while the handle was held...
    assert any(shown[key] != expected[key] for key in expected)
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=start + QPoint(25, 0))
    assert requests[-1].detail is None
    # ...and every one is read once it is let go.
    shown = {n.key: n.value for n in session.snapshot.graph.nodes}
    assert shown == expected
    assert not session.snapshot.stale


def test_an_editor_removed_mid_drag_ends_the_drag(
    qtbot: QtBot, window_and_runs: tuple[MainWindow, Session, list[RunRequest]]
) -> None:
    window, session, _ = window_and_runs
    editor = window.inputs.findChildren(TensorEditor)[0]
    seen: list[bool] = []
    editor.dragging.connect(seen.append)
    slider = editor.sliders[0].slider
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=handle_center(slider))
    assert seen == [True] and session._dragging
    editor.hide()  # as a run that changes the leaf's shape removes it
    assert seen == [True, False] and not session._dragging


def test_arrow_keys_read_the_boxes_in_view_and_a_pause_reads_all(
    qtbot: QtBot,
    window_and_runs: tuple[MainWindow, Session, list[RunRequest]],
    engine_process: EngineProcess,
) -> None:
    window, session, requests = window_and_runs
    _painted(window)
    editor = window.inputs.findChildren(TensorEditor)[0]
    slider = editor.sliders[0].slider
    slider.setFocus()
    before = len(requests)
    for _ in range(3):  # a learner tapping the arrow key
        qtbot.keyClick(slider, Qt.Key.Key_Right)
    stepped = requests[before:]
    assert stepped and all(r.detail is not None for r in stepped)
    assert editor.value_held
    # The pause ends the gesture: one more run, reading every node.
    qtbot.waitUntil(lambda: not editor.value_held and requests[-1].detail is None, timeout=5000)
    qtbot.waitUntil(lambda: not session.snapshot.running, timeout=10000)
    whole = engine_process.run(RunRequest(session.snapshot.state.program))
    assert whole.graph is not None and session.snapshot.graph is not None
    assert {n.key: n.value for n in session.snapshot.graph.nodes} == {
        n.key: n.value for n in whole.graph.nodes
    }
    assert session.snapshot.state.program != requests[before - 1].program  # it moved
