"""Walk a tensor's ``grad_fn`` into a plain :class:`Graph` (engine side: imports torch).

The walk is breadth-first over ``next_functions`` and iterative, so graphs of thousands of
nodes neither recurse nor stall. Node keys are the breadth-first position plus the class
name: the same program gives the same keys for any input values, which is what lets a view
keep its layout while numbers change.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from gui.model.engine.checkpoint_stand_in import (
    made_in_checkpoint,
    raw_saved_names,
    saved_through_checkpoint,
)
from gui.model.engine.node_of import node_of
from gui.model.engine.records import quick_maker
from gui.model.engine.saved_memory import StorageLedger
from gui.model.engine.tensors import DeferredRead, SharedReads, read_tensor_data
from gui.model.result import Graph, GraphEdge, GraphNode, SavedValue, TensorData

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
    ``values`` maps ``id(grad_fn)`` to the forward outputs recorded while the program ran
    (each a tensor, or its numbers already read: see :func:`.tensors.recorded_value`).
    """

    tensors: dict[int, str] = field(default_factory=dict)
    outputs: dict[tuple[int, int], str] = field(default_factory=dict)
    values: dict[int, tuple[torch.Tensor | TensorData | DeferredRead, ...]] = field(
        default_factory=dict
    )
    # ``id(grad_fn)`` to its place in the order the recorder met the graph's nodes
    # (``GraphNode.made``).
    made: dict[int, int] = field(default_factory=dict)
    # A graph built outside the engine (``explore``): nodes made inside a checkpoint are
    # told by their saved tensors' unpack hook, not by the checkpoint stand-in's notes.
    foreign_checkpoints: bool = False

    def name_of_tensor(self, t: torch.Tensor) -> str | None:
        name = self.tensors.get(id(t))
        if name is None and (node := node_of(t)) is not None:
            name = self.outputs.get((id(node), t.output_nr))
        return name


@dataclass
class WalkedGraph:
    """The plain graph plus, for the engine only, the live node behind each key."""

    graph: Graph
    functions: dict[str, Any]  # key -> torch.autograd.graph.Node


def _leaf_node(
    key: str, variable: torch.Tensor, naming: Naming, ledger: StorageLedger, reads: SharedReads
) -> GraphNode:
    var = naming.name_of_tensor(variable)
    storage = ledger.storage_of(variable)
    return _graph_node(
        key=key,
        name="AccumulateGrad",
        label=var or "leaf",
        kind="leaf",
        var=var,
        value=reads.read(variable),
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

    A run that reads only some nodes walks with :func:`.detail_walk.walk_detail` instead.
    """
    # Every read as of a plain tensor: torch's own subclasses answer reads in Python, and
    # a lazy layer's `UninitializedParameter` raises ValueError for each (an engine error).
    with torch._C.DisableTorchFunction():
        return _walk(root, naming, output_label)


# Shape-only records of saved tensors walked without reading their numbers (never sent:
# they only describe the structure, see detail_walk), one per shape.
_SHAPES: dict[tuple[int, ...], TensorData] = {}


def _shape_only(t: torch.Tensor | TensorData | DeferredRead) -> TensorData:
    shape = tuple(t.shape)
    made = _SHAPES.get(shape)
    if made is None:
        if len(_SHAPES) > 256:
            _SHAPES.clear()
        made = _SHAPES[shape] = TensorData(shape, "", None)
    return made


def _walk(root: torch.Tensor, naming: Naming, output_label: str | None) -> WalkedGraph:
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    functions: dict[str, Any] = {}
    out_label = output_label or "output"
    ledger = StorageLedger()  # numbers the storages of saved tensors and leaves
    reads = SharedReads()  # one record for the same numbers read again
    output_node = _graph_node(
        key="output", name="output", label=out_label, kind="output", value=reads.read(root)
    )
    root_fn = root.grad_fn
    if root_fn is None:
        if root.requires_grad:  # a leaf differentiated directly: d x / d x
            leaf = _leaf_node("0:AccumulateGrad", root, naming, ledger, reads)
            nodes.append(leaf)
            edges.append(_graph_edge(source=leaf.key, target="output", kind="output"))
            nodes.append(output_node)
            return WalkedGraph(_finish(nodes, edges, leaf.key, False), {})
        return WalkedGraph(_finish([output_node], [], None, False), {})

    # The nodes met so far, in breadth-first order: read in place as the queue (a node's
    # children are appended as it is read), by identity in ``keys``.
    root_key = f"0:{type(root_fn).__name__}"
    keys: dict[int, str] = {id(root_fn): root_key}
    functions[root_key] = root_fn
    met: list[Any] = [root_fn]
    truncated = False
    # The loop below runs once per node of a graph of thousands: what it looks up on
    # every turn is looked up once, here.
    add_node, add_edge = nodes.append, edges.append
    graph_edge = _graph_edge
    for fn in met:
        key = keys[id(fn)]
        class_name, saved_attributes = _node_class(type(fn))
        next_functions = fn.next_functions
        saved = _read_saved(fn, saved_attributes, naming, ledger, reads) if saved_attributes else {}
        constants = _constants(next_functions, saved) if saved else _NO_CONSTANTS
        if class_name == "AccumulateGrad":
            add_node(_leaf_node(key, fn.variable, naming, ledger, reads))
        else:
            add_node(_function_node(key, class_name, fn, saved, naming, reads))
            if saved:
                _add_saved_nodes(key, saved, constants, add_node)
        for index, (child, _nr) in enumerate(next_functions):
            if child is None:
                constant_key = f"{key}/const:{index}"
                add_node(_constant_node(constant_key, key, constants.get(index)))
                add_edge(graph_edge(constant_key, key, "constant", index))
                continue
            child_key = keys.get(id(child))
            if child_key is None:
                if len(keys) >= MAX_FUNCTION_NODES:
                    truncated = True
                    continue
                child_key = keys[id(child)] = f"{len(keys)}:{type(child).__name__}"
                functions[child_key] = child
                met.append(child)
            add_edge(graph_edge(child_key, key, "data", index))
    edges.append(_graph_edge(source=root_key, target="output", kind="output"))
    nodes.append(output_node)
    return WalkedGraph(_finish(nodes, edges, root_key, truncated), functions)


_NO_CONSTANTS: dict[int, SavedValue] = {}  # (never written to)


def _function_node(
    key: str,
    class_name: str,
    fn: Any,
    saved: Mapping[str, SavedValue],
    naming: Naming,
    reads: SharedReads,
) -> GraphNode:
    """The record of the function node ``fn``: named after what the program called its
    outputs, with its forward value (one output) and what it saved."""
    fn_id = id(fn)
    recorded = naming.values.get(fn_id, ())
    count = len(recorded)
    value: TensorData | None = None
    if count <= 1:
        var = naming.outputs.get((fn_id, 0)) or None
        if count:
            # Read when recorded (see .tensors.recorded_value), or read now.
            found = recorded[0]
            if isinstance(found, TensorData):
                value = reads.shared(found)
            elif isinstance(found, DeferredRead):
                value = reads.shared(found.read())
            else:
                value = reads.read(found)
    else:
        names = [naming.outputs.get((fn_id, nr)) for nr in range(count)]
        var = ", ".join(n for n in names if n) or None
    return _graph_node(
        key, class_name, var or class_name, "function", var, value, tuple(saved.values()),
        None, max(count, 1), None, naming.made.get(fn_id),
    )  # fmt: skip


def _add_saved_nodes(
    key: str,
    saved: Mapping[str, SavedValue],
    constants: Mapping[int, SavedValue],
    add_node: Callable[[GraphNode], None],
) -> None:
    """One node per tensor the function ``key`` saved, except those shown on a constant
    input's node (``constants``)."""
    shown = {s.name for s in constants.values()} if constants else ()
    for s in saved.values():
        if (s.tensor is not None or s.freed) and s.name not in shown:
            refers_to = s.refers_to
            add_node(
                _graph_node(
                    f"{key}/saved:{s.name}",
                    "saved",
                    f"{s.name} = {refers_to}" if refers_to else s.name,
                    "saved",
                    refers_to,
                    s.tensor,
                    (),
                    key,
                    1,
                    None,
                )
            )


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


def _constant_node(key: str, owner: str, match: SavedValue | None) -> GraphNode:
    """The node ``key`` of a constant input of the function ``owner``."""
    if match is None:
        return _graph_node(key, "constant", "constant", "constant", None, None, (), owner, 1, None)
    var = match.refers_to
    return _graph_node(
        key, "constant", var or "constant", "constant", var, match.tensor, (), owner, 1, None
    )


# Node class -> its name, and its ``_saved_*`` attributes, each with its name without the
# prefix (``dir`` is slow; classes are few).
_NODE_CLASSES: dict[type, tuple[str, tuple[tuple[str, str], ...]]] = {}


def _node_class(node_type: type) -> tuple[str, tuple[tuple[str, str], ...]]:
    known = _NODE_CLASSES.get(node_type)
    if known is None:
        saved = tuple(
            (a, a.removeprefix("_saved_")) for a in dir(node_type) if a.startswith("_saved_")
        )
        known = _NODE_CLASSES[node_type] = (node_type.__name__, saved)
    return known


# A saved attribute that is ``None`` (or freed) is the same record wherever it is met: one
# per name, made once (records are frozen).
_NOTHING_SAVED: dict[tuple[str, bool], SavedValue] = {}


def _nothing_saved(name: str, freed: bool) -> SavedValue:
    made = _NOTHING_SAVED.get((name, freed))
    if made is None:
        made = _NOTHING_SAVED[(name, freed)] = _saved_value(name, freed=freed)
    return made


def _saves_a_tensor(node_type: type, attr: str) -> bool:
    """Whether ``attr`` (``_saved_self``) is a saved tensor (or a list of them), unpacked
    when read, rather than a number or a size kept as it is."""
    return attr.replace("_saved_", "_raw_saved_", 1) in raw_saved_names(node_type)


@functools.cache
def _recomputed(name: str) -> SavedValue:
    return _saved_value(name, recomputed=True)


def _checkpointed(fn: Any, attr: str, name: str) -> SavedValue:
    """What a node made inside a checkpoint saved as ``attr``, without unpacking it: its
    raw saved tensor has an unpack hook (checkpoint's) when a tensor was saved, none when
    the node needed none (``mat2`` of a product whose other side needs no gradient)."""
    try:
        raw = getattr(fn, attr.replace("_saved_", "_raw_saved_", 1))
    except RuntimeError:  # freed by an earlier backward without retain_graph
        return _nothing_saved(name, True)
    held = raw if isinstance(raw, list | tuple) else (raw,)
    if any(r.unpack_hook is not None for r in held):
        return _recomputed(name)
    return _nothing_saved(name, False)


def _read_saved(
    fn: Any,
    attributes: tuple[tuple[str, str], ...],
    naming: Naming,
    ledger: StorageLedger,
    reads: SharedReads,
    reading: bool = True,
) -> dict[str, SavedValue]:
    """Everything ``fn`` saved for backward (its ``attributes``), by name without the
    ``_saved_`` prefix, with where its tensors' numbers live (``ledger`` numbers the
    storages; ``reads`` reads their numbers). Not ``reading``: as far as the structure
    goes only (which attributes hold a tensor, its shape and name; see :func:`walk_graph`).

    The getters are called right here, nowhere else: :mod:`.autograd_nodes` knows it as
    the graph's reader, for which a program's saved-tensor unpack hook does not run.
    Nor are they called for a tensor a node made inside a checkpoint saved: reading it
    would run the program's block again (see :mod:`.checkpoint_stand_in`).
    """
    result: dict[str, SavedValue] = {}
    # Made inside a checkpointed block (the stand-in's notes; outside the engine, any
    # node), and saved through checkpoint's own hooks: a block that pushes saved-tensor
    # hooks of its own keeps those nodes' tensors itself, and backward never runs it again
    # for them (red team, round 14).
    recomputed = (made_in_checkpoint(fn) or naming.foreign_checkpoints) and (
        saved_through_checkpoint(fn)
    )
    for attr, name in attributes:
        if recomputed and _saves_a_tensor(type(fn), attr):
            result[name] = _checkpointed(fn, attr, name)
            continue
        try:
            raw = getattr(fn, attr)
        except RuntimeError:  # freed by an earlier backward without retain_graph
            result[name] = _nothing_saved(name, True)
            continue
        if raw is None:
            result[name] = _nothing_saved(name, False)
        elif not reading:
            tensor = _shape_only(raw) if isinstance(raw, torch.Tensor) else None
            refers_to = naming.name_of_tensor(raw) if tensor is not None else None
            result[name] = _saved_value(name, tensor, None, refers_to, False, ())
        elif isinstance(raw, torch.Tensor):
            found = ledger.storage_of(raw)  # (what storages_of gives a tensor)
            result[name] = _saved_value(
                name,
                reads.read(raw),
                None,
                naming.name_of_tensor(raw),
                False,
                () if found is None else (found,),
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
    """A hash of what decides the layout: nodes, edges, tensor shapes and output counts
    (never values).

    Shapes are in because box sizes depend on them: ``x`` growing from 3 to 4 elements
    is a new layout, ``x`` changing its numbers is not. So is a function's number of
    outputs (``torch.split(x, sizes)``, the sizes read from a value): a box has a gradient
    line per output. A node's other fields follow from these (a function's ``name`` is
    its key's class, its ``var`` its label).
    """
    described = (
        *[
            (n.key, n.kind, n.label, None if n.value is None else n.value.shape, n.output_count)
            for n in nodes
        ],
        tuple([(e.source, e.target, e.kind, e.input_index) for e in edges]),
    )
    return _described_key(described)


def _described_key(described: tuple[Any, ...]) -> str:
    """The key of a structure described as :func:`structure_key` describes it."""
    key = _KNOWN_STRUCTURES.get(described)
    if key is None:
        # Tuples are written as JSON arrays: the same text, so the same key, as lists.
        key = hashlib.sha1(json.dumps(described).encode()).hexdigest()[:16]
        if len(_KNOWN_STRUCTURES) >= MAX_KNOWN_STRUCTURES:
            _KNOWN_STRUCTURES.clear()
        _KNOWN_STRUCTURES[described] = key
    return key
