"""The gradients arriving at and leaving every node of one backward call (engine side).

A prehook and a hook on each node of the walked graph fill a :class:`NodeFlow` per node as
torch's own backward runs; what arrived at the leaves also gives the Jacobian of a
one-element output (:func:`leaf_gradients`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from gui.model.engine.program_code import in_autograd as program_code_in_autograd
from gui.model.engine.records import quick_maker
from gui.model.engine.tensors import read_tensor_data
from gui.model.result import NodeFlow, TensorData

# The engine's own reads skip the forward recorder (see :mod:`.backward`).
unrecorded = torch._C.DisableTorchFunction


class FlowHooks:
    """A prehook and a hook on every node of a walked graph, filling :class:`NodeFlow` s.

    torch's engine runs one node at a time with both hooks around it: the prehook notes
    when the node ran and what arrived at it, the hook reads what left and makes the flow.
    A node whose backward raises gets no hook call: :meth:`finish` makes its flow from
    what arrived and nothing leaving, so the step shows where it failed.

    The prehook keeps what arrived as torch's tensors until the hook reads them with the
    rest. Read at once instead where something could change them in between: the
    program's own code in autograd (a custom Function may write into its ``grad_output``),
    and an ``AccumulateGrad`` node, which takes the tensor over as the leaf's ``.grad``
    only when nobody else holds it (holding a big one would make torch copy it).

    A gradient that leaves one node and arrives unchanged at the next (a chain: most of a
    big graph) is read once and its :class:`TensorData` shared by both flows (:meth:`_read`):
    half the reads, and half the objects to send. Every read is of torch's own gradient
    tensors with torch functions disabled: no program code runs in these hooks.
    """

    # Small gradients read lately, by identity: a node's inputs' gradients arrive at the
    # nodes run right after it. Held (so no other tensor takes their identity, and torch
    # adds to them out of place), up to this many.
    RECENT = 64

    def __init__(self, functions: dict[str, Any], flows: dict[str, NodeFlow]) -> None:
        self.flows = flows
        self.order: dict[str, int] = {}
        # What arrived, read, or still torch's tensors (see the class docstring).
        self.arriving: dict[str, tuple[TensorData | None, ...]] = {}
        self.pending: dict[str, Sequence[Any]] = {}
        self.recent: dict[int, tuple[torch.Tensor, int, TensorData]] = {}
        self.handles: list[Any] = []
        read_now = program_code_in_autograd()
        add, hooks_for = self.handles.append, self._hooks
        for key, fn in functions.items():
            prehook, hook = hooks_for(key, read_now or type(fn).__name__ == "AccumulateGrad")
            add(fn.register_prehook(prehook))
            add(fn.register_hook(hook))

    def _read(self, grads: Sequence[Any]) -> tuple[TensorData | None, ...]:
        """:func:`read_tensor_data` of each gradient (``None`` for a missing one), sharing
        the read of a tensor read lately if it has not changed since (the same object at
        the same version)."""
        recent, most = self.recent, self.RECENT
        read: list[TensorData | None] = []
        for g in grads:
            if not isinstance(g, torch.Tensor):
                read.append(None)
                continue
            version = g._version
            known = recent.get(id(g))
            if known is not None and known[0] is g and known[1] == version:
                read.append(known[2])
                continue
            data = read_tensor_data(g)
            if data.values is not None:
                if len(recent) >= most:
                    del recent[next(iter(recent))]
                recent[id(g)] = (g, version, data)
            read.append(data)
        return tuple(read)

    def _hooks(
        self, key: str, eager: bool
    ) -> tuple[Callable[[Sequence[Any]], None], Callable[[Sequence[Any], Sequence[Any]], None]]:
        """The prehook and the hook of the node ``key`` (made together: one call per node
        of a graph of thousands)."""
        arriving, pending, order, flows = self.arriving, self.pending, self.order, self.flows
        read, node_flow = self._read, _node_flow

        def hook(grad_inputs: Sequence[Any], grad_outputs: Sequence[Any]) -> None:
            with unrecorded():
                came = arriving.pop(key, None) or read(pending.pop(key, ()) or grad_outputs)
                left = read(grad_inputs)
            number = order.get(key)
            if number is None:
                number = order[key] = len(order)
            flows[key] = node_flow(came, left, number)

        if eager:

            def prehook(grad_outputs: Sequence[torch.Tensor | None]) -> None:
                if key not in order:
                    order[key] = len(order)
                with unrecorded():
                    arriving[key] = read(grad_outputs)

            return prehook, hook

        def pending_prehook(grad_outputs: Sequence[torch.Tensor | None]) -> None:
            if key not in order:
                order[key] = len(order)
            pending[key] = grad_outputs

        return pending_prehook, hook

    def finish(self) -> None:
        """Remove the hooks; a node that raised keeps what arrived at it."""
        for handle in self.handles:
            handle.remove()
        with unrecorded():
            for key, raw in self.pending.items():
                self.arriving[key] = self._read(raw)
        self.pending.clear()
        self.recent.clear()
        for key, came in self.arriving.items():
            if key not in self.flows:
                self.flows[key] = _node_flow(arriving=came, leaving=(), order=self.order[key])
        self.arriving.clear()


_node_flow = quick_maker(NodeFlow)  # one per node of a big graph (see .records)


def leaf_gradients(
    functions: dict[str, Any], flows: dict[str, NodeFlow], leaves: dict[str, torch.Tensor]
) -> dict[str, list[float] | float | None]:
    """What arrived at each leaf's ``AccumulateGrad`` node in this call (``None``: nothing,
    or the leaf is not in the graph), as ``tolist`` read it."""
    key_of = {
        id(fn.variable): key
        for key, fn in functions.items()
        if type(fn).__name__ == "AccumulateGrad"
    }
    gradients: dict[str, list[float] | float | None] = {}
    for name, leaf in leaves.items():
        flow = flows.get(key_of.get(id(leaf), ""))
        arrived = flow.arriving[0] if flow is not None and flow.arriving else None
        gradients[name] = None if arrived is None else arrived.values
    return gradients
