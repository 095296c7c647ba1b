"""Which gradient each box and each edge of a graph shows, found when asked.

A box shows the gradient arriving at its node (a leaf, its ``.grad``; the output, the
seed ``v`` of the step), an edge the gradient its target sent back along it
(:func:`node_gradient`, :func:`edge_gradient`). A 5,000-function graph has ten thousand
boxes and as many edges, and a slider tick redraws the few dozen in view: so
:class:`NodeGradients` and :class:`EdgeGradients` are mappings that find a key's gradient
when it is looked up, once, instead of all of them on every tick. (The colour scale covers
them all without asking each: see :func:`gui.model.drawing.paint.gradients`.)

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gui.model.result import Graph, GraphEdge, GraphNode, StepRecord, TensorData

IMPLICIT_SEED = TensorData((), "float32", 1.0)


def node_gradient(
    node: GraphNode, step: StepRecord | None, leaf_grads: Mapping[str, TensorData | None]
) -> TensorData | None:
    """The gradient a node's box shows and is coloured by.

    Leaves show their ``.grad`` (accumulated over steps), the output shows the seed ``v``
    of the step, a single-output function shows the gradient arriving at it.
    """
    if node.kind == "leaf":
        return leaf_grads.get(node.var or node.label)
    if step is None:
        return None
    if node.kind == "output":
        if step.gradient is None and step.error is not None:
            return None  # e.g. "grad can be implicitly created only for scalar outputs"
        # backward() on a scalar is backward(1): show the implicit seed as the 1 it is.
        return step.gradient or IMPLICIT_SEED
    flow = step.flows.get(node.key)
    if node.kind in ("function", "group") and flow is not None and len(flow.arriving) == 1:
        return flow.arriving[0]
    return None


def edge_gradient(edge: GraphEdge, step: StepRecord | None) -> TensorData | None:
    """The gradient flowing back along a data edge during ``step`` (``None`` if none)."""
    if step is None or edge.kind != "data" or edge.input_index is None:
        return None
    flow = step.flows.get(edge.target)
    if flow is None or edge.input_index >= len(flow.leaving):
        return None
    return flow.leaving[edge.input_index]


class NodeGradients(Mapping[str, "TensorData | None"]):
    """:func:`node_gradient` of every node of ``graph``, by key, each found when asked."""

    def __init__(
        self, graph: Graph, step: StepRecord | None, leaf_grads: Mapping[str, TensorData | None]
    ) -> None:
        self._graph = graph
        self._step = step
        self._leaf_grads = leaf_grads
        self._nodes: dict[str, GraphNode] | None = None
        self._found: dict[str, TensorData | None] = {}

    @property
    def seed(self) -> TensorData | None:
        """What the output's box shows: the step's seed ``v`` (``None``: no step)."""
        step = self._step
        if step is None:
            return None
        output = GraphNode("output", "output", "output", "output")
        return node_gradient(output, step, self._leaf_grads)

    def _index(self) -> dict[str, GraphNode]:
        if self._nodes is None:
            self._nodes = {n.key: n for n in self._graph.nodes}
        return self._nodes

    def __getitem__(self, key: str) -> TensorData | None:
        found = self._found
        if key in found:
            return found[key]
        grad = found[key] = node_gradient(self._index()[key], self._step, self._leaf_grads)
        return grad

    def __iter__(self) -> Iterator[str]:
        return iter(self._index())

    def __len__(self) -> int:
        return len(self._index())


class EdgeGradients(Mapping[int, "TensorData | None"]):
    """:func:`edge_gradient` of every edge of ``graph``, by index, each found when asked."""

    def __init__(self, graph: Graph, step: StepRecord | None) -> None:
        self._edges = graph.edges
        self._step = step

    def __getitem__(self, index: int) -> TensorData | None:
        if type(index) is not int or not 0 <= index < len(self._edges):
            raise KeyError(index)
        return edge_gradient(self._edges[index], self._step)

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self._edges)))

    def __len__(self) -> int:
        return len(self._edges)
