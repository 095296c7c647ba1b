"""The Jacobian as a painted grid: row labels, the gradient argument ``v`` as a column
(its elements in the rows' order, so it stays in view when a wide matrix scrolls), then one
coloured cell per ``∂zᵢ/∂xⱼ``.

Painted rather than built from items: up to 256 x 4096 cells, of which only the visible
ones are drawn. Cells carry their numbers while they fit (:attr:`JacobianView.numbered`);
a bigger matrix is a heat map read by hovering. Column labels turn vertical when they are
wider than a cell, so no label is ever cut: the grid grows and its scroll area scrolls.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gui.model.drawing.colors import diverging_color, text_color_on
from gui.model.tensor_format import format_number
from gui.model.views.jacobian import JacobianView

PAD = 4
CELL_PAD = 3  # left and right of a cell's number
GAP = 4  # between the v column and the matrix
LABEL_MAX_PX = 220  # longer labels are elided (the hover line says them in full)
NOT_BUILT = "#dcdcdc"
CURRENT_ROW = "#000000"
GRID = "#909090"


class JacobianCanvas(QWidget):
    """The grid of one :class:`JacobianView`; ``hovered`` says which cell is under the
    mouse (``∂z[0, 1]/∂x[1, 0] = 12.34``)."""

    hovered = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jacobianCanvas")
        self.setMouseTracking(True)
        self._view: JacobianView | None = None
        self._size = QSize(0, 0)
        self._cell = QSize(1, 1)
        self._v_width = 0
        self._row_label_width = 0
        self._header_height = 0
        self._vertical_headers = False

    # -- geometry ----------------------------------------------------------------------

    def set_view(self, view: JacobianView | None) -> None:
        """Show ``view`` (``None``: nothing)."""
        self._view = view
        self._measure()
        self.updateGeometry()
        self.resize(self.sizeHint())
        self.update()

    def _measure(self) -> None:
        view = self._view
        fm = QFontMetrics(self.font())
        if view is None or view.matrix is None:
            self._size = QSize(0, 0)
            return
        rows, columns = view.shape
        line = fm.height()
        number = fm.horizontalAdvance("0.00")
        if view.numbered:
            texts = [view.cell_text(i, j) for i in range(rows) for j in range(columns)]
            number = max([number, *(fm.horizontalAdvance(t) for t in texts)])
            cell_w, cell_h = number + 2 * CELL_PAD, line + 2 * PAD
        else:
            cell_w = cell_h = line + 2
        header_widths = [self._label_width(fm, t) for t in view.column_labels]
        widest_header = max(header_widths, default=0)
        self._vertical_headers = widest_header + 2 * PAD > cell_w
        self._header_height = (widest_header if self._vertical_headers else line) + 2 * PAD
        bold = QFont(self.font())
        bold.setBold(True)  # the current row's label is bold
        bold_fm = QFontMetrics(bold)
        self._row_label_width = (
            max(self._label_width(bold_fm, t) for t in view.row_labels) + 2 * PAD
        )
        v_texts = [format_number(x) for x in view.v] if view.v is not None else ["—"]
        self._v_width = max(fm.horizontalAdvance(t) for t in [*v_texts, "0.0"]) + 2 * CELL_PAD
        self._cell = QSize(cell_w, cell_h)
        width = self._matrix_left() + columns * cell_w + 1
        height = self._header_height + rows * cell_h + 1
        self._size = QSize(width, height)

    def _matrix_left(self) -> int:
        return self._row_label_width + self._v_width + GAP

    @staticmethod
    def _label_width(fm: QFontMetrics, text: str) -> int:
        return min(fm.horizontalAdvance(text), LABEL_MAX_PX)

    def sizeHint(self) -> QSize:
        return self._size

    def minimumSizeHint(self) -> QSize:
        return self._size

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode: cells grow
            self.set_view(self._view)

    def cell_rect(self, row: int, column: int) -> QRect:
        """Where cell ``(row, column)`` is; ``column == -1`` is the ``v`` cell of the row."""
        top = self._header_height + row * self._cell.height()
        if column < 0:
            return QRect(self._row_label_width, top, self._v_width, self._cell.height())
        left = self._matrix_left() + column * self._cell.width()
        return QRect(left, top, self._cell.width(), self._cell.height())

    def cell_at(self, point: QPoint) -> tuple[int, int] | None:
        """The cell under ``point`` (``(row, -1)`` for the ``v`` column), if any."""
        view = self._view
        if view is None or view.matrix is None:
            return None
        rows, columns = view.shape
        row = (point.y() - self._header_height) // max(1, self._cell.height())
        if point.y() < self._header_height or not 0 <= row < rows:
            return None
        x = point.x() - self._matrix_left()
        if 0 <= x < columns * self._cell.width():
            return row, x // max(1, self._cell.width())
        if self.cell_rect(row, -1).contains(point):
            return row, -1
        return None

    # -- what the mouse says -------------------------------------------------------------

    def tip_at(self, point: QPoint) -> str:
        """What hovering ``point`` tells (empty away from the cells)."""
        view = self._view
        cell = self.cell_at(point)
        if view is None or cell is None:
            return ""
        row, column = cell
        if column >= 0:
            return view.cell_tip(row, column)
        if view.v is None:
            return f"{view.row_labels[row]}: no v for this row"
        return f"v at {view.row_labels[row]} = {format_number(view.v[row])}"

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        tip = self.tip_at(event.position().toPoint())
        if tip:
            self.hovered.emit(tip)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        tip = self.tip_at(event.position().toPoint())
        if tip:
            self.hovered.emit(tip)
        super().mousePressEvent(event)

    # -- painting ------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        view = self._view
        if view is None or view.matrix is None:
            return
        painter = QPainter(self)
        painter.fillRect(event.rect(), QColor("white"))
        fm = QFontMetrics(self.font())
        rows, columns = view.shape
        w, h = self._cell.width(), self._cell.height()
        clip = event.rect()
        first_row = max(0, (clip.top() - self._header_height) // h)
        last_row = min(rows - 1, (clip.bottom() - self._header_height) // h)
        first_col = max(0, (clip.left() - self._matrix_left()) // w)
        last_col = min(columns - 1, (clip.right() - self._matrix_left()) // w)
        self._paint_headers(painter, fm, view, first_col, last_col)
        for i in range(first_row, last_row + 1):
            self._paint_row_label(painter, fm, view, i)
            for j in range(first_col, last_col + 1):
                self._paint_cell(painter, view, i, j)
            self._paint_v(painter, view, i)
        if view.current_row is not None and first_row <= view.current_row <= last_row:
            top = self.cell_rect(view.current_row, -1).top()
            left, right = 0, self._matrix_left() + columns * w
            painter.setPen(QPen(QColor(CURRENT_ROW), 3))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRect(left, top, right - left, h).adjusted(1, 1, -1, -1))
        painter.end()

    def _paint_headers(
        self, painter: QPainter, fm: QFontMetrics, view: JacobianView, first: int, last: int
    ) -> None:
        painter.setPen(QColor("black"))
        for j in range(first, last + 1):
            text = fm.elidedText(view.column_labels[j], Qt.TextElideMode.ElideMiddle, LABEL_MAX_PX)
            cell = self.cell_rect(0, j)
            if self._vertical_headers:
                painter.save()
                # Read bottom to top, ending just above the column.
                painter.translate(cell.left() + (w := cell.width()) / 2, self._header_height - PAD)
                painter.rotate(-90)
                painter.drawText(
                    QRect(0, -w // 2, self._header_height - PAD, w),
                    Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                    text,
                )
                painter.restore()
            else:
                header = QRect(cell.left(), 0, cell.width(), self._header_height)
                painter.drawText(header, Qt.AlignmentFlag.AlignCenter, text)
        v_header = self.cell_rect(0, -1)
        bold = QFont(self.font())
        bold.setBold(True)
        painter.setFont(bold)
        painter.drawText(
            QRect(v_header.left(), 0, v_header.width(), self._header_height),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
            "v",
        )
        painter.setFont(self.font())

    def _paint_row_label(
        self, painter: QPainter, fm: QFontMetrics, view: JacobianView, row: int
    ) -> None:
        cell = self.cell_rect(row, 0)
        label = QRect(0, cell.top(), self._row_label_width - PAD, cell.height())
        font = QFont(self.font())
        font.setBold(row == view.current_row)
        painter.setFont(font)
        label_fm = QFontMetrics(font)
        text = label_fm.elidedText(view.row_labels[row], Qt.TextElideMode.ElideMiddle, LABEL_MAX_PX)
        painter.setPen(QColor("black"))
        painter.drawText(label, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)
        painter.setFont(self.font())

    def _paint_cell(self, painter: QPainter, view: JacobianView, row: int, column: int) -> None:
        assert view.matrix is not None
        rect = self.cell_rect(row, column)
        if not view.built[row]:
            painter.fillRect(rect, QColor(NOT_BUILT))
        else:
            value = float(view.matrix[row, column])
            fill = diverging_color(value, view.scale)
            painter.fillRect(rect, QColor(fill))
            if view.numbered:
                painter.setPen(QColor(text_color_on(fill)))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, view.cell_text(row, column))
        if view.numbered:
            painter.setPen(QColor(GRID))
            painter.drawRect(rect)

    def _paint_v(self, painter: QPainter, view: JacobianView, row: int) -> None:
        rect = self.cell_rect(row, -1)
        value = math.nan if view.v is None else view.v[row]
        fill = NOT_BUILT if view.v is None else diverging_color(value, view.v_scale)
        painter.fillRect(rect, QColor(fill))
        painter.setPen(QColor(GRID))
        painter.drawRect(rect)
        if view.numbered or view.v is not None:
            painter.setPen(QColor(text_color_on(fill)))
            text = "—" if view.v is None else format_number(value)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
