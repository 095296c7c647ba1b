"""Collapsing and expanding the graph's modules: the "Groups" menu, the boxes' context
menu, double-click and Enter on a collapsed module's box.

Every action is one session call (:class:`~gui.model.session.group_controls.GroupControls`);
what is collapsed lives in the session and comes back in the snapshot. Module names are
the user's (``add_module`` takes any string), so menu texts are made plain first:
control characters and line breaks become spaces, ``&`` stays an ``&``, long paths are
elided (:func:`~gui.model.drawing.groups.path_text`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QRectF, Qt
from PySide6.QtGui import QAction, QContextMenuEvent, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QMenu, QToolBar, QToolButton

from gui.model.drawing.collapse import GROUP_PREFIX, box_count
from gui.model.drawing.layout import GROUP_MARK, LINE_HEIGHT, text_top
from gui.model.drawing.module_paths import Path, path_text
from gui.model.session import Session
from gui.model.tensor_format import text_width
from gui.widgets.graph_view import GraphView
from gui.widgets.node_item import NodeItem

# Deepest level the "Groups" menu offers (the tree cuts paths at MAX_DEPTH anyway).
MAX_MENU_DEPTH = 8
GROUPS_TIP = (
    "Draw each module of the model as one box; double-click a box (or click its ⊞) to "
    "open it, right-click any box to collapse its module"
)
NO_GROUPS_TIP = (
    "No modules in this graph: boxes group by module when parameters have module names "
    "(model.0.weight, from an nn.Module)"
)
# How far around the "⊞" mark a click still counts as on it, in points.
MARK_SLACK = 3.0
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def menu_text(text: str) -> str:
    """``text`` safe for a menu entry: one line, no mnemonic ``&``."""
    return _CONTROL.sub(" ", text).replace("&", "&&")


def group_path(key: str) -> Path | None:
    """The module a collapsed module's box stands for (``None``: not such a box)."""
    if not key.startswith(GROUP_PREFIX):
        return None
    return tuple(key[len(GROUP_PREFIX) :].split("\x1f"))


class ModuleGroups(QObject):
    """The module actions of one graph panel, on its view and its toolbar button.

    Parameters
    ----------
    session
        The session whose snapshot says which modules there are and which are collapsed.
    view
        The graph's view: double-click, Enter and the context menu act on its boxes.
    item_for
        The box drawn for a node key (the panel's ``node_item``).
    """

    def __init__(
        self, session: Session, view: GraphView, item_for: Callable[[str], NodeItem | None]
    ) -> None:
        super().__init__(view)
        self._session = session
        self._view = view
        self._item_for = item_for
        self.button = QToolButton()
        self.button.setText("Groups")
        self.button.setToolTip(NO_GROUPS_TIP)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.button)
        self.menu.aboutToShow.connect(self._fill_groups_menu)
        self.button.setMenu(self.menu)
        self.button.setEnabled(False)
        # The button's place on the toolbar (see place_on): shown only while there are
        # modules, so a lesson's toolbar keeps its room for the step choice.
        self._placed: QAction | None = None
        # The last context menu shown (tests read its actions).
        self.context_menu: QMenu | None = None
        # The box whose "⊞" mark a press went down on (a click on it opens the module).
        self._pressed_mark: str | None = None
        view.viewport().installEventFilter(self)
        view.installEventFilter(self)

    # -- state from the snapshot -----------------------------------------------------------

    def place_on(self, toolbar: QToolBar) -> None:
        """Put the button on ``toolbar``, shown only while the graph has modules."""
        self._placed = toolbar.addWidget(self.button)
        self._placed.setVisible(self.button.isEnabled())

    def render(self) -> None:
        """Enable (and show) the button while the graph has modules."""
        grouping = self._session.snapshot.grouping
        enabled = grouping is not None
        if self.button.isEnabled() != enabled:
            self.button.setEnabled(enabled)
            self.button.setToolTip(GROUPS_TIP if enabled else NO_GROUPS_TIP)
            if self._placed is not None:
                self._placed.setVisible(enabled)

    # -- menus -----------------------------------------------------------------------------

    def _fill_groups_menu(self) -> None:
        self.menu.clear()
        self._add_common(self.menu)
        snapshot = self._session.snapshot
        grouping, graph = snapshot.grouping, snapshot.graph
        if grouping is None or graph is None:
            return
        self.menu.addSeparator()
        for depth in range(1, min(grouping.tree.depth, MAX_MENU_DEPTH) + 1):
            example = next(p for p in grouping.tree.paths if len(p) == depth)
            boxes = box_count(graph, grouping.tree, depth)
            text = f"Collapse to depth {depth} ({menu_text(path_text(example))}, …: {boxes} boxes)"
            self._add(self.menu, text, self._to_depth(depth))
        self.menu.addSeparator()
        self._add(self.menu, "Automatic (big graphs collapsed)", self._session.reset_module_groups)

    def _add_common(self, menu: QMenu) -> None:
        self._add(menu, "Collapse all modules", self._session.collapse_all_modules)
        self._add(menu, "Expand all", self._session.expand_all_modules)

    @staticmethod
    def _add(menu: QMenu, text: str, slot: Callable[[], None]) -> QAction:
        action = menu.addAction(text)
        # Through a function of our own: connected straight to a bound method of an object
        # that is not a QObject (the session), PySide watches that object with a weak
        # reference, and a collection on the engine's worker thread that ends it would
        # disconnect from that thread while the GUI thread connects: a deadlock.
        action.triggered.connect(lambda *_: slot())
        return action

    def context_actions(self, key: str | None) -> QMenu:
        """The context menu for the box ``key`` (``None``: empty space)."""
        menu = QMenu(self._view)
        grouping = self._session.snapshot.grouping
        if grouping is not None and key is not None:
            own = group_path(key)
            if own is not None:
                self._add(menu, f"Expand {menu_text(path_text(own))}", self._expander(own))
            path = own[:-1] if own is not None else grouping.tree.module.get(key)
            # The node's module first, then the modules around it, outermost last.
            for n in range(len(path or ()), 0, -1):
                assert path is not None
                prefix = path[:n]
                text = f"Collapse {menu_text(path_text(prefix))}"
                self._add(menu, text, self._collapser(prefix))
            if not menu.isEmpty():
                menu.addSeparator()
        if grouping is not None:
            self._add_common(menu)
        return menu

    def _to_depth(self, depth: int) -> Callable[[], None]:
        return lambda: self._session.collapse_to_depth(depth)

    def _expander(self, path: Path) -> Callable[[], None]:
        return lambda: self._session.expand_module(path)

    def _collapser(self, path: Path) -> Callable[[], None]:
        return lambda: self._session.collapse_module(path)

    # -- events on the view ------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            self._pressed_mark = self._mark_at(event.position().toPoint())
        elif kind == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent):
            pressed, self._pressed_mark = self._pressed_mark, None
            mark = self._mark_at(event.position().toPoint())
            if mark is not None and mark == pressed:
                self._open(mark)
        elif kind == QEvent.Type.MouseButtonDblClick and isinstance(event, QMouseEvent):
            if event.button() == Qt.MouseButton.LeftButton:
                return self._open(self._view.node_at(event.position().toPoint()))
        elif kind == QEvent.Type.ContextMenu and isinstance(event, QContextMenuEvent):
            if self._session.snapshot.grouping is None:
                return False
            self.show_context_menu(event.pos(), event.globalPos())
            return True
        elif (
            kind == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            return self._open(self._session.snapshot.selected_node)
        return False

    def mark_rect(self, key: str) -> QRectF | None:
        """Where the "⊞" mark at the start of a collapsed module's title is, in scene
        points (``None``: no such box drawn). The title is centred in its row
        (:func:`~gui.model.drawing.layout.text_top`), so the mark starts half the title's
        width left of the box's centre."""
        layout = self._session.snapshot.layout
        item = self._item_for(key)
        box = None if layout is None else layout.nodes.get(key)
        if box is None or group_path(key) is None:
            return None
        lines = item.lines if item is not None else None
        count = len(lines) if lines else 3
        title = lines[0] if lines else ""
        top = text_top(box, count, False)
        left = box.x - text_width(title, bold=True) / 2
        mark = text_width(GROUP_MARK, bold=True)
        return QRectF(left - MARK_SLACK, top, mark + 2 * MARK_SLACK, LINE_HEIGHT)

    def _mark_at(self, pos: QPoint) -> str | None:
        key = self._view.node_at(pos)
        if key is None or group_path(key) is None:
            return None
        rect = self.mark_rect(key)
        return key if rect is not None and rect.contains(self._view.mapToScene(pos)) else None

    def show_context_menu(self, pos: QPoint, global_pos: QPoint) -> None:
        """The context menu of the box at viewport ``pos``, shown at ``global_pos``."""
        key = self._view.node_at(pos)
        if key is not None:
            self._session.select_node(key)
        self.context_menu = self.context_actions(key)
        if not self.context_menu.isEmpty():
            self.context_menu.popup(global_pos)

    def _open(self, key: str | None) -> bool:
        path = None if key is None else group_path(key)
        if path is None:
            return False
        self._session.expand_module(path)
        return True
