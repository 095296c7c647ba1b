"""Graph layouts kept by structure: values changing never moves a node."""

from __future__ import annotations

from collections import OrderedDict

from gui.model.drawing.layout import GraphLayout, layout_graph
from gui.model.result import Graph


class LayoutCache:
    """The last few layouts by ``(graph.structure_key, show_saved)``, least recent dropped.

    Only ever used from one thread at a time (the dispatcher's): Graphviz is not
    thread-safe.
    """

    def __init__(self, size: int = 16) -> None:
        self._size = size
        self._layouts: OrderedDict[tuple[str, bool], GraphLayout] = OrderedDict()

    def get(self, graph: Graph | None, show_saved: bool) -> GraphLayout | None:
        """The layout of ``graph`` (computed now if new); ``None`` for an empty graph."""
        if graph is None or not graph.nodes:
            return None
        key = (graph.structure_key, show_saved)
        layout = self._layouts.get(key)
        if layout is None:
            layout = layout_graph(graph, show_saved)
            self._layouts[key] = layout
            if len(self._layouts) > self._size:
                self._layouts.popitem(last=False)
        else:
            self._layouts.move_to_end(key)
        return layout
