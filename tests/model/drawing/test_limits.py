"""How big a graph the app lays out: boxes, and rows crossed by long edges (which decide
whether Graphviz or the app's own layout places it)."""

from __future__ import annotations

from dataclasses import replace

from gui.model.drawing.limits import (
    DOT_MAX_BOXES,
    DOT_MAX_ROWS_CROSSED,
    GRAPH_TOO_BIG,
    MAX_LAYOUT_BOXES,
    MAX_LAYOUT_EDGES,
    LayoutSize,
    dot_is_quick,
    layout_size,
    too_big,
)
from gui.model.result import GraphEdge, GraphNode
from tests.big_graphs import chain_graph, loop_graph, vector


def test_a_chain_crosses_no_rows() -> None:
    assert layout_size(chain_graph(10), False) == LayoutSize(boxes=12, rows_crossed=0)


def test_a_leaf_used_in_every_iteration_crosses_every_row_below_its_first_use() -> None:
    # w sits right above iteration 0; iteration i is 3 rows per iteration further down, so
    # its edge skips 3i rows; b likewise: 2 * 3 * n(n - 1) / 2 rows, growing with the square.
    sizes = [layout_size(loop_graph(n), False) for n in (10, 20, 40)]
    assert [s.boxes for s in sizes] == [33, 63, 123]
    assert [s.rows_crossed for s in sizes] == [270, 1140, 4680]


def test_saved_tensors_count_as_boxes_only_when_shown_and_sit_on_their_owner_row() -> None:
    graph = chain_graph(3)
    owner = graph.nodes[1].key
    saved = GraphNode(
        f"{owner}/saved:self", "saved", "self", "saved", value=vector(1.0), owner=owner
    )
    constant = GraphNode(
        f"{owner}/const", "constant", "2", "constant", value=vector(2.0), owner=owner
    )
    graph = replace(
        graph,
        nodes=(*graph.nodes, saved, constant),
        edges=(*graph.edges, GraphEdge(constant.key, owner, "constant", 1)),
    )
    assert layout_size(graph, False) == LayoutSize(boxes=6, rows_crossed=0)
    assert layout_size(graph, True) == LayoutSize(boxes=7, rows_crossed=0)


def test_graphviz_places_graphs_small_in_both_boxes_and_rows_crossed() -> None:
    assert dot_is_quick(layout_size(chain_graph(DOT_MAX_BOXES - 2), False))
    assert dot_is_quick(layout_size(loop_graph(18), False))  # 918 rows crossed
    assert not dot_is_quick(layout_size(chain_graph(DOT_MAX_BOXES), False))  # 502 boxes
    assert layout_size(loop_graph(20), False).rows_crossed > DOT_MAX_ROWS_CROSSED
    assert not dot_is_quick(layout_size(loop_graph(20), False))


def test_graphs_of_thousands_of_boxes_and_long_edges_are_drawn() -> None:
    assert too_big(chain_graph(5000), False) is None
    assert too_big(loop_graph(1000), False) is None  # 3 million rows crossed
    assert too_big(chain_graph(MAX_LAYOUT_BOXES - 2), False) is None


def test_too_many_boxes_is_said_in_plain_words() -> None:
    refusal = too_big(chain_graph(MAX_LAYOUT_BOXES), False)
    assert refusal is not None and refusal.kind == GRAPH_TOO_BIG
    assert refusal.severity == "warning"
    assert refusal.message == (
        f"The graph has {MAX_LAYOUT_BOXES + 2:,} boxes: more than the {MAX_LAYOUT_BOXES:,} "
        "the app draws, so it is not drawn."
    )
    assert "still right" in refusal.explanation and "range(5)" in refusal.fix


def test_too_many_edges_is_said_in_plain_words() -> None:
    """Two boxes and tens of thousands of edges between them (``torch.cat([x * w] * n)``):
    not drawn, said as the boxes are."""
    graph = chain_graph(1)
    many = (graph.edges[0],) * (MAX_LAYOUT_EDGES + 1)
    assert too_big(replace(graph, edges=graph.edges + many[: MAX_LAYOUT_EDGES - 2]), False) is None
    refusal = too_big(replace(graph, edges=graph.edges + many), False)
    assert refusal is not None and refusal.kind == GRAPH_TOO_BIG
    assert refusal.message == (
        f"The graph has {MAX_LAYOUT_EDGES + 3:,} edges: more than the {MAX_LAYOUT_EDGES:,} "
        "the app draws, so it is not drawn."
    )
