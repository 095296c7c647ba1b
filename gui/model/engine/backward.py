"""Run one real ``backward`` call and record what it did (engine side: imports torch).

Before the call: walk the graph (saved tensors are still readable), compute the Jacobian
(for the usual ``loss.backward()`` it is read from the call's own gradients instead, after
it), and note every leaf's ``.grad``. During it: a prehook and a hook on every graph node
see the gradient arriving at and leaving each node. After it: the leaves' new ``.grad`` and
the check that what was added equals ``J^T v``. The call itself is torch's own, unchanged, so
every number and every error is exactly what plain PyTorch gives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from gui.model.engine.detail_walk import walk_detail
from gui.model.engine.flow_hooks import FlowHooks, leaf_gradients
from gui.model.engine.graph_walk import Naming, WalkedGraph
from gui.model.engine.jacobian import (
    compute_jacobians,
    jacobian_problem,
    jacobians_from_gradients,
    not_differentiable_again,
    vjp_checks,
)
from gui.model.engine.program_code import in_autograd as program_code_in_autograd
from gui.model.engine.tensors import maybe_tensor_data, tensor_data
from gui.model.paused_collector import collector_running, paused_during
from gui.model.request import Detail
from gui.model.result import Explanation, JacobianCheck, NodeFlow, StepRecord, TensorData

RawBackward = Callable[..., None]
# The engine's own bookkeeping around a call (copying ``.grad``, reading shapes) skips the
# forward recorder (:mod:`.recorder`): through it, each of those small torch calls costs
# ~15 µs, which made a 3000-step loop spend a second on copying two leaves' gradients.
unrecorded = torch._C.DisableTorchFunction


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
    # ``torch.autograd.backward([a, b], ...)`` / ``grad([a, b], ...)``: every tensor (``tensor``
    # is the first); empty for the usual single tensor.
    tensors: tuple[torch.Tensor, ...] = ()
    # ``inputs=`` of backward, or the ``inputs`` of ``torch.autograd.grad``, with their names.
    inputs: tuple[torch.Tensor, ...] | None = None
    input_names: tuple[str, ...] | None = None
    kind: Literal["backward", "grad"] = "backward"
    # The arguments exactly as the program passed them (a list stays a list), so torch sees
    # the very call the program made; ``None``: built from the fields above.
    raw_args: tuple[Any, Any, Any] | None = None  # (tensors, gradient, inputs)
    grad_options: dict[str, Any] = field(default_factory=dict)  # allow_unused...


@dataclass
class RecordedStep:
    """A step's plain record plus the live graph walked for it (engine use only)."""

    record: StepRecord
    walked: WalkedGraph | None
    root_fn: Any
    error: BaseException | None = None
    returned: Any = None  # what ``torch.autograd.grad`` returned, for the program


# No program code runs in here except inside torch's backward (see collector_running).
@paused_during
def record_backward(
    call: BackwardCall,
    index: int,
    leaves: dict[str, torch.Tensor],
    naming: Naming,
    raw_backward: RawBackward,
    detailed: bool,
    explain: Callable[[BaseException], Explanation],
    retained: Sequence[torch.Tensor] = (),
    raw_grad: Callable[..., Any] | None = None,
    detail: Detail | None = None,
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
    raw_grad
        torch's own ``torch.autograd.grad``, for a call of kind ``"grad"``.
    detail
        Read only these nodes of the graph, if it has the structure the window shows
        (see :class:`~gui.model.request.Detail`): their flows too, and the leaves'.
    """
    t = call.tensor
    several = len(call.tensors) > 1
    # Several tensors at once have no one graph to draw: their step keeps the gradients.
    detailed = detailed and not several
    walked, read = walk_detail(t, naming, call.name, detail) if detailed else (None, None)
    # The leaves the call differentiates: its ``inputs`` when it names them.
    targets = leaves
    if call.inputs is not None:
        targets = {n: leaf for n, leaf in leaves.items() if any(leaf is i for i in call.inputs)}
    jacobians: dict[str, torch.Tensor] = {}
    note: str | None = "several tensors at once: no Jacobian is shown" if several else None
    # ``torch.autograd.grad(..., is_grads_batched=True)`` runs backward under vmap: every
    # gradient is a batch of them, which the hooks cannot read (a batched tensor refuses
    # ``detach``) and no single Jacobian row matches; the call runs as torch's own.
    batched = call.kind == "grad" and bool(call.grad_options.get("is_grads_batched"))
    if batched:
        note = "a batched call (is_grads_batched=True): one gradient per row of v, no Jacobian"
    # The usual ``loss.backward()``: the Jacobian's one row is what the call itself sends to
    # the leaves, read by the hooks (:func:`jacobians_from_gradients`), instead of a second
    # backward through the whole graph beforehand (a third of a big graph's backward time).
    from_flows = (
        walked is not None
        and t.grad_fn is not None  # a leaf differentiated directly has no node to hook
        and not walked.graph.truncated
        and call.kind == "backward"
        and call.gradient is None
        and call.inputs is None
        and t.numel() == 1
        and not program_code_in_autograd()
    )
    if batched:
        pass  # (see ``note`` above)
    elif detailed and program_code_in_autograd():
        # A hook or a custom Function's backward would run a second time (printing twice,
        # counting twice): torch's own backward is the only pass.
        note = "the program runs its own code inside autograd (a hook or a custom Function)"
    elif from_flows:
        with unrecorded():
            note = jacobian_problem(t, targets)
    elif detailed:
        kept = [(r, r.grad) for r in retained]
        # As plain tensors, like the graph walk's reads (no program code runs in it, above).
        with unrecorded():
            jacobians, note = compute_jacobians(t, targets)
        for r, g in kept:
            r.grad = g
    with unrecorded():
        before = {name: _grad_copy(leaf) for name, leaf in leaves.items()}
    flows: dict[str, NodeFlow] = {}
    hooks = (
        FlowHooks(_hooked(walked.functions, read), flows)
        if walked is not None and not batched
        else None
    )
    error: BaseException | None = None
    returned: Any = None
    tensors, gradient, inputs = call.raw_args or (t, call.gradient, call.inputs)
    # The program's hooks and custom Functions run inside torch's backward: as the program's
    # code anywhere else, with the collector as it was.
    running = collector_running() if program_code_in_autograd() else contextlib.nullcontext()
    try:
        with running:
            if call.kind == "grad":
                assert raw_grad is not None
                returned = raw_grad(
                    tensors,
                    inputs,
                    gradient,
                    call.retain_graph,
                    call.create_graph,
                    **call.grad_options,
                )
            elif inputs is None:
                raw_backward(tensors, gradient, call.retain_graph, call.create_graph)
            else:
                raw_backward(tensors, gradient, call.retain_graph, call.create_graph, inputs=inputs)
    except Exception as exc:  # torch's own error is the lesson: keep it, then re-raise
        error = exc
    finally:
        if hooks is not None:
            hooks.finish()
    with unrecorded():
        after = {name: _grad_copy(leaf) for name, leaf in leaves.items()}
    given = _returned_by_name(call, returned) if error is None else {}
    if from_flows and note is None and walked is not None:
        if error is None:
            with unrecorded():
                jacobians = jacobians_from_gradients(
                    targets, leaf_gradients(walked.functions, flows, targets)
                )
        elif isinstance(error, RuntimeError):
            # What a second backward beforehand ran into (the same graph, the same error:
            # a saved tensor changed in place, or freed by an earlier call).
            note = not_differentiable_again(error)
    checks: tuple[JacobianCheck, ...] = ()
    if jacobians and error is None:
        seed = _seed_tensor(call.gradient, t)
        if seed is not None:
            if call.kind == "grad":
                contributions = {n: given.get(n) for n in targets}
            else:
                contributions = {n: _difference(after[n], before[n]) for n in targets}
            shapes = {n: tuple(leaf.shape) for n, leaf in targets.items()}
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
        call=call.kind,
        inputs=call.input_names,
        returned={n: None if g is None else tensor_data(g) for n, g in given.items()},
    )
    return RecordedStep(
        record=record, walked=walked, root_fn=t.grad_fn, error=error, returned=returned
    )


def _hooked(functions: dict[str, Any], read: frozenset[str] | None) -> dict[str, Any]:
    """The nodes whose flows a call records: all, or those ``read`` and the leaves (whose
    gradients give a one-element output's Jacobian)."""
    if read is None:
        return functions
    return {
        key: fn
        for key, fn in functions.items()
        if key in read or type(fn).__name__ == "AccumulateGrad"
    }


def _returned_by_name(call: BackwardCall, returned: Any) -> dict[str, torch.Tensor | None]:
    """What ``torch.autograd.grad`` returned, by the names of its inputs (empty otherwise)."""
    if call.kind != "grad" or call.input_names is None or not isinstance(returned, tuple):
        return {}
    return {
        name: g.detach() if isinstance(g, torch.Tensor) else None
        for name, g in zip(call.input_names, returned, strict=False)
    }


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
