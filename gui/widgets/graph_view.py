"""The view that shows the graph scene: zoom, pan, fit, clicks on boxes, the stale veil.

Zoom is relative to the layout's points, so 100 % shows 10 pt text at 10 pt.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QResizeEvent, QTransform, QWheelEvent
from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsView, QWidget

from gui.widgets.node_item import NodeItem

# How much the scene fades while it shows an older result than the current state.
STALE_VEIL = QColor(255, 255, 255, 130)
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
