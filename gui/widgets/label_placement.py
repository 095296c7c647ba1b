"""Where each edge label goes: beside its edge, covering no box, line or other label.

Once per label per graph structure, before it has text: labels are budgeted for their
widest text, so moving values never pushes one onto something else, and that budget is the
label's bounds from then on (a new number never changes the scene's geometry). A big
graph's labels are placed a part at a time, as they come into view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, TypeVar

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
# How many things near their spots a structure's labels may look at in all (a lookup
# reads every thing in the cells it covers). Where edges crowd, each label looked at every
# other: a program's ``torch.cat([x * w] * 3000)`` drew 3,000 edges between the same two
# boxes, and placing their labels froze the window for over two minutes (red team, round
# 17). Past this budget the remaining labels take their first spot, as they would on a
# crowded spot anyway: placing is then linear in the labels.
MAX_LOOKED_AT = 500_000


def _label_budget(edge: GraphEdge, nodes: dict[str, GraphNode], label: EdgeLabelItem) -> float:
    """How wide the edge's label can get: the gradient has the shape of the source's value."""
    source = nodes.get(edge.source)
    value = source.value if source is not None else None
    if value is None:
        return label.width_of("-8.888e+88")
    return label.width_of(edge_label(widest_like(value)))


# Grids bucket things by the 100-point cells they cover. A thing covering more cells than
# this (an edge across a tall graph, or places a broken layout worker sent: up to 1e7
# points) is kept in one list every lookup reads instead: a lookup walks a bounded number
# of cells whatever the size of the picture.
CELL = 100.0
MAX_CELLS = 1024
T = TypeVar("T")


class _Grid(Generic[T]):
    """Entries bucketed by cell (each with its bounds), for lookups near a rectangle."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[tuple[QRectF, T]]] = {}
        self._spanning: list[tuple[QRectF, T]] = []  # (see MAX_CELLS)
        # Entries every lookup so far has read (see MAX_LOOKED_AT).
        self.looked_at = 0

    def add(self, bounds: QRectF, entry: T) -> None:
        keys = _cell_keys(bounds)
        if keys is None:
            self._spanning.append((bounds, entry))
            return
        for key in keys:
            self._cells.setdefault(key, []).append((bounds, entry))

    def near(self, rect: QRectF) -> list[tuple[QRectF, T]]:
        """Every entry whose bounds may meet ``rect`` (each once, in no particular order;
        some may not meet it: the caller checks)."""
        keys = _cell_keys(rect)
        found = [*self._spanning]
        buckets = self._cells.values() if keys is None else (self._cells.get(k, ()) for k in keys)
        seen: set[int] = set()
        for bucket in buckets:
            self.looked_at += len(bucket)
            for bounds, entry in bucket:
                if id(entry) not in seen:
                    seen.add(id(entry))
                    found.append((bounds, entry))
        self.looked_at += len(self._spanning)
        return found


def _cell_keys(rect: QRectF) -> list[tuple[int, int]] | None:
    """The cells ``rect`` covers, or ``None`` past :data:`MAX_CELLS` of them."""
    left, right = int(rect.left() // CELL), int(rect.right() // CELL)
    top, bottom = int(rect.top() // CELL), int(rect.bottom() // CELL)
    if (right - left + 1) * (bottom - top + 1) > MAX_CELLS:
        return None
    return [(x, y) for x in range(left, right + 1) for y in range(top, bottom + 1)]


class _Placed:
    """Label plates placed so far, bucketed on a coarse grid so lookups stay local."""

    def __init__(self) -> None:
        self._grid: _Grid[QRectF] = _Grid()

    def add(self, rect: QRectF) -> None:
        self._grid.add(rect, rect)

    @property
    def looked_at(self) -> int:
        return self._grid.looked_at

    def count(self, rect: QRectF, limit: int) -> int:
        """How many placed plates ``rect`` overlaps, or any number from ``limit`` up once
        it reaches that many (the caller only asks whether it is under ``limit``)."""
        total = 0
        for placed, _ in self._grid.near(rect):
            if rect.intersects(placed):
                total += 1
                if total >= limit:
                    return total
        return total


class _Obstacles:
    """Everything a label must not cover, collected once per structure and bucketed on a
    grid: asking the scene "what is here?" per candidate spot scans every item in Python
    (a ~260-node graph took 60 ms of boundingRect calls)."""

    def __init__(self, scene: QGraphicsScene) -> None:
        self._grid: _Grid[tuple[QPainterPath, int, object]] = _Grid()
        for item in scene.items():
            if isinstance(item, EdgeLabelItem):
                continue
            weight = 3 if isinstance(item, NodeItem) else 1
            shape = item.sceneTransform().map(item.shape())
            self._grid.add(item.sceneBoundingRect(), (shape, weight, item))
            if isinstance(item, EdgeItem):
                # The arrowhead, an obstacle of its own (it is painted by the edge).
                arrow = item.arrow()
                if not arrow.isEmpty():
                    head = QPainterPath()
                    head.addPolygon(arrow)
                    self._grid.add(arrow.boundingRect(), (head, 1, item))

    @property
    def looked_at(self) -> int:
        return self._grid.looked_at

    def hits(self, rect: QRectF, own: EdgeItem, limit: int) -> int:
        """How much ``rect`` covers (a box counts 3, a line or arrowhead 1), or any number
        from ``limit`` up once it reaches that much."""
        total = 0
        for bounds, entry in self._grid.near(rect):
            shape, weight, owner = entry
            if owner is own or not bounds.intersects(rect):
                continue
            if weight == 3 or shape.intersects(rect):
                total += weight
                if total >= limit:
                    return total
        return total


class LabelPlacer:
    """Places edge labels, all at once or a part of the graph at a time.

    Each label goes where it covers no box, line or label placed before it, if it can;
    labels are budgeted for their widest text, so moving values never pushes one onto
    something else. A big graph places those near what is in view first and the others
    as they come into view (:meth:`place`), each avoiding every label placed before it.
    """

    def __init__(self, scene: QGraphicsScene, graph: Graph, edges: Mapping[int, EdgeItem]) -> None:
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
        if placed.looked_at + obstacles.looked_at > MAX_LOOKED_AT:
            anchor = item.path().pointAtPercent(LABEL_SPOTS[0])
            anchor.setX(anchor.x() + LABEL_GAP)
            rect = item.label.plate_at(anchor, width, False)
            item.label.anchor(anchor, False, width)
            placed.add(rect)
            return rect
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


def place_labels(scene: QGraphicsScene, graph: Graph, edges: Mapping[int, EdgeItem]) -> QRectF:
    """Put each data edge's label where it covers no box, line or other label, if it can
    (all of them, in the graph's order: see :class:`LabelPlacer`). Returns the area the
    labels may cover."""
    return LabelPlacer(scene, graph, edges).place()[0]
