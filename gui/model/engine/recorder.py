"""Record the forward value of every autograd node while the user's code runs.

A ``grad_fn`` knows how to differentiate but not what it computed; a learner wants to see
both. A :class:`torch.overrides.TorchFunctionMode` sees every torch call, including the
operators and the hidden ``0 + q[0]`` of Python's ``sum``, so it can remember each result
by the node that produced it.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from gui.model.engine.graph_walk import Naming
from gui.model.engine.node_of import node_of
from gui.model.engine.tensors import NotKept, deferred_value, recorded_value

# A long training loop builds a fresh graph every iteration; only the latest matter, so the
# table is simply emptied when it grows this large (the next ops fill it again).
MAX_RECORDED_NODES = 20_000

# What ``torch.autograd.forward_ad.make_dual`` calls: a program that made a dual tensor
# used forward-mode AD (see :attr:`ForwardRecorder.made_dual`).
_MAKE_DUAL = torch._make_dual


class ForwardRecorder(TorchFunctionMode):
    """Fills ``naming.values[id(grad_fn)]`` with each recorded op's :func:`recorded_value` s."""

    def __init__(
        self, naming: Naming, defer: bool = False, wanted: frozenset[int] | None = None
    ) -> None:
        super().__init__()
        self.naming = naming
        # A run that reads only some nodes keeps values unread (see deferred_value), and
        # of the nodes made ``wanted``-th (the ones in view) only: the others' shapes.
        self._keep = deferred_value if defer else recorded_value
        self._wanted = wanted
        self._made = 0  # nodes met so far: the next one's place (GraphNode.made)
        self._alive: dict[int, Any] = {}  # keeps nodes alive so their ids stay unique
        # Whether the program made a dual tensor (forward-mode AD): a program that does and
        # never calls backward gets no automatic one (it asked for Jacobian-vector products).
        self.made_dual = False

    @property
    def nodes_made(self) -> int:
        """How many nodes the run made so far (all of them, kept or not)."""
        return self._made

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        result = func(*args, **(kwargs or {}))
        if func is _MAKE_DUAL:
            self.made_dual = True
        if isinstance(result, torch.Tensor):
            try:  # node_of, inlined: a big graph's program makes thousands of ops
                node = result.grad_fn
            except RuntimeError:  # a no_grad view whose base changed in place (see node_of)
                return result
            if node is not None:
                # The usual op, one output, remembered right here: a big graph's program
                # makes thousands, and every step saved is a microsecond of its run.
                alive, naming = self._alive, self.naming
                if len(alive) >= MAX_RECORDED_NODES:
                    alive.clear()
                    naming.values.clear()
                    naming.made.clear()
                made = self._made
                self._made = made + 1
                alive[id(node)] = node
                naming.made[id(node)] = made
                wanted = self._wanted
                if wanted is not None and made not in wanted:
                    naming.values[id(node)] = (NotKept(result),)
                else:
                    naming.values[id(node)] = (self._keep(result),)
        elif isinstance(result, tuple | list) and result:
            self._remember_many(result)
        return result

    def _remember_many(self, results: tuple[Any, ...] | list[Any]) -> None:
        by_node: dict[int, list[torch.Tensor]] = {}
        nodes: dict[int, Any] = {}
        for t in results:
            if not isinstance(t, torch.Tensor):
                continue
            node = node_of(t)
            if node is not None:
                by_node.setdefault(id(node), []).append(t)
                nodes[id(node)] = node
        for key, tensors in by_node.items():
            self._remember(nodes[key], tuple(sorted(tensors, key=lambda t: t.output_nr)))

    def _remember(self, node: Any, outputs: tuple[torch.Tensor, ...]) -> None:
        naming = self.naming
        if len(self._alive) >= MAX_RECORDED_NODES:
            self._alive.clear()
            naming.values.clear()
            naming.made.clear()
        made = self._made
        self._made = made + 1
        self._alive[id(node)] = node
        naming.made[id(node)] = made
        keep = self._keep
        if self._wanted is not None and made not in self._wanted:
            keep = NotKept
        naming.values[id(node)] = tuple(map(keep, outputs))
