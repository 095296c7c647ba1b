"""A big graph for Graphviz to draw, not lay out: boxes and edges where the app placed them.

A graph past ``dot``'s quick range (:func:`~.limits.dot_is_quick`) is placed by the app's
own layout (:mod:`.fast_layout`); its SVG is still drawn by Graphviz, with the same box
labels and colours as every other export, by the ``nop2`` engine, which keeps the given
places of boxes and edges. The graph is built through pygraphviz's calls rather than
parsed from DOT text: in the walled layout worker text reaches Graphviz only through a
pipe, which holds at most 1 MiB here (:mod:`.dot_reader`), and the labelled DOT of a
few thousand boxes is more.
"""

from __future__ import annotations

import re
from typing import Any

from gui.model.drawing.layout import FONT_SIZE, GraphLayout
from gui.model.result import Graph

# What XML cannot hold (the SVG is XML): replaced, as in the DOT text of the dot path.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
Attrs = dict[str, str]


def _clean(attrs: Attrs) -> Attrs:
    return {k: _NOT_XML.sub("\ufffd", v) for k, v in attrs.items()}


def placed_agraph(graph: Graph, layout: GraphLayout, attributes: dict[str, Any]) -> Any:
    """A pygraphviz graph of ``graph`` at ``layout``'s places, drawn but not laid out.

    ``attributes`` are :func:`~.svg.svg_attributes` (labels, colours, the legend). Boxes
    keep the layout's sizes (``fixedsize``), so the SVG is the window's picture; saved
    tensors' dotted links run straight from their owner's side to theirs.
    """
    import pygraphviz as pgv

    top = layout.height

    def point(x: float, y: float) -> str:  # Graphviz's y grows upwards
        return f"{x:.2f},{top - y:.2f}"

    g = pgv.AGraph(directed=True, strict=False, name="autograd")
    g.graph_attr.update(_clean(attributes["graph_attrs"]))
    node_defaults = {"shape": "box", "fontsize": str(FONT_SIZE), "margin": "0.11,0.05"}
    g.node_attr.update({**node_defaults, **attributes["node_defaults"]})
    g.edge_attr.update({"arrowsize": "0.7", **attributes["edge_defaults"]})
    names = {node.key: f"n{i}" for i, node in enumerate(graph.nodes)}
    node_attrs: dict[str, Attrs] = attributes["node_attrs"]
    for node in graph.nodes:
        box = layout.nodes.get(node.key)
        if box is None:
            continue
        placed = {
            "pos": point(box.x, box.y),
            "width": f"{box.width / 72:.4f}",
            "height": f"{box.height / 72:.4f}",
            "fixedsize": "true",
        }
        g.add_node(names[node.key], **_clean({**node_attrs.get(node.key, {}), **placed}))
    edge_attrs: dict[int, Attrs] = attributes["edge_attrs"]
    for i, points in layout.edges.items():
        edge = graph.edges[i]
        spline = " ".join(point(x, y) for x, y in points)
        tip = layout.arrows.get(i)
        if tip is not None:
            spline = f"e,{point(*tip)} {spline}"
        attrs = _clean({**edge_attrs.get(i, {}), "pos": spline})
        g.add_edge(names[edge.source], names[edge.target], key=str(i), **attrs)
    for node in graph.nodes:
        if node.kind != "saved" or node.owner is None:
            continue
        owner, box = layout.nodes.get(node.owner), layout.nodes.get(node.key)
        if owner is None or box is None:
            continue
        start, end = (owner.left + owner.width, owner.y), (box.left, box.y)
        link = f"{point(*start)} {point(*start)} {point(*end)} {point(*end)}"
        attrs = {**attributes["link_attrs"], "pos": link}
        g.add_edge(names[node.owner], names[node.key], key=f"link{node.key}", **attrs)
    g.layout(prog="nop2")
    return g
