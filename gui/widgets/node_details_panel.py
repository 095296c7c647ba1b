"""The node details pane: what the selected graph node does, with this step's numbers.

The local rule with the numbers plugged in comes first; torch's internal names and raw
warning text wait behind the page's "details" link, which this pane toggles.

The page itself is HTML from :mod:`gui.model.views.node_details`; this pane shows it in one
read-only, selectable, word-wrapped rich-text view that reflows to any width, so it stays
readable in a narrow dock and on a projector. It redraws only when the selection or the
numbers behind it change, and lets value updates coalesce when drawing is slow.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from gui.model.session import Session, Snapshot
from gui.model.views.node_details import DETAILS_LINK, details_html, empty_page, selected_node
from gui.widgets.qt_text import SafeTextBrowser

# What a snapshot must have changed for the pane to draw again: the selected node or step,
# or the numbers behind them. A slider tick brings a new result, so it redraws too.
RENDER_ON = frozenset({"selection", "result", "file"})
# A drawing that took more of the GUI thread's CPU than this (big tensors) makes further
# value-only updates wait DEFERRED_DRAW_MS and coalesce while more runs are on their way
# (a drag), keeping slider ticks inside the window's budget. CPU, not wall time: a machine
# busy with other work must not make a small node's numbers lag behind.
SLOW_DRAW_SECONDS = 0.008
DEFERRED_DRAW_MS = 120


class NodeDetailsPanel(QWidget):
    """Shows the session's selected node: what it does and its rule with numbers.

    Parameters
    ----------
    session
        The window's session; the pane follows ``snapshot.selected_node`` and
        ``snapshot.graph_step``, and its "Close" button clears the selection.
    parent
        The Qt parent.
    """

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._drawn: str | None = None
        self._slow = False
        self._pending: Snapshot | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEFERRED_DRAW_MS)
        self._timer.timeout.connect(self._on_model_deferred)
        header = QHBoxLayout()
        # Bold by markup, not by a font of its own: an own font stops following the
        # application's (presentation mode).
        self._heading = QLabel("<b>Node details</b>")
        self.close_button = QPushButton("Close")
        self.close_button.setToolTip("Clear the selection")
        self.close_button.clicked.connect(self._on_view_close)
        header.addWidget(self._heading)
        header.addStretch(1)
        header.addWidget(self.close_button)
        # Never loads what the HTML names (the program's text in it is escaped anyway).
        self.browser = SafeTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        # Selectable with the mouse (and copied with Ctrl+C) but no blinking caret in a pane
        # that is read, not edited.
        self.browser.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
        # Whether the "details" link is open: the pane's own view state (like a scroll
        # position), kept from one node to the next; the session never hears of it.
        self.details_shown = False
        self.browser.anchorClicked.connect(self._on_view_link)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(header)
        layout.addWidget(self.browser, 1)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``'s selected node (or the empty state); skips unrelated changes.

        A new selection draws at once. New numbers for the same node draw at once too,
        unless the last drawing was slow (big tensors) and another run is already on its
        way: then they wait a moment, so a dragged slider coalesces into one drawing
        instead of queueing many. The last result of a drag is drawn at once.
        """
        if self._drawn is not None and not (snapshot.changes & RENDER_ON):
            return
        if self._slow and "selection" not in snapshot.changes and snapshot.running:
            self._pending = snapshot
            if not self._timer.isActive():
                self._timer.start()
            return
        self._draw(snapshot)

    def _on_model_deferred(self) -> None:
        if self._pending is not None:
            self._draw(self._pending)

    def _draw(self, snapshot: Snapshot) -> None:
        self._pending = None
        self._timer.stop()
        start = time.thread_time()
        node = selected_node(snapshot)
        self.close_button.setEnabled(node is not None)
        page = (
            empty_page(snapshot)
            if node is None
            else details_html(node, snapshot, self._mono, self.details_shown)
        )
        if page != self._drawn:
            self.browser.setHtml(page)
            self._drawn = page
        self._slow = time.thread_time() - start > SLOW_DRAW_SECONDS

    def _on_view_link(self, url: QUrl) -> None:
        if url.toString() != DETAILS_LINK:
            return
        self.details_shown = not self.details_shown
        # Drawn again where the reader is: the page grows below the link, it does not jump.
        scroll = self.browser.verticalScrollBar().value()
        self._draw(self._session.snapshot)
        self.browser.verticalScrollBar().setValue(scroll)

    def _on_view_close(self) -> None:
        self._session.select_node(None)
