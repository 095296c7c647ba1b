"""The view that shows the graph scene: zoom, pan, fit, clicks on boxes, the stale veil.

Zoom is relative to the layout's points, so 100 % shows 10 pt text at 10 pt. The first
view of a graph (:meth:`GraphView.fit` with ``"initial"``) never makes its smallest text
smaller than :data:`READABLE_TEXT_PX` times the text scale (presentation mode enlarges it):
a graph too big for that scrolls rather than shrinking into a thumbnail.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

from gui.model.drawing.layout import GraphLayout
from gui.widgets.graph_minimap import GraphMinimap
from gui.widgets.node_item import NodeItem
from gui.widgets.overview_paint import FAR_SCALE, OverviewPainting, first_rows_span
from gui.widgets.scene_style import NOWHERE, Area

# How much the scene fades while it shows an older result than the current state.
STALE_VEIL = QColor(255, 255, 255, 130)
MAX_FIT_ZOOM = 1.5
MIN_ZOOM, MAX_ZOOM = 0.02, 8.0
ZOOM_STEP = 1.25
# The graph's smallest text on screen, in pixels, at the first view of a graph: read from
# the back of a classroom on a 1280x720 projector. A graph that fits the panel only smaller
# is shown at this size instead, from the top (the leaves), and scrolls.
READABLE_TEXT_PX = 12.0
# How far beyond the viewport an item still counts as on screen, in pixels: antialiased
# edges reach a pixel past an item's bounds.
ON_SCREEN_MARGIN_PX = 4.0
FitMode = Literal["initial", "fit"] | None
# Room left of the first boxes in the first view of a big graph (initial_span), in points.
INITIAL_PAD = 12.0
# Graphs with this many boxes get the minimap when they do not fit the view (and every
# graph of the app's own layout): a lesson's graph that scrolls a little keeps its corner.
MINIMAP_MIN_BOXES = 150


def _first_span(layout: GraphLayout) -> tuple[float, float] | None:
    """The span across of :attr:`GraphView.initial_span` for ``layout``: a big graph's
    first rows, a lesson's top row (the boxes beside its topmost one; a box's title is
    centred in it)."""
    if layout.fast or not layout.nodes:
        return first_rows_span(layout)
    topmost = min(layout.nodes.values(), key=lambda box: box.top)
    return first_rows_span(layout, topmost.height)


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
        # What the first view of a graph too wide to read whole shows across: the left
        # and right of a span of the scene (None: the middle of the graph). A big graph of
        # the app's own layout shows its first rows of boxes from their left (its long
        # edges' lanes lie on the right); a lesson's graph its top row, centred (centred
        # on the whole graph, a wide lesson's top box was cut at the edge).
        self.initial_span: tuple[float, float] | None = None
        self.initial_from_left = False
        self.stale = False
        # The smallest font the scene draws, in scene units (the panel says so per graph),
        # and how much bigger than READABLE_TEXT_PX it must show (presentation mode).
        self.smallest_text = 10.0
        self.text_scale = 1.0
        self._press: tuple[QPointF, str | None] | None = None
        # Called with the area in view just before every paint: items whose numbers
        # changed while off screen make their texts before they are drawn.
        self.before_paint: Callable[[Area], None] | None = None
        # While the view paints: the dirty region in scene coordinates, one area per
        # rectangle of whole pixels (boxes repaint only what lies in it); None otherwise.
        self.exposure: list[Area] | None = None
        # A big graph's boxes and edges in two calls, painted instead of the items when
        # zoomed out further than FAR_SCALE (None: always the items).
        self.overview: OverviewPainting | None = None
        # The overview in the corner, for graphs bigger than the view: it follows every
        # scroll, zoom (the scroll ranges change) and resize.
        self.minimap = GraphMinimap(self)
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.valueChanged.connect(self.minimap.follow)
            bar.rangeChanged.connect(self.minimap.follow)

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

    def show_layout(self, layout: GraphLayout | None, bounds: QRectF) -> None:
        """Get ready for a graph of ``layout`` whose items span ``bounds`` (``None``: no
        graph), then fit it as a new graph: a big one gets the minimap, a first view of
        its first rows and the far-out overview; a lesson-sized one the view as it was."""
        fast = layout is not None and layout.fast
        self.initial_span = None if layout is None else _first_span(layout)
        self.initial_from_left = fast
        self.overview = OverviewPainting(layout) if layout is not None and fast else None
        if layout is not None:
            self.fit("initial")
        big = layout is not None and (fast or len(layout.nodes) >= MINIMAP_MIN_BOXES)
        self.minimap.set_layout(layout if big else None, bounds)

    def bring_into_view(self, item: QGraphicsItem) -> None:
        """Centre ``item``, zooming in first when its text would be too small to read (a
        big graph fitted whole); the user's own zoom otherwise stays."""
        if self.transform().m11() < self.readable_scale():
            self.fit_mode = None
            self.set_zoom(self.readable_scale() / self._unit())
        self.centerOn(item)

    def readable_scale(self) -> float:
        """The view scale (screen pixels per scene unit) at which the scene's smallest text
        is :data:`READABLE_TEXT_PX` times :attr:`text_scale` pixels high."""
        return READABLE_TEXT_PX * self.text_scale / self.smallest_text

    def set_text_scale(self, scale: float) -> None:
        """Make the graph's text ``scale`` times its readable size (presentation mode): a
        fitted view refits, a zoom the user chose grows or shrinks by the same ratio."""
        if scale == self.text_scale:
            return
        ratio = scale / self.text_scale
        self.text_scale = scale
        if self.fit_mode is not None:
            self._apply_fit()
        else:
            anchor = QGraphicsView.ViewportAnchor
            self.setTransformationAnchor(anchor.AnchorViewCenter)
            self.set_zoom(self.zoom() * ratio)
            self.setTransformationAnchor(anchor.AnchorUnderMouse)

    def _apply_fit(self) -> None:
        rect = self.sceneRect()
        # The size without scroll bars: those that show now may vanish at the new zoom.
        port = self.maximumViewportSize()
        if rect.isEmpty() or port.isEmpty():
            return
        scale = min(port.width() / rect.width(), port.height() / rect.height())
        scale = min(scale, MAX_FIT_ZOOM * self._unit() * self.text_scale)
        readable = self.readable_scale()
        # Too small to read when it all fits: readable and scrolling, from the leaves down.
        top_start = self.fit_mode == "initial" and scale < readable
        if top_start:
            scale = readable
        self.setTransform(QTransform.fromScale(scale, scale))
        if top_start:
            bar = self.horizontalScrollBar().sizeHint().height()
            half_height = (port.height() - bar) / (2 * scale)
            across = self._first_across(rect, port.width() / scale)
            self.centerOn(across, rect.top() + half_height)
        else:
            self.centerOn(rect.center())

    def _first_across(self, rect: QRectF, shown_width: float) -> float:
        """Where across the scene the first view of a graph too big to read whole is
        centred, ``shown_width`` scene units wide (see :attr:`initial_span`)."""
        span = self.initial_span
        if span is None or rect.width() <= shown_width:
            return rect.center().x()
        left, right = span
        if self.initial_from_left:
            return min((left + right) / 2, left + shown_width / 2 - INITIAL_PAD)
        return (left + right) / 2

    def visible_area(self) -> Area:
        """The part of the scene on screen, a few pixels wider (:data:`NOWHERE` while the
        view is hidden: nothing of it is on screen then)."""
        if not self.isVisible():
            return NOWHERE
        rect = self.mapToScene(self.viewport().rect()).boundingRect()
        margin = ON_SCREEN_MARGIN_PX / (self.transform().m11() or 1.0)
        return (
            rect.left() - margin,
            rect.top() - margin,
            rect.right() + margin,
            rect.bottom() + margin,
        )

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
        self.minimap.follow()

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.overview is not None and self.transform().m11() < FAR_SCALE:
            self._paint_overview(self.overview, event)
            return
        if self.before_paint is not None:
            self.before_paint(self.visible_area())
        to_scene, invertible = self.viewportTransform().inverted()
        if invertible:
            exposure = []
            for rect in event.region():  # type: ignore[attr-defined]
                r = to_scene.mapRect(QRectF(rect))
                exposure.append((r.left(), r.top(), r.right(), r.bottom()))
            self.exposure = exposure
        try:
            super().paintEvent(event)
        finally:
            self.exposure = None

    def _paint_overview(self, overview: OverviewPainting, event: QPaintEvent) -> None:
        painter = QPainter(self.viewport())
        painter.setClipRegion(event.region())
        painter.fillRect(self.viewport().rect(), self.backgroundBrush())
        painter.setTransform(self.viewportTransform())
        overview.paint(painter)
        if self.stale:
            painter.fillRect(self.sceneRect(), STALE_VEIL)
        painter.end()

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        if self.stale:
            painter.fillRect(rect, STALE_VEIL)
