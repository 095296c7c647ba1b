"""Run one real ``backward`` call and record what it did (engine side: imports torch).

Before the call: walk the graph (saved tensors are still readable), compute the Jacobian,
and note every leaf's ``.grad``. During it: a prehook and a hook on every graph node see the
gradient arriving at and leaving each node. After it: the leaves' new ``.grad`` and the
check that what was added equals ``J^T v``. The call itself is torch's own, unchanged, so
every number and every error is exactly what plain PyTorch gives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch

from gui.model.engine.graph_walk import Naming, WalkedGraph, walk_graph
from gui.model.engine.jacobian import compute_jacobians, vjp_checks
from gui.model.engine.tensors import maybe_tensor_data, tensor_data
from gui.model.result import Explanation, JacobianCheck, NodeFlow, StepRecord, TensorData

RawBackward = Callable[..., None]


@dataclass
class BackwardCall:
    """The arguments of one backward call, as torch will receive them."""

    tensor: torch.Tensor
    gradient: Any
    retain_graph: bool | None
    create_graph: bool
    source: Literal["code", "session"]
    line: int | None
    zero_grad: bool
    name: str | None


@dataclass
class RecordedStep:
    """A step's plain record plus the live graph walked for it (engine use only)."""

    record: StepRecord
    walked: WalkedGraph | None
    root_fn: Any
    error: BaseException | None = None


def record_backward(
    call: BackwardCall,
    index: int,
    leaves: dict[str, torch.Tensor],
    naming: Naming,
    raw_backward: RawBackward,
    detailed: bool,
    explain: Callable[[BaseException], Explanation],
    retained: Sequence[torch.Tensor] = (),
) -> RecordedStep:
    """Run ``raw_backward`` for ``call`` and record it as step ``index``.

    Parameters
    ----------
    call
        The tensor and arguments.
    leaves
        The program's named leaves; their ``.grad`` is recorded before and after.
    naming
        Names and forward values for labelling the graph.
    raw_backward
        torch's own ``torch.autograd.backward`` (the engine replaces the public one while
        the user's code runs, so it must not be called here).
    detailed
        Whether to walk the graph, hook every node and compute the Jacobian. Long training
        loops record only the leaves' gradients after the first steps.
    explain
        Turns an exception raised by the call into an explanation.
    retained
        Non-leaf tensors that ``retain_grad()``: computing the Jacobian runs autograd, which
        would add into their ``.grad``, so it is put back afterwards.
    """
    t = call.tensor
    walked = walk_graph(t, naming, call.name) if detailed else None
    jacobians: dict[str, torch.Tensor] = {}
    note: str | None = None
    if detailed:
        kept = [(r, r.grad) for r in retained]
        jacobians, note = compute_jacobians(t, leaves)
        for r, g in kept:
            r.grad = g
    before = {name: _grad_copy(leaf) for name, leaf in leaves.items()}
    flows: dict[str, NodeFlow] = {}
    handles = _hook_nodes(walked, flows) if walked is not None else []
    error: BaseException | None = None
    try:
        raw_backward(t, call.gradient, call.retain_graph, call.create_graph)
    except Exception as exc:  # torch's own error is the lesson: keep it, then re-raise
        error = exc
    finally:
        for h in handles:
            h.remove()
    after = {name: _grad_copy(leaf) for name, leaf in leaves.items()}
    checks: tuple[JacobianCheck, ...] = ()
    if jacobians and error is None:
        seed = _seed_tensor(call.gradient, t)
        if seed is not None:
            contributions = {n: _difference(after[n], before[n]) for n in leaves}
            shapes = {n: tuple(leaf.shape) for n, leaf in leaves.items()}
            checks = vjp_checks(jacobians, seed, contributions, shapes)
    record = StepRecord(
        index=index,
        source=call.source,
        line=call.line,
        tensor=call.name,
        gradient=maybe_tensor_data(call.gradient),
        retain_graph=bool(call.retain_graph),
        create_graph=call.create_graph,
        zero_grad=call.zero_grad,
        grads_before=_as_data(before),
        grads_after=_as_data(after),
        flows=flows,
        graph=walked.graph if walked is not None else None,
        jacobians=checks,
        jacobian_note=note,
        error=explain(error) if error is not None else None,
        details_dropped=not detailed,
    )
    return RecordedStep(record=record, walked=walked, root_fn=t.grad_fn, error=error)


def _hook_nodes(walked: WalkedGraph, flows: dict[str, NodeFlow]) -> list[Any]:
    """Register a prehook and a hook on every node; they fill ``flows`` as backward runs."""
    handles = []
    arriving: dict[str, tuple[TensorData | None, ...]] = {}
    order: dict[str, int] = {}

    def make_prehook(key: str) -> Callable[[Sequence[torch.Tensor | None]], None]:
        def prehook(grad_outputs: Sequence[torch.Tensor | None]) -> None:
            order.setdefault(key, len(order))
            arriving[key] = tuple(maybe_tensor_data(g) for g in grad_outputs)
            flows[key] = NodeFlow(arriving=arriving[key], leaving=(), order=order[key])

        return prehook

    def make_hook(key: str) -> Callable[[Sequence[Any], Sequence[Any]], None]:
        def hook(grad_inputs: Sequence[Any], grad_outputs: Sequence[Any]) -> None:
            flows[key] = NodeFlow(
                arriving=arriving.get(key) or tuple(maybe_tensor_data(g) for g in grad_outputs),
                leaving=tuple(maybe_tensor_data(g) for g in grad_inputs),
                order=order.setdefault(key, len(order)),
            )

        return hook

    for key, fn in walked.functions.items():
        handles.append(fn.register_prehook(make_prehook(key)))
        handles.append(fn.register_hook(make_hook(key)))
    return handles


def _grad_copy(leaf: torch.Tensor) -> torch.Tensor | None:
    g = leaf.grad
    return None if g is None else g.detach().clone()


def _difference(after: torch.Tensor | None, before: torch.Tensor | None) -> torch.Tensor | None:
    if after is None:
        return None
    if before is None:
        return after
    return after - before


def _as_data(grads: dict[str, torch.Tensor | None]) -> dict[str, TensorData | None]:
    return {name: (None if g is None else tensor_data(g)) for name, g in grads.items()}


def _seed_tensor(gradient: Any, output: torch.Tensor) -> torch.Tensor | None:
    """The ``v`` of ``J^T v``: the gradient argument, or 1 for a scalar's implicit seed."""
    if gradient is None:
        return torch.ones_like(output) if output.numel() == 1 else None
    if isinstance(gradient, torch.Tensor) and gradient.numel() == output.numel():
        return gradient
    return None
