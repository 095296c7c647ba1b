"""A big graph's numbers first, its picture once laid out: the session's two requests.

A graph past Graphviz's quick range is laid out by the app's own layout in the worker,
which takes up to a second or so for thousands of boxes. The run's result is shown at once
(every other panel has its numbers) with ``laying_out`` saying how many boxes are being
placed; the layout, asked for as soon as the run is read, is taken by a request of its own,
and its arrival shows the picture.
"""

from __future__ import annotations

from collections.abc import Callable

from gui.model.request import RunRequest
from gui.model.result import RunResult
from gui.model.session import Session, Snapshot
from gui.model.session.layouts import LayoutCache
from tests.big_graphs import InProcessWorker, chain_graph, result_with
from tests.fixtures import HeldDispatcher


def runs(results: dict[str, RunResult]) -> Callable[[RunRequest], RunResult]:
    return lambda request: results[request.program.code]


def session_with(
    results: dict[str, RunResult],
) -> tuple[Session, HeldDispatcher, InProcessWorker, list[Snapshot]]:
    dispatcher, worker = HeldDispatcher(), InProcessWorker()
    session = Session(runs(results), dispatcher, layouts=LayoutCache(process=worker))  # type: ignore[arg-type]
    shown: list[Snapshot] = []
    session.changed.connect(shown.append)
    return session, dispatcher, worker, shown


def test_a_big_graph_shows_its_numbers_then_its_picture() -> None:
    session, dispatcher, worker, shown = session_with({"big": result_with(chain_graph(800))})
    session.set_code("big")
    dispatcher.finish_one()  # the run
    snap = session.snapshot
    assert snap.graph is not None and snap.layout is None
    assert snap.laying_out == 802 and not snap.running
    assert snap.leaf_grads["w"] is not None  # the other panels have their numbers
    # The layout was asked for at once, on a thread of its own (LayoutCache.start); the
    # session's own request, next, takes it rather than asking again.
    assert worker.asked in ([], ["chain-800"]) and len(dispatcher.pending) == 1
    dispatcher.finish_one()
    snap = session.snapshot
    assert snap.layout is not None and snap.layout.fast and snap.laying_out is None
    assert set(snap.layout.nodes) == {n.key for n in snap.graph.nodes}  # type: ignore[union-attr]
    assert worker.asked == ["chain-800"]
    assert [s.laying_out for s in shown if s.result is not None] == [802, None]


def test_a_small_graph_comes_with_its_picture() -> None:
    session, dispatcher, worker, shown = session_with({"small": result_with(chain_graph(5))})
    session.set_code("small")
    dispatcher.finish_one()
    snap = session.snapshot
    assert snap.layout is not None and not snap.layout.fast and snap.laying_out is None
    assert dispatcher.pending == [] and worker.asked == ["chain-5"]
    assert all(s.laying_out is None for s in shown)


def test_a_big_graph_laid_out_before_comes_with_its_picture() -> None:
    results = {"big": result_with(chain_graph(800)), "small": result_with(chain_graph(5))}
    session, dispatcher, worker, _ = session_with(results)
    session.set_code("big")
    dispatcher.finish_one()
    dispatcher.finish_one()
    session.set_code("small")
    dispatcher.finish_one()
    session.set_code("big")  # the same structure again: the cache has it
    dispatcher.finish_one()
    snap = session.snapshot
    assert snap.layout is not None and snap.laying_out is None and dispatcher.pending == []
    assert worker.asked == ["chain-800", "chain-5"]


def test_new_code_while_a_big_graph_is_laid_out_shows_the_new_code() -> None:
    results = {"big": result_with(chain_graph(800)), "small": result_with(chain_graph(5))}
    session, dispatcher, _, _ = session_with(results)
    session.set_code("big")
    dispatcher.finish_one()  # the run; its layout is queued
    session.set_code("small")
    while dispatcher.pending:
        dispatcher.finish_one()
    snap = session.snapshot
    assert snap.code == "small" and snap.layout is not None and snap.laying_out is None
    assert len(snap.layout.nodes) == 7
