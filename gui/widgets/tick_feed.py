"""One tick's numbers for a big graph's boxes and edges that are off screen.

A slider tick on a 5,000-function graph changes the numbers of ten thousand items, of
which a few dozen are on screen. The graph's items (:mod:`gui.widgets.graph_items`) used
to hand each item its own new numbers; now the items on screen (found in one pass in C,
:class:`AreaIndex`) make what they show at once, and every other one is only told "your
numbers are in this feed": a shared :class:`TickFeed`, which makes an item's numbers when
the item is next painted or read, exactly as the tick would have made them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from gui.model.drawing.paint import Gradients
from gui.model.result import Graph, GraphNode, NodeFlow, StepRecord, TensorData
from gui.widgets.scene_style import Area

# What a box's content and an edge's stroke are made from: the same types as
# gui.widgets.node_item's BoxSource and gui.widgets.edge_item's StrokeSource (spelled out
# here: the items import this module, and an import back would be a cycle).
BoxSource = tuple[GraphNode, NodeFlow | None, TensorData | None, float]
StrokeSource = tuple[TensorData | None, float]


class TickFeed:
    """The numbers one tick gives every box and edge of a graph, made per item on demand.

    ``graph`` is the tick's graph (the structure the items were built for), ``step`` the
    backward call its boxes show and ``grads`` the gradients resolved for it.
    ``positions``: where each node was in the graph the items were built from (a graph of
    the same structure has it there too: no index of ten thousand keys per tick).
    """

    def __init__(
        self,
        graph: Graph,
        step: StepRecord | None,
        grads: Gradients,
        positions: Mapping[str, int] | None = None,
    ) -> None:
        self._graph = graph
        self._flows = step.flows if step is not None else {}
        self._grads = grads
        self._positions = positions or {}
        self._nodes: dict[str, GraphNode] | None = None

    def box(self, key: str) -> BoxSource | None:
        """What box ``key`` shows this tick (``None``: the graph has no such node)."""
        node = self._node(key)
        if node is None:
            return None
        grad = self._grads.nodes.get(key)
        return node, self._flows.get(key), grad, self._grads.scale if grad is not None else 0.0

    def _node(self, key: str) -> GraphNode | None:
        nodes = self._graph.nodes
        position = self._positions.get(key)
        if position is not None and position < len(nodes) and nodes[position].key == key:
            return nodes[position]
        if self._nodes is None:  # another order: every node by key, once per tick
            self._nodes = {node.key: node for node in nodes}
        return self._nodes.get(key)

    def stroke(self, index: int) -> StrokeSource:
        """What edge ``index`` (into ``graph.edges``) is stroked with this tick."""
        grad = self._grads.edges.get(index)
        return grad, self._grads.scale if grad is not None else 0.0


class AreaIndex:
    """Which of a fixed list of areas overlap an area, in one pass in C.

    ``areas`` are ``(left, top, right, bottom)``; they must not change while the index is
    used (boxes and edges keep their bounds for a structure's lifetime).
    """

    def __init__(self, areas: Sequence[Area]) -> None:
        table = np.array(areas, dtype=np.float64).reshape(-1, 4)
        self._left, self._top, self._right, self._bottom = table.T.copy()

    def overlapping(self, area: Area | None) -> list[int]:
        """Positions of the areas that share a point with ``area`` (``None``: all), as
        :func:`gui.widgets.scene_style.overlaps` judges it."""
        if area is None:
            return list(range(len(self._left)))
        left, top, right, bottom = area
        hit = (
            (self._left <= right)
            & (left <= self._right)
            & (self._top <= bottom)
            & (top <= self._bottom)
        )
        return [int(i) for i in np.flatnonzero(hit)]


class FeedBoard:
    """Where a graph's newest :class:`TickFeed` is posted for its boxes and edges to take.

    A tick posts its feed once (:meth:`post`) instead of handing it to each of ten
    thousand items: an item that has not seen the newest one (its ``generation``) takes
    it when next painted or read.
    """

    __slots__ = ("feed", "generation")

    def __init__(self) -> None:
        self.feed: TickFeed | None = None
        self.generation = 0

    def post(self, feed: TickFeed) -> None:
        self.feed = feed
        self.generation += 1


class FedFromBoard:
    """What a box or an edge that takes its ticks' feeds from a :class:`FeedBoard` shares
    (a mixin of :class:`~gui.widgets.node_item.NodeItem` and
    :class:`~gui.widgets.edge_item.EdgeItem`): ``board`` is the graph's board (``None``:
    not on one), ``_seen`` the generation it took last, ``_pending`` the newer source it
    has not made its content from yet."""

    board: FeedBoard | None = None
    _seen = 0
    _pending: object = None

    @property
    def pending(self) -> bool:
        """Whether a newer source waits to be made into what the item shows (when it is
        next painted or read)."""
        board = self.board
        return self._pending is not None or (board is not None and board.generation != self._seen)

    def _take_board(self) -> None:
        """The board's newest feed as the pending source, if not seen yet; and seen."""
        board = self.board
        if board is not None and board.generation != self._seen:
            self._seen = board.generation
            self._pending = board.feed
