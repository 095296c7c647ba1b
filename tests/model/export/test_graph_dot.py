"""``graph.dot``: the text Graphviz draws ``graph.svg`` from, readable by any Graphviz tool."""

from __future__ import annotations

import re
from pathlib import Path

import pygraphviz as pgv

from gui.model.drawing.svg import svg_dot
from gui.model.export.files import NO_GRAPH_TEXT, graph_dot, write_export
from gui.model.result import Graph, GraphEdge, GraphNode, RunResult
from gui.model.tensor_format import format_tensor
from tests.big_graphs import chain_graph, result_with, vector


def parsed(text: str) -> pgv.AGraph:
    return pgv.AGraph(string=text)


def expected_edges(graph: Graph) -> list[tuple[str, str]]:
    """Graphviz names (``n<index>``) of every edge and owner -> saved link of ``graph``."""
    names = {node.key: f"n{i}" for i, node in enumerate(graph.nodes)}
    edges = [(names[e.source], names[e.target]) for e in graph.edges]
    links = [(names[n.owner], names[n.key]) for n in graph.nodes if n.kind == "saved" and n.owner]
    return sorted(edges + links)


def with_saved() -> Graph:
    """``y = w * 2`` with the saved ``self`` beside MulBackward0 and a constant input."""
    nodes = (
        GraphNode("w", "AccumulateGrad", "w", "leaf", var="w", value=vector(1.0, 2.0)),
        GraphNode("mul", "MulBackward0", "y", "function", value=vector(2.0, 4.0)),
        GraphNode("c", "constant", "constant", "constant", owner="mul", value=vector(2.0)),
        GraphNode("s", "self", "self", "saved", owner="mul", value=vector(1.0, 2.0)),
        GraphNode("output", "output", "y", "output", value=vector(2.0, 4.0)),
    )
    edges = (
        GraphEdge("w", "mul", "data", 0),
        GraphEdge("c", "mul", "constant", 1),
        GraphEdge("mul", "output", "output"),
    )
    return Graph(nodes, edges, "mul", "with-saved")


def test_the_dot_parses_with_the_graphs_nodes_and_edges() -> None:
    for graph in (chain_graph(4), with_saved()):
        dot = parsed(graph_dot(result_with(graph)))
        assert dot.number_of_nodes() == len(graph.nodes)
        assert sorted(dot.edges()) == expected_edges(graph)
        assert dot.graph_attr["rankdir"] == "TB"


def test_the_labels_hold_the_results_numbers() -> None:
    result = result_with(chain_graph(2))
    dot = parsed(graph_dot(result))
    leaf_label = dot.get_node("n0").attr["label"]
    # The leaf shows w's value and accumulated .grad, formatted as the window shows them.
    assert f"value {format_tensor(vector(1.0, 2.0))}" in leaf_label
    grad = result.tensors["w"].grad
    assert grad is not None and f"w.grad {format_tensor(grad)}" in leaf_label
    assert [float(v) for v in re.findall(r"w\.grad \[([-\d.]+), ([-\d.]+)\]", leaf_label)[0]] == [
        3.0,
        4.0,
    ]


def test_the_dot_is_the_text_the_svg_is_drawn_from() -> None:
    result = result_with(with_saved())
    grads = {"w": result.tensors["w"].grad}
    assert graph_dot(result) == svg_dot(result.graph, None, grads, None) + "\n"  # type: ignore[arg-type]


def test_no_graph_is_a_graph_whose_label_says_why() -> None:
    dot = parsed(graph_dot(result_with(None)))
    assert dot.number_of_nodes() == 0 and dot.graph_attr["label"] == NO_GRAPH_TEXT


def test_a_graph_too_big_to_draw_still_has_its_dot() -> None:
    graph = chain_graph(2000)
    dot = parsed(graph_dot(result_with(graph)))
    assert dot.number_of_nodes() == len(graph.nodes) == 2002
    assert dot.number_of_edges() == len(graph.edges)


def test_a_label_with_quotes_and_backslashes_stays_one_label() -> None:
    nodes = (GraphNode("w", "AccumulateGrad", 'w"\\ne', "leaf", var='w"\\ne', value=vector(1.0)),)
    graph = Graph(nodes, (), "w", "odd-name")
    result: RunResult = result_with(graph)
    dot = parsed(graph_dot(result))
    assert dot.number_of_nodes() == 1
    assert 'w"\\ne' in dot.get_node("n0").attr["label"].replace("&quot;", '"')


def test_write_export_writes_the_dot_beside_the_svg(tmp_path: Path) -> None:
    svg = write_export(result_with(None), "", tmp_path)
    assert svg == (tmp_path / "graph.svg").read_text()
    dot = parsed((tmp_path / "graph.dot").read_text())  # kept: its attributes live in it
    assert dot.graph_attr["label"] == NO_GRAPH_TEXT
