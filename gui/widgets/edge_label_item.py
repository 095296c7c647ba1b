"""The gradient label of a graph edge: a small number on a white plate beside the edge.

The label's bounds are its placement budget (the widest text the edge's gradient can
print, see :mod:`gui.widgets.label_placement`), fixed for the structure: a new number only
repaints the plate, it never changes the scene's geometry. Like a box, a label off screen
only takes its new gradient; its text is made when it is next painted or read.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from gui.model.drawing.layout import FONT_SIZE
from gui.model.drawing.paint import edge_label
from gui.model.result import TensorData
from gui.widgets.scene_style import (
    ALIGN_CENTER,
    LEGIBLE_TEXT_PX,
    NO_PEN,
    Z_LABEL,
    qpen,
    scene_font,
    scene_metrics,
    shared_font,
    text_advance,
)

# As big as the boxes' text: a class at the back reads the gradients along the edges too.
EDGE_FONT_SIZE = FONT_SIZE
EDGE_TEXT_COLOR = "#303030"
# Edge labels sit on a near-opaque white plate so crossing lines never hide their digits.
LABEL_PLATE = QColor(255, 255, 255, 225)
_PLATE_BRUSH = QBrush(LABEL_PLATE)
_UNSET = object()


class EdgeLabelItem(QGraphicsItem):
    """A small gradient label on a white plate, its near edge anchored beside an edge.

    ``text`` is the label shown ("" for none: nothing is drawn).
    """

    PAD = 2.0

    def __init__(self) -> None:
        super().__init__()
        self._text = ""
        # The gradient the text was last made from, and a newer one not made yet.
        self._grad: object = None
        self._pending: object = _UNSET
        # Left of its edge the plate grows leftwards from the anchor, so it hugs the line.
        self.grows_left = False
        self._font = scene_font(EDGE_FONT_SIZE)  # the size tests read
        self._height = scene_metrics(EDGE_FONT_SIZE).height() + 2 * self.PAD
        self._plate = QRectF(0, -self._height / 2, 0, self._height)
        self._bounds = QRectF(self._plate)
        self._text_pen = qpen(EDGE_TEXT_COLOR)
        self.area = (0.0, 0.0, 0.0, 0.0)
        self.setZValue(Z_LABEL)
        self.setVisible(False)

    @property
    def text(self) -> str:
        """The label shown ("" for none)."""
        self.settle()
        return self._text

    @property
    def pending(self) -> bool:
        """Whether a newer gradient waits to be made into text (when painted or read)."""
        return self._pending is not _UNSET

    def refresh(self, grad: TensorData | None) -> None:
        """Label the edge with ``grad`` now (on screen); ``None``: no label."""
        self._pending = _UNSET
        if grad == self._grad:
            return
        self._grad = grad
        self.set_text(edge_label(grad) if grad is not None else "")

    def defer(self, grad: TensorData | None) -> None:
        """Take ``grad`` without making its text (off screen): made when next painted or
        read."""
        self._pending = grad

    def settle(self, in_paint: bool = False) -> None:
        """Make the text of a deferred gradient now (``in_paint``: while being painted,
        when the bounds must not change)."""
        grad = self._pending
        if grad is _UNSET:
            return
        self._pending = _UNSET
        if grad == self._grad:
            return
        self._grad = grad
        text = edge_label(grad) if isinstance(grad, TensorData) else ""
        self._apply(text, repaint=False, grow=not in_paint)

    def set_text(self, text: str) -> None:
        """Show ``text`` (empty: nothing is drawn) and repaint."""
        self._apply(text, repaint=True, grow=True)

    def _apply(self, text: str, repaint: bool, grow: bool) -> None:
        # The bounds grow only for a text wider than the placement budget, which numbers
        # of the edge's shape never print.
        if text == self._text:
            return
        old = self._plate
        self._text = text
        width = self.width_of(text) if text else 0.0
        left = -width if self.grows_left else 0.0
        self._plate = QRectF(left, -self._height / 2, width, self._height)
        if grow and not self._bounds.contains(self._plate):
            self.prepareGeometryChange()
            self._bounds = self._bounds.united(self._plate)
            self._update_area()
        elif repaint:
            # Only the plates old and new, not the whole budget: less to repaint around it.
            self.update(old.united(self._plate))

    def width_of(self, text: str) -> float:
        """The plate's width for ``text``."""
        return text_advance(EDGE_FONT_SIZE, text) + 2 * self.PAD

    def plate_at(self, anchor: QPointF, width: float, left: bool) -> QRectF:
        """Where a plate ``width`` wide would sit if anchored at ``anchor``."""
        x = anchor.x() - width if left else anchor.x()
        return QRectF(x, anchor.y() - self._height / 2, width, self._height)

    def anchor(self, pos: QPointF, left: bool, budget: float = 0.0) -> None:
        """Pin the plate's near edge to ``pos`` (on the edge's left or right), with room
        for a plate ``budget`` wide (its bounds from now on)."""
        self.prepareGeometryChange()
        self.grows_left = left
        self.setPos(pos)
        self._bounds = QRectF(-budget if left else 0.0, -self._height / 2, budget, self._height)
        self._update_area()

    def _update_area(self) -> None:
        b = self._bounds.translated(self.pos())
        self.area = (b.left(), b.top(), b.right(), b.bottom())

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        if self._pending is not _UNSET:  # painted without the view asking first (a render)
            self.settle(in_paint=True)
        if not self._text or painter.worldTransform().m11() * EDGE_FONT_SIZE < LEGIBLE_TEXT_PX:
            return  # nothing, or too small to read (see LEGIBLE_TEXT_PX)
        painter.setPen(NO_PEN)
        painter.setBrush(_PLATE_BRUSH)
        painter.drawRoundedRect(self._plate, 2.0, 2.0)
        painter.setPen(self._text_pen)
        painter.setFont(shared_font(EDGE_FONT_SIZE))
        painter.drawText(self._plate, ALIGN_CENTER, self._text)
