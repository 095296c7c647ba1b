"""Round 10's red team: answers the window's reader accepts, shown by the whole window.

Only a compromised engine could send them, and the reader (:mod:`gui.model.wire`) checks
types, sizes and indices, not that a graph makes sense: a node key twice, an edge to
itself, cycles, edges, a root and a backward call's flows naming no node, NaN and
infinities in every tensor, steps and lines numbered past any program. Each answer goes
through ``wire.loads`` as the engine's bytes would, then into a real :class:`Session` and
:class:`MainWindow`; every node and step is selected and every tab raised. Nothing may
raise (an exception in a render is raised out of the session's signal here).
(An edge's negative ``input_index`` did raise, in the graph's painting: the reader now
refuses it, ``tests/model/test_attacks_round10_wire.py``.)
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox, QTabWidget
from pytestqt.qtbot import QtBot

from gui.model import wire
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import (
    Answer,
    GraphEdge,
    NodeFlow,
    RunResult,
    StepRecord,
    TensorData,
    TensorSummary,
)
from gui.model.session import Session
from gui.widgets.main_window import MainWindow
from tests.fixtures import forged

CODE = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * w).sum()\n"
    "y.backward(retain_graph=True)\n"
    "print(x.grad)\n"
    "y.backward()\n"
)


@pytest.fixture(scope="module")
def base(engine_process: EngineProcess) -> RunResult:
    result = engine_process.run(RunRequest(Program(code=CODE), time_limit=30))
    assert type(result) is RunResult and result.error is None and result.graph is not None
    assert len(result.steps) == 2
    return result


def _every_tensor(value: Any, change: Callable[[TensorData], TensorData]) -> Any:
    if isinstance(value, TensorData):
        return change(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return forged(
            value,
            **{
                f.name: _every_tensor(getattr(value, f.name), change)
                for f in dataclasses.fields(value)
            },
        )
    if isinstance(value, tuple):
        return tuple(_every_tensor(item, change) for item in value)
    if isinstance(value, dict):
        return {key: _every_tensor(item, change) for key, item in value.items()}
    return value


def _not_numbers(values: Any) -> Any:
    if isinstance(values, list):
        return [_not_numbers(v) for v in values]
    return values if isinstance(values, bool) else math.nan


def tangled(result: RunResult) -> RunResult:
    graph = result.graph
    assert graph is not None
    keys = [n.key for n in graph.nodes]
    edges = graph.edges + tuple(GraphEdge(k, k) for k in keys)
    edges += tuple(GraphEdge(e.target, e.source, e.kind, e.input_index) for e in graph.edges)
    edges += (GraphEdge("nowhere", keys[0]), GraphEdge(keys[-1], "nowhere", "data", 7))
    graph = forged(graph, nodes=graph.nodes + graph.nodes, edges=edges, root="nowhere")
    return forged(result, graph=graph)


def misnumbered(result: RunResult) -> RunResult:
    def step(s: StepRecord) -> StepRecord:
        flows = {k: forged(f, order=-(10**18)) for k, f in s.flows.items()}
        flows["nowhere"] = NodeFlow((None,), (None, None), 10**9)
        return forged(s, index=10**6, line=10**9, flows=flows, tensor="nowhere")

    return forged(
        result,
        steps=tuple(step(s) for s in result.steps),
        steps_left_out=10**18,
        steps_gap=10**18,
        printed=tuple(forged(p, line=-(10**9), after_step=10**9) for p in result.printed),
        tensors={k: forged(v, line=10**9) for k, v in result.tensors.items()},
        leaves=(*result.leaves, "nowhere"),
        step_values=(math.nan, math.inf, -math.inf, 1.7e308, None),
        elapsed_seconds=math.nan,
    )


def not_numbers(result: RunResult) -> RunResult:
    nothing = TensorSummary(math.nan, math.inf, -math.inf, math.nan)
    return _every_tensor(
        result,
        lambda t: forged(
            t, values=_not_numbers(t.values), summary=None if t.summary is None else nothing
        ),
    )


def window_through_everything(
    qtbot: QtBot, odd: RunResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> MainWindow:
    """A real window showing ``odd``: every node selected, every step with every tab
    raised, then a backward from the window."""
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    session = Session(lambda request: odd)
    window = MainWindow(session, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    session.set_code(CODE)
    assert session.snapshot.result is odd
    assert odd.graph is not None
    for key in {n.key for n in odd.graph.nodes}:
        session.select_node(key)
    for index in range(len(odd.steps)):
        session.select_step(index)
        for tabs in window.findChildren(QTabWidget):
            for page in range(tabs.count()):
                tabs.setCurrentIndex(page)
                QApplication.processEvents()
    session.select_step(None)
    session.backward()
    return window


@pytest.mark.parametrize("tamper", [tangled, misnumbered, not_numbers])
def test_the_window_shows_an_accepted_odd_answer_without_raising(
    qtbot: QtBot,
    base: RunResult,
    tamper: Callable[[RunResult], RunResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer = wire.loads(pickle.dumps(Answer(1, tamper(base))))  # as the window reads it
    assert type(answer) is Answer and type(answer.result) is RunResult
    odd = answer.result
    window = window_through_everything(qtbot, odd, tmp_path, monkeypatch)
    assert not window.grab().isNull()
