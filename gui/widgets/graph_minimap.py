"""The overview in a corner of the graph view: the whole graph small, and where the view is.

Shown only while the graph is bigger than the view. The boxes are drawn once per layout
into a cached image (a 5,000-box graph is a few milliseconds of rectangles, never its
texts); each repaint only copies it and draws the visible rectangle over it. Clicking or
dragging in it centres the view on that point of the graph.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QGraphicsView, QWidget

from gui.model.drawing.layout import GraphLayout

# The longest side of the overview, in pixels; the other follows the graph's shape, but
# never thinner than MIN_SIDE (a 5,000-op chain is a thin column).
MAX_SIDE = 160
MIN_SIDE = 24
INSET = 8
BACKGROUND = QColor(255, 255, 255, 225)
FRAME = QColor("#9e9e9e")
BOX = QColor("#7f93b2")
VIEW = QColor("#d6604d")


class GraphMinimap(QWidget):
    """The overview of ``view``'s scene (a child of the view, kept in its corner).

    Call :meth:`set_layout` when the graph changes and :meth:`follow` when the view moved
    or zoomed; it hides itself when the whole scene is in view.
    """

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view)
        self.setObjectName("minimap")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("The whole graph: click or drag to move the view")
        self._view = view
        self._layout: GraphLayout | None = None
        self._image: QImage | None = None
        self._scene = QRectF()
        self.hide()

    def set_layout(self, layout: GraphLayout | None, scene_rect: QRectF) -> None:
        """Show ``layout`` (``None``: no graph) whose scene spans ``scene_rect``."""
        self._layout, self._scene, self._image = layout, QRectF(scene_rect), None
        if layout is not None and not scene_rect.isEmpty():
            ratio = scene_rect.width() / scene_rect.height()
            if ratio >= 1:
                size = QSize(MAX_SIDE, max(MIN_SIDE, round(MAX_SIDE / ratio)))
            else:
                size = QSize(max(MIN_SIDE, round(MAX_SIDE * ratio)), MAX_SIDE)
            self.setFixedSize(size)
        self.follow()

    def visible_scene(self) -> QRectF:
        """The part of the scene the view shows."""
        return self._view.mapToScene(self._view.viewport().rect()).boundingRect()

    def follow(self) -> None:
        """Keep to the view's corner; show only while part of the graph is out of view."""
        needed = self._layout is not None and not self._scene.isEmpty()
        if needed:
            slack = 2.0 / (self._view.transform().m11() or 1.0)  # two pixels of rounding
            seen = self.visible_scene().adjusted(-slack, -slack, slack, slack)
            needed = not seen.contains(self._scene)
        if needed:
            port = self._view.viewport().geometry()
            self.move(port.right() - self.width() - INSET, port.bottom() - self.height() - INSET)
            self.raise_()
        if needed != self.isVisible():
            self.setVisible(needed)
        elif needed:
            self.update()

    def _to_scene(self, point: QPointF) -> QPointF:
        s = self._scene
        return QPointF(
            s.left() + point.x() / max(self.width(), 1) * s.width(),
            s.top() + point.y() / max(self.height(), 1) * s.height(),
        )

    def _to_map(self, rect: QRectF) -> QRectF:
        s = self._scene
        sx, sy = self.width() / s.width(), self.height() / s.height()
        return QRectF(
            (rect.left() - s.left()) * sx,
            (rect.top() - s.top()) * sy,
            rect.width() * sx,
            rect.height() * sy,
        )

    def _boxes_image(self) -> QImage:
        """Every box as a small filled rectangle (at least a pixel), made once per layout."""
        image = QImage(self.size(), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(BACKGROUND)
        painter = QPainter(image)
        layout = self._layout
        if layout is not None:
            s = self._scene
            sx, sy = self.width() / s.width(), self.height() / s.height()
            for box in layout.nodes.values():
                painter.fillRect(
                    QRectF(
                        (box.left - s.left()) * sx,
                        (box.top - s.top()) * sy,
                        max(box.width * sx, 1.0),
                        max(box.height * sy, 1.0),
                    ),
                    BOX,
                )
        painter.setPen(FRAME)
        painter.drawRect(0, 0, image.width() - 1, image.height() - 1)
        painter.end()
        return image

    # -- Qt overrides ----------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._image is None or self._image.size() != self.size():
            self._image = self._boxes_image()
        painter = QPainter(self)
        painter.drawImage(0, 0, self._image)
        pen = QPen(VIEW, 1.5)
        painter.setPen(pen)
        seen = self._to_map(self.visible_scene()).intersected(QRectF(self.rect()))
        painter.drawRect(seen.adjusted(0.75, 0.75, -0.75, -0.75))
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._centre_at(event.position())
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._centre_at(event.position())
        event.accept()

    def _centre_at(self, point: QPointF) -> None:
        view = self._view
        if hasattr(view, "fit_mode"):  # the user moved the view: resizing stops refitting
            view.fit_mode = None
        view.centerOn(self._to_scene(point))
        self.follow()
