"""Run a user's program with real torch and record everything, as plain data.

This module runs inside the engine's child process (see :mod:`gui.model.engine_process`), but
it is an ordinary function, so tests can call it in-process:
``run_program(RunRequest(Program(code=...)))``.

How a run goes:

1. The code is checked (:func:`gui.model.safety.check_source`) and rewritten so attribute
   access goes through the runtime guard. Nothing runs if it is refused.
2. Top-level statements run one at a time; after each, :class:`Bindings` records the names
   of new tensors and applies the session's leaf values and ``retain_grad`` requests.
3. While the code runs, ``torch.autograd.backward`` (which ``Tensor.backward`` calls) is
   replaced by a recorder that runs torch's real backward inside
   :func:`gui.model.engine.backward.record_backward`. ``print`` and warnings are captured.
4. Then the session's own backward steps run on the output tensor, and everything is
   converted to a :class:`RunResult`.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import math
import random
import sys
import time
import typing
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import CodeType
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd import Variable

from gui.model import explain, safety
from gui.model.engine import guard, pristine
from gui.model.engine.allowlist import allowlist
from gui.model.engine.backward import BackwardCall, RecordedStep, record_backward, unrecorded
from gui.model.engine.bindings import Bindings
from gui.model.engine.budget import bounded
from gui.model.engine.capture import (
    PROGRAM_FILENAME,
    FirstAndLast,
    OutputLimitReached,
    PrintCapture,
    WarningCapture,
    exception_position,
    none_grads,
    program_frames,
    program_line,
)
from gui.model.engine.checkpoint_stand_in import forget_checkpoints
from gui.model.engine.detail_walk import walk_detail
from gui.model.engine.graph_walk import Naming
from gui.model.engine.node_of import let_go, node_of
from gui.model.engine.recorder import ForwardRecorder
from gui.model.engine.tensors import NO_NUMBERS, tensor_data
from gui.model.paused_collector import collector_paused, collector_running, paused_during
from gui.model.request import BackwardStep, Program, RunRequest, retains_graph
from gui.model.result import MAX_STEP_VALUES, Explanation, Graph, RunResult, TensorData

# A training loop can call backward thousands of times; past these budgets a step records
# only the leaves' gradients, so the result stays small enough to send and draw quickly.
MAX_DETAILED_STEPS = 100
MAX_DETAILED_NODES = 20_000
# A guard, not a budget: the time limit ends a long loop first (a step costs ~0.2 ms).
MAX_STEPS = 1_000_000
# Steps a result keeps: the first and the last this many; the calls in between are run and
# counted but not recorded (600 calls once made a 150 MB result). The first are the
# detailed ones; the last end where the learner's loop got to. Results are bounded in
# bytes too (:mod:`.budget`).
KEPT_STEPS = 100


# What a program that got rid of its checked builtins is told (the static check and the
# guard refuse every way known to do it; see _Run.execute).
BUILTINS_REPLACED = (
    "`__builtins__` is not available: the program removed or replaced the builtins it runs "
    "with, and nothing runs without them."
)


class _Run:
    """State of one run. Not reused: a new instance per :func:`run_program` call."""

    def __init__(self, request: RunRequest) -> None:
        self.request = request
        self.program = request.program
        self.lines = request.program.code.splitlines()
        self.namespace: dict[str, Any] = {}
        self.naming = Naming()
        detail = request.detail
        self.recorder = ForwardRecorder(
            self.naming,
            defer=detail is not None,
            wanted=frozenset(detail.made) if detail is not None and detail.made else None,
        )
        self.bindings = Bindings(
            self.namespace, self.naming, request.program.values, request.program.retain_grad
        )
        self.steps: FirstAndLast[RecordedStep] = FirstAndLast(KEPT_STEPS)
        self.step_count = 0  # backward calls made, kept or not
        self.last_step: RecordedStep | None = None
        self.walked_nodes = 0  # graph nodes recorded across steps, for the detail budget
        self.printed = PrintCapture(lambda: self.step_count, self._step_running)
        self.warned = WarningCapture(self._warning_context)
        self.last_backward_tensor: torch.Tensor | None = None
        self.backward_context = explain.ErrorContext()
        # The backward call running now, and its number among the session's calls (1, 2...;
        # ``None`` for the code's own): an error inside it is placed and named from these.
        self.current_call: BackwardCall | None = None
        self.session_call: int | None = None
        # The last call that freed its graph: "second time" errors name it.
        self.freed_by: _Freed | None = None
        # The line of the code's last own backward call: where an unnamed output was made
        # (``y.sum().backward()``), for a session call on it to point at.
        self.last_code_backward_line: int | None = None
        self.raw_backward = _REAL_BACKWARD
        self.step_values: list[float | None] = []  # see RunResult.step_values
        self.step_values_left_out = 0
        self.output_source: Literal["session", "code", "last-grad-fn"] | None = None
        self.no_added_backward: Literal["forward-ad"] | None = None  # see RunResult

    def release(self) -> None:
        """Drop everything the run holds (see :func:`run_program`): it is over."""
        self.__dict__.clear()

    # -- running the code -------------------------------------------------------------

    def execute(self, statements: tuple[tuple[CodeType, int], ...]) -> Explanation | None:
        """Run the program statement by statement; the first error stops it, as in Python."""
        builtins = guard.safe_builtins(self.printed)
        self.namespace.update(
            {
                "__builtins__": builtins,
                "__name__": "__main__",
                "torch": torch,
                "tensor": torch.tensor,
                "F": F,
                "math": math,
                "Variable": Variable,
            }
        )
        for code, line in statements:
            # exec() gives a namespace without "__builtins__" the real builtins (open,
            # __import__...): the checks refuse every way to remove or rebind the name, and
            # this makes sure, statement by statement, that no way was missed.
            if self.namespace.get("__builtins__") is not builtins:
                return explain.explain_refusal(
                    BUILTINS_REPLACED,
                    "__builtins__",
                    line=line,
                    column=None,
                    while_running=True,
                )
            try:
                with self.recorder:
                    exec(code, self.namespace)
            except OutputLimitReached:
                return explain.explain_runaway("output", line=line)
            except (Exception, guard.CodeRefusedAtRuntime) as exc:
                return self.explain(exc)
            finally:
                self.bindings.update(line)
        return None

    def _source(self, line: int | None) -> str | None:
        if line is None or not 1 <= line <= len(self.lines):
            return None
        return self.lines[line - 1].strip()

    def _warning_context(self, line: int | None) -> explain.ErrorContext:
        source = self._source(line)
        return explain.ErrorContext(
            source_line=source,
            leaves=tuple(self.bindings.leaves()),
            attribute_owner=self.bindings.grad_owner(source),
            program=self.program.code,
        )

    # -- backward ---------------------------------------------------------------------

    def code_backward(
        self,
        tensors: Any,
        grad_tensors: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        grad_variables: Any = None,
        inputs: Any = None,
    ) -> None:
        """Stands in for ``torch.autograd.backward`` while the user's code runs: ``t.backward()``,
        ``torch.autograd.backward([a, b], grad_tensors=...)``, ``backward(inputs=[w])``."""
        outputs = _tensor_tuple(tensors)
        wanted = _tensor_tuple(inputs) if inputs is not None else None
        if grad_variables is not None or outputs is None or (inputs is not None and not wanted):
            # Forms torch itself rejects or deprecated ones: run as is, torch says what is wrong.
            self.raw_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=inputs)
            return
        call = self._code_call("backward", outputs, grad_tensors, wanted, retain_graph)
        call.create_graph = create_graph
        call.raw_args = (tensors, grad_tensors, inputs)
        recorded = self.backward(call)
        if recorded.error is not None:
            raise recorded.error

    def code_grad(
        self,
        outputs: Any,
        inputs: Any,
        grad_outputs: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        options: dict[str, Any] | None = None,
    ) -> Any:
        """Stands in for ``torch.autograd.grad`` called by the user's code: recorded as a step
        like ``backward`` (it adds nothing to ``.grad``: the step keeps what it returned)."""
        targets = _tensor_tuple(outputs)
        wanted = _tensor_tuple(inputs)
        if targets is None or not wanted:
            return _REAL_GRAD(
                outputs, inputs, grad_outputs, retain_graph, create_graph, **(options or {})
            )
        call = self._code_call("grad", targets, grad_outputs, wanted, retain_graph)
        call.create_graph = create_graph
        call.raw_args = (outputs, grad_outputs, inputs)
        call.grad_options = dict(options or {})
        recorded = self.backward(call)
        if recorded.error is not None:
            raise recorded.error
        return recorded.returned

    def _code_call(
        self,
        kind: Literal["backward", "grad"],
        outputs: tuple[torch.Tensor, ...],
        gradients: Any,
        inputs: tuple[torch.Tensor, ...] | None,
        retain_graph: bool | None,
    ) -> BackwardCall:
        """The code's own call (its line, its tensors' names) as a :class:`BackwardCall`."""
        single = isinstance(gradients, tuple | list) and len(gradients) == 1
        with unrecorded():
            zeroed = self._grads_were_zeroed()
        names = [self.bindings.name_of(t) for t in outputs]
        name = names[0]
        if len(outputs) > 1:
            name = ", ".join(n or "(unnamed)" for n in names)
        input_names = None
        if inputs is not None:
            input_names = tuple(
                self.bindings.name_of(t) or f"inputs[{i}]" for i, t in enumerate(inputs)
            )
        call = BackwardCall(
            tensor=outputs[0],
            gradient=gradients[0] if single else gradients,
            retain_graph=retain_graph,
            create_graph=False,
            source="code",
            line=program_line(),
            zero_grad=zeroed,
            name=name,
            tensors=outputs if len(outputs) > 1 else (),
            inputs=inputs,
            input_names=input_names,
            kind=kind,
        )
        self.last_code_backward_line = call.line
        return call

    def _step_running(self) -> int | None:
        """The backward call running now, from 1 (``None``: none is)."""
        return None if self.current_call is None else self.step_count + 1

    def backward(self, call: BackwardCall) -> RecordedStep:
        """Run and record one backward call (from the code or from the session)."""
        if self.step_count >= MAX_STEPS:
            raise RuntimeError(f"more than {MAX_STEPS:,} backward calls: stopped")
        if call.tensor.is_meta:
            raise NoNumbers(
                "this tensor is on the 'meta' device: it has a shape but no numbers, and "
                "every panel here shows numbers; make it on the CPU (the default device)"
            )
        self.last_backward_tensor = call.tensor
        gradient = call.gradient
        with unrecorded():
            self._note_value(call)
            leaves = self.bindings.leaves()
            retained = self.bindings.retaining()
            self.backward_context = explain.ErrorContext(
                constants=self.bindings.constants(),
                tensor=call.name,
                tensor_shape=tuple(call.tensor.shape),
                gradient_shape=tuple(gradient.shape)
                if isinstance(gradient, torch.Tensor)
                else None,
                source_line=self._source(call.line),
                leaves=tuple(leaves),
                program=self.program.code,
            )
        detailed = self.step_count < MAX_DETAILED_STEPS and self.walked_nodes < MAX_DETAILED_NODES
        self.current_call = call
        try:
            recorded = record_backward(
                call,
                self.step_count,
                leaves,
                self.naming,
                self.raw_backward,
                detailed=detailed,
                explain=self.explain,
                retained=retained,
                raw_grad=_REAL_GRAD,
                detail=self.request.detail,
            )
        finally:
            self.current_call = None
            self.backward_context = explain.ErrorContext()
        if recorded.record.graph is not None:
            self.walked_nodes += len(recorded.record.graph.nodes)
        if recorded.error is None:
            freed = not call.retain_graph and not call.create_graph
            self.freed_by = _Freed(call.source, call.line, self.session_call) if freed else None
        self.steps.add(recorded)
        self.step_count += 1
        self.last_step = recorded
        return recorded

    def _note_value(self, call: BackwardCall) -> None:
        """Keep the value of the call's tensor when it is one number (the loss of a training
        loop's step): the whole history costs a float per call."""
        if len(self.step_values) >= MAX_STEP_VALUES:
            self.step_values_left_out += 1
            return
        t = call.tensor
        value: float | None = None
        if not call.tensors and t.numel() == 1 and not t.is_complex() and not t.is_meta:
            value = float(t.detach())  # (a meta tensor has a shape and no number)
        self.step_values.append(value)

    def _grads_were_zeroed(self) -> bool:
        """Whether the leaves' gradients were zeroed (or set to None) since the last step.

        Observed rather than intercepted, so every way of zeroing counts:
        ``x.grad.zero_()``, ``x.grad.data.zero_()``, ``x.grad = None``...
        """
        if self.last_step is None:
            return False
        previous = self.last_step.record.grads_after
        had_grad = False
        for name, leaf in self.bindings.leaves().items():
            if not _any_nonzero(previous.get(name)):
                continue
            had_grad = True
            if leaf.grad is not None and bool(torch.any(leaf.grad != 0)):
                return False
        return had_grad

    def zero_leaf_grads(self) -> None:
        """``.grad.zero_()`` on every leaf that has a gradient, as a training loop does."""
        for leaf in self.bindings.leaves().values():
            if leaf.grad is not None:
                leaf.grad.zero_()

    def run_session_steps(
        self, output: torch.Tensor, name: str | None, steps: tuple[BackwardStep, ...]
    ) -> Explanation | None:
        for number, step in enumerate(steps, start=1):
            if step.zero_grad:
                self.zero_leaf_grads()
            try:
                gradient = (
                    None
                    if step.gradient is None
                    else torch.tensor(step.gradient, dtype=output.dtype)
                )
            except (TypeError, ValueError, RuntimeError) as exc:
                return self.explain(exc)
            call = BackwardCall(
                tensor=output,
                gradient=gradient,
                # Automatic keeps the graph for the next call (a Backward press): torch
                # itself would free it and fail the next one.
                retain_graph=retains_graph(steps, number - 1),
                create_graph=step.create_graph,
                source="session",
                line=None,
                zero_grad=step.zero_grad,
                name=name,
            )
            self.session_call = number
            try:
                recorded = self.backward(call)
            except NoNumbers as exc:  # the program's tensor, not the app's failure
                return self.explain(exc)
            finally:
                self.session_call = None
            if recorded.record.error is not None:
                return recorded.record.error
        return None

    # -- explaining -------------------------------------------------------------------

    def explain(self, exc: BaseException) -> Explanation:
        call = self.current_call
        step = self.last_step
        if call is None and step is not None and exc is step.error and step.record.error:
            # The code's own backward call failed and its error reached the program: it was
            # explained where it was raised, knowing the call (the tensor's name and shape).
            return step.record.error
        line, column = exception_position(exc)
        if line is None and call is not None:
            # Raised inside torch's backward: the code's own call is at its line; a session
            # call has no line of its own, so point at where its tensor is made, which is
            # where the fix (``.sum()``, a different shape...) goes.
            if call.source == "code":
                line = call.line
            elif call.name is not None:
                line = self.bindings.first_line.get(call.name)
            else:  # the code's own backward made it, unnamed: ``y.sum().backward()``
                line = self.last_code_backward_line
        if line is not None and not 1 <= line <= len(self.lines):
            line = None  # never a line the program does not have
        explained = self._explain_at(exc, line, column)
        if call is not None and call.source == "session":
            return self._session_call_explained(explained, call)
        return explained

    def _session_call_explained(self, explained: Explanation, call: BackwardCall) -> Explanation:
        """``explained`` saying which of the session's calls failed (it has no line in the
        code: the line marked is where its tensor is made) and, for a "second time" error,
        which call freed the graph."""
        args = ["v"] if call.gradient is not None else []
        if call.retain_graph is not None:
            args.append(f"retain_graph={call.retain_graph}")
        written = f"backward({', '.join(args)})"
        if call.name is not None:
            written = f"{call.name}.{written}"
        text = (
            f"This is the Backward tab's call {self.session_call} (`{written}`), "
            "not a line of your code"
        )
        if explained.line is not None:
            made = f"`{call.name}`" if call.name is not None else "the tensor it differentiates"
            text += f"; line {explained.line} is where {made} is made"
        text += ". "
        fix = explained.fix
        freed = self.freed_by
        if explained.kind == "backward-twice" and freed is not None:
            if freed.source == "code":
                at = f" at line {freed.line}" if freed.line is not None else ""
                text += f"Before it, your code's own backward{at} freed the graph. "
                fix = (
                    f"Add retain_graph=True to the backward{at} (Keep the graph in the "
                    "Backward tab does it), so the graph is still there for this call."
                )
            else:
                text += (
                    f"Before it, the Backward tab's call {freed.session_call} ran with "
                    "retain_graph=False (unticked) and freed the graph. "
                )
                fix = (
                    "Tick retain_graph=True again (automatic keeps the graph whenever another "
                    "call follows), or click Keep the graph in the Backward tab."
                )
        return replace(explained, explanation=text + explained.explanation, fix=fix)

    def _explain_at(self, exc: BaseException, line: int | None, column: int | None) -> Explanation:
        if isinstance(exc, guard.CodeRefusedAtRuntime):
            return explain.explain_refusal(
                exc.message,
                _refused_construct(self._source(line)),
                line=line,
                column=column,
                while_running=True,
            )
        message = exception_text(exc)
        if isinstance(exc, RecursionError):
            return explain.explain_runaway("recursion", line=line)
        if isinstance(exc, MemoryError) or "can't allocate memory" in message:
            return explain.explain_runaway("memory", line=line)
        context = self.backward_context
        if context == explain.ErrorContext():  # not inside a backward call
            source = self._source(line)
            frames = program_frames(exc)
            context = explain.ErrorContext(
                source_line=source,
                leaves=tuple(self.bindings.leaves()),
                constants=self.bindings.constants(),
                program=self.program.code,
                call_lines=tuple(at for _, at in frames[:-1]),
                none_grads=none_grads(frames[-1][0], source) if frames else (),
            )
        return explain.explain_exception(
            type(exc).__name__, message, line=line, column=column, context=context
        )

    # -- the output -------------------------------------------------------------------

    def choose_output(self) -> tuple[torch.Tensor | None, str | None, Explanation | None]:
        """The tensor the session's steps differentiate, its name, or why there is none."""
        wanted = self.program.output
        if wanted is not None:
            value = self.bindings.tensor(wanted)
            if value is not None:
                self.output_source = "session"
                return value, wanted, None
            choices = ", ".join(self.bindings.order) or "the program defines no tensors yet"
            return (
                None,
                None,
                Explanation(
                    kind="unknown-output",
                    message=f"output: the program has no tensor named {wanted!r}",
                    explanation="The session names a tensor to differentiate that the program "
                    "does not define (any more).",
                    fix=f"Pick one of: {choices}.",
                ),
            )
        # The one rule (docs/session-format.md, "How a session runs"): the tensor the code
        # last called backward (or torch.autograd.grad) on; else the last tensor the code
        # assigned that has a grad_fn; else none (never a leaf or a tensor without a graph).
        if self.last_backward_tensor is not None:
            t = self.last_backward_tensor
            self.output_source = "code"
            return t, self.bindings.name_of(t), None
        for name in reversed(self.bindings.assigned):
            value = self.bindings.tensor(name)
            if value is not None and node_of(value) is not None:
                self.output_source = "last-grad-fn"
                return value, name, None
        return None, None, None

    def why_no_added_backward(self) -> Literal["forward-ad"] | None:
        """Why the app adds no backward call while the session asks for none (press
        Backward and it does): the program used forward-mode AD and never reverse mode
        (its own backward or grad, a chosen output), so an added ``backward()`` of its
        last tensor is a call nobody asked for (a non-scalar one fails); ``None``: the
        usual automatic call is added. Called before the session's calls run."""
        asked_reverse = self.step_count > 0 or self.program.output is not None
        if self.recorder.made_dual and not asked_reverse:
            return "forward-ad"
        return None

    def kept_steps(self) -> list[RecordedStep]:
        """The steps the result keeps, in order (the first and the last)."""
        return [*self.steps.head, *self.steps.tail]

    def output_graph(self, output: torch.Tensor, name: str | None) -> Graph:
        """The output's graph as walked before its first backward, else walked now."""
        for step in self.kept_steps():
            if (node := node_of(output)) is not None:
                same = step.root_fn is node
            else:
                same = step.record.tensor == name
            if step.walked is not None and same:
                return step.walked.graph
        return walk_detail(output, self.naming, name, self.request.detail)[0].graph


@dataclass(frozen=True)
class _Freed:
    """A backward call that freed its graph: the code's (at ``line``) or the session's
    (its number, ``session_call``)."""

    source: str
    line: int | None
    session_call: int | None


NO_TENSOR = Explanation(
    kind="no-output",
    message="No tensor has a grad_fn: there is nothing to differentiate, so no backward ran.",
    explanation="Autograd works on tensors computed from leaves that require grad: there is "
    "no graph until the program computes one, for example from a leaf with "
    "requires_grad=True.",
    fix="Start with `x = torch.tensor([1., 2., 3.], requires_grad=True)` and then "
    "`y = (x ** 2).sum()`.",
    severity="warning",
)


def _tensor_tuple(value: Any) -> tuple[torch.Tensor, ...] | None:
    """A tensor or a sequence of tensors as a tuple; ``None`` for anything else."""
    if isinstance(value, torch.Tensor):
        return (value,)
    if isinstance(value, tuple | list) and all(isinstance(v, torch.Tensor) for v in value):
        return tuple(value)
    return None


class NoNumbers(RuntimeError):
    """A backward call on a tensor with no numbers to show (the ``meta`` device)."""


def exception_text(exc: BaseException) -> str:
    """``str(exc)``, or a placeholder when the program's exception cannot say what it is
    (its ``__str__`` raises, or its ``args`` hold itself): still the program's error, never
    an error of the app's."""
    try:
        return str(exc)
    except (Exception, RecursionError):
        return "<the exception's text could not be made: its __str__ failed>"


def _refused_construct(source_line: str | None) -> str:
    return source_line or "this line"


def _any_nonzero(data: TensorData | None) -> bool:
    if data is None:
        return False
    stack = [data.values]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        elif v is None or v != 0:
            return True
    return False


# torch's own backward and grad, taken before anything stands in for them.
_REAL_BACKWARD = torch.autograd.backward
_REAL_GRAD = torch.autograd.grad
# The run whose code is executing: at most one at a time in a process.
_ACTIVE: list[_Run] = []


def recorded_backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Stands in for ``torch.autograd.backward`` (which ``Tensor.backward`` calls) while a
    program runs, so every backward it makes is recorded by the active run.

    One function for every run, so the allowlist can list it by identity. A call made while
    a step is being recorded is torch's own (``torch.autograd.backward`` hands a list of
    tensors to the forward recorder, which calls this again): it goes straight to torch.
    """
    run = _ACTIVE[-1]
    if run.current_call is not None:
        _REAL_BACKWARD(
            tensors,
            grad_tensors,
            retain_graph,
            create_graph,
            grad_variables=grad_variables,
            inputs=inputs,
        )
        return
    run.code_backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)


def recorded_grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> Any:
    """Stands in for ``torch.autograd.grad`` while a program runs: a call from the program's
    own code is recorded as a step; torch's calls (the Jacobian view, ``torch.autograd.
    functional``) and calls made while a step is being recorded go straight to torch."""
    options: dict[str, Any] = {
        "only_inputs": only_inputs,
        "allow_unused": allow_unused,
        "is_grads_batched": is_grads_batched,
        "materialize_grads": materialize_grads,
    }
    run = _ACTIVE[-1] if _ACTIVE else None
    caller = sys._getframe(1).f_code.co_filename
    if run is None or run.current_call is not None or caller != PROGRAM_FILENAME:
        return _REAL_GRAD(outputs, inputs, grad_outputs, retain_graph, create_graph, **options)
    return run.code_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, options)


@contextmanager
def _backward_recorded_by(run: _Run) -> Iterator[None]:
    """Route ``torch.autograd.backward`` (and so ``Tensor.backward``) and
    ``torch.autograd.grad`` through ``run``."""
    _ACTIVE.append(run)
    torch.autograd.backward = recorded_backward
    torch.autograd.grad = recorded_grad
    try:
        yield
    finally:
        torch.autograd.backward = _REAL_BACKWARD
        torch.autograd.grad = _REAL_GRAD
        _ACTIVE.pop()


allowlist().grant(recorded_backward)
allowlist().grant(recorded_grad)


@functools.lru_cache(maxsize=32)
def _compiled(code: str) -> tuple[tuple[CodeType, int], ...] | safety.CodeRefused:
    """The checked program as one code object per top-level statement, with its line.

    Cached by source: dragging a slider re-runs the same code many times a second, and
    checking and compiling it again each time would cost more than running it.
    """
    try:
        tree = safety.prepare_for_execution(safety.check_source(code))
    except safety.CodeRefused as refused:
        return refused
    return tuple(
        (compile(ast.Module(body=[stmt], type_ignores=[]), PROGRAM_FILENAME, "exec"), stmt.lineno)
        for stmt in tree.body
    )


# Looks at a finished run's live tensors (the output, the named leaves) before they go:
# the function view's sweep (:mod:`.sweep`) differentiates a gradient once more there.
Inspect = Callable[[torch.Tensor | None, dict[str, torch.Tensor]], None]


# A drag tick whose structure changed is run again only if it took less than this share of
# its time limit (see run_program)...
RERUN_SHARE = 0.35
# ...and if the values it left unread hold at most this many numbers, a complex number
# counting COMPLEX_COPY_COST: the run again copies them all, about 0.6 us a number here and
# 4 us a complex one (a Python call each), and the job's limit covers both runs (red team,
# round 16: a lean tick of 40 complex tensors of 4,096 numbers took 0.2 s, again 1 s).
RERUN_MAX_NUMBERS = 200_000
COMPLEX_COPY_COST = 8


def run_program(request: RunRequest, inspect: Inspect | None = None) -> RunResult:
    """Run ``request`` and return everything it produced as plain data.

    The program's own errors do not raise: they end the run and come back in
    ``RunResult.error``, explained, like everything else the learner should see.
    ``inspect``, if given, is called after the backward calls of a run without error.
    """
    detail = request.detail
    # What the rerun below starts from: the first run's settings are put back first.
    baseline = pristine.capture() if detail is not None and detail.made else None
    started = time.perf_counter()
    result = _run_once(request, inspect)
    # All the first run took (``elapsed_seconds`` leaves out fitting the result into its
    # budget, seconds for a few thousand nodes of complex numbers): the job's time limit
    # counts every bit of it.
    took = time.perf_counter() - started
    if (
        detail is not None
        and baseline is not None
        and _walked_whole(result)
        and took < request.time_limit * RERUN_SHARE
        and _unread_numbers(result) <= RERUN_MAX_NUMBERS
        # As between jobs: the rerun starts from the settings the first run found.
        and pristine.put_back(baseline)
    ):
        # Another structure than the one on screen (the code took another branch while a
        # slider was dragged): walked whole, but with the forward values of the nodes
        # that were in view only. Once more, keeping every value, as a run without
        # ``made`` does (rare: a drag tick of the same code makes the same structure).
        # A long run is not made twice (the job's time limit covers both): its other
        # nodes say they have no numbers until the drag ends and a run reads them all.
        result = _run_once(replace(request, detail=replace(detail, made=())), inspect)
    return result


def _unread_numbers(result: RunResult) -> int:
    """How many numbers the forward values ``result`` left unread hold (those a run that
    keeps every value would copy), a complex one counting :data:`COMPLEX_COPY_COST`."""
    graphs = {id(g): g for g in (result.graph, *(step.graph for step in result.steps)) if g}
    total = 0
    for graph in graphs.values():
        for node in graph.nodes:
            value = node.value
            if value is not None and value.values is None and value.summary is NO_NUMBERS:
                cost = COMPLEX_COPY_COST if value.dtype.startswith("complex") else 1
                total += value.numel * cost
    return total


def _walked_whole(result: RunResult) -> bool:
    """Whether a graph of ``result`` with function nodes was walked whole."""
    graphs = [result.graph, *(step.graph for step in result.steps)]
    return any(
        g is not None and not g.partial and any(n.kind == "function" for n in g.nodes)
        for g in graphs
    )


def _run_once(request: RunRequest, inspect: Inspect | None) -> RunResult:
    started = time.perf_counter()
    run = _Run(request)
    program = request.program
    statements = _compiled(program.code)
    if isinstance(statements, safety.CodeRefused):
        refused = statements
        refusal = explain.explain_refusal(
            refused.message,
            refused.construct,
            line=refused.line,
            column=refused.column,
            kind=refused.kind,
        )
        return _result(run, None, None, None, refusal, started)
    # The child process is reused: undo what a previous program may have set.
    # (CPU generator only: torch.manual_seed also formats a stack trace for CUDA, costing ms.)
    torch.default_generator.manual_seed(program.seed)
    random.seed(program.seed)  # `import random` starts from the same state on every run
    np.random.seed(program.seed % 2**32)  # and numpy's global generator
    guard.reset_run_state()
    forget_checkpoints()
    torch.set_printoptions(profile="default")
    # torch gives some warnings once per process (TORCH_WARN_ONCE: a tensor that requires
    # grad turned into a float...), and this process ran the program before (a slider tick)
    # or warmed up: every run sees them, as a fresh `python script.py` does. Repeats inside
    # a run are dropped by the warning capture; the setting is put back after the run.
    torch.set_warn_always(True)
    # The collector, paused once the program's statements have run (:func:`_run_checked`),
    # comes back on last: the engine process's collection after a run is then the first
    # to look at what the run made (one pass over a big graph's result, not two).
    with contextlib.ExitStack() as engine_only:
        try:
            return _run_checked(run, program, request, statements, started, inspect, engine_only)
        finally:
            # Nothing of this program may wait in a library's cache for the next run (every
            # run ends here, so the next one starts with them empty).
            _forget_library_caches()
            # Nor stay alive with its namespace: custom Functions and hooks make cycles
            # through torch's C++ nodes that the collector cannot free (plain torch leaks
            # them too), and such a cycle would keep every object of the run, suspended
            # generators included.
            # The run is in reference cycles of its own (its captures call back into it):
            # what it holds (every step's walked graph, torch's nodes and saved tensors)
            # is let go here, by reference counting, instead of waiting for the engine's
            # collection after the run to find it (100 ms for a 5,000-node graph). A deep
            # graph's nodes one at a time (see node_of.let_go).
            let_go(functools.partial(_let_go_of, run), run.recorder.nodes_made)


def _let_go_of(run: _Run) -> None:
    run.namespace.clear()
    run.release()


def _forget_library_caches() -> None:
    """Empty the caches of library code a program reaches that can hold its objects:
    ``typing.Optional[obj]`` keeps ``obj`` and, on the next run's lookup, calls its
    ``__eq__`` (the previous program's code) on the new program's objects."""
    for cleanup in getattr(typing, "_cleanups", ()):
        cleanup()


def _run_checked(
    run: _Run,
    program: Program,
    request: RunRequest,
    statements: tuple[tuple[CodeType, int], ...],
    started: float,
    inspect: Inspect | None,
    engine_only: contextlib.ExitStack,
) -> RunResult:
    """The checked program's run, from pristine settings: its code, then the backward
    calls of the session; the collector is paused in ``engine_only`` after the code."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = run.warned
        with _backward_recorded_by(run):
            error = run.execute(statements)
        # The rest is the engine's own work, but for the program's hooks inside torch's
        # backward (see collector_running): no collections until the result is built,
        # so what the steps made is looked at once, after the run (:mod:`.collector`).
        engine_only.enter_context(collector_paused())
        output, name, output_error = run.choose_output()
        if error is None:
            error = output_error
        if error is None and output is not None:
            steps = program.steps
            run.no_added_backward = run.why_no_added_backward()
            if steps is None:
                added = not run.step_count and run.no_added_backward is None
                steps = (BackwardStep(),) if added else ()
            error = run.run_session_steps(output, name, steps)
        if error is None and request.zero_grad_after:
            run.zero_leaf_grads()
        if error is None and inspect is not None:
            with collector_running():  # differentiates again: the program's hooks run
                inspect(output, run.bindings.leaves())
        # After the steps: the first one on the output walked its graph before freeing.
        graph = run.output_graph(output, name) if output is not None else None
    return _result(run, output, name, graph, error, started)


# Engine code only: a big graph's result is many objects (see gui.model.paused_collector).
@paused_during
def _result(
    run: _Run,
    output: torch.Tensor | None,
    name: str | None,
    graph: Graph | None,
    error: Explanation | None,
    started: float,
) -> RunResult:
    run.bindings.note_unused_values()
    result = RunResult(
        tensors=run.bindings.infos(),
        leaves=tuple(run.bindings.leaves()),
        output=name,
        output_value=None if output is None else tensor_data(output),
        output_grad_fn=None
        if output is None or (node := node_of(output)) is None
        else type(node).__name__,
        graph=graph,
        steps=tuple(s.record for s in run.kept_steps()),
        printed=tuple(run.printed.lines),
        error=error,
        warnings=(
            *run.bindings.notes,
            *run.warned.explained,
            *((NO_TENSOR,) if output is None and error is None else ()),
        ),
        seed=run.program.seed,
        output_truncated=run.printed.truncated,
        elapsed_seconds=time.perf_counter() - started,
        steps_left_out=run.steps.left_out,
        steps_gap=len(run.steps.head) if run.steps.left_out else 0,
        output_source=run.output_source if output is not None else None,
        step_values=tuple(run.step_values),
        step_values_left_out=run.step_values_left_out,
        no_added_backward=run.no_added_backward if output is not None else None,
    )
    return bounded(result)
