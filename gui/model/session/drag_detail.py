"""While a slider is dragged on a big graph, read only what is on screen.

A mixin of :class:`~gui.model.session.session.Session`. A run of a graph of thousands of
nodes spends most of its time reading every node's numbers, sending them and reading them
back, though a view shows a few dozen boxes. So while a value is dragged
(:meth:`DragDetail.set_dragging`), a run of such a graph asks only for the nodes the graph
panel has in view (:meth:`DragDetail.set_on_screen`) and the selected one
(:class:`~gui.model.request.Detail`); the answer is merged into the result on screen
(:mod:`gui.model.detail_merge`). Everything else a run gives (leaves, gradients, named
tensors, the output, printed lines, errors) comes back whole on every tick.

Letting go of the slider runs the program once more, reading everything: no number stays
older than the drag. A view that moves to nodes the last tick did not read, while still
dragging, asks for them at once.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from gui.model.request import Detail, RunRequest
from gui.model.result import Graph

if TYPE_CHECKING:
    from gui.model.session.computed import Computed

# Graphs with fewer nodes are read whole on every tick: a few hundred nodes cost a few
# milliseconds, and nothing on screen could then be older than the tick. From here on the
# reading is most of a tick (a 1,000-node chain's drag: 61 ms whole, 27 reading the view,
# window_speed.py --chain 500 --drag; at 500 nodes both about 30).
DETAIL_FROM_NODES = 500
# More boxes in view than this (zoomed out over a big graph): read everything.
MOST_DETAIL_NODES = 1500


def detail_of(graph: Graph, nodes: Collection[str]) -> Detail:
    """The :class:`~gui.model.request.Detail` that reads ``nodes`` of ``graph`` (a whole
    graph on screen): their keys, and the places in the run's order of the function nodes
    whose forward values they show (a saved tensor's or a constant's box is read with the
    function node owning it)."""
    owners = {key.partition("/")[0] for key in nodes}
    made = sorted(n.made for n in graph.nodes if n.made is not None and n.key in owners)
    return Detail(graph.structure_key, tuple(sorted(nodes)), tuple(made))


def same_state(a: RunRequest, b: RunRequest) -> bool:
    """Whether ``a`` and ``b`` compute the same (which nodes they read aside)."""
    return a == b or replace(a, detail=None) == replace(b, detail=None)


class DragDetail:
    """The drag state and the view's boxes; the requests that read only them."""

    # What the session holds (see Session.__init__) and the methods of it used here.
    _shown: Computed | None
    _selected_node: str | None
    _dragging: bool
    _on_screen: frozenset[str] | None
    _live: bool

    def _claim_run(self, force: bool = False) -> RunRequest | None:
        raise NotImplementedError

    def _submit(self, request: RunRequest | None) -> None:
        raise NotImplementedError

    def _emit(self, changes: set[str]) -> None:
        raise NotImplementedError

    # -- the widgets' calls --------------------------------------------------------------

    def set_dragging(self, dragging: bool) -> None:
        """A value slider's handle is held (``True``) or let go (``False``: the next run
        reads every node again)."""
        if dragging == self._dragging:
            return
        self._dragging = dragging
        if not dragging and self._live:  # (live off: nothing runs until asked to)
            pending = self._claim_run()  # none if the last run read every node already
            if pending is not None:
                self._emit({"status"})
                self._submit(pending)

    def set_on_screen(self, keys: frozenset[str] | None) -> None:
        """The graph panel's boxes in view, by drawn key (``None``: not known). While
        dragging, boxes the last tick did not read are asked for now."""
        if keys == self._on_screen:
            return
        self._on_screen = keys
        shown = self._shown
        if not (self._dragging and self._live) or shown is None or shown.read is None:
            return
        wanted = self._detail_nodes()
        if wanted is not None and not wanted <= shown.read:
            pending = self._claim_run()
            if pending is not None:
                self._emit({"status"})
                self._submit(pending)

    # -- requests ------------------------------------------------------------------------

    def _with_detail(self, request: RunRequest) -> RunRequest:
        """``request`` reading only the nodes in view, when that is what a tick wants."""
        if not self._dragging:
            return request
        shown = self._shown
        if shown is None or shown.cancelled or shown.layout_pending:
            return request
        graph = shown.result.graph
        if graph is None or graph.partial or len(graph.nodes) < DETAIL_FROM_NODES:
            return request
        if shown.request.program.code != request.program.code:
            return request  # new code: a new structure, most likely
        nodes = self._detail_nodes()
        if nodes is None:
            return request
        return replace(request, detail=detail_of(graph, nodes))

    def _detail_nodes(self) -> frozenset[str] | None:
        """The graph's nodes behind the boxes in view and the selected node (``None``: too
        many, or the view is not known)."""
        keys = self._on_screen
        shown = self._shown
        if keys is None or shown is None or len(keys) > MOST_DETAIL_NODES:
            return None
        if self._selected_node is not None:
            keys = keys | {self._selected_node}
        grouping = shown.grouping
        if grouping is not None and grouping.groups:
            # A collapsed module's box shows what flows through its members: those are
            # the graph's nodes to read (the box's own key is not one).
            members = [k for k, box in grouping.hidden.items() if box in keys]
            keys = keys.union(members).difference(grouping.groups)
        return keys if len(keys) <= MOST_DETAIL_NODES else None
