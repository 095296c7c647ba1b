"""Layouts by structure, from the layout worker: never Graphviz on the session's threads.

The first tests use a stand-in for the worker (fast, no process); the ``slow`` ones at the
end start the real worker and check what the window feels: big graphs are refused with a
message, an outdated layout is given up at once, and a layout in progress never holds up
the thread that draws the window.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gui.model.drawing.layout import GraphLayout, layout_graph
from gui.model.drawing.layout_process import (
    LAYOUT_CRASHED,
    LayoutCancelled,
    LayoutProcess,
    LayoutUnavailable,
)
from gui.model.drawing.limits import GRAPH_TOO_BIG, MAX_LAYOUT_BOXES
from gui.model.request import RunRequest
from gui.model.result import Explanation, Graph, RunResult
from gui.model.session import Session, Snapshot, layouts
from gui.model.session.layouts import LayoutCache
from gui.model.views.graph_caption import empty_text
from tests.big_graphs import DotOnly, chain_graph, loop_graph, result_with


class FakeWorker:
    """Stands in for :class:`LayoutProcess`: lays out in-process, counts the requests,
    and fails or is cancelled when told to."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.fail_with: Exception | None = None

    def layout(
        self, graph: Graph, show_saved: bool, cancelled: Callable[[], bool] = lambda: False
    ) -> GraphLayout:
        self.asked.append(graph.structure_key)
        if self.fail_with is not None:
            raise self.fail_with
        return layout_graph(graph, show_saved)

    def interrupt(self) -> None:
        pass


def crashed() -> LayoutUnavailable:
    return LayoutUnavailable(Explanation(LAYOUT_CRASHED, "it crashed", "", "", severity="warning"))


def test_layouts_are_kept_by_structure_not_values() -> None:
    worker = FakeWorker()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    first = cache.get(chain_graph(3), False)
    again = cache.get(chain_graph(3), False)
    assert first is again and worker.asked == ["chain-3"]
    assert cache.get(chain_graph(3), True) is not first  # saved tensors shown: another layout
    assert cache.get(None, False) is None and len(worker.asked) == 2


def test_a_graph_over_the_limits_is_refused_without_asking_graphviz() -> None:
    worker = FakeWorker()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    for _ in range(2):
        with pytest.raises(LayoutUnavailable) as refused:
            cache.get(chain_graph(MAX_LAYOUT_BOXES), False)
        assert refused.value.explanation.kind == GRAPH_TOO_BIG
    assert worker.asked == []
    assert cache.get(chain_graph(600), False) is not None  # too big for dot: the app's own
    assert cache.get(loop_graph(40), False) is not None  # 4,680 rows crossed: the same


def test_a_structure_graphviz_failed_on_is_not_tried_again() -> None:
    worker = FakeWorker()
    worker.fail_with = crashed()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    for _ in range(3):
        with pytest.raises(LayoutUnavailable) as failed:
            cache.get(chain_graph(3), False)
        assert failed.value.explanation.kind == LAYOUT_CRASHED
    assert worker.asked == ["chain-3"]


def test_a_cancelled_layout_is_not_remembered() -> None:
    worker = FakeWorker()
    worker.fail_with = LayoutCancelled()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    with pytest.raises(LayoutCancelled):
        cache.get(chain_graph(3), False)
    worker.fail_with = None
    assert cache.get(chain_graph(3), False) is not None
    assert worker.asked == ["chain-3", "chain-3"]


class HeldWorker(FakeWorker):
    """A worker whose answers wait until ``release`` is set, and which gives up (as the
    real one does once interrupted) when its ``cancelled`` turns true meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.gave_up = threading.Event()

    def layout(
        self, graph: Graph, show_saved: bool, cancelled: Callable[[], bool] = lambda: False
    ) -> GraphLayout:
        self.asked.append(graph.structure_key)
        while not self.release.wait(0.005):
            if cancelled():
                self.gave_up.set()
                raise LayoutCancelled
        return layout_graph(graph, show_saved)


def test_a_layout_asked_for_ahead_is_taken_not_asked_again() -> None:
    worker = HeldWorker()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    graph = chain_graph(600)
    assert cache.takes_a_while(graph, False)
    cache.start(graph, False, lambda: False)
    cache.start(graph, False, lambda: False)  # asked already: nothing more
    cache.start(chain_graph(700), False, lambda: False)  # one ahead at a time: not asked
    got: queue.Queue[object] = queue.Queue()
    waiting = threading.Thread(target=lambda: got.put(cache.get(graph, False)))
    waiting.start()
    time.sleep(0.05)
    assert got.empty()  # waits for the request in flight
    worker.release.set()
    waiting.join(5)
    assert got.get_nowait() == layout_graph(graph, False)
    assert worker.asked == ["chain-600"]
    assert not cache.takes_a_while(graph, False)


def test_a_layout_asked_for_ahead_and_given_up_is_asked_again_by_get() -> None:
    worker = HeldWorker()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    graph, given_up = chain_graph(600), threading.Event()
    cache.start(graph, False, given_up.is_set)
    given_up.set()  # newer code: the request ahead is given up, nothing remembered
    assert worker.gave_up.wait(5)
    worker.release.set()
    assert cache.get(graph, False) == layout_graph(graph, False)
    assert worker.asked == ["chain-600", "chain-600"]


def test_waiting_for_a_layout_asked_for_ahead_stops_when_it_is_not_wanted() -> None:
    worker = HeldWorker()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    graph, outdated = chain_graph(600), threading.Event()
    cache.start(graph, False, outdated.is_set)
    threading.Timer(0.05, outdated.set).start()
    started = time.monotonic()
    with pytest.raises(LayoutCancelled):
        cache.get(graph, False, outdated.is_set)
    assert time.monotonic() - started < 2
    worker.release.set()


def test_a_layout_asked_for_ahead_that_failed_says_why_once() -> None:
    worker = FakeWorker()
    worker.fail_with = crashed()
    cache = LayoutCache(process=worker)  # type: ignore[arg-type]
    cache.start(chain_graph(600), False, lambda: False)
    for _ in range(2):
        with pytest.raises(LayoutUnavailable) as failed:
            cache.get(chain_graph(600), False)
        assert failed.value.explanation.kind == LAYOUT_CRASHED
    assert worker.asked == ["chain-600"]


def test_the_cache_stays_bounded() -> None:
    worker = FakeWorker()
    cache = LayoutCache(size=4, process=worker)  # type: ignore[arg-type]
    for n in range(1, 11):
        cache.get(chain_graph(n), False)
    assert len(cache) == 4
    cache.get(chain_graph(10), False)
    assert len(worker.asked) == 10  # the newest ones are still there


def runs(results: dict[str, RunResult]) -> Callable[[RunRequest], RunResult]:
    """An engine stand-in: the result for each program text."""
    return lambda request: results[request.program.code]


def test_a_graph_too_big_to_draw_says_so_and_keeps_the_numbers() -> None:
    big = result_with(chain_graph(MAX_LAYOUT_BOXES))
    small = result_with(chain_graph(3))
    session = Session(
        runs({"big": big, "small": small}),
        layouts=LayoutCache(process=FakeWorker()),  # type: ignore[arg-type]
    )
    session.set_code("big")
    snap = session.snapshot
    assert snap.layout is None and snap.graph is not None and not snap.stale
    (warning,) = snap.warnings
    assert warning.kind == GRAPH_TOO_BIG and warning.severity == "warning"
    assert f"{MAX_LAYOUT_BOXES + 2:,} boxes" in warning.message
    assert "not drawn" in warning.message
    assert snap.leaf_grads["w"] is not None  # the other panels' numbers are all there
    shown = empty_text(snap)
    assert f"{MAX_LAYOUT_BOXES + 2:,} boxes" in shown and "still right" in shown
    session.set_show_saved(True)  # relayout: still one warning, not two
    assert [w.kind for w in session.snapshot.warnings] == [GRAPH_TOO_BIG]
    session.set_code("small")
    assert session.snapshot.layout is not None and session.snapshot.warnings == ()


class BackgroundDispatcher:
    """Work on a thread of its own, results handed back when the test thread asks
    (:meth:`deliver`), as the window's dispatcher hands them to the GUI thread."""

    inline = False

    def __init__(self) -> None:
        self.done: queue.Queue[tuple[Callable[[Any], None], Any]] = queue.Queue()

    def submit(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        threading.Thread(target=lambda: self.done.put((done, work())), daemon=True).start()

    def deliver(self, timeout: float) -> float:
        """Hand one finished piece of work back; how long it took to arrive."""
        started = time.monotonic()
        done, value = self.done.get(timeout=timeout)
        done(value)
        return time.monotonic() - started


@pytest.fixture
def worker() -> Iterator[LayoutProcess]:
    process = LayoutProcess()
    process.layout(chain_graph(1), False)  # started and ready: timings are the job's
    yield process
    process.close()


@pytest.fixture
def no_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let big graphs through to Graphviz (with :class:`DotOnly`: ``loop_graph(40)`` takes
    it ~6 s here), laid out with their run as small ones are (no separate request)."""
    monkeypatch.setattr(layouts, "too_big", lambda graph, show_saved: None)
    monkeypatch.setattr(LayoutCache, "takes_a_while", lambda self, graph, show_saved: False)


@pytest.mark.slow
@pytest.mark.usefixtures("no_limits")
def test_new_code_cancels_the_layout_of_the_old_instead_of_waiting(
    worker: LayoutProcess,
) -> None:
    dispatcher = BackgroundDispatcher()
    results = {"big": result_with(loop_graph(40)), "small": result_with(chain_graph(3))}
    session = Session(runs(results), dispatcher, layouts=LayoutCache(process=DotOnly(worker)))  # type: ignore[arg-type]
    shown: list[Snapshot] = []
    session.changed.connect(shown.append)
    session.set_code("big")
    time.sleep(0.5)  # Graphviz is busy with the big graph now
    busy = worker.pid
    started = time.monotonic()
    session.set_code("small")
    assert time.monotonic() - started < 0.05  # the change itself never waits
    dispatcher.deliver(timeout=10)  # the big run, given up
    dispatcher.deliver(timeout=10)  # the small one
    assert time.monotonic() - started < 2.0  # not the ~6 s the big layout needs
    snap = session.snapshot
    assert snap.code == "small" and snap.layout is not None and not snap.running
    assert all(s.result is None or s.code == "small" or s.layout is None for s in shown)
    assert worker.pid != busy and worker.restarts == 1


@pytest.mark.slow
@pytest.mark.usefixtures("no_limits")
def test_a_layout_in_progress_never_holds_up_the_other_threads(worker: LayoutProcess) -> None:
    """pygraphviz holds the GIL while it works: in-process, a big layout froze every other
    thread of the window for its whole length. In the worker, a thread that ticks every
    5 ms keeps ticking."""
    dispatcher = BackgroundDispatcher()
    session = Session(
        runs({"big": result_with(loop_graph(30))}),
        dispatcher,
        layouts=LayoutCache(process=DotOnly(worker)),  # type: ignore[arg-type]
    )
    gaps: list[float] = []
    stop = threading.Event()

    def heartbeat() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = threading.Thread(target=heartbeat)
    ticker.start()
    try:
        session.set_code("big")
        took = dispatcher.deliver(timeout=20)
    finally:
        stop.set()
        ticker.join()
    assert session.snapshot.layout is not None
    assert took > 0.3  # a real, long layout happened meanwhile
    assert max(gaps) < 0.08, f"a thread was held up for {max(gaps) * 1000:.0f} ms"
