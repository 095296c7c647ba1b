"""Round 12's red team, the window: answers a compromised engine could send about a graph
the window already drew, and partial answers to a drag's ticks.

The window lays a graph out once per structure (``LayoutCache``, by ``structure_key``),
and merges a drag tick's partial answer into the graph on screen
(:mod:`gui.model.detail_merge`). A compromised engine can send a graph under the key
of the one on screen with other nodes (fewer, renamed, more), a partial answer that does
not fit (then the tick is run again whole) and, to that whole run, a partial answer again.
Each answer goes through ``wire.loads`` as the engine's bytes would, into a real
:class:`Session` and :class:`MainWindow`; every node is selected and every tab raised, on
ticks of a drag too. Nothing may raise, and the code on screen is never lost.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox, QTabWidget
from pytestqt.qtbot import QtBot

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import GraphNode, RunResult
from gui.model.session import Session, drag_detail
from gui.widgets.main_window import MainWindow
from tests.fixtures import forged, through_the_wire

STEPS = 12
CODE = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
    f"for i in range({STEPS}):\n    h = torch.sin(h) * 1.01\nout = h.sum()\nout.backward()\n"
)


@pytest.fixture(scope="module")
def base() -> RunResult:
    result = run_program(RunRequest(Program(code=CODE), time_limit=60))
    assert result.error is None and result.graph is not None
    return result


def _with_nodes(
    result: RunResult, nodes: tuple[GraphNode, ...], partial: bool = False
) -> RunResult:
    assert result.graph is not None
    graph = forged(result.graph, nodes=nodes, partial=partial)
    if partial:
        graph = forged(graph, edges=())
    steps = tuple(forged(s, graph=graph) if s.graph is not None else s for s in result.steps)
    return forged(result, graph=graph, steps=steps)


def fewer(result: RunResult) -> RunResult:
    assert result.graph is not None
    return _with_nodes(result, result.graph.nodes[: len(result.graph.nodes) // 3])


def renamed(result: RunResult) -> RunResult:
    assert result.graph is not None
    return _with_nodes(
        result, tuple(forged(n, key=f"other{i}") for i, n in enumerate(result.graph.nodes))
    )


def more(result: RunResult) -> RunResult:
    assert result.graph is not None
    extra = tuple(forged(n, key=f"{n.key}+") for n in result.graph.nodes)
    return _with_nodes(result, result.graph.nodes + extra)


def kinds_changed(result: RunResult) -> RunResult:
    assert result.graph is not None
    kinds = ("leaf", "output", "saved", "constant", "function")
    nodes = tuple(
        forged(n, kind=kinds[i % 5], owner="nowhere") for i, n in enumerate(result.graph.nodes)
    )
    return _with_nodes(result, nodes)


def _show_everything(window: MainWindow, session: Session) -> None:
    graph = session.snapshot.graph
    for key in [] if graph is None else [n.key for n in graph.nodes]:
        session.select_node(key)
    for tabs in window.findChildren(QTabWidget):
        for page in range(tabs.count()):
            tabs.setCurrentIndex(page)
            QApplication.processEvents()
    assert not window.grab().isNull()


def _window(
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: Callable[[RunRequest], RunResult],
) -> tuple[MainWindow, Session]:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    session = Session(answers)
    window = MainWindow(session, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    return window, session


@pytest.mark.parametrize("tamper", [fewer, renamed, more, kinds_changed])
def test_another_graph_under_the_key_on_screen_is_shown_without_raising(
    qtbot: QtBot,
    base: RunResult,
    tamper: Callable[[RunResult], RunResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    odd = through_the_wire(tamper(base))
    answers = iter([base, odd, odd, base])
    window, session = _window(qtbot, tmp_path, monkeypatch, lambda request: next(answers, base))
    session.set_code(CODE)
    _show_everything(window, session)
    session.set_input("x", 0, 0.7)  # the same structure key, other nodes
    assert session.snapshot.result is odd
    _show_everything(window, session)
    session.set_input("x", 0, 0.8)
    session.set_input("x", 0, 0.9)  # and back
    _show_everything(window, session)
    assert session.snapshot.code == CODE


@pytest.mark.parametrize("tamper", [fewer, renamed, more, kinds_changed])
def test_a_drag_whose_answers_are_all_partial_keeps_the_window_and_the_code(
    qtbot: QtBot,
    base: RunResult,
    tamper: Callable[[RunResult], RunResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every tick is answered partially, also the whole run a misfit tick asks for.
    monkeypatch.setattr(drag_detail, "DETAIL_FROM_NODES", 5)
    assert base.graph is not None
    lying = through_the_wire(_with_nodes(tamper(base), tamper(base).graph.nodes, partial=True))  # type: ignore[union-attr]
    requests: list[RunRequest] = []

    def answers(request: RunRequest) -> RunResult:
        requests.append(request)
        return base if len(requests) == 1 else lying

    window, session = _window(qtbot, tmp_path, monkeypatch, answers)
    session.set_code(CODE)
    graph = session.snapshot.graph
    assert graph is not None
    session.set_on_screen(frozenset(n.key for n in graph.nodes[:4]))
    session.set_dragging(True)
    for value in (0.6, 0.7, 0.8):
        session.set_input("x", 0, value)
        _show_everything(window, session)
    session.set_dragging(False)
    _show_everything(window, session)
    assert session.snapshot.code == CODE
    assert any(r.detail is not None for r in requests)
