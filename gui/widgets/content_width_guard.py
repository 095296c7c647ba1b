"""Keeps a vertically scrolling panel at least as wide as what it holds.

The inputs and backward panels scroll up and down but never sideways (a sideways scroll bar
under a row of sliders hides half of each row). Without a guard, a narrow column, or
presentation mode's bigger font, would cut off the right end of every row (the number and
its ``.grad``) with no way to scroll to it. The guard makes the scroll area's minimum width
its content's, so the splitter takes the room from a neighbour instead.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QScrollArea, QStyle


class ContentWidthGuard(QObject):
    """Watches ``area``'s content and keeps ``area.minimumWidth()`` equal to its minimum
    width plus the vertical scroll bar and the frame, whenever the content relayouts (new
    rows, another font)."""

    def __init__(self, area: QScrollArea) -> None:
        super().__init__(area)
        self._area = area
        self._watched: QObject | None = None
        area.installEventFilter(self)
        self.update()

    def update(self) -> None:
        """Measure the content again (the filter calls it on every relayout)."""
        area = self._area
        content = area.widget()
        if content is not self._watched:
            if self._watched is not None:
                self._watched.removeEventFilter(self)
            if content is not None:
                content.installEventFilter(self)
            self._watched = content
        if content is None:
            return
        bar = area.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, area)
        width = content.minimumSizeHint().width() + bar + 2 * area.frameWidth()
        if area.minimumWidth() != width:
            area.setMinimumWidth(width)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.FontChange):
            self.update()
        return False
