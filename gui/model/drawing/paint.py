"""What every drawing of the graph colours and labels, decided once for all views.

The SVG export and the window's graph panel both ask this module which gradient a box
shows, which gradient flows along an edge, the one colour scale covering the picture, and
how an edge is stroked. So a gradient of ``+20`` looks the same in the window and in an
exported report.

After a backward step the data edges carry the gradient flowing back along them: for an
edge feeding input ``i`` of node ``T`` that is ``flows[T].leaving[i]``, the vector-Jacobian
product ``T`` sent to that input.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from gui.model.drawing.colors import (
    EDGE_COLOR,
    KIND_FILL,
    NON_FINITE_COLOR,
    diverging_color,
    dominant_value,
    scale_for,
    tensor_color,
)
from gui.model.drawing.extremes import dominant_values
from gui.model.drawing.gradient_maps import (
    EdgeGradients,
    NodeGradients,
)
from gui.model.drawing.layout import MAX_CELLS
from gui.model.result import Graph, GraphNode, RunResult, StepRecord, TensorData
from gui.model.tensor_format import format_number, format_shape, format_tensor, iter_values

NAN_FILL = NON_FINITE_COLOR

# Edges are thin lines on white: colours nearer the neutral centre would vanish, so edge
# colours start this far along the scale.
EDGE_MIN_TINT = 0.35
EDGE_BASE_WIDTH = 1.2
EDGE_MAX_EXTRA_WIDTH = 3.0
EDGE_LABEL_MAX_ELEMENTS = 4


@dataclass(frozen=True)
class Gradients:
    """Everything gradient-valued in one picture, resolved once.

    ``nodes`` maps a node key to the gradient its box shows; ``edges`` maps an index into
    ``graph.edges`` to the gradient flowing back along it; ``scale`` is the magnitude that
    maps to the darkest colour: the numbers' own (``natural``) or, while the scale is
    locked, the locked one (``locked``).
    """

    nodes: Mapping[str, TensorData | None]
    edges: Mapping[int, TensorData | None]
    scale: float
    natural: float = 0.0
    locked: bool = False

    @property
    def any(self) -> bool:
        return any(t is not None for t in self.nodes.values())

    @property
    def beyond(self) -> bool:
        """Whether some number is beyond a locked scale (drawn in the end colours)."""
        return beyond_scale(self.natural, self.scale, self.locked)


# What the colours in a graph mean, in the graph panel's caption and the SVG's legend alike.
LEAF_COLOUR_TEXT = ".grad on leaves (accumulated)"
OTHER_COLOUR_TEXT = "grad in on the rest"
CELLS_TEXT = "a cell per element"
BEYOND_TEXT = "▲ beyond scale"


def colour_meaning(step_number: int | None) -> str:
    """What box colours mean: ``".grad on leaves (accumulated) · grad in on the rest
    (step 2) · a cell per element"``: a leaf shows its ``.grad``, summed over the backward
    calls so far; any other box the gradient arriving at it in the shown call."""
    where = f" (step {step_number})" if step_number is not None else ""
    return f"{LEAF_COLOUR_TEXT} · {OTHER_COLOUR_TEXT}{where} · {CELLS_TEXT}"


def beyond_scale(natural: float, scale: float, locked: bool) -> bool:
    """Whether numbers whose own scale is ``natural`` overflow the locked ``scale``."""
    return locked and natural > scale * (1 + 1e-9)


@dataclass(frozen=True)
class CellStrip:
    """The per-element colours under a box's text: ``colors`` in row-major order, then
    ``more`` elements without a cell (beyond :data:`MAX_CELLS`, or only summarised)."""

    colors: tuple[str, ...]
    more: int = 0

    @property
    def more_text(self) -> str:
        """``"+36"`` when elements are left out, else ``""``."""
        return f"+{self.more}" if self.more else ""


def element_cells(grad: TensorData | None, scale: float) -> CellStrip | None:
    """One colour per element of ``grad`` (up to :data:`MAX_CELLS`), so a vector of mixed
    signs shows both; ``None`` for no gradient or a single number (the box's fill says it)."""
    if grad is None or grad.numel <= 1:
        return None
    if grad.values is None:
        return CellStrip((), grad.numel)
    values = grad.values
    if type(values) is list and all(type(v) is float for v in values):  # the usual case
        colors = [diverging_color(v, scale) for v in values[:MAX_CELLS]]
        return CellStrip(tuple(colors), grad.numel - len(colors))
    colors = []
    for v in iter_values(values):
        if len(colors) == MAX_CELLS:
            break
        number = abs(v) if isinstance(v, complex) else v
        if isinstance(number, bool | int | float):
            colors.append(diverging_color(float(number), scale))
        else:
            colors.append(NAN_FILL)
    return CellStrip(tuple(colors), grad.numel - len(colors))


def box_fill(node: GraphNode, grad: TensorData | None, scale: float) -> str:
    """A box's fill: the colour of its gradient when that is one number; its kind's colour
    when it is several (their colours are the cells, :func:`element_cells`: one fill for
    ``[-5, 5]`` would say something false about one of them) or none."""
    if grad is not None and grad.numel == 1:
        return tensor_color(grad, scale) or KIND_FILL[node.kind]
    return KIND_FILL[node.kind]


def gradients(
    graph: Graph,
    step: StepRecord | None,
    leaf_grads: Mapping[str, TensorData | None],
    shown_step: StepRecord | None = None,
    locked_scale: float | None = None,
) -> Gradients:
    """Resolve every node's and edge's gradient, on the window's one colour scale.

    ``step`` is the backward call whose flows the graph shows; ``shown_step`` the one the
    gradient plots show (often the same), whose numbers the scale covers too.
    ``locked_scale``: the scale is locked at this magnitude (numbers beyond it get the end
    colours) instead of following the numbers.
    """
    nodes = NodeGradients(graph, step, leaf_grads)
    edges = EdgeGradients(graph, step)
    # What the boxes and edges show, without asking each of a big graph's ten thousand:
    # a box shows a flow's arriving gradient, a leaf's .grad or the seed; an edge, a
    # flow's leaving one (found per key only when drawn: see gradient_maps).
    tensors: list[TensorData | None] = [*leaf_grads.values()]
    if step is not None:
        tensors.append(nodes.seed)
        for flow in step.flows.values():
            tensors += flow.arriving
            tensors += flow.leaving
    natural = colour_scale(tensors, shown_step)
    if locked_scale is None:
        return Gradients(nodes, edges, natural, natural)
    return Gradients(nodes, edges, locked_scale, natural, locked=True)


def colour_scale(tensors: Iterable[TensorData | None], shown_step: StepRecord | None) -> float:
    """The magnitude drawn darkest, the same for every view of one result.

    It covers every gradient the window shows: ``tensors`` (the graph's boxes and edges,
    each leaf's ``.grad``) and, for ``shown_step``, each leaf's ``.grad`` before and after
    that call and what the call added (the gradient plots' bars). So a gradient of +20 has
    one colour in the graph, the sliders' swatches, the plots, the legend and the SVG.
    """
    # In bulk, each tensor once (a big graph's tick asked this of 30,000 of them).
    extremes = dominant_values(tensors)
    if shown_step is not None:
        for name, after in shown_step.grads_after.items():
            before = shown_step.grads_before.get(name)
            extremes += [
                dominant_value(after),
                dominant_value(before),
                _largest_change(before, after),
            ]
    return scale_for(v for v in extremes if v is not None)


def _largest_change(before: TensorData | None, after: TensorData | None) -> float | None:
    """The largest ``|after - before|`` over the elements (a missing ``before`` counts as 0)."""
    if after is None or after.values is None:
        return None
    if before is None:
        return dominant_value(after)
    if before.values is None or before.shape != after.shape:
        return None
    try:
        change = np.subtract(after.values, before.values, dtype=np.float64)
    except (TypeError, ValueError):  # complex or non-numeric: the plots do not draw those
        return None
    finite = np.abs(change[np.isfinite(change)])
    return float(finite.max()) if finite.size else None


def step_for_graph(result: RunResult) -> StepRecord | None:
    """The last backward step whose flows belong to the result's graph (same structure)."""
    if result.graph is None:
        return None
    for step in reversed(result.steps):
        if step.graph is not None and step.graph.structure_key == result.graph.structure_key:
            return step
    return None


def edge_label(t: TensorData) -> str:
    """A gradient short enough to sit beside an edge."""
    if t.numel <= EDGE_LABEL_MAX_ELEMENTS:
        return format_tensor(t, EDGE_LABEL_MAX_ELEMENTS)
    v = dominant_value(t)
    biggest = "?" if v is None else format_number(abs(v))
    return f"{format_shape(t.shape)} max|g| {biggest}"


def edge_stroke(grad: TensorData | None, scale: float) -> tuple[str, float]:
    """The colour and pen width of a data edge carrying ``grad``.

    Bigger gradients draw thicker and darker lines; the sign picks the arm of the scale.
    """
    v = dominant_value(grad)
    if v is None or grad is None:
        return EDGE_COLOR, EDGE_BASE_WIDTH
    if not math.isfinite(v):
        return diverging_color(v, scale), EDGE_BASE_WIDTH + EDGE_MAX_EXTRA_WIDTH
    t = min(1.0, abs(v) / scale)
    if v == 0:
        return EDGE_COLOR, EDGE_BASE_WIDTH
    color = diverging_color(math.copysign(max(t, EDGE_MIN_TINT), v) * scale, scale)
    return color, EDGE_BASE_WIDTH + EDGE_MAX_EXTRA_WIDTH * t
