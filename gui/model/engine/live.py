"""The engine on a graph that already exists: ``explore(loss)`` in the user's own process.

A typed program is run from its code; here there is no code to run. The user's script
built ``loss`` (and its ``grad_fn`` graph) with their own model, and :class:`LiveGraph`
answers every :class:`~gui.model.request.RunRequest` from that one graph: it ignores the
code and the leaf values (there is no forward pass to repeat) and runs the request's
backward steps on the live graph with the engine's own recorder
(:func:`~gui.model.engine.backward.record_backward`), so the window's panels get the same
:class:`~gui.model.result.RunResult` a typed program gives.

The user's state is theirs: every run starts from copies of the ``.grad`` each leaf holds
when it starts and puts exactly those objects back afterwards, and every call keeps
the graph (``retain_graph=True``), so ``loss.backward()`` still works in the script after
the window closes.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Mapping
from typing import Any

import torch

from gui.model import explain
from gui.model.engine.backward import BackwardCall, record_backward
from gui.model.engine.graph_walk import walk_graph
from gui.model.engine.live_names import name_graph
from gui.model.engine.tensors import tensor_data
from gui.model.request import BackwardStep, RunRequest
from gui.model.result import Explanation, RunResult, StepRecord, TensorInfo

# Past this many calls a step keeps only the leaves' gradients (as a long loop's do).
MAX_DETAILED_STEPS = 100
MAX_DETAILED_NODES = 20_000
DEFAULT_OUTPUT_NAME = "output"

KEEPS_GRAPH = Explanation(
    kind="explore-keeps-graph",
    message="retain_graph=False is not passed to torch here: explore() keeps your graph.",
    explanation="The graph belongs to your script. Freeing it would make your own "
    "loss.backward() fail after the window closes, so every call from the window keeps it.",
    fix="Nothing to do: every call keeps the graph, as if retain_graph=True.",
    severity="warning",
)


class NotExplorable(ValueError):
    """The tensor given to ``explore`` has no autograd graph to show."""


class LiveGraph:
    """Answers run requests from one live autograd graph (see the module docstring).

    Parameters
    ----------
    output
        The tensor to explore (usually a loss).
    output_name
        What to call it (``None``: ``output``).
    names
        ``(name, tensor)`` pairs naming leaves and intermediate tensors, most important
        first (the first name of a tensor wins): the user's ``names``, their model's
        parameters, the variables of the calling code.
    """

    def __init__(
        self,
        output: torch.Tensor,
        output_name: str | None = None,
        names: Iterable[tuple[str, torch.Tensor]] = (),
    ) -> None:
        if not isinstance(output, torch.Tensor):
            raise NotExplorable(f"explore() takes a tensor, not a {type(output).__name__}")
        if output.grad_fn is None and not output.requires_grad:
            raise NotExplorable(
                "this tensor has no autograd graph: it has no grad_fn and does not require "
                "grad (was it computed under torch.no_grad(), or from tensors that do not "
                "require grad?)"
            )
        self.output = output
        self.output_name = output_name or DEFAULT_OUTPUT_NAME
        named = name_graph(output, self.output_name, names)
        self.naming = named.naming
        # The user's model may checkpoint (torch's own checkpoint, not the engine's).
        self.naming.foreign_checkpoints = True
        self.leaves = named.leaves
        self.computed = named.computed

    # -- the user's .grad -------------------------------------------------------------

    def _grad_holders(self) -> dict[str, torch.Tensor]:
        """Every named tensor whose ``.grad`` a backward call changes: the leaves, and the
        intermediates the user called ``retain_grad()`` on."""
        kept = {n: t for n, t in self.computed.items() if t.retains_grad}
        return {**self.leaves, **kept}

    def _users_grads(self) -> dict[str, torch.Tensor | None]:
        """The ``.grad`` objects the tensors hold now: the user's, put back after a run.

        Read at every run, not once: in a notebook the user may call ``loss.backward()``
        or ``zero_grad()`` while the window is open, and that is theirs to keep.
        """
        return {name: t.grad for name, t in self._grad_holders().items()}

    def _start_from(self, grads: Mapping[str, torch.Tensor | None]) -> None:
        # Copies: backward adds into an existing .grad in place.
        with torch.no_grad():
            for name, t in self._grad_holders().items():
                g = grads[name]
                t.grad = None if g is None else g.detach().clone()

    def _put_back(self, grads: Mapping[str, torch.Tensor | None]) -> None:
        for name, t in self._grad_holders().items():
            t.grad = grads[name]

    # -- runs -------------------------------------------------------------------------

    def run(self, request: RunRequest) -> RunResult:
        """Run ``request``'s backward steps on the live graph (its code and values are not
        used: the forward pass is the user's, done). Never raises for torch's errors: they
        come back explained in ``RunResult.error``, as for a typed program."""
        started = time.perf_counter()
        program = request.program
        target = self.computed.get(program.output or "", self.output)
        name = program.output if target is not self.output else self.output_name
        steps = program.steps if program.steps is not None else (BackwardStep(),)
        records: list[StepRecord] = []
        error: Explanation | None = None
        # The Backward tab's retain_grad boxes: caught by hooks during each call, added up
        # as retain_grad() would, never by marking the user's own tensors.
        retained = _Retained({n: t for n, t in self.computed.items() if n in program.retain_grad})
        users = self._users_grads()
        self._start_from(users)
        try:
            walked = 0
            for index, step in enumerate(steps):
                detailed = index < MAX_DETAILED_STEPS and walked < MAX_DETAILED_NODES
                record = self._step(target, name, step, index, detailed, retained)
                records.append(record)
                walked += 0 if record.graph is None else len(record.graph.nodes)
                if record.error is not None:
                    error = record.error
                    break
            if error is None and request.zero_grad_after:
                self._zero_grads()
            tensors = self._infos(retained)
        finally:
            self._put_back(users)
        graph = None
        for record in records:
            if record.graph is not None:
                graph = record.graph
                break
        if graph is None:
            graph = walk_graph(target, self.naming, name).graph
        keeps = any(s.retain_graph is False for s in steps)
        return RunResult(
            tensors=tensors,
            leaves=tuple(self.leaves),
            output=name,
            output_value=tensor_data(target),
            output_grad_fn=None if target.grad_fn is None else type(target.grad_fn).__name__,
            graph=graph,
            steps=tuple(records),
            printed=(),
            error=error,
            warnings=(KEEPS_GRAPH,) if keeps else (),
            seed=program.seed,
            elapsed_seconds=time.perf_counter() - started,
            output_source="session",
            step_values=tuple(_one_number(target) for _ in records),
        )

    def _zero_grads(self) -> None:
        with torch.no_grad():
            for leaf in self.leaves.values():
                if leaf.grad is not None:
                    leaf.grad.zero_()

    def _step(
        self,
        target: torch.Tensor,
        name: str | None,
        step: BackwardStep,
        index: int,
        detailed: bool,
        retained: _Retained,
    ) -> StepRecord:
        if step.zero_grad:
            self._zero_grads()
        try:
            gradient = (
                None
                if step.gradient is None
                else torch.tensor(step.gradient, dtype=target.dtype, device=target.device)
            )
        except (TypeError, ValueError, RuntimeError) as exc:
            return _failed_step(index, name, step, self._explain(exc, target, name))
        call = BackwardCall(
            tensor=target,
            gradient=gradient,
            retain_graph=True,  # never free the user's graph (see KEEPS_GRAPH)
            create_graph=step.create_graph,
            source="session",
            line=None,
            zero_grad=step.zero_grad,
            name=name,
        )
        recorded = record_backward(
            call,
            index,
            self.leaves,
            self.naming,
            retained.backward,
            detailed=detailed,
            explain=lambda exc: self._explain(exc, target, name, gradient),
            # The Jacobian's passes add into what the user's retain_grad() keeps: put back.
            retained=[t for t in self.computed.values() if t.retains_grad],
            raw_grad=torch.autograd.grad,
        )
        return recorded.record

    def _explain(
        self, exc: BaseException, target: torch.Tensor, name: str | None, gradient: Any = None
    ) -> Explanation:
        context = explain.ErrorContext(
            tensor=name,
            tensor_shape=tuple(target.shape),
            gradient_shape=tuple(gradient.shape) if isinstance(gradient, torch.Tensor) else None,
            leaves=tuple(self.leaves),
        )
        return explain.explain_exception(type(exc).__name__, str(exc), context=context)

    def _infos(self, retained: _Retained) -> dict[str, TensorInfo]:
        """Every named tensor as it is now (leaves first, in the user's order)."""
        infos: dict[str, TensorInfo] = {}
        for name, t in [*self.leaves.items(), *self.computed.items()]:
            grad = t.grad if t.is_leaf or t.retains_grad else retained.grads.get(name)
            infos[name] = TensorInfo(
                name=name,
                value=tensor_data(t),
                requires_grad=t.requires_grad,
                is_leaf=t.is_leaf,
                grad_fn=None if t.grad_fn is None else type(t.grad_fn).__name__,
                grad=None if grad is None else tensor_data(grad),
                retains_grad=t.retains_grad or name in retained.tensors,
                line=None,
            )
        return infos


class _Retained:
    """The gradients that arrive at some intermediate tensors during the window's backward
    calls, added up call after call as ``retain_grad()`` keeps them.

    Its :meth:`backward` stands in for torch's in :func:`record_backward`: the hooks are
    on only during the call itself, so the Jacobian's extra passes are not counted.
    """

    def __init__(self, tensors: dict[str, torch.Tensor]) -> None:
        self.tensors = tensors
        self.grads: dict[str, torch.Tensor] = {}

    def backward(self, *args: Any, **kwargs: Any) -> None:
        handles = [
            t.register_hook(functools.partial(self._add, name)) for name, t in self.tensors.items()
        ]
        try:
            torch.autograd.backward(*args, **kwargs)
        finally:
            for handle in handles:
                handle.remove()

    def _add(self, name: str, grad: torch.Tensor) -> None:
        grad = grad.detach()
        before = self.grads.get(name)
        self.grads[name] = grad.clone() if before is None else before + grad


def _one_number(t: torch.Tensor) -> float | None:
    if t.numel() != 1 or t.is_complex():
        return None
    return float(t.detach())


def _failed_step(
    index: int, name: str | None, step: BackwardStep, error: Explanation
) -> StepRecord:
    return StepRecord(
        index=index,
        source="session",
        line=None,
        tensor=name,
        gradient=None,
        retain_graph=True,
        create_graph=step.create_graph,
        zero_grad=step.zero_grad,
        grads_before={},
        grads_after={},
        error=error,
    )
