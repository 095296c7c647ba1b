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

from collections import OrderedDict
from collections.abc import Callable

from gui.model.drawing.layout import GraphLayout
from gui.model.drawing.layout_process import (
    LayoutProcess,
    LayoutUnavailable,
    never,
    shared_layout_process,
)
from gui.model.drawing.limits import dot_is_quick, layout_size, too_big
from gui.model.result import Explanation, Graph


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
        self._layouts: OrderedDict[tuple[str, bool], GraphLayout | Explanation] = OrderedDict()

    def __len__(self) -> int:
        return len(self._layouts)

    def get(
        self, graph: Graph | None, show_saved: bool, cancelled: Callable[[], bool] = never
    ) -> GraphLayout | None:
        """The layout of ``graph`` (asked of the worker if new); ``None`` for no graph.

        Raises :class:`~gui.model.drawing.layout_process.LayoutUnavailable` with the reason
        when it cannot be drawn (too big, or Graphviz failed on this structure), and
        :class:`~gui.model.drawing.layout_process.LayoutCancelled` when ``cancelled()``
        turned true while the worker was busy (nothing is remembered then).
        """
        if graph is None or not graph.nodes:
            return None
        key = (graph.structure_key, show_saved)
        known = self._layouts.get(key)
        if known is None:
            known = too_big(graph, show_saved)
            if known is None:
                try:
                    known = self._process.layout(graph, show_saved, cancelled)
                except LayoutUnavailable as unavailable:
                    known = unavailable.explanation  # the same structure would fail again
            self._layouts[key] = known
            if len(self._layouts) > self._size:
                self._layouts.popitem(last=False)
        else:
            self._layouts.move_to_end(key)
        if isinstance(known, Explanation):
            raise LayoutUnavailable(known)
        return known

    def takes_a_while(self, graph: Graph | None, show_saved: bool) -> bool:
        """Whether :meth:`get` would keep the graph waiting a noticeable time: a new
        structure too big for Graphviz's quick range (the window says it is laying it out
        meanwhile, see :func:`~gui.model.session.computed.compute`)."""
        if graph is None or not graph.nodes or (graph.structure_key, show_saved) in self._layouts:
            return False
        return too_big(graph, show_saved) is None and not dot_is_quick(
            layout_size(graph, show_saved)
        )

    def interrupt(self) -> None:
        """Make a layout in progress check whether it is still wanted (any thread)."""
        self._process.interrupt()
