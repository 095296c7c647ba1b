"""The memory view: what the graph keeps for ``backward()``, node by node, biggest first.

Every node of an autograd graph may save tensors for its backward (``exp`` its result,
``mul`` both factors, a linear layer its input and weight). The graph keeps them alive until
``backward()`` frees it (or for as long as the graph lives, with ``retain_graph=True``). What
keeping a tensor costs is its whole storage: a saved view ``x[0]`` keeps all of ``x``, and
two nodes saving the same tensor (ReLU's result is the next layer's input) share one
storage, counted once in the totals. Python numbers torch wrapped into tensors (the ``2`` of
``x * 2``) are kept by value, outside this machinery: shown, never counted. These are the
rules torch's own count follows (``torch.autograd.graph.saved_tensors_hooks`` sees exactly
the tensors counted here).

Pure: reads the plain :class:`~gui.model.result.Graph` the engine walked (see
:mod:`gui.model.engine.saved_memory` for how storages are numbered).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gui.model.result import Graph, GraphNode, RunResult, SavedStorage, SavedValue

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")
# Other nodes named in a "shared with" mark; more are counted.
SHARED_NAMED = 3


def human_bytes(count: int) -> str:
    """``512`` -> ``"512 B"``, ``1536`` -> ``"1.5 KiB"``, ``3 * 2**20`` -> ``"3.0 MiB"``."""
    size = float(count)
    for unit in _UNITS:
        if size < 1024 or unit == _UNITS[-1]:
            return f"{count} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class SavedPiece:
    """One tensor a node saved: torch's name for it, its storage and what is special about it.

    ``bytes`` is the storage it keeps alive (0 for a Python number kept by value);
    ``marks`` say in words what else it is: the program's own tensor, a view of a leaf,
    memory shared with other nodes.
    """

    name: str
    storage: int
    bytes: int
    own_bytes: int
    counted: bool
    marks: tuple[str, ...]


@dataclass(frozen=True)
class MemoryRow:
    """A node that saved tensors: what it keeps, in bytes of distinct storages."""

    key: str
    title: str
    bytes: int
    saved: tuple[SavedPiece, ...]
    freed: bool = False  # torch had already freed what it saved when the graph was read
    # What it would save, but made inside torch.utils.checkpoint: not kept, recomputed.
    recomputed: tuple[str, ...] = ()

    @property
    def saved_text(self) -> str:
        """``"self 48 B, other 48 B"``: what it saved, as a line of text."""
        if self.freed and not self.saved:
            return "freed by an earlier backward()"
        kept = [f"{p.name} {human_bytes(p.bytes)}" for p in self.saved]
        if self.recomputed:
            kept.append(f"{', '.join(self.recomputed)}: {RECOMPUTED}")
        return ", ".join(kept)

    @property
    def marks_text(self) -> str:
        """Every mark of its saved tensors, each once, joined."""
        seen: dict[str, None] = {}
        for piece in self.saved:
            for mark in piece.marks:
                seen.setdefault(mark, None)
        return "; ".join(seen)


@dataclass(frozen=True)
class MemoryView:
    """What a graph holds for backward, and what ``backward()`` does with it.

    ``total_bytes`` counts every distinct storage once (before ``backward()``: all of it is
    held). ``backward()`` frees all of it (``freed_bytes``); of that, ``program_bytes``
    belongs to tensors the program still holds (its leaves, its named tensors), which stay
    in memory after the graph lets go: ``released_bytes`` is what memory actually gets back.
    ``backward(retain_graph=True)`` keeps all of it (``kept_bytes``) until the graph is
    dropped. ``rows`` lists the nodes that saved tensors, biggest first.
    """

    rows: tuple[MemoryRow, ...] = ()
    total_bytes: int = 0
    tensor_count: int = 0
    storage_count: int = 0
    shared_bytes: int = 0
    program_bytes: int = 0
    program_names: tuple[str, ...] = ()
    # Nodes of the program's own autograd.Function: what ``ctx.save_for_backward`` kept is
    # read only by the program's backward, so it is not counted (and said so).
    unread: tuple[str, ...] = ()
    # Nodes made inside torch.utils.checkpoint: they keep nothing, backward recomputes it.
    recomputed_nodes: int = 0
    status: str = ""
    message: str | None = "Run a program to see what its graph keeps for backward()."

    @property
    def freed_bytes(self) -> int:
        return self.total_bytes

    @property
    def kept_bytes(self) -> int:
        return self.total_bytes

    @property
    def released_bytes(self) -> int:
        return self.total_bytes - self.program_bytes

    def row(self, key: str) -> MemoryRow | None:
        """The row of node ``key`` (``None``: it saved nothing)."""
        return next((r for r in self.rows if r.key == key), None)


# What a checkpointed node's saved tensors are, in a few words (the memory panel, details).
RECOMPUTED = "recomputed in backward (torch.utils.checkpoint kept none)"


def node_title(node: GraphNode) -> str:
    """``"ReluBackward0 (h)"``: torch's name, with the program's variable when there is one."""
    return f"{node.name} ({node.var})" if node.var else node.name


def node_saved_bytes(node: GraphNode) -> int | None:
    """The bytes ``node``'s saved tensors keep (distinct storages; ``None``: it saved none)."""
    storages = {s.storage: s.storage_bytes for v in node.saved for s in v.memory if not s.by_value}
    return sum(storages.values()) if any(v.memory for v in node.saved) else None


def saved_bytes_text(node: GraphNode) -> str | None:
    """``"96 B (self 48 B, other 48 B)"``: what ``node`` keeps for backward, for its details
    (``None``: it saved no tensor)."""
    total = node_saved_bytes(node)
    if total is None:
        return None
    parts = [
        f"{name} {human_bytes(0 if s.by_value else s.storage_bytes)}"
        for saved in node.saved
        for name, s in _pieces(saved)
    ]
    return f"{human_bytes(total)} ({', '.join(parts)})"


def _pieces(saved: SavedValue) -> list[tuple[str, SavedStorage]]:
    """(name, storage) per tensor of a saved value: ``tensors[1]`` for a list's items."""
    if len(saved.memory) == 1 and saved.tensor is not None:
        return [(saved.name, saved.memory[0])]
    return [(f"{saved.name}[{i}]", s) for i, s in enumerate(saved.memory)]


class _Owners:
    """Who else holds each storage: the graph's nodes, its leaves, the program's names."""

    def __init__(self, graph: Graph) -> None:
        self.nodes: dict[int, list[str]] = defaultdict(list)
        self.leaves: dict[int, str] = {}
        self.named: dict[int, str] = {}
        self.titles = {n.key: node_title(n) for n in graph.nodes}
        for node in graph.nodes:
            if node.kind == "leaf" and node.storage is not None:
                self.leaves.setdefault(node.storage, node.var or node.label)
            for saved in node.saved:
                for _, storage in _pieces(saved):
                    if node.key not in self.nodes[storage.storage]:
                        self.nodes[storage.storage].append(node.key)
                    if saved.refers_to is not None and len(saved.memory) == 1:
                        self.named.setdefault(storage.storage, saved.refers_to)

    def marks(self, key: str, saved: SavedValue, storage: SavedStorage) -> tuple[str, ...]:
        if storage.by_value:
            return ("a Python number, kept by value (not counted)",)
        marks: list[str] = []
        owner = self.leaves.get(storage.storage) or self.named.get(storage.storage)
        if owner is not None and saved.refers_to == owner:
            marks.append(f"{owner} itself")
        elif owner is not None:
            marks.append(f"view of {owner}")
        elif storage.own_bytes < storage.storage_bytes:
            marks.append("view of a bigger tensor")
        others = [self.titles[k] for k in self.nodes[storage.storage] if k != key]
        if others:
            # An unrolled loop's weight is saved by every step: name a few, count the rest.
            named = ", ".join(others[:SHARED_NAMED])
            rest = len(others) - SHARED_NAMED
            marks.append(f"shared with {named}" + (f" and {rest} more" if rest > 0 else ""))
        return tuple(marks)

    def program_storages(self) -> dict[int, str]:
        """Storages of the program's own tensors (its leaves and named tensors)."""
        return {**self.named, **self.leaves}


def _parameters_near(graph: Graph) -> dict[str, tuple[str, ...]]:
    """Per node, the leaves it works on directly: its inputs, and theirs through nodes
    that compute nothing to keep (a transpose, a view), so ``AddmmBackward0`` of a
    linear layer names that layer's weight and bias."""
    inputs: dict[str, list[str]] = defaultdict(list)
    for edge in graph.edges:
        if edge.kind == "data":
            inputs[edge.target].append(edge.source)
    nodes = {n.key: n for n in graph.nodes}
    near: dict[str, tuple[str, ...]] = {}
    for node in graph.nodes:
        if node.kind != "function" or not node.saved:
            continue
        found: list[str] = []
        pending = [(key, 1) for key in inputs.get(node.key, ())]
        while pending:
            key, depth = pending.pop(0)
            other = nodes.get(key)
            if other is None:
                continue
            if other.kind == "leaf":
                found.append(other.var or other.label)
            elif depth < 3 and other.var is None and not other.saved:
                pending += [(k, depth + 1) for k in inputs.get(key, ())]
        near[node.key] = tuple(sorted(set(found)))
    return near


def _row(node: GraphNode, owners: _Owners, near: tuple[str, ...] = ()) -> MemoryRow | None:
    pieces: list[SavedPiece] = []
    held: dict[int, int] = {}
    for saved in node.saved:
        for name, storage in _pieces(saved):
            counted = not storage.by_value
            size = storage.storage_bytes if counted else 0
            if counted:
                held[storage.storage] = size
            marks = owners.marks(node.key, saved, storage)
            pieces.append(
                SavedPiece(name, storage.storage, size, storage.own_bytes, counted, marks)
            )
    freed = any(s.freed for s in node.saved)
    recomputed = tuple(s.name for s in node.saved if s.recomputed)
    if not pieces and not freed and not recomputed:
        return None
    title = node_title(node)
    if node.var is None and near:
        title += f" · {', '.join(near)}"
    return MemoryRow(node.key, title, sum(held.values()), tuple(pieces), freed, recomputed)


def _status(result: RunResult | None) -> str:
    """What this run's backward calls did with the graph, in a few words."""
    steps = () if result is None else result.steps
    on_output = [s for s in steps if result is not None and s.tensor == result.output]
    if not on_output:
        return "This run: no backward() yet"
    last = on_output[-1]
    if last.retain_graph:
        return f"This run: backward call {last.index + 1} kept it (retain_graph=True)"
    return f"This run: backward call {last.index + 1} freed it"


def memory_view(graph: Graph | None, result: RunResult | None = None) -> MemoryView:
    """What ``graph`` keeps for backward: per node, totals, and this run's ``status``.

    Parameters
    ----------
    graph
        The output's graph, walked before any backward freed it.
    result
        The run it came from: its backward calls say whether the graph was freed.
    """
    if graph is None:
        return MemoryView()
    owners = _Owners(graph)
    near = _parameters_near(graph)
    rows = [
        row
        for node in graph.nodes
        if (row := _row(node, owners, near.get(node.key, ()))) is not None
    ]
    # Biggest first; ties keep the graph's order (output first).
    rows.sort(key=lambda r: -r.bytes)
    storages: dict[int, int] = {}
    tensors = 0
    appearances = 0
    for row in rows:
        for piece in row.saved:
            if piece.counted:
                tensors += 1
                appearances += piece.bytes
                storages[piece.storage] = piece.bytes
    total = sum(storages.values())
    program = {s: n for s, n in owners.program_storages().items() if s in storages}
    # torch names its own nodes ``...Backward0``; a program's Function gets ``<Name>Backward``.
    unread = tuple(
        dict.fromkeys(
            n.name for n in graph.nodes if n.kind == "function" and n.name.endswith("Backward")
        )
    )
    message = None
    if not rows:
        message = "Nothing saved: this graph's backward needs none of its tensors."
        if unread:
            message = "Nothing saved that can be counted here."
    return MemoryView(
        rows=tuple(rows),
        total_bytes=total,
        tensor_count=tensors,
        storage_count=len(storages),
        shared_bytes=appearances - total,
        program_bytes=sum(storages[s] for s in program),
        program_names=tuple(dict.fromkeys(program.values())),
        unread=unread,
        recomputed_nodes=sum(1 for row in rows if row.recomputed),
        status=_status(result),
        message=message,
    )


@dataclass(frozen=True)
class TotalLine:
    """One line of the totals: a label, its bytes (``None``: a sentence without a number)
    and the longer explanation (a tooltip)."""

    label: str
    bytes: int | None
    note: str


def totals(view: MemoryView) -> tuple[TotalLine, ...]:
    """The totals, short enough for a narrow column: before, freed, kept, shared, status."""
    not_counted: tuple[TotalLine, ...] = ()
    if view.unread:
        names = ", ".join(view.unread)
        not_counted = (
            TotalLine(
                f"Not counted: what {names} saved",
                None,
                f"{names}: your own autograd.Function. What its ctx.save_for_backward kept is "
                "read only by its backward (your code), so it is not counted here.",
            ),
        )
    if not view.rows:
        return (TotalLine(view.message or "", None, ""), *not_counted)
    counted = f"{view.tensor_count} saved tensors in {view.storage_count} storages"
    lines = [
        TotalLine(
            "Held before backward()",
            view.total_bytes,
            f"The graph keeps {counted} alive for backward(), each storage counted once "
            "(a saved view keeps its whole storage).",
        ),
        TotalLine(
            "Freed by backward()",
            view.freed_bytes,
            "backward() without retain_graph=True drops every saved tensor.",
        ),
    ]
    if view.program_bytes:
        names = ", ".join(view.program_names)
        lines.append(
            TotalLine(
                "  of which back to memory",
                view.released_bytes,
                f"{human_bytes(view.program_bytes)} of what backward() frees is your own "
                f"tensors ({names}): they stay in memory while your program holds them.",
            )
        )
    lines.append(
        TotalLine(
            "Kept with retain_graph=True",
            view.kept_bytes,
            "backward(retain_graph=True) keeps it all, until the graph itself is dropped "
            "(its output goes out of scope).",
        )
    )
    if view.recomputed_nodes:
        lines.append(
            TotalLine(
                f"Recomputed in backward: {view.recomputed_nodes} nodes",
                None,
                "These nodes were made inside torch.utils.checkpoint: torch kept none of the "
                "tensors they save (counted as 0 above), only the checkpointed block's "
                "inputs, and backward() runs the block again to get them. That is the "
                "memory checkpointing saves, paid for with a second forward pass.",
            )
        )
    if view.shared_bytes:
        lines.append(
            TotalLine(
                "Shared by several nodes",
                view.shared_bytes,
                "Storages saved by more than one node (or twice by one): counted once above.",
            )
        )
    if "freed" in view.status:
        note = f"{view.status}: another backward() through this graph would fail."
    elif "kept" in view.status:
        note = f"{view.status}: another backward() through this graph works."
    else:
        note = f"{view.status}: the graph holds all of it."
    lines.append(TotalLine(view.status, None, note))
    return (*lines, *not_counted)
