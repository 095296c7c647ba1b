"""The graph toolbar's search box: type a name, Enter jumps to the next matching node.

Which nodes match is decided by :func:`gui.model.views.graph_search.find_nodes`; the box
asks the panel to show each match in turn (the panel selects it in the session and scrolls
to it), and says where it is ("2 of 5").
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QKeyEvent, QPalette
from PySide6.QtWidgets import QLineEdit, QWidget

from gui.model.result import Graph
from gui.model.views.graph_search import find_nodes, search_status

HELP = (
    "Find a node by variable, class or parameter name: Enter shows the next match, "
    "Shift+Enter the previous one (Ctrl+F comes here)"
)
MISSING_COLOR = "#b2182b"

# Wide enough for "PowBackward0" and a few characters more; a narrow column keeps it.
BOX_CHARACTERS = 12


class GraphSearchBox(QLineEdit):
    """A line edit that finds nodes of the graph the panel shows.

    Parameters
    ----------
    graph
        Returns the graph on screen (``None``: none).
    show_node
        Called with the key of the match to show.
    """

    def __init__(
        self,
        graph: Callable[[], Graph | None],
        show_node: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._graph = graph
        self._show_node = show_node
        self._current: int | None = None
        self._matches: tuple[str, ...] = ()
        self.setObjectName("graphSearch")
        self.setPlaceholderText("Find node")
        self.setClearButtonEnabled(True)
        self.setToolTip(HELP)
        self._text_color = self.palette().color(QPalette.ColorRole.Text)
        width = self.fontMetrics().horizontalAdvance("M" * BOX_CHARACTERS)
        self.setMaximumWidth(width)
        self.textChanged.connect(self._on_view_text)
        self.returnPressed.connect(self.next_match)

    @property
    def matches(self) -> tuple[str, ...]:
        """The keys of the nodes matching the text, best first."""
        return self._matches

    def status(self) -> str:
        """Where the search stands (``"2 of 5"``), for the tooltip and the tests."""
        return search_status(self._matches, self._current, self.text())

    def next_match(self, step: int = 1) -> str | None:
        """Show the next (``step`` = -1: previous) match; its key, ``None`` if none."""
        graph = self._graph()
        self._matches = () if graph is None else find_nodes(graph, self.text())
        if not self._matches:
            self._current = None
            self._show_status()
            return None
        if self._current is None:
            self._current = 0 if step > 0 else len(self._matches) - 1
        else:
            self._current = (self._current + step) % len(self._matches)
        key = self._matches[self._current]
        self._show_node(key)
        self._show_status()
        return key

    def _on_view_text(self, _text: str) -> None:
        self._current = None
        graph = self._graph()
        self._matches = () if graph is None else find_nodes(graph, self.text())
        self._show_status()

    def _show_status(self) -> None:
        status = self.status()
        self.setStatusTip(status)
        self.setToolTip(f"{status}\n{HELP}" if status else HELP)
        # No match: the text turns red, as a browser's find bar does (a palette, not a
        # style sheet: that would drop the font presentation mode gives).
        missing = bool(self.text().strip()) and not self._matches
        palette = self.palette()
        palette.setColor(
            QPalette.ColorRole.Text, QColor(MISSING_COLOR) if missing else self._text_color
        )
        self.setPalette(palette)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.next_match(-1)
            return
        if event.key() == Qt.Key.Key_Escape and self.text():
            self.clear()
            return
        super().keyPressEvent(event)
