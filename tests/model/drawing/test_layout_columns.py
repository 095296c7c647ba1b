"""A layout crosses from the layout worker as columns of numbers, and a big graph goes to it
as its titles and structure only: the same layouts, read in one pass, every wrong column
refused."""

from __future__ import annotations

import math
import pickle
from array import array
from dataclasses import replace
from typing import Any

import pytest

from gui.model import wire
from gui.model.drawing import layout_columns
from gui.model.drawing.layout import (
    COMPACT_NODE_LIMIT,
    GraphLayout,
    NodeBox,
    layout_graph,
    layout_input,
)
from gui.model.drawing.layout_process import LAYOUT_MESSAGES, LayoutProcess
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Graph
from tests.big_graphs import chain_graph, loop_graph

# ~2,000 boxes with saved tensors and constants: compact whether saved tensors are shown.
BIG_PROGRAM = (
    "x = torch.tensor([0.5, -0.25], requires_grad=True)\n"
    "y = x\n"
    "for i in range(340):\n"
    "    y = torch.sin(y) * 1.01 + 0.1\n"
    "out = y.sum()\n"
)


@pytest.fixture(scope="module")
def big_graph() -> Graph:
    graph = run_program(RunRequest(Program(code=BIG_PROGRAM))).graph
    assert graph is not None
    assert sum(node.kind != "saved" for node in graph.nodes) > COMPACT_NODE_LIMIT
    assert any(node.kind == "saved" for node in graph.nodes)
    return graph


def through_the_wire(layout: GraphLayout) -> object:
    return wire.loads(pickle.dumps(layout), LAYOUT_MESSAGES, max_text=None)


def test_a_layout_crosses_as_columns_and_arrives_equal(big_graph: Graph) -> None:
    for graph, show_saved in ((big_graph, False), (big_graph, True), (loop_graph(20), True)):
        sent = layout_graph(graph, show_saved)
        data = pickle.dumps(sent)
        assert b"unpack_layout" in data and b"NodeBox" not in data
        got = through_the_wire(sent)
        assert got == sent
        assert isinstance(got, GraphLayout)
        assert all(type(box) is NodeBox for box in got.nodes.values())


def test_an_edge_graphviz_gave_no_points_arrives_as_none() -> None:
    boxes = {"a": NodeBox(0.0, 0.0, 10.0, 5.0)}
    sent = GraphLayout(boxes, {0: (), 3: ((1.0, 2.0),) * 4}, 10.0, 5.0, {3: (1.0, 9.0)})
    assert through_the_wire(sent) == sent


def test_the_readers_name_for_the_columns_is_the_function() -> None:
    maker = layout_columns.unpack_layout
    assert (maker.__module__, maker.__name__) == wire.LAYOUT_COLUMNS


def test_the_engines_reader_refuses_layout_columns() -> None:
    """Only the layout worker's answers may hold a layout: the engine's reader refuses the
    columns' maker as any other name."""
    sent = layout_graph(chain_graph(3))
    with pytest.raises(pickle.UnpicklingError, match="not one of its message types"):
        wire.loads(pickle.dumps(sent), wire.ENGINE_MESSAGES)


class Forged:
    """Pickles as the columns' maker called with ``columns``, as a worker could send."""

    def __init__(self, *columns: object) -> None:
        self.columns = columns

    def __reduce__(self) -> tuple[Any, ...]:
        return layout_columns.unpack_layout, self.columns


def good_columns() -> list[object]:
    boxes = {"a": NodeBox(0.0, 0.0, 10.0, 5.0), "b": NodeBox(0.0, 40.0, 10.0, 5.0)}
    edges = {0: ((0.0, 2.5), (0.0, 10.0), (0.0, 20.0), (0.0, 37.5))}
    return list(layout_columns.pack_layout(GraphLayout(boxes, edges, 10.0, 45.0, {0: (0, 37.5)})))


def floats(*values: float) -> bytes:
    return array(layout_columns.FLOATS, values).tobytes()


def integers(*values: int) -> bytes:
    return array(layout_columns.INTEGERS, values).tobytes()


def test_good_forged_columns_are_read() -> None:
    got = wire.loads(pickle.dumps(Forged(*good_columns())), LAYOUT_MESSAGES, max_text=None)
    assert isinstance(got, GraphLayout) and got.nodes["b"] == NodeBox(0.0, 40.0, 10.0, 5.0)


BAD_COLUMNS: list[tuple[int, object, str]] = [
    (0, ("a", 5), "keys that are not texts"),
    (0, ["a", "b"], "keys that are not texts"),
    (0, ("a", "a"), "a node key twice"),
    (1, floats(0.0, 0.0, 10.0, 5.0), "boxes of another count"),
    (1, floats(0.0, 0.0, 10.0, 5.0, 0.0, math.nan, 10.0, 5.0), "a box's place"),
    (1, floats(0.0, 0.0, 10.0, 5.0, 0.0, 1e300, 10.0, 5.0), "a box's place"),
    (1, floats(0.0, 0.0, 10.0, 5.0, 0.0, 0.0, -10.0, 5.0), "a box's size"),
    (1, floats(0.0, 0.0, 10.0, 5.0, 0.0, 0.0, math.inf, 5.0), "a box's size"),
    (1, floats(0.0, 0.0, 10.0, 5.0, 0.0, 0.0, 10.0, 5.0)[:-3], "broken length"),
    (1, bytearray(floats(*[1.0] * 8)), "bytearray"),
    (1, [1.0] * 8, "not bytes"),
    (2, integers(-1), "negative or repeated"),
    (3, integers(5), "points of another count"),
    (3, integers(-1), "point counts of another shape"),
    (3, integers(4, 4), "point counts of another shape"),
    (4, floats(*[0.0] * 7, math.inf), "an edge's point"),
    (4, floats(*[0.0] * 7, -math.nan), "an edge's point"),
    (5, integers(0, 0), "arrowhead"),
    (6, floats(0.0, 1e9), "an arrowhead's point"),
    (7, (10.0, 45.0, False), "fields of another shape"),
    (7, (10, 45.0, False, False), "size that is not a number"),
    (7, (10.0, -45.0, False, False), "a layout's size"),
    (7, (10.0, 45.0, 0, False), "true or false"),
]


@pytest.mark.parametrize(("column", "value", "said"), BAD_COLUMNS)
def test_a_wrong_column_is_refused(column: int, value: object, said: str) -> None:
    columns = good_columns()
    columns[column] = value
    with pytest.raises(pickle.UnpicklingError, match=said):
        wire.loads(pickle.dumps(Forged(*columns)), LAYOUT_MESSAGES, max_text=None)


def test_other_column_counts_are_refused() -> None:
    for columns in (good_columns()[:-1], [*good_columns(), b""]):
        with pytest.raises(pickle.UnpicklingError, match="other columns"):
            wire.loads(pickle.dumps(Forged(*columns)), LAYOUT_MESSAGES, max_text=None)


@pytest.mark.parametrize("show_saved", [False, True])
@pytest.mark.parametrize("use_dot", [None, True, False])
def test_a_big_graph_is_laid_out_the_same_from_its_titles_alone(
    big_graph: Graph, show_saved: bool, use_dot: bool | None
) -> None:
    sent = layout_input(big_graph, show_saved)
    assert all(node.value is None and node.saved == () for node in sent.nodes)
    assert (sent.structure_key, sent.edges) == (big_graph.structure_key, big_graph.edges)
    assert layout_graph(sent, show_saved, use_dot) == layout_graph(big_graph, show_saved, use_dot)
    assert len(pickle.dumps(sent)) < len(pickle.dumps(big_graph))


def test_a_graph_drawn_with_its_numbers_is_sent_whole(big_graph: Graph) -> None:
    small = chain_graph(40)
    assert layout_input(small) is small
    # Compact with its saved tensors, not without them: the boxes then show numbers.
    keep = COMPACT_NODE_LIMIT - 10
    functions = [node for node in big_graph.nodes if node.kind != "saved"][:keep]
    saved = [node for node in big_graph.nodes if node.kind == "saved"][:20]
    mixed = replace(big_graph, nodes=(*functions, *saved))
    assert layout_input(mixed, show_saved=False) is mixed


def test_the_worker_lays_a_big_graph_out_as_this_process_does(big_graph: Graph) -> None:
    worker = LayoutProcess()
    try:
        assert worker.layout(big_graph, False) == layout_graph(big_graph, False)
    finally:
        worker.close()
