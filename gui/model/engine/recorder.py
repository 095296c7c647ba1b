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
from gui.model.engine.tensors import recorded_value

# A long training loop builds a fresh graph every iteration; only the latest matter, so the
# table is simply emptied when it grows this large (the next ops fill it again).
MAX_RECORDED_NODES = 20_000


class ForwardRecorder(TorchFunctionMode):
    """Fills ``naming.values[id(grad_fn)]`` with each recorded op's :func:`recorded_value` s."""

    def __init__(self, naming: Naming) -> None:
        super().__init__()
        self.naming = naming
        self._alive: dict[int, Any] = {}  # keeps nodes alive so their ids stay unique

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        result = func(*args, **(kwargs or {}))
        if isinstance(result, torch.Tensor):
            node = result.grad_fn
            if node is not None:
                # The usual op, one output, remembered right here: a big graph's program
                # makes thousands, and every step saved is a microsecond of its run.
                alive = self._alive
                if len(alive) >= MAX_RECORDED_NODES:
                    alive.clear()
                    self.naming.values.clear()
                alive[id(node)] = node
                self.naming.values[id(node)] = (recorded_value(result),)
        elif isinstance(result, tuple | list) and result:
            self._remember_many(result)
        return result

    def _remember_many(self, results: tuple[Any, ...] | list[Any]) -> None:
        by_node: dict[int, list[torch.Tensor]] = {}
        nodes: dict[int, Any] = {}
        for t in results:
            if isinstance(t, torch.Tensor) and t.grad_fn is not None:
                by_node.setdefault(id(t.grad_fn), []).append(t)
                nodes[id(t.grad_fn)] = t.grad_fn
        for key, tensors in by_node.items():
            self._remember(nodes[key], tuple(sorted(tensors, key=lambda t: t.output_nr)))

    def _remember(self, node: Any, outputs: tuple[torch.Tensor, ...]) -> None:
        if len(self._alive) >= MAX_RECORDED_NODES:
            self._alive.clear()
            self.naming.values.clear()
        self._alive[id(node)] = node
        self.naming.values[id(node)] = tuple(recorded_value(t) for t in outputs)
