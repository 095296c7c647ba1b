"""On real programs (the lessons and the tutorial corpus): a run asked for some nodes
finds the structure on screen whenever a whole run would, and reads those nodes exactly
as a whole run does. A partial walk that described a node differently would make every
drag tick of that program fall back to a whole run (slow, not wrong): this keeps them
equal."""

from __future__ import annotations

import math

import pytest

from gui.model.engine.run import run_program
from gui.model.request import Detail, Program, RunRequest
from gui.model.result import RunResult, TensorData
from gui.model.session.drag_detail import detail_of
from gui.model.session.file_format import load_session
from gui.resources import lesson_paths
from tests.corpus.harness import snippets

PROGRAMS = {
    **{path.stem: load_session(path).program for path in lesson_paths()},
    **{s.name: Program(code=s.code) for s in snippets()[::3] if s.expect != "refused"},
}


def _same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, TensorData) and isinstance(b, TensorData):
        return (
            (a.shape, a.dtype) == (b.shape, b.dtype)
            and _same(a.values, b.values)
            and (
                _same(
                    None if a.summary is None else list(vars(a.summary).values()),
                    None if b.summary is None else list(vars(b.summary).values()),
                )
            )
        )
    return a == b


def _run(program: Program, detail: Detail | None = None) -> RunResult:
    return run_program(RunRequest(program, time_limit=30, detail=detail))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_partial_run_finds_the_structure_and_reads_as_a_whole_run(name: str) -> None:
    program = PROGRAMS[name]
    whole = _run(program)
    graph = whole.graph
    if graph is None or graph.root is None or whole.steps == ():
        pytest.skip("no graph walked before a backward")
    keys = [n.key for n in graph.nodes if n.kind in ("function", "leaf")]
    read = tuple(keys[:: max(1, len(keys) // 4)])  # a few, spread over the graph
    partial = _run(program, Detail(graph.structure_key, read))
    assert partial.graph is not None
    if not partial.graph.partial:
        # Walked whole: only when this run's structure is not the one on screen (a program
        # whose graph changes from run to run, e.g. with the time or a hash).
        assert partial.graph.structure_key != graph.structure_key, name
        return
    assert partial.graph.structure_key == graph.structure_key
    full = {n.key: n for n in graph.nodes}
    for node in partial.graph.nodes:
        expected = full[node.key]
        assert (node.kind, node.label, node.var) == (
            expected.kind,
            expected.label,
            expected.var,
        ), (name, node.key)
        assert _same(node.value, expected.value), (name, node.key)
        assert len(node.saved) == len(expected.saved)
        for got, want in zip(node.saved, expected.saved, strict=True):
            assert got.name == want.name and _same(got.tensor, want.tensor), (name, node.key)
    assert _same(
        [info.grad for info in partial.tensors.values()],
        [info.grad for info in whole.tensors.values()],
    ), name
    # As the window asks (detail_of): the forward values of the nodes in view only are
    # copied while the program runs, found by the order the run makes its nodes in. The
    # same nodes are read, with the same numbers, as when every value is kept.
    lean = _run(program, detail_of(graph, read))
    assert lean.graph is not None and lean.graph.partial
    assert [n.key for n in lean.graph.nodes] == [n.key for n in partial.graph.nodes], name
    for got, want in zip(lean.graph.nodes, partial.graph.nodes, strict=True):
        assert _same(got.value, want.value) and got.made == want.made, (name, got.key)
