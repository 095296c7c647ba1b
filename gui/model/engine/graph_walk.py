"""Walk a tensor's ``grad_fn`` into a plain :class:`Graph` (engine side: imports torch).

The walk is breadth-first over ``next_functions`` and iterative, so graphs of thousands of
nodes neither recurse nor stall. Node keys are the breadth-first position plus the class
name: the same program gives the same keys for any input values, which is what lets a view
keep its layout while numbers change.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from gui.model.engine.records import quick_maker
from gui.model.engine.saved_memory import StorageLedger
from gui.model.engine.tensors import read_tensor_data
from gui.model.result import Graph, GraphEdge, GraphNode, SavedValue

MAX_FUNCTION_NODES = 5000

# A big graph's records, made without their ``__init__`` (see :mod:`.records`).
_graph_node = quick_maker(GraphNode)
_graph_edge = quick_maker(GraphEdge)
_saved_value = quick_maker(SavedValue)

# For a binary op, a constant (no-grad) input at position i is usually the tensor saved
# under one of these names; showing its value on the constant node is what tells a learner
# where the "2" in ``2 * x`` went.
_SAVED_NAME_FOR_INPUT = {0: ("self", "input", "mat1"), 1: ("other", "mat2", "exponent", "weight")}


@dataclass
class Naming:
    """What the program called things, by object identity (valid while the objects live).

    ``tensors`` maps ``id(tensor)`` to a name (leaves and any named tensor);
    ``outputs`` maps ``(id(grad_fn), output_nr)`` to the name of the tensor it produced;
    ``values`` maps ``id(grad_fn)`` to the forward outputs recorded while the program ran.
    """

    tensors: dict[int, str] = field(default_factory=dict)
    outputs: dict[tuple[int, int], str] = field(default_factory=dict)
    values: dict[int, tuple[torch.Tensor, ...]] = field(default_factory=dict)

    def name_of_tensor(self, t: torch.Tensor) -> str | None:
        name = self.tensors.get(id(t))
        if name is None and t.grad_fn is not None:
            name = self.outputs.get((id(t.grad_fn), t.output_nr))
        return name


@dataclass
class WalkedGraph:
    """The plain graph plus, for the engine only, the live node behind each key."""

    graph: Graph
    functions: dict[str, Any]  # key -> torch.autograd.graph.Node


def _leaf_node(
    key: str, variable: torch.Tensor, naming: Naming, ledger: StorageLedger
) -> GraphNode:
    var = naming.name_of_tensor(variable)
    storage = ledger.storage_of(variable)
    return _graph_node(
        key=key,
        name="AccumulateGrad",
        label=var or "leaf",
        kind="leaf",
        var=var,
        value=read_tensor_data(variable),
        storage=None if storage is None else storage.storage,
    )


def walk_graph(root: torch.Tensor, naming: Naming, output_label: str | None) -> WalkedGraph:
    """The autograd graph of ``root``, read before any backward frees its saved tensors.

    Parameters
    ----------
    root
        The tensor whose history to walk (the output being differentiated).
    naming
        The user's names for tensors and recorded forward values, by identity.
    output_label
        The user's name for ``root`` (``None`` if unnamed).
    """
    # Every read as of a plain tensor: torch's own subclasses answer reads in Python, and
    # a lazy layer's `UninitializedParameter` raises ValueError for each (an engine error).
    with torch._C.DisableTorchFunction():
        return _walk(root, naming, output_label)


def _walk(root: torch.Tensor, naming: Naming, output_label: str | None) -> WalkedGraph:
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    functions: dict[str, Any] = {}
    out_label = output_label or "output"
    ledger = StorageLedger()  # numbers the storages of saved tensors and leaves
    output_node = _graph_node(
        key="output", name="output", label=out_label, kind="output", value=read_tensor_data(root)
    )
    if root.grad_fn is None:
        if root.requires_grad:  # a leaf differentiated directly: d x / d x
            leaf = _leaf_node("0:AccumulateGrad", root, naming, ledger)
            nodes.append(leaf)
            edges.append(_graph_edge(source=leaf.key, target="output", kind="output"))
            nodes.append(output_node)
            return WalkedGraph(_finish(nodes, edges, leaf.key, False), {})
        return WalkedGraph(_finish([output_node], [], None, False), {})

    keys: dict[int, str] = {}
    queue: deque[Any] = deque()

    def key_for(fn: Any) -> str | None:
        k = keys.get(id(fn))
        if k is None:
            if len(keys) >= MAX_FUNCTION_NODES:
                return None
            k = f"{len(keys)}:{type(fn).__name__}"
            keys[id(fn)] = k
            functions[k] = fn
            queue.append(fn)
        return k

    root_key = key_for(root.grad_fn)
    assert root_key is not None
    truncated = False
    while queue:
        fn = queue.popleft()
        key = keys[id(fn)]
        next_functions = fn.next_functions
        saved = _read_saved(fn, naming, ledger)
        constants = _constants(next_functions, saved) if saved else {}
        nodes.extend(_function_nodes(key, fn, naming, saved, constants, ledger))
        for index, (child, _nr) in enumerate(next_functions):
            if child is None:
                nodes.append(_constant_node(key, index, constants.get(index)))
                edges.append(
                    _graph_edge(
                        source=f"{key}/const:{index}",
                        target=key,
                        kind="constant",
                        input_index=index,
                    )
                )
                continue
            child_key = key_for(child)
            if child_key is None:
                truncated = True
                continue
            edges.append(_graph_edge(source=child_key, target=key, kind="data", input_index=index))
    edges.append(_graph_edge(source=root_key, target="output", kind="output"))
    nodes.append(output_node)
    return WalkedGraph(_finish(nodes, edges, root_key, truncated), functions)


def _function_nodes(
    key: str,
    fn: Any,
    naming: Naming,
    saved: Mapping[str, SavedValue],
    constants: Mapping[int, SavedValue],
    ledger: StorageLedger,
) -> list[GraphNode]:
    """The node for ``fn`` itself, followed by one node per tensor it saved (except those
    shown on a constant input's node, ``constants``)."""
    class_name = type(fn).__name__
    if class_name == "AccumulateGrad":
        return [_leaf_node(key, fn.variable, naming, ledger)]
    fn_id = id(fn)
    recorded = naming.values.get(fn_id, ())
    if len(recorded) <= 1:
        var = naming.outputs.get((fn_id, 0)) or None
    else:
        names = [naming.outputs.get((fn_id, nr)) for nr in range(len(recorded))]
        var = ", ".join(n for n in names if n) or None
    node = _graph_node(
        key=key,
        name=class_name,
        label=var or class_name,
        kind="function",
        var=var,
        value=read_tensor_data(recorded[0]) if len(recorded) == 1 else None,
        saved=tuple(saved.values()),
        output_count=max(len(recorded), 1),
    )
    if not saved:
        return [node]
    shown = {s.name for s in constants.values()}
    saved_nodes = [
        _graph_node(
            key=f"{key}/saved:{s.name}",
            name="saved",
            label=f"{s.name} = {s.refers_to}" if s.refers_to else s.name,
            kind="saved",
            var=s.refers_to,
            value=s.tensor,
            owner=key,
        )
        for s in saved.values()
        if (s.tensor is not None or s.freed) and s.name not in shown
    ]
    return [node, *saved_nodes]


def _constants(
    next_functions: tuple[tuple[Any, int], ...], saved: Mapping[str, SavedValue]
) -> dict[int, SavedValue]:
    """For each constant (no-grad) input, by position, the saved tensor shown on its node
    instead of a saved node of its own."""
    found = {}
    for index, (child, _nr) in enumerate(next_functions):
        if child is None:
            match = _saved_for_input(index, saved)
            if match is not None:
                found[index] = match
    return found


def _saved_for_input(index: int, saved: Mapping[str, SavedValue]) -> SavedValue | None:
    for name in _SAVED_NAME_FOR_INPUT.get(index, ()):
        s = saved.get(name)
        if s is not None and s.tensor is not None:
            return s
    return None


def _constant_node(owner: str, index: int, match: SavedValue | None) -> GraphNode:
    var = match.refers_to if match is not None else None
    return _graph_node(
        key=f"{owner}/const:{index}",
        name="constant",
        label=var or "constant",
        kind="constant",
        var=var,
        value=match.tensor if match is not None else None,
        owner=owner,
    )


# Node class -> its ``_saved_*`` attributes, each with its name without the prefix.
_SAVED_ATTRIBUTES: dict[type, tuple[tuple[str, str], ...]] = {}


def _saved_attributes(node_type: type) -> tuple[tuple[str, str], ...]:
    """``_saved_*`` attribute names of a node class (``dir`` is slow; classes are few)."""
    names = _SAVED_ATTRIBUTES.get(node_type)
    if names is None:
        names = tuple(
            (a, a.removeprefix("_saved_")) for a in dir(node_type) if a.startswith("_saved_")
        )
        _SAVED_ATTRIBUTES[node_type] = names
    return names


def _read_saved(fn: Any, naming: Naming, ledger: StorageLedger) -> dict[str, SavedValue]:
    """Everything ``fn`` saved for backward, by name without the ``_saved_`` prefix, with
    where its tensors' numbers live (``ledger`` numbers the storages).

    The getters are called right here, nowhere else: the allowlist knows this function as
    the graph's reader, for which a program's saved-tensor unpack hook does not run.
    """
    result: dict[str, SavedValue] = {}
    for attr, name in _saved_attributes(type(fn)):
        try:
            raw = getattr(fn, attr)
        except RuntimeError:  # freed by an earlier backward without retain_graph
            result[name] = _saved_value(name=name, freed=True)
            continue
        if raw is None:
            result[name] = _saved_value(name=name, value=None)
        elif isinstance(raw, torch.Tensor):
            memory = ledger.storages_of(raw)
            result[name] = _saved_value(
                name=name,
                tensor=read_tensor_data(raw),
                refers_to=naming.name_of_tensor(raw),
                memory=memory,
            )
        else:
            memory = ledger.storages_of(raw)
            result[name] = _saved_value(name=name, value=_plain(raw), memory=memory)
    return result


def _plain(raw: object) -> object:
    """A JSON-friendly stand-in for a non-tensor saved attribute."""
    if isinstance(raw, bool | int | float | str):
        return raw
    if isinstance(raw, torch.Size | tuple | list):
        items = [_plain(v) for v in raw]
        return items
    if isinstance(raw, torch.Tensor):
        return read_tensor_data(raw).values
    if isinstance(raw, torch.dtype):
        return str(raw).removeprefix("torch.")
    return repr(raw)


def _finish(
    nodes: list[GraphNode], edges: list[GraphEdge], root: str | None, truncated: bool
) -> Graph:
    return Graph(
        nodes=tuple(nodes),
        edges=tuple(edges),
        root=root,
        structure_key=structure_key(nodes, edges),
        truncated=truncated,
    )


# The keys of the last few structures walked, by what they were computed from: a slider
# tick walks the same structure again, and looking its 20,000 entries up (the same tuples,
# compared for equality) costs a fraction of writing them out as JSON to hash them.
_KNOWN_STRUCTURES: dict[tuple[Any, ...], str] = {}
MAX_KNOWN_STRUCTURES = 8


def structure_key(nodes: list[GraphNode], edges: list[GraphEdge]) -> str:
    """A hash of what decides the layout: nodes, edges and tensor shapes (never values).

    Shapes are in because box sizes depend on them: ``x`` growing from 3 to 4 elements
    is a new layout, ``x`` changing its numbers is not.
    """
    described = (
        *[(n.key, n.kind, n.label, None if n.value is None else n.value.shape) for n in nodes],
        tuple([(e.source, e.target, e.kind, e.input_index) for e in edges]),
    )
    key = _KNOWN_STRUCTURES.get(described)
    if key is None:
        # Tuples are written as JSON arrays: the same text, so the same key, as lists.
        key = hashlib.sha1(json.dumps(described).encode()).hexdigest()[:16]
        if len(_KNOWN_STRUCTURES) >= MAX_KNOWN_STRUCTURES:
            _KNOWN_STRUCTURES.clear()
        _KNOWN_STRUCTURES[described] = key
    return key
