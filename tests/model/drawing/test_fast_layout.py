"""The app's own layered layout for graphs too big for Graphviz (gui.model.drawing.fast_layout).

Structure, not looks: every box placed, none overlapping, edges leaving their source's box
and arriving at their target's, each edge pointing down the ranks. How fast it is, is
measured by ``benchmarks/big_layout.py`` (a 5,000-op chain and RNNs of 200 and 2,000
steps), not here.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from gui.model.drawing.fast_layout import MAX_ROUTED_SPAN, fast_placement
from gui.model.drawing.layout import GraphLayout, NodeBox, layout_graph
from gui.model.drawing.limits import DOT_MAX_BOXES
from gui.model.drawing.svg import render_svg
from gui.model.result import Graph, GraphEdge, GraphNode
from tests.big_graphs import chain_graph, loop_graph, running_total_graph, vector

TOLERANCE = 1e-6


def with_members(steps: int) -> Graph:
    """An RNN-like loop whose multiplications each have a constant and a saved tensor."""
    graph = loop_graph(steps, key=f"members-{steps}")
    nodes = list(graph.nodes)
    edges = list(graph.edges)
    for node in graph.nodes:
        if node.name == "MulBackward0":
            nodes.append(
                GraphNode(f"{node.key}/c", "constant", "constant", "constant", owner=node.key)
            )
            edges.append(GraphEdge(f"{node.key}/c", node.key, "constant"))
            nodes.append(
                GraphNode(
                    f"{node.key}/s", "saved", "self", "saved", value=vector(1.0), owner=node.key
                )
            )
    return Graph(tuple(nodes), tuple(edges), graph.root, graph.structure_key)


def overlaps(a: NodeBox, b: NodeBox) -> bool:
    return (
        a.left < b.left + b.width - TOLERANCE
        and b.left < a.left + a.width - TOLERANCE
        and a.top < b.top + b.height - TOLERANCE
        and b.top < a.top + a.height - TOLERANCE
    )


def assert_well_formed(graph: Graph, layout: GraphLayout) -> None:
    """Every box placed inside the picture, no two overlapping, every edge from its
    source's box to its target's (the arrow's tip on the target's border), going down."""
    assert layout.fast
    assert set(layout.nodes) == {n.key for n in graph.nodes}
    boxes = sorted(layout.nodes.values(), key=lambda b: b.left)
    for i, a in enumerate(boxes):  # sweep by left edge: only neighbours can overlap
        assert a.left >= 0 and a.top >= 0
        assert a.left + a.width <= layout.width + TOLERANCE
        assert a.top + a.height <= layout.height + TOLERANCE
        for b in itertools.islice(boxes, i + 1, None):
            if b.left >= a.left + a.width:
                break
            assert not overlaps(a, b), (a, b)
    owners = {n.key: n.owner for n in graph.nodes}
    for i, edge in enumerate(graph.edges):
        points, tip = layout.edges[i], layout.arrows[i]
        assert len(points) % 3 == 1
        source, target = layout.nodes[edge.source], layout.nodes[edge.target]
        start_x, start_y = points[0]
        if owners.get(edge.source) == edge.target:  # a constant into its owner: side to side
            assert start_y == pytest.approx(source.y) and tip[1] == pytest.approx(target.y)
            assert start_x == pytest.approx(source.left + source.width)
            assert tip[0] == pytest.approx(target.left)
            continue
        assert start_x == pytest.approx(source.x)
        assert start_y == pytest.approx(source.top + source.height)  # leaves the bottom
        assert tip == pytest.approx((target.x, target.top))  # arrives on top
        assert target.top > source.top + source.height  # ranks follow the edge's direction
        assert points[-1][1] < tip[1]  # the curve stops where the arrowhead starts


@pytest.mark.parametrize(
    "graph", [chain_graph(5000), loop_graph(200), with_members(60)], ids=["chain", "rnn", "members"]
)
def test_big_graphs_are_placed_without_overlaps_and_with_edges_between_their_boxes(
    graph: Graph,
) -> None:
    layout = layout_graph(graph, show_saved=True)
    assert_well_formed(graph, layout)


def test_graphviz_keeps_the_graphs_it_places_quickly() -> None:
    assert not layout_graph(chain_graph(20), show_saved=False).fast
    assert layout_graph(chain_graph(DOT_MAX_BOXES), show_saved=False).fast
    assert layout_graph(loop_graph(40), show_saved=False).fast  # rows crossed, few boxes


def test_a_chain_is_one_straight_column() -> None:
    layout = layout_graph(chain_graph(600), show_saved=False)
    assert len({round(box.x, 3) for box in layout.nodes.values()}) == 1
    ys = [layout.nodes[key].y for key in layout.nodes]
    assert len(set(ys)) == len(ys)


def test_an_rnn_stays_narrow_however_many_steps() -> None:
    """The hidden state's spine stays in one column (plain neighbour means let it drift a
    little every step: a diagonal across thousands of points)."""
    short, long = (layout_graph(loop_graph(n), show_saved=False) for n in (50, 400))
    assert not long.compact and long.height > 7 * short.height
    assert long.width < short.width * 1.5
    tanh = [box.x for key, box in long.nodes.items() if "Tanh" in key]
    assert max(tanh) - min(tanh) < 1.0


def test_long_edges_run_down_lanes_right_of_every_box() -> None:
    graph = loop_graph(30)
    layout = layout_graph(graph, show_saved=False)
    right = max(box.left + box.width for box in layout.nodes.values())
    rows = {key: box.y for key, box in layout.nodes.items()}
    ranks = sorted(set(rows.values()))
    long = [
        i
        for i, e in enumerate(graph.edges)
        if ranks.index(rows[e.target]) - ranks.index(rows[e.source]) > MAX_ROUTED_SPAN
    ]
    assert long, "w and b feed every step"
    for i in long:
        points = layout.edges[i]
        lane = points[3][0]
        assert lane > right
        assert points[3][0] == points[4][0] == points[5][0] == points[6][0]  # straight down


def test_a_running_total_sits_beside_its_steps_so_only_leaves_send_long_edges() -> None:
    """``loss = loss + (h * h).sum()`` every step: ranked from the output alone the total
    was packed at the bottom and each step's term reached further down (hundreds of lanes
    beside the picture); pulled up under its step, only the weights feed every row."""
    graph = running_total_graph(120)
    layout = layout_graph(graph, show_saved=False)
    assert_well_formed(graph, layout)
    rows = sorted({box.y for box in layout.nodes.values()})
    rank = {key: rows.index(box.y) for key, box in layout.nodes.items()}
    long_sources = {
        e.source for e in graph.edges if rank[e.target] - rank[e.source] > MAX_ROUTED_SPAN
    }
    assert long_sources == {"w", "b"}
    for i in (10, 60, 110):
        assert rank[f"t{i}:SumBackward0"] - rank[f"{3 * i + 2}:TanhBackward0"] == 2


def test_saved_tensors_and_constants_sit_beside_their_owner() -> None:
    graph = with_members(5)
    layout = layout_graph(graph, show_saved=True)
    for node in graph.nodes:
        if node.owner is None:
            continue
        box, owner = layout.nodes[node.key], layout.nodes[node.owner]
        assert box.y == pytest.approx(owner.y)
        if node.kind == "saved":
            assert box.left > owner.left  # right of it
        else:
            assert box.left < owner.left  # constants left


def test_a_cycle_does_not_hang_or_crash() -> None:
    nodes = tuple(GraphNode(k, "AddBackward0", k, "function") for k in "abc")
    edges = (GraphEdge("a", "b"), GraphEdge("b", "c"), GraphEdge("c", "a"))
    graph = Graph(nodes, edges, "c", "cycle")
    placed = fast_placement(graph, {k: (60.0, 20.0) for k in "abc"})
    assert set(placed.centres) == set("abc") and set(placed.edges) == {0, 1, 2}


def test_owners_in_a_ring_do_not_hang_either() -> None:
    nodes = (
        GraphNode("f", "AddBackward0", "f", "function"),
        GraphNode("a", "constant", "a", "constant", owner="b"),
        GraphNode("b", "constant", "b", "constant", owner="a"),
    )
    graph = Graph(nodes, (GraphEdge("a", "f"),), "f", "ring")
    placed = fast_placement(graph, {k: (60.0, 20.0) for k in "fab"})
    assert set(placed.centres) == {"f", "a", "b"}


SVG = "{http://www.w3.org/2000/svg}"


def test_the_svg_export_draws_a_big_graph_where_the_window_does() -> None:
    """Graphviz only draws it (``nop2``): every box at the layout's place and size."""
    graph = loop_graph(60)
    layout = layout_graph(graph, show_saved=True)
    svg = ET.fromstring(render_svg(graph, None, {}))
    boxes = [g for g in svg.iter(f"{SVG}g") if "node" in g.get("class", "").split()]
    assert len(boxes) == len(graph.nodes)
    assert float(svg.get("height", "0pt")[:-2]) >= layout.height
    title = {g.findtext(f"{SVG}title"): g for g in boxes}
    for i, node in enumerate(graph.nodes[:10]):
        outline = title[f"n{i}"].find(f".//{SVG}path")
        assert outline is not None
        xs = [float(x) for x in re.findall(r"(-?[\d.]+),-?[\d.]+", outline.get("d", ""))]
        box = layout.nodes[node.key]
        assert max(xs) - min(xs) == pytest.approx(box.width, abs=1.0)
