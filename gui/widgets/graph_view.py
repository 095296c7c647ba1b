"""The graph's scene content and the view that shows it.

:class:`GraphItems` builds every item of one graph structure once (boxes, edges, labels,
saved-tensor links), places edge labels where they cover nothing, and afterwards only feeds
the items new texts and colours. :class:`GraphView` zooms (relative to the layout's
points), pans, fits, reports clicks on boxes and veils the scene while it is stale.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QResizeEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

from gui.model.drawing.colors import KIND_FILL, LINK_COLOR, tensor_color
from gui.model.drawing.layout import FONT_SIZE, GraphLayout, node_lines
from gui.model.drawing.paint import Gradients, edge_label, edge_stroke
from gui.model.result import Graph, GraphEdge, GraphNode, StepRecord, TensorData
from gui.model.tensor_format import text_width, widest_like
from gui.widgets.graph_items import (
    LABEL_SPOTS,
    EdgeItem,
    EdgeLabelItem,
    NodeItem,
    link_item,
    scene_font,
)

LeafGrads = dict[str, TensorData | None]
# How much the scene fades while it shows an older result than the current state.
STALE_VEIL = QColor(255, 255, 255, 130)
SCENE_PADDING = 16.0
MAX_FIT_ZOOM = 1.5
MIN_ZOOM, MAX_ZOOM = 0.02, 8.0
ZOOM_STEP = 1.25
# Below this zoom a fitted graph's text is unreadable: the first view then fits the width
# at no more than 100 % and starts at the top (the leaves) instead.
READABLE_ZOOM = 0.5
FitMode = Literal["initial", "fit"] | None


class GraphView(QGraphicsView):
    """The zoomable, pannable view of the graph scene.

    ``node_clicked`` carries the key of the box under a click (``None`` for empty space);
    a press that turns into a drag pans instead and selects nothing. Zoom is relative to
    the layout's points, so 100 % shows 10 pt text at 10 pt.
    """

    node_clicked = Signal(object)

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setBackgroundBrush(QColor("white"))
        self.fit_mode: FitMode = "initial"
        self.stale = False
        self._press: tuple[QPointF, str | None] | None = None

    def zoom(self) -> float:
        """The current zoom, 1.0 = the layout's points at their true size."""
        return self.transform().m11() / self._unit()

    def _unit(self) -> float:
        return self.viewport().logicalDpiX() / 72.0

    def set_zoom(self, zoom: float) -> None:
        """Zoom to ``zoom`` (clamped), about the current transformation anchor."""
        zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        factor = zoom / self.zoom()
        self.scale(factor, factor)

    def zoom_by(self, factor: float, under_mouse: bool = False) -> None:
        """Zoom by ``factor``; the user chose a zoom, so resizing stops refitting."""
        self.fit_mode = None
        anchor = QGraphicsView.ViewportAnchor
        self.setTransformationAnchor(
            anchor.AnchorUnderMouse if under_mouse else anchor.AnchorViewCenter
        )
        self.set_zoom(self.zoom() * factor)
        self.setTransformationAnchor(anchor.AnchorUnderMouse)

    def fit(self, mode: FitMode = "fit") -> None:
        """Fit the whole graph (``"fit"``) or fit it readably (``"initial"``)."""
        self.fit_mode = mode
        self._apply_fit()

    def _apply_fit(self) -> None:
        rect = self.sceneRect()
        # The size without scroll bars: those that show now may vanish at the new zoom.
        port = self.maximumViewportSize()
        if rect.isEmpty() or port.isEmpty():
            return
        unit = self._unit()
        zoom = min(port.width() / rect.width(), port.height() / rect.height()) / unit
        zoom = min(zoom, MAX_FIT_ZOOM)
        top_start = self.fit_mode == "initial" and zoom < READABLE_ZOOM
        if top_start:
            width = port.width() - self.verticalScrollBar().sizeHint().width()
            zoom = min(1.0, width / rect.width() / unit)
        self.setTransform(QTransform.fromScale(zoom * unit, zoom * unit))
        if top_start:
            half_height = port.height() / (2 * zoom * unit)
            self.centerOn(rect.center().x(), rect.top() + half_height)
        else:
            self.centerOn(rect.center())

    def node_at(self, pos: QPoint) -> str | None:
        """The key of the box under viewport position ``pos``."""
        for item in self.items(pos):
            if isinstance(item, NodeItem):
                return item.key
        return None

    def set_stale(self, stale: bool) -> None:
        """Veil the scene while it shows an older result than the current state."""
        if stale != self.stale:
            self.stale = stale
            self.viewport().update()

    # -- Qt overrides ----------------------------------------------------------------

    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta().y()
        if delta:
            self.zoom_by(ZOOM_STEP ** (delta / 120), under_mouse=True)
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = (event.position(), self.node_at(event.position().toPoint()))
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        if press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        moved = (event.position() - press[0]).manhattanLength()
        if moved < QApplication.startDragDistance():
            self.node_clicked.emit(press[1])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.fit_mode is not None:
            self._apply_fit()

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        if self.stale:
            painter.fillRect(rect, STALE_VEIL)


def text_scale_for_font() -> float:
    """How much to shrink box text so it fits the layout's DejaVu Sans measurements.

    1.0 when DejaVu Sans is installed; a fallback font that runs wider gets scaled down.
    """
    ratio = 1.0
    for bold in (False, True):
        sample = "value [-8.888e+88, 0.5] · AccumulateGrad"
        qt_width = QFontMetricsF(scene_font(FONT_SIZE, bold)).horizontalAdvance(sample)
        ratio = min(ratio, text_width(sample, FONT_SIZE, bold) / qt_width)
    # The box padding absorbs a few percent; only a clearly wider font needs shrinking.
    return 1.0 if ratio >= 0.97 else ratio


class GraphItems:
    """Every item of one graph structure, built once into ``scene`` and updated in place.

    ``nodes`` maps node keys to :class:`NodeItem`; ``edges`` maps indices into
    ``graph.edges`` to :class:`EdgeItem`.
    """

    def __init__(self, scene: QGraphicsScene, graph: Graph, layout: GraphLayout) -> None:
        self.structure_key = graph.structure_key
        self.layout = layout
        self.nodes: dict[str, NodeItem] = {}
        self.edges: dict[int, EdgeItem] = {}
        self.links: list[QGraphicsPathItem] = []
        self.selected: str | None = None
        scale = text_scale_for_font()
        for node in graph.nodes:
            box = layout.nodes.get(node.key)
            if box is None:
                continue
            item = NodeItem(node.key, node.kind, box, scale)
            self.nodes[node.key] = item
            scene.addItem(item)
            owner = layout.nodes.get(node.owner) if node.owner is not None else None
            if node.kind == "saved" and owner is not None:
                # Kept referenced here: PySide deleted unreferenced ones once another
                # wrapper for them (from scene.items()) went away.
                self.links.append(link_item(owner, box))
                scene.addItem(self.links[-1])
        for i, edge in enumerate(graph.edges):
            points = layout.edges.get(i)
            if not points:
                continue
            link = edge.kind == "constant"
            edge_item = EdgeItem(points, layout.arrows.get(i), link)
            if link:
                edge_item.set_stroke(LINK_COLOR, 1.0)
            self.edges[i] = edge_item
            scene.addItem(edge_item)
            scene.addItem(edge_item.label)
        # The area every item can ever cover (labels are empty until the first update).
        self.bounds = scene.itemsBoundingRect()
        if not layout.compact:
            self.bounds = self.bounds.united(place_labels(scene, graph, self.edges))

    def update(self, graph: Graph, step: StepRecord | None, grads: Gradients) -> None:
        """Texts, fills, strokes and labels for ``step`` whose gradients are ``grads``."""
        compact = self.layout.compact
        flows = step.flows if step is not None else {}
        for node in graph.nodes:
            item = self.nodes.get(node.key)
            if item is None:
                continue
            grad = grads.nodes[node.key]
            flow = flows.get(node.key)
            # Constants, saved tensors and untouched branches come back equal on most ticks:
            # comparing is far cheaper than formatting and colouring them again.
            source = (node, flow, grad, grads.scale if grad is not None else 0.0)
            if source == item.source:
                continue
            item.source = source
            fill = tensor_color(grad, grads.scale) or KIND_FILL[node.kind]
            item.set_content(node_lines(node, flow, grad, compact), fill)
        for i, edge_item in self.edges.items():
            if edge_item.link:
                continue
            grad = grads.edges[i]
            stroke_source = (grad, grads.scale if grad is not None else 0.0)
            if stroke_source == edge_item.source:
                continue
            edge_item.source = stroke_source
            edge_item.set_stroke(*edge_stroke(grad, grads.scale))
            edge_item.set_label(edge_label(grad) if grad is not None and not compact else "")

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

    def count(self, rect: QRectF) -> int:
        near = {id(r): r for key in self._keys(rect) for r in self._cells.get(key, ())}
        return sum(rect.intersects(r) for r in near.values())


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
            parent = item.parentItem()
            owner = parent if isinstance(parent, EdgeItem) else item
            weight = 3 if isinstance(item, NodeItem) else 1
            shape = item.sceneTransform().map(item.shape())
            entry = (item.sceneBoundingRect(), shape, weight, owner)
            for key in _cell_keys(entry[0], self.CELL):
                self._cells.setdefault(key, []).append(entry)

    def hits(self, rect: QRectF, own: EdgeItem) -> int:
        seen: set[int] = set()
        total = 0
        for key in _cell_keys(rect, self.CELL):
            for bounds, shape, weight, owner in self._cells.get(key, ()):
                if id(shape) in seen or owner is own or not bounds.intersects(rect):
                    continue
                seen.add(id(shape))
                if weight == 3 or shape.intersects(rect):
                    total += weight
        return total


def _cell_keys(rect: QRectF, cell: float) -> list[tuple[int, int]]:
    xs = range(int(rect.left() // cell), int(rect.right() // cell) + 1)
    ys = range(int(rect.top() // cell), int(rect.bottom() // cell) + 1)
    return [(x, y) for x in xs for y in ys]


def place_labels(scene: QGraphicsScene, graph: Graph, edges: dict[int, EdgeItem]) -> QRectF:
    """Put each data edge's label where it covers no box, line or other label, if it can.

    Runs once per structure; labels are budgeted for their widest text, so moving values
    never pushes one onto something else. Returns the area the labels may cover.
    """
    bounds = QRectF()
    nodes = {n.key: n for n in graph.nodes}
    placed = _Placed()
    obstacles = _Obstacles(scene)
    for i, item in edges.items():
        edge = graph.edges[i]
        if edge.kind != "data":
            continue
        width = _label_budget(edge, nodes, item.label)
        best: tuple[int, QPointF, bool, QRectF] | None = None
        for t in LABEL_SPOTS:
            for left in (False, True):
                anchor = item.label_anchor(t, left)
                rect = item.label.plate_at(anchor, width, left)
                hits = placed.count(rect) + obstacles.hits(rect, item)
                if best is None or hits < best[0]:
                    best = (hits, anchor, left, rect)
            if best is not None and best[0] == 0:
                break
        if best is not None:
            item.label.anchor(best[1], best[2])
            placed.add(best[3])
            bounds = bounds.united(best[3])
    return bounds
