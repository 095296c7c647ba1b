"""Find a node of the graph by name: the program's variable (``loss``, ``h1``), torch's class
(``PowBackward0``, ``pow``), a saved tensor's name or a model's parameter name
(``0.weight``).

In a big graph the node a learner asks about is off screen; the graph panel's search box
jumps to each match in turn. Matches are ranked so the obvious one comes first: the
variable named exactly so, then names that start with the text, then names containing it.
"""

from __future__ import annotations

from gui.model.result import Graph, GraphNode


def _names(node: GraphNode) -> tuple[str, ...]:
    names = [node.label, node.name]
    if node.var is not None:
        names.insert(0, node.var)
    return tuple(n.casefold() for n in names if n)


def find_nodes(graph: Graph, text: str) -> tuple[str, ...]:
    """The keys of the nodes whose names match ``text`` (case-insensitive), best first.

    An exact name ranks first, then a name starting with ``text``, then one containing it;
    within a rank, the graph's own order (outputs first, as the walk found them).
    """
    wanted = text.strip().casefold()
    if not wanted:
        return ()
    ranked: list[tuple[int, int, str]] = []
    for position, node in enumerate(graph.nodes):
        names = _names(node)
        if wanted in names:
            rank = 0
        elif any(n.startswith(wanted) for n in names):
            rank = 1
        elif any(wanted in n for n in names):
            rank = 2
        else:
            continue
        ranked.append((rank, position, node.key))
    return tuple(key for _, _, key in sorted(ranked))


def search_status(matches: tuple[str, ...], current: int | None, text: str) -> str:
    """``"2 of 5"``, ``"no node named 'foo'"``, or ``""`` with nothing typed."""
    if not text.strip():
        return ""
    if not matches:
        return f"no node named {text.strip()!r}"
    if current is None:
        return f"{len(matches)} found"
    return f"{current + 1} of {len(matches)}"
