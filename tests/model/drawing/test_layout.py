"""Graph layout, node text, the colour scale, number formatting and the SVG export.

The graphs are built by hand, shaped like what ``gui.model.engine.graph_walk`` walks from torch for the
learners' scenarios, so these tests need neither torch nor Qt.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from gui.model.drawing.colors import (
    NON_FINITE_COLOR,
    ZERO_COLOR,
    diverging_color,
    scale_for,
    text_color_on,
)
from gui.model.drawing.layout import (
    PAD_X,
    GraphLayout,
    layout_graph,
    node_lines,
    node_size,
    text_width,
    widest_value,
)
from gui.model.drawing.svg import render_svg
from gui.model.result import (
    Graph,
    GraphEdge,
    GraphNode,
    NodeFlow,
    SavedValue,
    StepRecord,
    TensorData,
    TensorSummary,
)
from gui.model.tensor_format import format_number, format_shape, format_tensor

SVG = "{http://www.w3.org/2000/svg}"


def t(values: object, shape: tuple[int, ...] | None = None) -> TensorData:
    """A float32 TensorData; the shape is inferred from nested lists."""
    if shape is None:
        shape, v = (), values
        while isinstance(v, list):
            shape, v = (*shape, len(v)), v[0] if v else None
    return TensorData(shape=shape, dtype="float32", values=values)


def fn(key: str, var: str | None = None, value: TensorData | None = None, **kw: Any) -> GraphNode:
    """A function node keyed ``"<i>:<ClassName>"``, labelled by ``var`` when there is one."""
    name = key.split(":")[1]
    return GraphNode(key, name, var or name, "function", var, value, **kw)


def context(key: str, label: str, value: TensorData, var: str | None = None) -> GraphNode:
    """A saved or constant node owned by the function whose key prefixes ``key``."""
    owner, kind = key.split("/")[0], "saved" if "/saved:" in key else "constant"
    return GraphNode(key, kind, label, kind, var, value, owner=owner)


def sum_of_squares(x: list[float]) -> tuple[Graph, StepRecord, dict[str, TensorData | None]]:
    """``y = sum(q**2)`` with Python's builtin sum over a 3-element ``x``, after backward."""
    sq = [v * v for v in x]
    nodes = (
        fn("0:AddBackward0", "y", t(sum(sq)), saved=(SavedValue("alpha", value=1),)),
        fn("1:AddBackward0", value=t(sq[0] + sq[1])),
        fn("2:UnbindBackward0", saved=(SavedValue("dim", value=0),), output_count=3),
        fn("3:AddBackward0", value=t(sq[0])),
        context("3:AddBackward0/const:1", "constant", TensorData((), "int64", 0)),
        fn(
            "4:PowBackward0",
            value=t(sq),
            saved=(SavedValue("exponent", value=2), SavedValue("self", tensor=t(x))),
        ),
        context("4:PowBackward0/saved:self", "self = x", t(x), "x"),
        GraphNode("5:AccumulateGrad", "AccumulateGrad", "x", "leaf", "x", t(x)),
        GraphNode("output", "output", "y", "output", value=t(sum(sq))),
    )
    edges = (
        GraphEdge("1:AddBackward0", "0:AddBackward0", "data", 0),
        GraphEdge("2:UnbindBackward0", "0:AddBackward0", "data", 1),
        GraphEdge("3:AddBackward0", "1:AddBackward0", "data", 0),
        GraphEdge("2:UnbindBackward0", "1:AddBackward0", "data", 1),
        GraphEdge("4:PowBackward0", "2:UnbindBackward0", "data", 0),
        GraphEdge("2:UnbindBackward0", "3:AddBackward0", "data", 0),
        GraphEdge("3:AddBackward0/const:1", "3:AddBackward0", "constant", 1),
        GraphEdge("5:AccumulateGrad", "4:PowBackward0", "data", 0),
        GraphEdge("0:AddBackward0", "output", "output"),
    )
    one = t(1.0)
    grad = t([2 * v for v in x])
    flows = {
        "0:AddBackward0": NodeFlow((one,), (one, one), 0),
        "1:AddBackward0": NodeFlow((one,), (one, one), 1),
        "3:AddBackward0": NodeFlow((one,), (one, None), 2),
        "2:UnbindBackward0": NodeFlow((one, one, one), (t([1.0, 1.0, 1.0]),), 3),
        "4:PowBackward0": NodeFlow((t([1.0, 1.0, 1.0]),), (grad,), 4),
        "5:AccumulateGrad": NodeFlow((grad,), (), 5),
    }
    graph = Graph(nodes, edges, "0:AddBackward0", "sum-of-squares")
    step = StepRecord(0, "code", 6, "y", None, False, False, False, {"x": None}, {"x": grad}, flows)
    return graph, step, {"x": grad}


def chain(x: float, seed: float = 1.0) -> tuple[Graph, StepRecord, dict[str, TensorData | None]]:
    """``y = 2*x; z = y**3`` on a 1x1 ``x``, after ``z.backward(tensor([[seed]]))``."""
    y, z = 2 * x, (2 * x) ** 3
    dz_dy, dz_dx = seed * 3 * y * y, seed * 24 * x * x
    saved = (SavedValue("exponent", value=3), SavedValue("self", tensor=t([[y]])))
    nodes = (
        fn("0:PowBackward0", "z", t([[z]]), saved=saved),
        context("0:PowBackward0/saved:self", "self = y", t([[y]]), "y"),
        fn("1:MulBackward0", "y", t([[y]])),
        context("1:MulBackward0/const:1", "constant", TensorData((), "int64", 2)),
        GraphNode("2:AccumulateGrad", "AccumulateGrad", "x", "leaf", "x", t([[x]])),
        GraphNode("output", "output", "z", "output", value=t([[z]])),
    )
    edges = (
        GraphEdge("1:MulBackward0", "0:PowBackward0", "data", 0),
        GraphEdge("2:AccumulateGrad", "1:MulBackward0", "data", 0),
        GraphEdge("1:MulBackward0/const:1", "1:MulBackward0", "constant", 1),
        GraphEdge("0:PowBackward0", "output", "output"),
    )
    flows = {
        "0:PowBackward0": NodeFlow((t([[seed]]),), (t([[dz_dy]]),), 0),
        "1:MulBackward0": NodeFlow((t([[dz_dy]]),), (t([[dz_dx]]), None), 1),
        "2:AccumulateGrad": NodeFlow((t([[dz_dx]]),), (), 2),
    }
    graph = Graph(nodes, edges, "0:PowBackward0", "chain")
    grads: dict[str, TensorData | None] = {"x": t([[dz_dx]])}
    step = StepRecord(
        0, "code", 4, "z", t([[seed]]), False, False, False, {"x": None}, grads, flows
    )
    return graph, step, grads


def long_chain(n: int) -> Graph:
    """``n`` function nodes in a row over one leaf: a stress test, not a lesson."""
    nodes = [GraphNode("leaf", "AccumulateGrad", "x", "leaf", "x", t([1.0, 2.0]))]
    edges = []
    previous = "leaf"
    for i in range(n):
        key = f"{i}:ExpBackward0"
        nodes.append(fn(key, value=t(1.5)))
        edges.append(GraphEdge(previous, key, "data", 0))
        previous = key
    nodes.append(GraphNode("output", "output", "out", "output", value=t(1.5)))
    edges.append(GraphEdge(previous, "output", "output"))
    return Graph(tuple(nodes), tuple(edges), previous, f"chain-{n}")


def overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def rect(layout: GraphLayout, key: str) -> tuple[float, float, float, float]:
    box = layout.nodes[key]
    return box.left, box.top, box.left + box.width, box.top + box.height


GRAPHS = {"sum": sum_of_squares([3.0, 4.0, 10.0]), "chain": chain(-1.2095)}


@pytest.fixture(params=sorted(GRAPHS))
def case(request: pytest.FixtureRequest) -> tuple[Graph, StepRecord, dict[str, TensorData | None]]:
    return GRAPHS[request.param]


def test_every_node_and_edge_gets_a_position(case: tuple[Graph, StepRecord, dict]) -> None:
    graph, _, _ = case
    layout = layout_graph(graph)
    assert set(layout.nodes) == {n.key for n in graph.nodes}
    assert set(layout.edges) == set(range(len(graph.edges)))
    for points in layout.edges.values():
        assert len(points) >= 4 and (len(points) - 1) % 3 == 0
        for x, y in points:
            assert -1 <= x <= layout.width + 1 and -1 <= y <= layout.height + 1
    for box in layout.nodes.values():
        assert box.left >= -1 and box.top >= -1
        assert box.left + box.width <= layout.width + 1
        assert box.top + box.height <= layout.height + 1


def test_boxes_do_not_overlap(case: tuple[Graph, StepRecord, dict]) -> None:
    layout = layout_graph(case[0])
    for a, b in itertools.combinations(layout.nodes, 2):
        assert not overlap(rect(layout, a), rect(layout, b)), (a, b)


def test_leaves_on_top_output_at_bottom_context_beside_owner(
    case: tuple[Graph, StepRecord, dict],
) -> None:
    graph = case[0]
    layout = layout_graph(graph)
    output_y = layout.nodes["output"].y
    for node in graph.nodes:
        box = layout.nodes[node.key]
        if node.kind == "leaf":
            assert box.y < output_y
        if node.owner is not None:
            assert box.y == pytest.approx(layout.nodes[node.owner].y)
    for edge in graph.edges:
        if edge.kind in ("data", "output"):
            assert layout.nodes[edge.source].y < layout.nodes[edge.target].y


def test_layout_depends_on_structure_not_values() -> None:
    a = sum_of_squares([3.0, 4.0, 10.0])[0]
    b = sum_of_squares([-1.234e-05, 1000.5, math.nan])[0]
    assert a.structure_key == b.structure_key and a != b
    assert layout_graph(a) == layout_graph(b)
    assert layout_graph(chain(0.5)[0]) == layout_graph(chain(-1234.5678)[0])


def test_boxes_fit_their_text_for_any_values() -> None:
    for values in ([3.0, 4.0, 10.0], [-1.234e-05, -1000.5, -0.000123]):
        graph, step, grads = sum_of_squares(values)
        layout = layout_graph(graph)
        for node in graph.nodes:
            grad = grads.get("x") if node.kind == "leaf" else None
            lines = node_lines(node, step.flows.get(node.key), grad)
            widest = max(text_width(line, bold=i == 0) for i, line in enumerate(lines))
            box = layout.nodes[node.key]
            assert widest + 2 * PAD_X <= box.width + 1e-9, (node.key, lines)
            assert (box.width, box.height) == node_size(node, False, widest_value(graph))


def test_node_lines_name_value_and_gradient() -> None:
    graph, step, grads = chain(-1.2095)
    leaf = graph.node("2:AccumulateGrad")
    before = node_lines(leaf, None, None)
    after = node_lines(leaf, step.flows[leaf.key], grads["x"])
    assert before == ["x · AccumulateGrad", "(1, 1)", "value [[-1.210]]", "x.grad None"]
    assert after[-1] == "x.grad [[35.11]]"
    mul = graph.node("1:MulBackward0")
    assert node_lines(mul, None, None)[0] == "y · MulBackward0"
    assert node_lines(mul, step.flows[mul.key], None)[-1] == "grad in [[17.55]]"
    power = node_lines(graph.node("0:PowBackward0"), None, None)
    assert "exponent = 3" in power and power[0] == "z · PowBackward0"
    assert node_lines(graph.node("1:MulBackward0/const:1"), None, None)[-1] == "value 2"
    assert node_lines(graph.node("0:PowBackward0/saved:self"), None, None)[0] == "saved self = y"
    sum_graph, sum_step, _ = sum_of_squares([3.0, 4.0, 10.0])
    unbind = sum_graph.node("2:UnbindBackward0")
    assert node_lines(unbind, None, None)[-3:] == ["grad in[0] —", "grad in[1] —", "grad in[2] —"]
    after_unbind = node_lines(unbind, sum_step.flows[unbind.key], None)
    assert after_unbind[-3:] == ["grad in[0] 1.", "grad in[1] 1.", "grad in[2] 1."]
    assert len(after_unbind) == len(node_lines(unbind, None, None))


def test_long_chain_lays_out() -> None:
    graph = long_chain(500)
    layout = layout_graph(graph)
    assert len(layout.nodes) == 502 and len(layout.edges) == 501
    assert layout.nodes["leaf"].y < layout.nodes["250:ExpBackward0"].y < layout.nodes["output"].y


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [el.text or "" for el in root.iter(f"{SVG}text")]


def leaf_fill(svg: str) -> str:
    root = ET.fromstring(svg)
    for g in root.iter(f"{SVG}g"):
        if "leaf" in (g.get("class") or "").split():
            shape = next(el for el in g.iter() if el.tag in (f"{SVG}path", f"{SVG}polygon"))
            return shape.get("fill") or ""
    raise AssertionError("no leaf node in the SVG")


def test_svg_shows_every_label_and_gradient() -> None:
    graph, step, grads = sum_of_squares([3.0, 4.0, 10.0])
    texts = svg_texts(render_svg(graph, step, grads))
    for node in graph.nodes:
        assert any(node.label in text for text in texts), node.label
    assert "x · AccumulateGrad" in texts
    assert "x.grad [6., 8., 20.]" in texts
    assert texts.count(" [6., 8., 20.] ") == 1  # the edge from x into PowBackward0
    assert "value 125." in texts
    assert "exponent = 2" in texts
    assert not any("alpha" in text for text in texts)


def test_svg_before_backward_and_escaping() -> None:
    graph, _, _ = chain(0.5)
    odd = GraphNode("3:AccumulateGrad", "AccumulateGrad", 'a<b&"c"', "leaf", 'a<b&"c"', t(1.0))
    graph = Graph((*graph.nodes, odd), graph.edges, graph.root, "odd")
    texts = svg_texts(render_svg(graph, None, {"x": None}))
    assert 'a<b&"c" · AccumulateGrad' in texts
    assert "No backward yet: boxes are coloured by kind" in texts
    assert "x.grad None" in texts


def test_svg_colour_follows_sign_and_scale() -> None:
    positive = render_svg(*chain(-1.2095, seed=1.0))
    negative = render_svg(*chain(-1.2095, seed=-1.0))
    grad = 24 * 1.2095**2
    # x.grad is the biggest number in the picture, so it gets the end of the scale.
    assert leaf_fill(positive) == diverging_color(grad, grad) == "#b2182b"
    assert leaf_fill(negative) == diverging_color(-grad, grad) == "#2166ac"


def test_huge_graph_gets_compact_boxes() -> None:
    graph = long_chain(1600)
    svg = render_svg(graph, None, {"x": t([0.5, -0.5])})
    texts = svg_texts(svg)
    assert "x · AccumulateGrad" in texts and not any(s.startswith("value") for s in texts)
    assert layout_graph(graph).compact


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (35.11, "35.11"),
        (3.511, "3.511"),
        (-14.155, "-14.15"),
        (0.0001234, "1.234e-04"),
        (125.0, "125."),
        (125, "125"),
        (43.4, "43.40"),
        (0.0, "0."),
        (1234.5, "1.234e+03"),
        (9.9996, "10.00"),
        (math.nan, "nan"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (True, "True"),
    ],
)
def test_format_number(value: object, text: str) -> None:
    assert format_number(value) == text


def test_format_tensor_and_shape() -> None:
    assert format_tensor(t(125.0)) == "125."
    assert format_tensor(t([6.0, 8.0, 20.0])) == "[6., 8., 20.]"
    assert format_tensor(t([[43.4, 0.0], [5.405, 0.0]])) == "[[43.40, 0.], [5.405, 0.]]"
    big = t([[0.5 * i - 1.2 for i in range(10)] for _ in range(10)])
    assert format_tensor(big) == "shape 10x10 · min -1.200 · max 3.300 · mean 1.050"
    summary_only = TensorData((100, 100), "float32", None, TensorSummary(-1.2, 3.4, 0.1, 9.0))
    assert format_tensor(summary_only) == "shape 100x100 · min -1.200 · max 3.400 · mean 0.1000"
    assert format_tensor(None) == "None"
    assert format_tensor(t([1.0, 2.0]), max_elements=1).startswith("shape 2 ·")
    assert format_shape(()) == "scalar"
    assert format_shape((3,)) == "(3,)"
    assert format_shape((2, 2)) == "(2, 2)"


def test_colour_scale() -> None:
    assert scale_for([1.0, -3.0, math.nan, math.inf]) == 3.0
    assert scale_for([0.0, 0.0]) == 1.0 and scale_for([]) == 1.0
    assert diverging_color(0.0, 5.0) == ZERO_COLOR
    assert diverging_color(math.nan, 5.0) == diverging_color(math.inf, 5.0) == NON_FINITE_COLOR
    reds = [
        int(diverging_color(v, 10.0)[1:3], 16) - int(diverging_color(v, 10.0)[5:7], 16)
        for v in (0.5, 2.0, 5.0, 8.0)
    ]
    assert all(r > 0 for r in reds)  # positive: redder than blue
    blues = [diverging_color(-v, 10.0) for v in (0.5, 2.0, 5.0, 8.0)]
    assert all(int(c[5:7], 16) > int(c[1:3], 16) for c in blues)
    lightness = [sum(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in blues]
    assert lightness == sorted(lightness, reverse=True)  # bigger magnitude, darker
    assert diverging_color(100.0, 10.0) == diverging_color(10.0, 10.0)
    assert text_color_on("#ffffff") == "#000000"
    assert text_color_on("#2166ac") == "#ffffff"
    assert text_color_on(ZERO_COLOR) == "#000000"
