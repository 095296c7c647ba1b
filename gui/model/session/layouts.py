"""Graph layouts kept by structure: values changing never moves a node.

Layouts come from the layout worker's process (:mod:`gui.model.drawing.layout_process`),
never from Graphviz in the window's process (a big graph there is placed by the app's own
layout, :mod:`gui.model.drawing.fast_layout`, and shown once its numbers are: see
:meth:`LayoutCache.takes_a_while`). A graph over the size limits
(:mod:`gui.model.drawing.limits`) is not sent at all, and one that made Graphviz hang or
crash is not sent again: both are remembered by structure with the words that say why, so
a slider tick on such a graph costs a dictionary lookup, not another attempt.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from gui.model.drawing.layout import GraphLayout
from gui.model.drawing.layout_process import (
    LayoutCancelled,
    LayoutProcess,
    LayoutUnavailable,
    never,
    shared_layout_process,
)
from gui.model.drawing.limits import quick_for_dot, too_big
from gui.model.result import Explanation, Graph

# A layout by the structure of its graph and whether saved tensors are shown.
Key = tuple[str, bool]
# How often a wait for a layout asked for ahead checks whether it is still wanted.
WAIT_STEP_SECONDS = 0.02


class LayoutCache:
    """The last few layouts (or why there is none) by ``(graph.structure_key, show_saved)``,
    least recently used dropped first, so memory stays bounded however many programs run.

    Parameters
    ----------
    size
        How many structures to remember.
    process
        The layout worker to ask (default: the one shared by this process).
    """

    def __init__(self, size: int = 16, process: LayoutProcess | None = None) -> None:
        self._size = size
        self._process = process if process is not None else shared_layout_process()
        self._layouts: OrderedDict[Key, GraphLayout | Explanation] = OrderedDict()
        # Layouts asked for ahead (see start), each with the event set once it is answered.
        self._coming: dict[Key, threading.Event] = {}
        # The cache is read and written from the session's thread and the threads of start.
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._layouts)

    def get(
        self, graph: Graph | None, show_saved: bool, cancelled: Callable[[], bool] = never
    ) -> GraphLayout | None:
        """The layout of ``graph`` (asked of the worker if new, or awaited if asked for
        already by :meth:`start`); ``None`` for no graph.

        Raises :class:`~gui.model.drawing.layout_process.LayoutUnavailable` with the reason
        when it cannot be drawn (too big, or Graphviz failed on this structure), and
        :class:`~gui.model.drawing.layout_process.LayoutCancelled` when ``cancelled()``
        turned true while the worker was busy (nothing is remembered then).
        """
        if graph is None or not graph.nodes:
            return None
        key = (graph.structure_key, show_saved)
        with self._lock:
            coming = self._coming.get(key)
        while coming is not None and not coming.wait(WAIT_STEP_SECONDS):
            if cancelled():
                raise LayoutCancelled
        known = self._known(key)
        if known is None:  # not asked for ahead, or that request was given up: ask now
            known = self._fetch(graph, show_saved, cancelled)
        if isinstance(known, Explanation):
            raise LayoutUnavailable(known)
        return known

    def start(self, graph: Graph | None, show_saved: bool, cancelled: Callable[[], bool]) -> None:
        """Ask the worker for the layout of ``graph`` now, on a thread of this call's own,
        for :meth:`get` to take: a big graph's layout starts as soon as its run is read,
        while the window shows its numbers (about 0.1 s sooner than a request made after
        them). Nothing is asked if the layout is known, or while another asked for ahead
        is on its way (a slider dragged through a new structure on every tick would line
        up one per tick: :meth:`get` asks for those when wanted, as before); a request
        ``cancelled()`` gave up leaves :meth:`get` to ask again."""
        if graph is None or not graph.nodes:
            return
        key = (graph.structure_key, show_saved)
        with self._lock:
            if key in self._layouts or self._coming:
                return
            done = self._coming[key] = threading.Event()

        def fetch() -> None:
            try:
                self._fetch(graph, show_saved, cancelled)
            except Exception:  # given up, or failed: get asks again, and says why
                pass
            finally:
                with self._lock:
                    del self._coming[key]
                done.set()

        threading.Thread(target=fetch, name="layout-ahead", daemon=True).start()

    def _known(self, key: Key) -> GraphLayout | Explanation | None:
        with self._lock:
            known = self._layouts.get(key)
            if known is not None:
                self._layouts.move_to_end(key)
            return known

    def _fetch(
        self, graph: Graph, show_saved: bool, cancelled: Callable[[], bool]
    ) -> GraphLayout | Explanation:
        """The layout (or why there is none) from the worker, remembered."""
        known: GraphLayout | Explanation | None = too_big(graph, show_saved)
        if known is None:
            try:
                known = self._process.layout(graph, show_saved, cancelled)
            except LayoutUnavailable as unavailable:
                known = unavailable.explanation  # the same structure would fail again
        with self._lock:
            self._layouts[(graph.structure_key, show_saved)] = known
            if len(self._layouts) > self._size:
                self._layouts.popitem(last=False)
        return known

    def takes_a_while(self, graph: Graph | None, show_saved: bool) -> bool:
        """Whether :meth:`get` would keep the graph waiting a noticeable time: a new
        structure too big for Graphviz's quick range (the window says it is laying it out
        meanwhile, see :func:`~gui.model.session.computed.compute`)."""
        if graph is None or not graph.nodes or self._known((graph.structure_key, show_saved)):
            return False
        return too_big(graph, show_saved) is None and not quick_for_dot(graph, show_saved)

    def interrupt(self) -> None:
        """Make a layout in progress check whether it is still wanted (any thread)."""
        self._process.interrupt()
