"""The autograd graph as a standalone SVG: what an exported report (and the README) shows.

Graphviz does the drawing: every node gets its text lines (:func:`~.layout.node_lines`)
as an HTML-like label, a fill from the shared diverging scale (:mod:`.colors`) and
a border/dash style per kind; ``dot`` places everything and renders SVG in-process.

Which gradient each box and edge shows, and how edges are stroked, comes from
:mod:`gui.model.drawing.paint`, shared with the window's graph panel. One scale covers every
number in the picture, so equal gradients have equal colours wherever they appear.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from typing import Any

from gui.model.drawing.colors import (
    CELLS_BORDER,
    KIND_BORDER,
    KIND_FILL,
    LINK_COLOR,
    diverging_color,
    text_color_on,
)
from gui.model.drawing.dot_reader import read_dot
from gui.model.drawing.layout import (
    CELLS_FONT_SIZE,
    CELLS_GAP,
    CELLS_HEIGHT,
    FONT_SIZE,
    MIN_CELL_WIDTH,
    PAD_X,
    dot_source,
    has_cells,
    is_compact,
    layout_graph,
    node_lines,
    node_title,
    text_width,
)
from gui.model.drawing.limits import quick_for_dot
from gui.model.drawing.paint import (
    BEYOND_TEXT,
    CellStrip,
    Gradients,
    box_fill,
    colour_meaning,
    edge_label,
    edge_stroke,
    element_cells,
    gradients,
)
from gui.model.drawing.placed_svg import placed_agraph
from gui.model.result import Graph, GraphEdge, GraphNode, StepRecord, TensorData
from gui.model.tensor_format import format_short

# The font Graphviz writes into the SVG: it becomes ``font-family="Helvetica,sans-Serif"``,
# which every viewer resolves to a sans font (a bare "DejaVu Sans" falls back to serif in
# browsers that lack it). Box widths are measured with wider DejaVu metrics, so text fits.
FONT_NAME = "Helvetica"
EDGE_FONT_SIZE = 9.0

# What XML 1.0 forbids (controls but tab and line breaks, lone surrogates, U+FFFE/U+FFFF).
# Names and messages are the program's strings (`add_module('a\x01b', ...)`): Graphviz's
# HTML labels refused them, and the SVG it wrote was no XML (no graph.png), graph.dot with
# a lone surrogate could not be written at all.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

_STYLE = {
    "leaf": ("rounded,filled", 2.2),
    "function": ("rounded,filled", 1.2),
    "constant": ("filled", 1.0),
    "saved": ("rounded,filled,dashed", 1.2),
    "output": ("rounded,filled", 3.2),
    "group": ("filled", 2.2),
}


def _html_label(lines: list[str], cells: str = "") -> str:
    rows = [f"<TR><TD><B>{escape(lines[0])}</B></TD></TR>"]
    rows += [f"<TR><TD>{escape(line)}</TD></TR>" for line in lines[1:]]
    if cells:
        rows.append(f"<TR><TD>{cells}</TD></TR>")
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
        + "".join(rows)
        + "</TABLE>>"
    )


def _cells_table(strip: CellStrip, width: float, text_color: str) -> str:
    """The element cells of a box as a one-row HTML table (as the window paints them)."""
    note = strip.more_text
    note_width = text_width(note, CELLS_FONT_SIZE) + CELLS_GAP if note else 0.0
    count = len(strip.colors)
    cell = max(1, int((width - note_width) / count)) if count else 0
    tds = [
        f'<TD BGCOLOR="{color}" WIDTH="{cell}" HEIGHT="{CELLS_HEIGHT:.0f}" FIXEDSIZE="TRUE"></TD>'
        for color in strip.colors
    ]
    cells = ""
    if tds:
        cells = (
            f'<TD><TABLE BORDER="1" COLOR="{CELLS_BORDER}" CELLBORDER="0" CELLSPACING="0" '
            f'CELLPADDING="0"><TR>{"".join(tds)}</TR></TABLE></TD>'
        )
    if note:
        cells += (
            f'<TD><FONT POINT-SIZE="{CELLS_FONT_SIZE:g}" COLOR="{text_color}">'
            f"{escape(note)}</FONT></TD>"
        )
    return f'<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0"><TR>{cells}</TR></TABLE>'


def _node_attrs(
    node: GraphNode, grads: Gradients, compact: bool, step: StepRecord | None
) -> dict[str, str]:
    grad = grads.nodes[node.key]
    fill = box_fill(node, grad, grads.scale)
    style, penwidth = _STYLE[node.kind]
    strip = element_cells(grad, grads.scale) if has_cells(node, compact) else None
    if compact:
        lines = [node_title(node)]
        label = lines[0]
    else:
        flow = step.flows.get(node.key) if step is not None else None
        lines = node_lines(node, flow, grad)
    # At least as wide as the text in DejaVu Sans: Graphviz's own (hinted) metrics run a few
    # percent narrow, which would leave the longest lines touching the border.
    width = max(text_width(line, bold=i == 0) for i, line in enumerate(lines))
    if strip is not None:
        note = text_width(strip.more_text, CELLS_FONT_SIZE) + CELLS_GAP if strip.more else 0.0
        width = max(width, len(strip.colors) * MIN_CELL_WIDTH + note)
    if not compact:
        cells = "" if strip is None else _cells_table(strip, width, text_color_on(fill))
        label = _html_label(lines, cells)
    width += 2 * (PAD_X + penwidth)
    return {
        "label": label,
        "width": f"{width / 72:.3f}",
        "style": style,
        "penwidth": str(penwidth),
        "color": KIND_BORDER[node.kind],
        "fillcolor": fill,
        "fontcolor": text_color_on(fill),
        "tooltip": " | ".join(lines),
        "class": node.kind,
    }


def _edge_attrs(
    edge: GraphEdge, grad: TensorData | None, scale: float, compact: bool
) -> dict[str, str]:
    if edge.kind == "constant":
        return {"color": LINK_COLOR, "penwidth": "1"}
    color, width = edge_stroke(grad, scale)
    attrs = {"color": color, "penwidth": f"{width:.2f}"}
    if grad is not None and not compact:
        label = edge_label(grad)
        attrs.update(label=f" {label} ", fontcolor="#303030", tooltip=f"gradient {label}")
    return attrs


def _legend(
    graph: Graph,
    step: StepRecord | None,
    scale: float,
    has_gradients: bool,
    compact: bool,
    beyond: bool = False,
) -> str:
    """The graph caption: what colours, borders and edge labels mean."""
    rows = []
    if has_gradients:
        number = step.index + 1 if step is not None else None
        rows.append("Colour: " + escape(colour_meaning(number)))
        cells = []
        for fraction in (-1.0, -0.5, 0.0, 0.5, 1.0):
            value = fraction * scale
            fill = diverging_color(value, scale)
            text = escape(format_short(value) if value else "0")
            cells.append(
                f'<TD BGCOLOR="{fill}" WIDTH="66"><FONT COLOR="{text_color_on(fill)}">'
                f"{text}</FONT></TD>"
            )
        if beyond:
            cells.append(f'<TD><FONT COLOR="#b2182b">{escape(BEYOND_TEXT)}</FONT></TD>')
        ramp = '<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="3"><TR>' + "".join(cells)
        rows.append(ramp + "</TR></TABLE>")
        if step is not None and not compact:
            rows.append("Edge label: the gradient flowing back along the edge")
    else:
        rows.append("No backward yet: boxes are coloured by kind")
    swatches = []
    for kind in ("leaf", "function", "constant", "saved", "output"):
        style, penwidth = _STYLE[kind]
        dash = ' STYLE="dashed"' if "dashed" in style else ""
        swatches.append(
            f'<TD BGCOLOR="{KIND_FILL[kind]}" COLOR="{KIND_BORDER[kind]}" '
            f'BORDER="{max(1, round(penwidth))}"{dash} WIDTH="{text_width(kind) + 14:.0f}">'
            f"{kind}</TD>"
        )
    rows.append(
        '<TABLE BORDER="0" CELLSPACING="6" CELLPADDING="3"><TR>'
        + "".join(swatches)
        + "</TR></TABLE>"
    )
    if step is not None and step.error is not None:
        # Without this the seed's colour on the output reads as if backward had worked.
        first_line = step.error.message.splitlines()[0]
        if len(first_line) > 90:
            first_line = first_line[:87] + "..."
        rows.append(
            f'<FONT COLOR="#b2182b">Backward step {step.index + 1} failed: '
            f"{escape(first_line)}</FONT>"
        )
    if graph.truncated:
        rows.append("The graph was cut short: too many nodes to walk them all")
    body = "".join(f"<TR><TD>{row}</TD></TR>" for row in rows)
    return f'<<TABLE BORDER="0" CELLSPACING="2" CELLPADDING="0">{body}</TABLE>>'


def svg_attributes(
    graph: Graph,
    step: StepRecord | None,
    leaf_grads: Mapping[str, TensorData | None],
    shown_step: StepRecord | None = None,
    locked_scale: float | None = None,
) -> dict[str, Any]:
    """The attributes of every box, edge and the graph (its legend) in the SVG, as
    :func:`~.layout.dot_source`'s keyword arguments (the parameters are :func:`render_svg`'s)."""
    compact = is_compact(graph)
    grads = gradients(graph, step, leaf_grads, shown_step, locked_scale)
    has_gradients = grads.any
    return {
        "node_attrs": {n.key: _node_attrs(n, grads, compact, step) for n in graph.nodes},
        "edge_attrs": {
            i: _edge_attrs(e, grads.edges[i], grads.scale, compact)
            for i, e in enumerate(graph.edges)
        },
        "link_attrs": {
            "style": "dotted",
            "color": LINK_COLOR,
            "arrowhead": "none",
            "penwidth": "1.2",
        },
        "graph_attrs": {
            "fontname": FONT_NAME,
            "fontsize": str(FONT_SIZE),
            "labelloc": "b",
            "pad": "0.2",
            "bgcolor": "white",
            "outputorder": "edgesfirst",
            "label": _legend(graph, step, grads.scale, has_gradients, compact, grads.beyond),
        },
        "node_defaults": {"fontname": FONT_NAME, "height": "0"},
        "edge_defaults": {"fontname": FONT_NAME, "fontsize": str(EDGE_FONT_SIZE)},
    }


def svg_dot(
    graph: Graph,
    step: StepRecord | None,
    leaf_grads: Mapping[str, TensorData | None],
    shown_step: StepRecord | None = None,
    locked_scale: float | None = None,
) -> str:
    """The DOT text :func:`render_svg` hands to Graphviz: every box's label, colours and
    styles and the legend, not yet laid out (the parameters are :func:`render_svg`'s).

    Exported as ``graph.dot``: ``dot -Tsvg graph.dot`` draws the exported picture again,
    and the text can be restyled or laid out by any Graphviz tool. Building it needs no
    Graphviz, so the window's process may call it.
    """
    names = {node.key: f"n{i}" for i, node in enumerate(graph.nodes)}
    attributes = svg_attributes(graph, step, leaf_grads, shown_step, locked_scale)
    dot = dot_source(graph, names, **attributes)
    return _NOT_XML.sub("\ufffd", dot)


def render_svg(
    graph: Graph,
    step: StepRecord | None,
    leaf_grads: Mapping[str, TensorData | None],
    shown_step: StepRecord | None = None,
    locked_scale: float | None = None,
) -> str:
    """Draw ``graph`` with its values and gradients as a complete SVG document.

    Parameters
    ----------
    graph
        The autograd graph to draw (leaves at the top, the output at the bottom).
    step
        The backward step whose gradients to show (``flows``, seed); ``None`` before any
        backward, which draws values only and colours boxes by kind.
    leaf_grads
        Each leaf's ``.grad`` by variable name, shown and coloured on the leaf boxes.
    shown_step
        The backward step the window's plots would show (the last one): its numbers are
        on the colour scale too, so the SVG's colours are the window's
        (:func:`~.paint.colour_scale`).
    locked_scale
        The window's locked colour scale, if it is locked: the SVG's colours are then
        the window's too.

    Returns
    -------
    str
        The SVG text. Graphs above :data:`~gui.model.drawing.layout.COMPACT_NODE_LIMIT` nodes get
        title-only boxes and no edge labels so they still render in seconds.
    """
    if quick_for_dot(graph, show_saved=True):
        g = read_dot(svg_dot(graph, step, leaf_grads, shown_step, locked_scale))
        # layout() then draw() rather than draw(prog="dot"): the latter prints a "may take
        # a long time" warning to stderr for graphs over 1000 nodes.
        g.layout(prog="dot")
    else:  # too slow for dot: the window's own layout, which Graphviz only draws
        attributes = svg_attributes(graph, step, leaf_grads, shown_step, locked_scale)
        g = placed_agraph(graph, layout_graph(graph, show_saved=True, use_dot=False), attributes)
    svg: bytes = g.draw(format="svg")
    return _centre_node_text(svg.decode("utf-8"))


_NODE_TITLE = re.compile(r"<title>n\d+</title>")
_OUTLINE = re.compile(r' (?:d|points)="([^"]*)"')
_POINT = re.compile(r"(-?[\d.]+),(-?[\d.]+)")
_START_TEXT = re.compile(r'<text xml:space="preserve" text-anchor="start" x="[-\d.]+"')


def _centre_node_text(svg: str) -> str:
    """Centre every line of a node's label on the node's box.

    Graphviz places HTML-label text by its own hinted font metrics and anchors it at the
    start, so a viewer whose font is a little wider shifts every line right, up to the
    border. Anchoring each line at the box centre keeps text centred in any font. The
    centre is read from the box outline Graphviz drew just before the text.
    """
    out = []
    in_node = False
    centre: float | None = None
    for line in svg.splitlines(keepends=True):
        if line.startswith("<title>"):
            in_node, centre = _NODE_TITLE.fullmatch(line.strip()) is not None, None
        elif in_node and centre is None and line.startswith(("<path", "<polygon")):
            shape = _OUTLINE.search(line)
            xs = [float(x) for x, _y in _POINT.findall(shape.group(1) if shape else "")]
            centre = (min(xs) + max(xs)) / 2 if xs else None
        elif centre is not None and line.startswith("<text "):
            line = _START_TEXT.sub(
                f'<text xml:space="preserve" text-anchor="middle" x="{centre:.2f}"', line, count=1
            )
        out.append(line)
    return "".join(out)
