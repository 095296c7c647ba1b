"""Walk a graph reading only the nodes a run was asked for (engine side: imports torch).

While a slider is dragged on a big graph, the window asks for the nodes in view
(:class:`~gui.model.request.Detail`). :func:`walk_detail` walks the graph as
:func:`.graph_walk.walk_graph` does, with the same keys, labels, shapes and edges, so the
same structure key, but makes records only of the nodes read (with the saved values and
constant inputs they own, and the output): a *partial* graph
(:attr:`~gui.model.result.Graph.partial`). The others are described only as far as the
key needs them, without a record each: a tick on a 5,000-function graph reads a few dozen.
While the program runs, the forward recorder copies the values of those nodes only, named
by the order the run makes its nodes in (:attr:`~gui.model.request.Detail.made`).
If the key is not the one on screen (the code took another branch, a shape changed), the
graph is walked whole instead (and the run made once more keeping every value: see
:func:`.run.run_program`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import torch

# The node records are made as the whole walk makes them (the same helpers).
from gui.model.engine.graph_walk import (
    _NO_CONSTANTS,
    MAX_FUNCTION_NODES,
    Naming,
    WalkedGraph,
    _add_saved_nodes,
    _constant_node,
    _constants,
    _described_key,
    _function_node,
    _graph_node,
    _leaf_node,
    _node_class,
    _read_saved,
    walk_graph,
)
from gui.model.engine.saved_memory import StorageLedger
from gui.model.engine.tensors import NO_NUMBERS, SharedReads
from gui.model.request import Detail
from gui.model.result import Graph, GraphNode, TensorData


def walk_detail(
    root: torch.Tensor, naming: Naming, output_label: str | None, detail: Detail | None
) -> tuple[WalkedGraph, frozenset[str] | None]:
    """:func:`walk_graph` for a run asked for ``detail``: the partial graph of the nodes it
    names, with the keys read, if the graph has the structure the window shows; else
    (or with no ``detail``) the whole graph, and ``None``."""
    if detail is not None and root.grad_fn is not None:
        # Saved and constant nodes are read with the node that owns them ("3:Mul/saved:self").
        read = frozenset(key.partition("/")[0] for key in detail.nodes)
        with torch._C.DisableTorchFunction():  # (as walk_graph reads)
            lean = _walk_lean(root, naming, output_label, read)
        if lean.graph.structure_key == detail.structure_key:
            return lean, read
    return walk_graph(root, naming, output_label), None


# What the structure key is made of, per node and per edge (see
# graph_walk.structure_key).
Described = tuple[Any, ...]


def _walk_lean(
    root: torch.Tensor, naming: Naming, output_label: str | None, read: Collection[str]
) -> WalkedGraph:
    """The whole walk's graph for a run that reads only the nodes ``read``: the same keys, labels,
    shapes and edges, so the same structure key, but records only of the nodes read (and
    what they own, and the output): no edges (a partial graph). The others are
    described as the key needs them, without a record each: the walk of a slider tick on
    a 5,000-function graph that shows a few dozen of them."""
    root_fn = root.grad_fn
    ledger = StorageLedger()
    reads = SharedReads()
    nodes: list[GraphNode] = []
    described: list[Described] = []
    edges: list[Described] = []
    functions: dict[str, Any] = {}
    root_key = f"0:{type(root_fn).__name__}"
    keys: dict[int, str] = {id(root_fn): root_key}
    functions[root_key] = root_fn
    met: list[Any] = [root_fn]
    truncated = False
    recorded_values, output_names = naming.values, naming.outputs
    describe, add_edge = described.append, edges.append

    def add_read(node: GraphNode) -> None:
        nodes.append(node)
        describe((node.key, node.kind, node.label, _shape_of(node.value), node.output_count))

    for fn in met:
        key = keys[id(fn)]
        class_name, saved_attributes = _node_class(type(fn))
        next_functions = fn.next_functions
        reading = key in read
        saved = (
            _read_saved(fn, saved_attributes, naming, ledger, reads, reading)
            if saved_attributes
            else {}
        )
        constants = _constants(next_functions, saved) if saved else _NO_CONSTANTS
        if reading:
            if class_name == "AccumulateGrad":
                add_read(_leaf_node(key, fn.variable, naming, ledger, reads))
            else:
                node = _function_node(key, class_name, fn, saved, naming, reads)
                if node.value is not None and node.value.summary is NO_NUMBERS:
                    # Its forward value changed in place after the op (a ReLU(inplace=True)
                    # after it): gone, unless read when made, as a whole run reads. Left
                    # out, the window keeps the numbers it read last, until the drag ends.
                    describe((key, "function", node.label, node.value.shape, node.output_count))
                else:
                    add_read(node)
                if saved:
                    _add_saved_nodes(key, saved, constants, add_read)
        elif class_name == "AccumulateGrad":
            var = naming.name_of_tensor(fn.variable)
            describe((key, "leaf", var or "leaf", tuple(fn.variable.shape), 1))
        else:
            fn_id = id(fn)
            recorded = recorded_values.get(fn_id, ())
            if len(recorded) <= 1:
                var = output_names.get((fn_id, 0)) or None
                shape = tuple(recorded[0].shape) if recorded else None
            else:
                names = [output_names.get((fn_id, nr)) for nr in range(len(recorded))]
                var, shape = ", ".join(n for n in names if n) or None, None
            describe((key, "function", var or class_name, shape, max(len(recorded), 1)))
            if saved:
                shown = {c.name for c in constants.values()} if constants else ()
                for v in saved.values():
                    if (v.tensor is not None or v.freed) and v.name not in shown:
                        label = f"{v.name} = {v.refers_to}" if v.refers_to else v.name
                        saved_key = f"{key}/saved:{v.name}"
                        describe((saved_key, "saved", label, _shape_of(v.tensor), 1))
        for index, (child, _nr) in enumerate(next_functions):
            if child is None:
                constant_key = f"{key}/const:{index}"
                if reading:
                    add_read(_constant_node(constant_key, key, constants.get(index)))
                else:
                    match = constants.get(index)
                    var = None if match is None else match.refers_to
                    shape = None if match is None else _shape_of(match.tensor)
                    describe((constant_key, "constant", var or "constant", shape, 1))
                add_edge((constant_key, key, "constant", index))
                continue
            child_key = keys.get(id(child))
            if child_key is None:
                if len(keys) >= MAX_FUNCTION_NODES:
                    truncated = True
                    continue
                child_key = keys[id(child)] = f"{len(keys)}:{type(child).__name__}"
                functions[child_key] = child
                met.append(child)
            add_edge((child_key, key, "data", index))
    add_edge((root_key, "output", "output", None))
    output_node = _graph_node(
        key="output",
        name="output",
        label=output_label or "output",
        kind="output",
        value=reads.read(root),
    )
    add_read(output_node)
    key = _described_key((*described, tuple(edges)))
    return WalkedGraph(Graph(tuple(nodes), (), root_key, key, truncated, partial=True), functions)


def _shape_of(value: TensorData | None) -> tuple[int, ...] | None:
    return None if value is None else value.shape
