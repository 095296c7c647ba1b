"""Every item of one graph structure: built once into the scene, then fed texts and colours.

:class:`GraphItems` creates the boxes, edges, edge labels and saved-tensor links of one
structure (a big graph's boxes and edges as they first come into view or are read, see
:class:`BuiltOnRead`), places the edge labels where they cover nothing (a big graph's once
they can be read), and afterwards only updates what each item shows. What a box or edge shows
comes from the same helpers as the SVG export (:mod:`gui.model.drawing.paint`,
:func:`gui.model.drawing.layout.node_lines`).

On a tick only the items on screen make their texts and colours (and repaint if those
changed); the others just take their new numbers and make them when they come into view
(:meth:`GraphItems.settle`, which the view calls before it paints) or are read. A slider
tick on a 200-box graph, of which a dozen boxes are in view, formats a dozen boxes; on a
5,000-box graph the boxes and edges in view are found in one pass in C and the others are
handed one shared feed of the tick's numbers (:mod:`gui.widgets.tick_feed`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene

from gui.model.drawing.colors import LINK_COLOR
from gui.model.drawing.layout import FONT_SIZE, GraphLayout, NodeBox, has_cells
from gui.model.drawing.paint import Gradients
from gui.model.result import Graph, StepRecord
from gui.widgets.edge_item import EdgeItem, edge_area
from gui.widgets.edge_label_item import EDGE_FONT_SIZE, EdgeLabelItem
from gui.widgets.label_placement import LabelPlacer
from gui.widgets.node_item import NodeItem, box_area
from gui.widgets.scene_style import (
    LEGIBLE_TEXT_PX,
    Z_EDGE,
    Area,
    overlaps,
    qcolor,
    text_scale_for_font,
)
from gui.widgets.tick_feed import AreaIndex, FeedBoard, TickFeed

# A graph with at most this many edges has its labels placed while it is built (tens of
# milliseconds); a bigger one when first zoomed in far enough to read them.
PLACE_LABELS_AT_ONCE = 300


class GraphItems:
    """Every item of one graph structure, built once into ``scene`` and updated in place.

    ``nodes`` maps node keys to :class:`NodeItem`; ``edges`` maps indices into
    ``graph.edges`` to :class:`EdgeItem`.
    """

    def __init__(self, scene: QGraphicsScene, graph: Graph, layout: GraphLayout) -> None:
        self.structure_key = graph.structure_key
        self.layout = layout
        self.links: list[QGraphicsPathItem] = []
        self.selected: str | None = None
        # The node a step-through reached last, and the edges feeding each node (the
        # gradients it sends back flow along them).
        self.active: str | None = None
        self._inputs: dict[str, list[int]] = {}
        # Edge labels holding numbers they have not drawn yet (off screen at the last tick;
        # boxes and strokes hold the tick's feed instead, see update).
        self._pending: dict[int, NodeItem | EdgeItem | EdgeLabelItem] = {}
        # The area in view when the pending items were last sorted out: until the view
        # moves, none of them comes into view.
        self._checked: Area | None = None
        self._scene = scene
        self._graph = graph
        # Where each tick's feed is posted for every box and stroke (see FeedBoard).
        self._board = FeedBoard()
        self.text_scale = text_scale_for_font()
        placed = [node for node in graph.nodes if node.key in layout.nodes]
        self._box_nodes = placed
        self.nodes: BuiltOnRead[str, NodeItem] = BuiltOnRead(
            [node.key for node in placed], self._make_box
        )
        for node in placed:
            owner = layout.nodes.get(node.owner) if node.owner is not None else None
            if node.kind == "saved" and owner is not None:
                # Kept referenced here: PySide deleted unreferenced ones once another
                # wrapper for them (from scene.items()) went away.
                self.links.append(link_item(owner, layout.nodes[node.key]))
                scene.addItem(self.links[-1])
        drawn = [i for i in range(len(graph.edges)) if layout.edges.get(i)]
        # Long edges sharing a lane draw only their own way out of it (share_lane_trunks).
        self._own_from = share_lane_trunks(layout, drawn) if layout.fast else {}
        self.edges: BuiltOnRead[int, EdgeItem] = BuiltOnRead(drawn, self._make_edge)
        for i in drawn:
            if graph.edges[i].kind == "data":
                self._inputs.setdefault(graph.edges[i].target, []).append(i)
        # Every box's and edge's area, from the layout alone: a tick finds those on screen
        # in one pass (AreaIndex) and hands the rest one shared feed (see update).
        box_areas = [box_area(layout.nodes[node.key], node.kind) for node in placed]
        self._strokes = [
            position for position, i in enumerate(drawn) if graph.edges[i].kind != "constant"
        ]
        edge_areas = [
            edge_area(layout.edges[i][self._own_from.get(i, 0) :], layout.arrows.get(i))
            for i in drawn
        ]
        # Constant links take no numbers: only made when they come into view.
        self._links = [
            position for position, i in enumerate(drawn) if graph.edges[i].kind == "constant"
        ]
        self._link_areas = AreaIndex([edge_areas[position] for position in self._links])
        self._box_areas = AreaIndex(box_areas)
        self._stroke_areas = AreaIndex([edge_areas[position] for position in self._strokes])
        self._node_positions = {node.key: i for i, node in enumerate(graph.nodes)}
        if layout.compact:
            # A big graph's items are made as they come into view (settle, update) or are
            # read: it opens on its first rows, a few dozen of ten thousand boxes and edges,
            # and making every item was a third of its first picture.
            self.bounds = areas_bounds([*box_areas, *edge_areas], self.links)
        else:
            for position in range(len(placed)):
                self.nodes.at(position)
            for position in range(len(drawn)):
                self.edges.at(position)
            self.bounds = scene.itemsBoundingRect()  # (labels are empty until the first update)
        # Edge labels are placed once they can be read (see place_labels): a big graph
        # opens fitted to the view, far too small to read them, and placing a thousand
        # labels was most of its first picture. A small graph's are placed at once.
        self._placer: LabelPlacer | None = None
        if not layout.compact and len(self.edges) <= PLACE_LABELS_AT_ONCE:
            self.place_labels()

    def _make_box(self, position: int) -> NodeItem:
        """The box of the ``position``-th placed node, into the scene."""
        node, layout = self._box_nodes[position], self.layout
        cells = has_cells(node, layout.compact)
        item = NodeItem(
            node.key, node.kind, layout.nodes[node.key], self.text_scale, cells, layout.compact
        )
        item.board = self._board
        if node.key == self.selected:
            item.set_highlighted(True)
        self._scene.addItem(item)
        return item

    def _make_edge(self, position: int) -> EdgeItem:
        """The ``position``-th drawn edge, into the scene."""
        i = self.edges.key_at(position)
        layout = self.layout
        link = self._graph.edges[i].kind == "constant"
        item = EdgeItem(layout.edges[i], layout.arrows.get(i), link)
        item.index = i
        own_from = self._own_from.get(i)
        if own_from is not None:
            item.share_trunk(own_from)
        if link:
            item.set_stroke(LINK_COLOR, 1.0)
        else:
            item.board = self._board
            if self.active is not None and i in self._inputs.get(self.active, ()):
                item.set_highlighted(True)
        self._scene.addItem(item)
        if not layout.compact:  # compact graphs have no edge labels: fewer items to visit
            self._scene.addItem(item.label)
        return item

    def labels_legible_at(self, zoom: float) -> bool:
        """Whether edge labels can be read at ``zoom`` (screen pixels per scene unit)."""
        return zoom * EDGE_FONT_SIZE >= LEGIBLE_TEXT_PX

    @property
    def labels_unplaced(self) -> bool:
        """Whether some edge labels are not placed yet (a compact graph has none)."""
        if self.layout.compact:
            return False
        return self._placer is None or bool(self._placer.unplaced)

    def place_labels(self, within: Area | None = None) -> QRectF:
        """Place the labels of the edges passing through ``within`` (``None``: all) that
        are not placed yet, and show them; returns the items' bounds, grown by where the
        labels may go. Each label is placed once per structure."""
        if self.layout.compact:
            return self.bounds
        if self._placer is None:
            self._placer = LabelPlacer(self._scene, self._graph, self.edges)
        if not self._placer.unplaced:
            return self.bounds
        area, done = self._placer.place(within)
        self.bounds = self.bounds.united(area)
        pending = self._pending
        for i in done:
            label = self.edges[i].label
            label.setVisible(True)  # draws nothing while it has no text
            if label.pending:
                pending[id(label)] = label
        if done:
            self._checked = None  # what is in view is looked at again, these included
        return self.bounds

    def smallest_text_size(self) -> float:
        """The smallest font size any item draws, in scene units (edge labels are smaller
        than box text; a fallback font wider than DejaVu Sans shrinks box text)."""
        sizes = [FONT_SIZE * self.text_scale] if self.nodes else []
        if self._strokes and not self.layout.compact:
            sizes.append(EDGE_FONT_SIZE)
        return min(sizes, default=FONT_SIZE)

    def update(
        self,
        graph: Graph,
        step: StepRecord | None,
        grads: Gradients,
        on_screen: Area | None = None,
    ) -> None:
        """Texts, fills, strokes and labels for ``step`` whose gradients are ``grads``.

        Items within ``on_screen`` (``None``: all of them) make what they show now and
        repaint if it changed; the others take their numbers and make them when next
        painted (see :meth:`settle`) or read.
        """
        self._checked = on_screen
        feed = TickFeed(graph, step, grads, self._node_positions)
        self._feed_boxes_and_strokes(feed, on_screen)
        if self.layout.compact:
            return  # no edge labels
        pending = self._pending
        placer = self._placer
        edge_grads = grads.edges
        for i, edge_item in self.edges.items():
            if edge_item.link:
                continue
            grad = edge_grads[i]
            label = edge_item.label
            if placer is None or i in placer.unplaced:
                label.defer(grad)  # made once placed and in view
            elif on_screen is None or overlaps(label.area, on_screen):
                label.refresh(grad)
            else:
                label.defer(grad)
                pending[id(label)] = label

    def _feed_boxes_and_strokes(self, feed: TickFeed, on_screen: Area | None) -> None:
        """Boxes and strokes within ``on_screen`` (``None``: all) make what ``feed`` gives
        them now and repaint if it changed; every other one takes the feed from the board
        and makes its own when next painted or read. A tick on a 5,000-box graph touches a
        few dozen items, not ten thousand."""
        self._board.post(feed)
        boxes, edges, strokes = self.nodes, self.edges, self._strokes
        for position in self._box_areas.overlapping(on_screen):
            source = feed.box(boxes.key_at(position))
            # Constants, saved tensors and untouched branches come back equal on most ticks:
            # comparing is far cheaper than formatting and colouring them again.
            if source is not None:
                boxes.at(position).refresh(source)
        for position in self._stroke_areas.overlapping(on_screen):
            position = strokes[position]
            edges.at(position).refresh(feed.stroke(edges.key_at(position)))
        self._make_links(on_screen)

    def settle(self, on_screen: Area) -> None:
        """Make what the items coming into view (within ``on_screen``) show, before they
        are painted: a scroll or a zoom brings boxes whose numbers changed off screen."""
        if on_screen == self._checked:
            return
        self._checked = on_screen
        # Boxes and strokes holding a feed: those in view found in one pass (a scroll
        # of a 5,000-box graph no longer visits every item on every frame). A big graph's
        # boxes and edges coming into view for the first time are made here.
        for position in self._box_areas.overlapping(on_screen):
            box = self.nodes.at(position)
            if box.pending:
                box.settle()
        for position in self._stroke_areas.overlapping(on_screen):
            edge_item = self.edges.at(self._strokes[position])
            if edge_item.pending:
                edge_item.settle()
        self._make_links(on_screen)
        pending = self._pending  # edge labels (boxes and strokes hold the feed)
        done = []
        for key, item in pending.items():
            if not item.pending:
                done.append(key)
            elif overlaps(item.area, on_screen):
                item.settle()
                done.append(key)
        for key in done:
            del pending[key]

    def _make_links(self, on_screen: Area | None) -> None:
        """Make the constant links within ``on_screen`` (``None``: all) that are not made
        yet: they take no numbers, so a tick does not touch them otherwise, and the view's
        settle after the tick's own sorting out finds nothing new in the same view."""
        for position in self._link_areas.overlapping(on_screen):
            self.edges.at(self._links[position])

    def keys_in_view(self, on_screen: Area) -> frozenset[str]:
        """The nodes whose numbers the items within ``on_screen`` show: each box's, and
        for each edge its target's (the gradient along an edge is what its target sent)."""
        boxes, drawn, strokes, edges = self.nodes, self.edges, self._strokes, self._graph.edges
        keys = {boxes.key_at(position) for position in self._box_areas.overlapping(on_screen)}
        keys.update(
            edges[drawn.key_at(strokes[position])].target
            for position in self._stroke_areas.overlapping(on_screen)
        )
        return frozenset(keys)

    def pending_count(self) -> int:
        """How many items hold numbers they have not made into texts and colours yet (a
        box or stroke not made yet holds the board's feed, once one was posted)."""
        posted = self._board.generation > 0
        fed = sum(box.pending for box in self.nodes.built())
        fed += posted * (len(self.nodes) - self.nodes.built_count())
        edges = self.edges
        for position in self._strokes:
            made = edges.built_at(position)
            fed += posted if made is None else made.pending
        return fed + sum(item.pending for item in self._pending.values())

    def select(self, key: str | None) -> None:
        """Outline the node ``key`` (``None``: none)."""
        if key == self.selected:
            return
        old = self.nodes.get(self.selected) if self.selected is not None else None
        if old is not None:
            old.set_highlighted(False)
        new = self.nodes.get(key) if key is not None else None
        if new is not None:
            new.set_highlighted(True)
        self.selected = key

    def set_active(self, key: str | None) -> None:
        """Make the edges node ``key`` sends its gradients along glow (``None``: none)."""
        if key == self.active:
            return
        for i in self._inputs.get(self.active, []) if self.active is not None else []:
            self.edges[i].set_highlighted(False)
        for i in self._inputs.get(key, []) if key is not None else []:
            self.edges[i].set_highlighted(True)
        self.active = key


def areas_bounds(areas: list[Area], links: list[QGraphicsPathItem]) -> QRectF:
    """What ``scene.itemsBoundingRect()`` gives once every box and edge is made (their
    ``area``, at the scene's origin) with ``links``: the rectangle holding them all."""
    rect = QRectF()
    if areas:
        table = np.array(areas, dtype=np.float64)
        left, top = table[:, 0].min(), table[:, 1].min()
        rect = QRectF(left, top, table[:, 2].max() - left, table[:, 3].max() - top)
    for link in links:
        rect = rect.united(link.sceneBoundingRect())
    return rect


def link_item(owner: NodeBox, saved: NodeBox) -> QGraphicsPathItem:
    """The dotted grey connector from a function to a tensor it saved (no arrowhead)."""
    side = 1.0 if saved.x >= owner.x else -1.0
    start = QPointF(owner.x + side * owner.width / 2, owner.y)
    end = QPointF(saved.x - side * saved.width / 2, saved.y)
    path = QPainterPath(start)
    path.lineTo(end)
    item = QGraphicsPathItem(path)
    pen = QPen(qcolor(LINK_COLOR), 1.2)
    pen.setStyle(Qt.PenStyle.DotLine)
    item.setPen(pen)
    item.setZValue(Z_EDGE)
    return item


# A long edge of the app's own layout (gui.model.drawing.fast_layout): into its source's
# lane, down the lane, out to its target; 10 control points, the lane's bottom at [6].
LANE_EDGE_POINTS = 10
LANE_BOTTOM = 6


def share_lane_trunks(layout: GraphLayout, drawn: Iterable[int]) -> dict[int, int]:
    """Long edges from one source run into the same lane and down it, over each other:
    the one going furthest strokes that trunk, the others only their own way out of the
    lane. Returns, for each of those others among the ``drawn`` edges, the control point
    its own part starts from (:meth:`EdgeItem.share_trunk`)."""
    right = max((box.left + box.width for box in layout.nodes.values()), default=0.0)
    groups: dict[tuple[tuple[float, float], ...], list[int]] = {}
    for i in drawn:
        points = layout.edges[i]
        if len(points) != LANE_EDGE_POINTS:
            continue
        if points[3][0] > right and points[3][0] == points[6][0]:  # down a lane
            groups.setdefault(points[:4], []).append(i)
    own_from: dict[int, int] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        longest = max(members, key=lambda i: layout.edges[i][LANE_BOTTOM][1])
        own_from.update((i, LANE_BOTTOM) for i in members if i != longest)
    return own_from


K = TypeVar("K")
V = TypeVar("V")


class BuiltOnRead(Mapping[K, V]):
    """A graph's items by key, each made when first read.

    The keys (and their order: ``position``) are fixed at the start; ``build(position)``
    makes the item at a position, once. Reading an item (``[key]``, ``get``, ``values``,
    :meth:`at`) makes it if need be, so code that reads items sees every one of them;
    ``in``, ``len`` and iterating keys make none.
    """

    def __init__(self, keys: Sequence[K], build: Callable[[int], V]) -> None:
        self._keys = list(keys)
        self._positions = {key: position for position, key in enumerate(self._keys)}
        self._made: list[V | None] = [None] * len(self._keys)
        self._count = 0
        self._build = build

    def __getitem__(self, key: K) -> V:
        return self.at(self._positions[key])

    def __contains__(self, key: object) -> bool:
        return key in self._positions

    def __iter__(self) -> Iterator[K]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def key_at(self, position: int) -> K:
        return self._keys[position]

    def at(self, position: int) -> V:
        """The item at ``position``, made now if it was not yet."""
        item = self._made[position]
        if item is None:
            item = self._made[position] = self._build(position)
            self._count += 1
        return item

    def built_at(self, position: int) -> V | None:
        """The item at ``position`` if it was made (``None``: not yet)."""
        return self._made[position]

    def built(self) -> Iterator[V]:
        """The items made so far."""
        return (item for item in self._made if item is not None)

    def built_count(self) -> int:
        return self._count
