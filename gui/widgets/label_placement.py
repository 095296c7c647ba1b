"""Where each edge label goes: beside its edge, covering no box, line or other label.

Once per label per graph structure, before it has text: labels are budgeted for their
widest text, so moving values never pushes one onto something else, and that budget is the
label's bounds from then on (a new number never changes the scene's geometry). A big
graph's labels are placed a part at a time, as they come into view.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsScene

from gui.model.drawing.paint import edge_label
from gui.model.result import Graph, GraphEdge, GraphNode
from gui.model.tensor_format import widest_like
from gui.widgets.edge_item import LABEL_GAP, EdgeItem
from gui.widgets.edge_label_item import EdgeLabelItem
from gui.widgets.node_item import NodeItem
from gui.widgets.scene_style import Area, overlaps

# Where along an edge its label may go, most wanted first; each on the right, then left.
LABEL_SPOTS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)
_UNBOUNDED = 1 << 30  # a limit no count reaches: the first spot tried is always the best yet


def _label_budget(edge: GraphEdge, nodes: dict[str, GraphNode], label: EdgeLabelItem) -> float:
    """How wide the edge's label can get: the gradient has the shape of the source's value."""
    source = nodes.get(edge.source)
    value = source.value if source is not None else None
    if value is None:
        return label.width_of("-8.888e+88")
    return label.width_of(edge_label(widest_like(value)))


class _Placed:
    """Label plates placed so far, bucketed on a coarse grid so lookups stay local."""

    CELL = 100.0

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[QRectF]] = {}

    def _keys(self, rect: QRectF) -> list[tuple[int, int]]:
        c = self.CELL
        xs = range(int(rect.left() // c), int(rect.right() // c) + 1)
        ys = range(int(rect.top() // c), int(rect.bottom() // c) + 1)
        return [(x, y) for x in xs for y in ys]

    def add(self, rect: QRectF) -> None:
        for key in self._keys(rect):
            self._cells.setdefault(key, []).append(rect)

    def count(self, rect: QRectF, limit: int) -> int:
        """How many placed plates ``rect`` overlaps, or any number from ``limit`` up once
        it reaches that many (the caller only asks whether it is under ``limit``)."""
        seen: set[int] = set()
        total = 0
        for key in self._keys(rect):
            for placed in self._cells.get(key, ()):
                if id(placed) in seen:
                    continue
                seen.add(id(placed))
                if rect.intersects(placed):
                    total += 1
                    if total >= limit:
                        return total
        return total


class _Obstacles:
    """Everything a label must not cover, collected once per structure and bucketed on a
    grid: asking the scene "what is here?" per candidate spot scans every item in Python
    (a ~260-node graph took 60 ms of boundingRect calls)."""

    CELL = 100.0

    def __init__(self, scene: QGraphicsScene) -> None:
        self._cells: dict[tuple[int, int], list[tuple[QRectF, QPainterPath, int, object]]] = {}
        for item in scene.items():
            if isinstance(item, EdgeLabelItem):
                continue
            owner = item
            weight = 3 if isinstance(item, NodeItem) else 1
            shape = item.sceneTransform().map(item.shape())
            self._add((item.sceneBoundingRect(), shape, weight, owner))
            if isinstance(item, EdgeItem):
                # The arrowhead, an obstacle of its own (it is painted by the edge).
                arrow = item.arrow()
                if not arrow.isEmpty():
                    head = QPainterPath()
                    head.addPolygon(arrow)
                    self._add((arrow.boundingRect(), head, 1, item))

    def _add(self, entry: tuple[QRectF, QPainterPath, int, object]) -> None:
        for key in _cell_keys(entry[0], self.CELL):
            self._cells.setdefault(key, []).append(entry)

    def hits(self, rect: QRectF, own: EdgeItem, limit: int) -> int:
        """How much ``rect`` covers (a box counts 3, a line or arrowhead 1), or any number
        from ``limit`` up once it reaches that much."""
        seen: set[int] = set()
        total = 0
        for key in _cell_keys(rect, self.CELL):
            for bounds, shape, weight, owner in self._cells.get(key, ()):
                if id(shape) in seen or owner is own or not bounds.intersects(rect):
                    continue
                seen.add(id(shape))
                if weight == 3 or shape.intersects(rect):
                    total += weight
                    if total >= limit:
                        return total
        return total


def _cell_keys(rect: QRectF, cell: float) -> list[tuple[int, int]]:
    xs = range(int(rect.left() // cell), int(rect.right() // cell) + 1)
    ys = range(int(rect.top() // cell), int(rect.bottom() // cell) + 1)
    return [(x, y) for x in xs for y in ys]


class LabelPlacer:
    """Places edge labels, all at once or a part of the graph at a time.

    Each label goes where it covers no box, line or label placed before it, if it can;
    labels are budgeted for their widest text, so moving values never pushes one onto
    something else. A big graph places those near what is in view first and the others
    as they come into view (:meth:`place`), each avoiding every label placed before it.
    """

    def __init__(self, scene: QGraphicsScene, graph: Graph, edges: dict[int, EdgeItem]) -> None:
        self._graph = graph
        self._nodes = {n.key: n for n in graph.nodes}
        self._edges = edges
        self._placed = _Placed()
        self._obstacles = _Obstacles(scene)
        # The data edges whose labels are not placed yet, in the graph's order.
        self.unplaced = {i: None for i in edges if graph.edges[i].kind == "data"}

    def place(self, within: Area | None = None) -> tuple[QRectF, list[int]]:
        """Place the unplaced labels of the edges passing through ``within`` (``None``:
        all), in the graph's order; the area those labels may cover, and their edges."""
        bounds = QRectF()
        done = []
        for i in list(self.unplaced):
            item = self._edges[i]
            if within is not None and not overlaps(item.area, within):
                continue
            del self.unplaced[i]
            done.append(i)
            bounds = bounds.united(self._place_one(i, item))
        return bounds, done

    def _place_one(self, i: int, item: EdgeItem) -> QRectF:
        width = _label_budget(self._graph.edges[i], self._nodes, item.label)
        placed, obstacles = self._placed, self._obstacles
        best: tuple[int, QPointF, bool, QRectF] | None = None
        # The first spot that covers nothing wins; else the one that covers least, the
        # first of equals. A count stops as soon as it cannot beat the best so far.
        for t in LABEL_SPOTS:
            point = item.path().pointAtPercent(t)
            for left in (False, True):
                anchor = QPointF(point.x() + (-LABEL_GAP if left else LABEL_GAP), point.y())
                rect = item.label.plate_at(anchor, width, left)
                limit = _UNBOUNDED if best is None else best[0]
                hits = placed.count(rect, limit)
                if hits < limit:
                    hits += obstacles.hits(rect, item, limit - hits)
                if hits < limit:
                    best = (hits, anchor, left, rect)
                    if hits == 0:
                        break
            if best is not None and best[0] == 0:
                break
        if best is None:
            return QRectF()
        item.label.anchor(best[1], best[2], width)
        placed.add(best[3])
        return best[3]


def place_labels(scene: QGraphicsScene, graph: Graph, edges: dict[int, EdgeItem]) -> QRectF:
    """Put each data edge's label where it covers no box, line or other label, if it can
    (all of them, in the graph's order: see :class:`LabelPlacer`). Returns the area the
    labels may cover."""
    return LabelPlacer(scene, graph, edges).place()[0]
