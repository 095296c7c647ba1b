"""Naming a live autograd graph for ``explore``: the user's names, their model's
parameters, their variables, and the forward values torch kept (engine side: imports torch).

The engine names a typed program's tensors while it runs the code (:mod:`.bindings`); an
explored graph was built by code the app never saw, so its names come from what the user
hands over and from the graph itself.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from gui.model.engine.checkpoint_stand_in import saved_through_checkpoint
from gui.model.engine.graph_walk import MAX_FUNCTION_NODES, Naming
from gui.model.visible_text import visible_controls

# A leaf nobody named is called this, numbered in the order the walk meets it.
UNNAMED_LEAF = "leaf"


def _tensor_nodes(root: Any) -> Iterator[Any]:
    """Every node of the graph under ``root`` (a ``grad_fn``), breadth-first, at most as
    many as the graph walk keeps."""
    seen = {id(root)}
    queue = deque([root])
    while queue:
        fn = queue.popleft()
        yield fn
        for child, _nr in fn.next_functions:
            if child is not None and id(child) not in seen and len(seen) < MAX_FUNCTION_NODES:
                seen.add(id(child))
                queue.append(child)


def _single_output(fn: Any) -> bool:
    """Whether the node made one tensor (its forward value can stand for the node)."""
    metadata = getattr(fn, "_input_metadata", None)
    return metadata is None or len(metadata) == 1


@dataclass
class NamedGraph:
    """The names of one graph: the engine's :class:`Naming`, the leaves in the user's order
    and the named tensors with a ``grad_fn`` (any of them can be differentiated)."""

    naming: Naming
    leaves: dict[str, torch.Tensor]
    computed: dict[str, torch.Tensor]


def name_graph(
    output: torch.Tensor, output_name: str, sources: Iterable[tuple[str, torch.Tensor]]
) -> NamedGraph:
    """Name the graph of ``output`` from ``sources`` (first name of a tensor wins), then
    name the leaves nobody named ``leaf0``, ``leaf1``... in the walk's order."""
    naming = Naming()
    fns = list(_tensor_nodes(output.grad_fn)) if output.grad_fn is not None else []
    in_graph = {id(fn) for fn in fns}
    graph_leaves = [fn.variable for fn in fns if type(fn).__name__ == "AccumulateGrad"]
    if output.grad_fn is None and output.requires_grad:
        graph_leaves = [output]
    leaf_ids = {id(t) for t in graph_leaves}
    leaves: dict[str, torch.Tensor] = {}
    computed: dict[str, torch.Tensor] = {}
    taken: set[str] = set()
    for name, t in [(output_name, output), *sources]:
        if name in taken or id(t) in naming.tensors:
            continue
        if id(t) in leaf_ids:
            leaves[name] = t
        elif t.grad_fn is not None and id(t.grad_fn) in in_graph:
            computed[name] = t
            naming.outputs[(id(t.grad_fn), t.output_nr)] = name
            if _single_output(t.grad_fn):
                naming.values[id(t.grad_fn)] = (t.detach(),)
        else:
            continue
        naming.tensors[id(t)] = name
        taken.add(name)
    for t in graph_leaves:
        if id(t) not in naming.tensors:
            name = f"{UNNAMED_LEAF}{len(leaves)}"
            while name in taken:
                name += "_"
            leaves[name] = t
            naming.tensors[id(t)] = name
            taken.add(name)
    _forward_values(fns, naming)
    return NamedGraph(naming, leaves, computed)


def _forward_values(fns: list[Any], naming: Naming) -> None:
    """The value each node computed, where torch kept it: what a learner reads on a box.

    There is no forward pass to record here, but the tensors nodes saved for backward are
    forward values: a saved input unpacks with the ``grad_fn`` that made it (so it is
    exactly that node's output), and tanh, sigmoid, exp, relu save their own result.
    """
    in_graph = {id(fn): fn for fn in fns}
    for fn in fns:
        if saved_through_checkpoint(fn):
            continue  # reading would run the checkpointed block again (once per read)
        for attr in _saved_tensor_attributes(type(fn)):
            try:
                saved = getattr(fn, attr)
            except RuntimeError:  # freed by a backward without retain_graph
                continue
            if not isinstance(saved, torch.Tensor):
                continue
            maker = fn if attr == "_saved_result" else saved.grad_fn
            if maker is None or id(maker) not in in_graph or id(maker) in naming.values:
                continue
            if _single_output(maker):
                naming.values[id(maker)] = (saved.detach(),)


_SAVED_ATTRIBUTES: dict[type, tuple[str, ...]] = {}


def _saved_tensor_attributes(node_type: type) -> tuple[str, ...]:
    """``_saved_*`` attribute names of a node class (``dir`` is slow; classes are few)."""
    names = _SAVED_ATTRIBUTES.get(node_type)
    if names is None:
        names = tuple(a for a in dir(node_type) if a.startswith("_saved_"))
        _SAVED_ATTRIBUTES[node_type] = names
    return names


def module_names(prefix: str, module: Any) -> list[tuple[str, torch.Tensor]]:
    """``(qualified name, parameter)`` for every parameter of an ``nn.Module``
    (``0.weight``, ``encoder.layers.3.bias``), prefixed with ``prefix.`` when one is given."""
    named = module.named_parameters()
    return [(f"{prefix}.{n}" if prefix else n, p) for n, p in named]


def named_sources(
    names: Mapping[str, Any] | None,
    model: Any,
    caller: Mapping[str, Any] | None,
) -> list[tuple[str, torch.Tensor]]:
    """The ``(name, tensor)`` pairs ``explore`` names a graph with, most important first.

    ``names``: the user's own (tensors, or modules whose parameters get ``name.param``);
    ``model``: a module whose parameters get their qualified names (``0.weight``);
    ``caller``: the calling code's variables: its tensors by their variable names, the
    parameters of its modules as ``variable.qualified.name``. Names starting with ``_``
    (a notebook's ``_``, ``_3``) are skipped.
    """
    out: list[tuple[str, torch.Tensor]] = []
    for name, value in (names or {}).items():
        found = _named(str(name), value)
        if not found:
            raise TypeError(
                f"names[{name!r}] is a {type(value).__name__}: give a tensor or a module"
            )
        out.extend(found)
    if model is not None:
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"model= takes an nn.Module, not a {type(model).__name__}")
        out.extend(module_names("", model))
    for name, value in (caller or {}).items():
        if not name.startswith("_"):
            out.extend(_named(name, value))
    # A layer's name is any string (`add_module`): one holding a bidirectional override
    # would turn every panel's text showing it around (as in a program, see bindings).
    return [(visible_controls(name), tensor) for name, tensor in out]


def _named(name: str, value: Any) -> list[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.Tensor):
        return [(name, value)]
    if isinstance(value, torch.nn.Module):
        return module_names(name, value)
    return []
