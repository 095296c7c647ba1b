"""The session's module groups: which modules of the graph are drawn as one box each.

A mixin of :class:`~gui.model.session.session.Session`. Its state is ``_group_choice``, a
frozen :class:`~gui.model.drawing.collapse.GroupChoice` (automatic until the user collapses
or expands something); like the saved-tensor setting it is a view preference: changing it
lays the graph on screen out again (``Session._relayout_if_needed``) and runs nothing.
What is folded, and how gradients cross a folded module's boundary, is decided by
:mod:`gui.model.drawing.collapse`.

Selecting a node hidden in a collapsed module (search, the step-through, a lesson step, a
link in the node details) expands the modules hiding it (:meth:`GroupControls._reveal`),
so the node the user asked for is on screen; collapsing the module of the selected node
selects its box instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gui.model.drawing.collapse import (
    AUTOMATIC,
    GROUP_PREFIX,
    GroupChoice,
    depth_collapsed,
    group_key,
)
from gui.model.drawing.groups import ModuleTree
from gui.model.drawing.module_paths import Path

if TYPE_CHECKING:
    from gui.model.session.computed import Computed


def _outermost(path: Path, collapsed: frozenset[Path]) -> Path | None:
    return next((path[:n] for n in range(1, len(path) + 1) if path[:n] in collapsed), None)


class GroupControls:
    """Collapse and expand the graph's modules; keep the selected node on screen."""

    # What the session holds (see Session.__init__) and the methods of it used here.
    _shown: Computed | None
    _group_choice: GroupChoice
    _selected_node: str | None

    def _emit(self, changes: set[str]) -> None:
        raise NotImplementedError

    def _relayout_if_needed(self) -> None:
        raise NotImplementedError

    # -- reading -------------------------------------------------------------------------

    def _modules_now(self) -> tuple[ModuleTree, frozenset[Path]] | None:
        """The shown graph's module tree and the modules collapsed as chosen now (the
        picture may still show the previous choice while it is laid out again)."""
        shown = self._shown
        grouping = None if shown is None else shown.grouping
        if grouping is None:
            return None
        tree, choice = grouping.tree, self._group_choice
        if choice.modules is not None and choice.modules == tree.paths:
            return tree, choice.collapsed
        return tree, grouping.collapsed

    # -- actions -------------------------------------------------------------------------

    def collapse_module(self, path: Path) -> None:
        """Draw module ``path`` (``("model", "0")``) as one box."""
        now = self._modules_now()
        if now is not None:
            self._set_collapsed(now[1] | {tuple(path)})

    def expand_module(self, path: Path) -> None:
        """Draw module ``path``'s insides again (modules inside it stay as they were)."""
        now = self._modules_now()
        if now is not None:
            self._set_collapsed(now[1] - {tuple(path)})

    def collapse_all_modules(self) -> None:
        """Every module as one box, at the first level with several of them: typed code's
        ``model`` holds ``model.0``, ``model.1``..., and one box for all says nothing."""
        now = self._modules_now()
        if now is None:
            return
        paths = now[0].paths
        depth = next(
            (d for d in range(1, now[0].depth + 1) if sum(len(p) == d for p in paths) > 1), 1
        )
        self.collapse_to_depth(depth)

    def expand_all_modules(self) -> None:
        """Every box of the graph, nothing folded."""
        if self._modules_now() is not None:
            self._set_collapsed(frozenset())

    def collapse_to_depth(self, depth: int) -> None:
        """Modules ``depth`` levels deep as boxes (shallower ones without modules inside
        them too; see :func:`~gui.model.drawing.collapse.depth_collapsed`)."""
        now = self._modules_now()
        if now is not None:
            self._set_collapsed(depth_collapsed(now[0], max(depth, 1)))

    def reset_module_groups(self) -> None:
        """Back to the automatic choice (big graphs collapsed, small ones whole)."""
        if self._group_choice != AUTOMATIC:
            self._group_choice = AUTOMATIC
            self._emit({"view"})
            self._relayout_if_needed()

    # -- helpers -------------------------------------------------------------------------

    def _set_collapsed(self, collapsed: frozenset[Path]) -> None:
        now = self._modules_now()
        if now is None:
            return
        tree, before = now
        collapsed = frozenset(p for p in collapsed if p in set(tree.paths))
        choice = GroupChoice(collapsed, tree.paths)
        if choice == self._group_choice or (collapsed == before and self._same_picture(choice)):
            return
        self._group_choice = choice
        changes = {"view"}
        selected = self._selected_node
        box = self._box_for(tree, collapsed, selected)
        if box != selected:
            self._selected_node = box
            changes.add("selection")
        self._emit(changes)
        self._relayout_if_needed()

    def _same_picture(self, choice: GroupChoice) -> bool:
        shown = self._shown
        return (
            shown is not None
            and shown.grouping is not None
            and (shown.grouping.collapsed == choice.collapsed)
        )

    @staticmethod
    def _box_for(tree: ModuleTree, collapsed: frozenset[Path], key: str | None) -> str | None:
        """What stays selected once ``collapsed`` is drawn: the box hiding ``key``, or
        nothing when ``key`` was a module's box that is now expanded."""
        if key is None:
            return None
        if key.startswith(GROUP_PREFIX):
            path = tuple(key[len(GROUP_PREFIX) :].split("\x1f"))
            top = _outermost(path, collapsed)
            return None if top is None else group_key(top)
        module = tree.module.get(key)
        top = None if module is None else _outermost(module, collapsed)
        return key if top is None else group_key(top)

    def _reveal(self, key: str | None) -> bool:
        """Expand the modules that hide node ``key``; whether anything changed (the caller
        emits, then lays out again)."""
        now = self._modules_now()
        if key is None or now is None or key.startswith(GROUP_PREFIX):
            return False
        tree, collapsed = now
        path = tree.module.get(key)
        if path is None:
            return False
        hiding = {path[:n] for n in range(1, len(path) + 1)} & collapsed
        if not hiding:
            return False
        self._group_choice = GroupChoice(collapsed - hiding, tree.paths)
        return True
