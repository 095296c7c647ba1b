"""The memory view: what the graph keeps for ``backward()``, the biggest holders first.

The totals on top (what the graph holds before ``backward()``, what ``backward()`` frees,
what ``retain_graph=True`` keeps), then one row per node that saved tensors, biggest first,
with a child row per saved tensor and its marks (the program's own tensor, a view of a leaf,
memory shared with other nodes). Clicking a row selects its node in the graph (ONE session
method, :meth:`~gui.model.session.Session.select_node`).

The page renders :func:`~gui.model.views.memory.memory_view` and redraws only when that
changes and it is on screen: saved tensors' sizes follow shapes, not values, so a slider
tick costs a comparison at most.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSignalBlocker, Qt
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui.model.result import left_out
from gui.model.session import Session, Snapshot
from gui.model.views.memory import (
    RECOMPUTED,
    MemoryRow,
    MemoryView,
    TotalLine,
    human_bytes,
    memory_view,
    totals,
)
from gui.widgets.qt_text import literal_html

# Rows drawn at most (a 5,000-node model's smallest holders are left out, and counted).
MAX_ROWS = 400
# Where a row's node key is kept on its items.
KEY_ROLE = Qt.ItemDataRole.UserRole
MUTED = "#606060"


def _memory_key(snapshot: Snapshot) -> tuple[object, ...]:
    """What the memory view depends on: the graph's structure (shapes), the code (dtypes)
    and what the backward calls did; never the values, which a slider changes."""
    result = snapshot.result
    graph = snapshot.graph
    if result is None or graph is None:
        return (None,)
    calls = tuple((s.index, s.tensor, s.retain_graph) for s in result.steps)
    return (graph.structure_key, snapshot.code, result.output, calls)


class MemoryPanel(QWidget):
    """What the session's graph keeps for backward; see the module docstring.

    Parameters
    ----------
    session
        The session to render; a clicked row selects its node there.
    parent
        The usual Qt parent.
    """

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory")
        self._session = session
        self._view: MemoryView | None = None
        self._key: tuple[object, ...] | None = None
        self._pending: Snapshot | None = session.snapshot
        self._build()
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # -- building ------------------------------------------------------------------------

    def _build(self) -> None:
        # One list for the totals and the nodes: in a narrow column (compact mode, a
        # projector's big font) they scroll together and every size lines up on the right.
        self.tree = QTreeWidget()
        self.tree.setObjectName("memoryRows")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["What backward() keeps in memory", "Bytes"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemClicked.connect(self._on_view_clicked)
        self.tree.itemActivated.connect(self._on_view_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tree, 1)

    # -- rendering -----------------------------------------------------------------------

    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``'s memory view, now if on screen, else when next shown."""
        if not self.isVisible():
            self._pending = snapshot
            return
        self._draw(snapshot)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._pending is not None:
            self._draw(self._pending)

    def _draw(self, snapshot: Snapshot) -> None:
        self._pending = None
        key = _memory_key(snapshot)
        if key != self._key:
            self._key = key
            view = memory_view(snapshot.graph, snapshot.result)
            if view != self._view:
                self._view = view
                self._fill(view)
        self._select(snapshot.selected_node)

    def _fill(self, view: MemoryView) -> None:
        with QSignalBlocker(self.tree):
            self.tree.clear()
            items = [self._total_item(line) for line in totals(view)]
            if view.rows:
                heading = QTreeWidgetItem(["Nodes, biggest first (click: show in the graph)"])
                heading.setForeground(0, QColor(MUTED))
                items.append(heading)
            nodes = [self._row_item(row) for row in view.rows[:MAX_ROWS]]
            items += nodes
            if len(view.rows) > MAX_ROWS:
                rest = view.rows[MAX_ROWS:]
                more = QTreeWidgetItem([left_out(len(rest), "smaller nodes")])
                more.setText(1, human_bytes(sum(r.bytes for r in rest)))
                more.setForeground(0, QColor(MUTED))
                items.append(more)
            self.tree.addTopLevelItems(items)
            for item in items:  # sentences without a size read across both columns
                if item.data(0, KEY_ROLE) is None and not item.text(1):
                    item.setFirstColumnSpanned(True)
            # The biggest few open: what each saved, at a glance; the rest one line each.
            for item in nodes[:8]:
                item.setExpanded(True)

    def _total_item(self, line: TotalLine) -> QTreeWidgetItem:
        size = "" if line.bytes is None else human_bytes(line.bytes)
        item = QTreeWidgetItem([line.label, size])
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setToolTip(0, literal_html(line.note))
        item.setToolTip(1, literal_html(line.note))
        if line.bytes is None:
            item.setForeground(0, QColor(MUTED))
        return item

    def _row_item(self, row: MemoryRow) -> QTreeWidgetItem:
        item = QTreeWidgetItem([row.title, human_bytes(row.bytes)])
        item.setData(0, KEY_ROLE, row.key)
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        tip = f"{row.title}\nsaved: {row.saved_text}"
        if row.marks_text:
            tip += f"\n{row.marks_text}"
        item.setToolTip(0, literal_html(tip))
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setFont(1, font)
        if row.freed and not row.saved:
            item.addChild(QTreeWidgetItem(["freed by an earlier backward()", ""]))
        for name in row.recomputed:
            child = QTreeWidgetItem([f"{name} — recomputed", human_bytes(0)])
            child.setToolTip(0, literal_html(f"{name}: {RECOMPUTED}"))
            child.setData(0, KEY_ROLE, row.key)
            child.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.addChild(child)
        for piece in row.saved:
            text = piece.name if not piece.marks else f"{piece.name} — {'; '.join(piece.marks)}"
            child = QTreeWidgetItem([text, human_bytes(piece.bytes)])
            child.setData(0, KEY_ROLE, row.key)
            child.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            own = (
                f"\nits own elements: {human_bytes(piece.own_bytes)} of the "
                f"{human_bytes(piece.bytes)} it keeps"
                if piece.counted and piece.own_bytes != piece.bytes
                else ""
            )
            child.setToolTip(0, literal_html(text + own))
            item.addChild(child)
        return item

    def _top_items(self) -> list[QTreeWidgetItem]:
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in items if item is not None]

    def _select(self, key: str | None) -> None:
        """Highlight the selected node's row (no echo back to the session)."""
        current = self.tree.currentItem()
        if current is not None and current.data(0, KEY_ROLE) == key:
            return
        with QSignalBlocker(self.tree):
            for item in self._top_items():
                if key is not None and item.data(0, KEY_ROLE) == key:
                    self.tree.setCurrentItem(item)
                    self.tree.scrollToItem(item)
                    return
            self.tree.clearSelection()
            self.tree.setCurrentIndex(QModelIndex())

    # -- the user ------------------------------------------------------------------------

    def _on_view_clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        key = item.data(0, KEY_ROLE)
        if isinstance(key, str):
            self._session.select_node(key)

    # -- for tests and the window ----------------------------------------------------------

    @property
    def view(self) -> MemoryView | None:
        """The memory view drawn last (``None``: not drawn yet)."""
        return self._view

    def node_items(self) -> list[QTreeWidgetItem]:
        """The nodes' rows, in the order shown (biggest first)."""
        return [item for item in self._top_items() if isinstance(item.data(0, KEY_ROLE), str)]

    def row_titles(self) -> list[str]:
        """The nodes' titles, in the order shown."""
        return [item.text(0) for item in self.node_items()]
