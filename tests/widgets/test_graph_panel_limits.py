"""The graph panel with graphs that are big: a clear message instead of a frozen window.

The heartbeat test lays out a graph that keeps Graphviz busy for about a second (the size
limits are lifted for it, and Graphviz forced on it) while a 5 ms QTimer ticks on the GUI thread: with Graphviz in the
window's process the timer stalled for the whole layout; in the layout worker it keeps
ticking until the layout arrives (drawing it afterwards is the panel's own work).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from gui.model.drawing.layout_process import LayoutProcess
from gui.model.drawing.limits import MAX_LAYOUT_BOXES
from gui.model.request import RunRequest
from gui.model.result import RunResult
from gui.model.session import Session, layouts
from gui.model.session.layouts import LayoutCache
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.thread_dispatcher import ThreadDispatcher
from tests.big_graphs import DotOnly, chain_graph, loop_graph, result_with
from tests.fixtures import show_panel


def runs(results: dict[str, RunResult]) -> Callable[[RunRequest], RunResult]:
    return lambda request: results[request.program.code]


@pytest.fixture
def worker() -> Iterator[LayoutProcess]:
    process = LayoutProcess()
    process.layout(chain_graph(1), False)  # started and ready: timings are the job's
    yield process
    process.close()


def test_a_graph_over_the_limits_shows_why_it_is_not_drawn(
    qtbot: QtBot, worker: LayoutProcess
) -> None:
    results = {
        "big": result_with(chain_graph(MAX_LAYOUT_BOXES)),
        "small": result_with(chain_graph(3)),
    }
    session = Session(runs(results), layouts=LayoutCache(process=worker))
    panel = show_panel(qtbot, GraphPanel(session), 700, 500)
    session.set_code("big")
    assert panel.items is None and panel.stack.currentWidget() is panel.empty
    text = panel.empty.text()
    assert f"{MAX_LAYOUT_BOXES + 2:,} boxes" in text and "not drawn" in text
    assert "still right" in text
    session.set_code("small")
    assert panel.items is not None and panel.stack.currentWidget() is panel.view()


@pytest.mark.slow
def test_the_window_keeps_ticking_while_a_big_graph_is_laid_out(
    qtbot: QtBot, worker: LayoutProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layouts, "too_big", lambda graph, show_saved: None)
    monkeypatch.setattr(LayoutCache, "takes_a_while", lambda self, graph, show_saved: False)
    dispatcher = ThreadDispatcher()
    session = Session(
        runs({"big": result_with(loop_graph(30))}),
        dispatcher,
        layouts=LayoutCache(process=DotOnly(worker)),  # type: ignore[arg-type]
    )
    delivered: list[float] = []  # connected first: runs before the panel draws the result
    session.changed.connect(
        lambda snapshot: delivered.append(time.perf_counter()) if snapshot.layout else None
    )
    panel = show_panel(qtbot, GraphPanel(session), 700, 500)
    ticks: list[float] = []
    timer = QTimer(interval=5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    try:
        started = time.perf_counter()
        session.set_code("big")
        qtbot.waitUntil(lambda: bool(delivered), timeout=20_000)
        laid_out = delivered[0]
    finally:
        timer.stop()
        dispatcher.close()
    assert laid_out - started > 0.3  # Graphviz really worked for a while
    during = [t for t in ticks if started <= t <= laid_out]
    # From the first tick on (before it, set_code itself runs on this thread). Graphviz in
    # this process would stall it for the whole layout (over 0.3 s, asserted above); the
    # bound leaves room for a loaded machine's scheduling hiccups.
    gaps = [b - a for a, b in zip(during, [*during[1:], laid_out], strict=True)]
    assert during and max(gaps) < 0.2, f"the GUI thread stalled for {max(gaps) * 1000:.0f} ms"
    assert panel.items is not None
