"""What the graph panel shows while a big graph is laid out: the box count and a busy bar.

A graph past Graphviz's quick range is laid out in the layout worker after its numbers are
shown (:attr:`~gui.model.session.Snapshot.laying_out`); the layout takes up to a second or
two, and a blank panel meanwhile would look like a hang. The bar is Qt's busy indicator
(no percentage: the worker does not report one), animated by Qt while the window works on.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressBar, QVBoxLayout, QWidget

from gui.widgets.qt_text import plain_label

BAR_WIDTH = 240


def laying_out_text(boxes: int) -> str:
    """The words over the busy bar, e.g. ``Laying out 5,000 boxes…``."""
    return f"Laying out {boxes:,} boxes…"


class LayoutProgress(QWidget):
    """A centred line saying how many boxes are being laid out, over a busy bar."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("layoutProgress")
        self.label = plain_label("")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy: no known fraction
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(BAR_WIDTH)
        column = QVBoxLayout(self)
        column.addStretch(1)
        column.addWidget(self.label)
        column.addWidget(self.bar, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(1)

    def show_boxes(self, boxes: int) -> None:
        """Say that ``boxes`` boxes are being laid out."""
        self.label.setText(laying_out_text(boxes))
