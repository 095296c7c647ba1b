"""Round 12's red team, as a compromised engine: hand-made partial answers to a drag's
ticks (:mod:`gui.model.detail_merge`).

A partial answer is laid over the result on screen. One that does not fit (a node the
graph on screen does not have, another kind, other saved values, another structure, more
steps than the base, a base that is partial itself) must be refused (``merge`` gives
``None``, and the tick is run again whole); one that fits takes only the numbers of the
nodes it read, never the edges it claims, and NaN or huge numbers are numbers like any
other. A partial answer to the whole run asked for then is an engine error, shown as
one, never a crash. Each answer goes through ``wire.loads`` as the engine's bytes would.

Found: ``merge`` remembered each partial graph's merge by the partial graph's identity
alone, so one graph object shared by the answer's graph and a step's (pickle keeps such
sharing) was merged over the result's base and handed to the step as is, never checked
against the step's own base (another structure: it showed another graph for that step).
Merges are now remembered per partial graph and base.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from gui.model import detail_merge
from gui.model.engine.run import run_program
from gui.model.request import Detail, Program, RunRequest
from gui.model.result import GraphEdge, RunResult, TensorData, TensorSummary
from gui.model.session.computed import compute
from gui.model.session.layouts import LayoutCache
from tests.fixtures import forged, through_the_wire

CODE = (
    "w = torch.tensor([0.4, -0.7], requires_grad=True)\n"
    "for step in range(2):\n"
    "    loss = (w.sin() * 3).pow(2).sum()\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        w -= 0.1 * w.grad\n"
    "    w.grad.zero_()\n"
)


def _run(values: dict[str, Any] | None = None, detail: Detail | None = None) -> RunResult:
    return run_program(
        RunRequest(Program(code=CODE, values=values or {}), time_limit=60, detail=detail)
    )


@pytest.fixture(scope="module")
def shown() -> RunResult:
    result = _run()
    assert result.error is None and result.graph is not None and len(result.steps) == 2
    return result


@pytest.fixture(scope="module")
def partial(shown: RunResult) -> RunResult:
    assert shown.graph is not None
    keys = tuple(n.key for n in shown.graph.nodes if n.kind == "function")[:3]
    result = _run({"w": [0.1, 0.2]}, Detail(shown.graph.structure_key, keys))
    assert result.graph is not None and result.graph.partial
    assert detail_merge.merge(shown, result) is not None
    return result


def _graphs(result: RunResult, change: Any) -> RunResult:
    """``result`` with ``change`` applied to its graph and to each step's partial graph."""
    graph = change(result.graph)
    steps = tuple(
        forged(s, graph=change(s.graph)) if s.graph is not None and s.graph.partial else s
        for s in result.steps
    )
    return forged(result, graph=graph, steps=steps)


def node_not_in_base(result: RunResult) -> RunResult:
    return _graphs(
        result, lambda g: forged(g, nodes=(*g.nodes, forged(g.nodes[0], key="9999:Forged")))
    )


def other_kind(result: RunResult) -> RunResult:
    def change(g: Any) -> Any:
        first = next(n for n in g.nodes if n.kind == "function")
        return forged(g, nodes=tuple(forged(n, kind="leaf") if n is first else n for n in g.nodes))

    return _graphs(result, change)


def other_saved(result: RunResult) -> RunResult:
    def change(g: Any) -> Any:
        nodes = tuple(
            forged(n, saved=tuple(forged(s, name=s.name + "x") for s in n.saved)) if n.saved else n
            for n in g.nodes
        )
        return forged(g, nodes=nodes)

    return _graphs(result, change)


def fewer_saved(result: RunResult) -> RunResult:
    return _graphs(
        result,
        lambda g: forged(
            g, nodes=tuple(forged(n, saved=n.saved[1:]) if n.saved else n for n in g.nodes)
        ),
    )


def other_structure(result: RunResult) -> RunResult:
    return _graphs(result, lambda g: forged(g, structure_key="forged"))


def more_steps(result: RunResult) -> RunResult:
    return forged(result, steps=result.steps + result.steps)


@pytest.mark.parametrize(
    "tamper", [node_not_in_base, other_kind, other_saved, fewer_saved, other_structure, more_steps]
)
def test_a_partial_answer_that_does_not_fit_is_refused(
    shown: RunResult, partial: RunResult, tamper: Any
) -> None:
    assert detail_merge.merge(shown, through_the_wire(tamper(partial))) is None


def test_a_partial_base_takes_nothing(shown: RunResult, partial: RunResult) -> None:
    assert detail_merge.merge(partial, partial) is None
    assert detail_merge.merge(forged(shown, graph=None), partial) is None


def test_the_edges_a_partial_answer_claims_are_not_taken(
    shown: RunResult, partial: RunResult
) -> None:
    assert shown.graph is not None
    claimed = (GraphEdge("output", "output"), GraphEdge("nowhere", shown.graph.nodes[0].key))
    merged = detail_merge.merge(
        shown, through_the_wire(_graphs(partial, lambda g: forged(g, edges=claimed)))
    )
    assert merged is not None and merged.graph is not None and not merged.graph.partial
    assert merged.graph.edges == shown.graph.edges
    assert [n.key for n in merged.graph.nodes] == [n.key for n in shown.graph.nodes]


def test_numbers_that_are_not_numbers_merge_as_numbers(
    shown: RunResult, partial: RunResult
) -> None:
    odd = TensorData((2,), "float32", [math.nan, 1.7e308])
    huge = TensorData(
        (10**6, 10**6), "float32", None, TensorSummary(math.nan, math.inf, -math.inf, 1e308)
    )

    def change(g: Any) -> Any:
        return forged(
            g, nodes=tuple(forged(n, value=odd if i % 2 else huge) for i, n in enumerate(g.nodes))
        )

    merged = detail_merge.merge(shown, through_the_wire(_graphs(partial, change)))
    assert merged is not None and merged.graph is not None
    read = {n.key for n in partial.graph.nodes}  # type: ignore[union-attr]
    values = [n.value for n in merged.graph.nodes if n.key in read]
    assert values and all(repr(v) in (repr(odd), repr(huge)) for v in values)


def test_a_graph_shared_by_the_answer_and_a_step_is_checked_against_each_base(
    shown: RunResult, partial: RunResult
) -> None:
    # One partial graph object both as the result's graph and as a step's (pickle keeps
    # such sharing): its merge over the result's graph is no merge over the step's own.
    assert partial.graph is not None and shown.steps[0].graph is not None
    other_base = forged(
        shown,
        steps=(
            forged(shown.steps[0], graph=forged(shown.steps[0].graph, structure_key="other")),
            *shown.steps[1:],
        ),
    )
    shared = through_the_wire(
        forged(partial, steps=(forged(partial.steps[0], graph=partial.graph), *partial.steps[1:]))
    )
    merged = detail_merge.merge(other_base, shared)
    assert merged is None or all(
        m.graph is None or b.graph is None or m.graph.structure_key == b.graph.structure_key
        for m, b in zip(merged.steps, other_base.steps, strict=True)
    )


def test_a_partial_answer_to_the_whole_run_is_an_engine_error(
    shown: RunResult, partial: RunResult
) -> None:
    asked: list[RunRequest] = []

    def engine(request: RunRequest) -> RunResult:
        asked.append(request)
        return through_the_wire(
            other_structure(partial)
        )  # never fits, and partial again when whole

    assert shown.graph is not None
    request = RunRequest(Program(code=CODE), detail=Detail(shown.graph.structure_key, ("0:x",)))
    done = compute(engine, LayoutCache(), request, show_saved=True, base=shown)
    assert [r.detail is None for r in asked] == [False, True]  # once again, whole; no more
    assert done.result.error is not None and done.result.graph is None
    fits = compute(
        lambda r: through_the_wire(partial), LayoutCache(), request, show_saved=True, base=shown
    )
    assert fits.result.error is None and fits.result.graph is not None
    assert not fits.result.graph.partial and fits.read == detail_merge.read_keys(partial)
    assert replace(fits.result, graph=None, steps=()) == replace(partial, graph=None, steps=())
