"""Run a user's program with real torch and record everything, as plain data.

This module runs inside the engine's child process (see :mod:`gui.model.runner`), but it is
an ordinary function, so tests can call it in-process: ``run_program(RunRequest(code=...))``.

How a run goes:

1. The code is checked (:func:`gui.model.safety.check_source`) and rewritten so attribute
   access goes through the runtime guard. Nothing runs if it is refused.
2. Top-level statements run one at a time. After each, newly bound tensors get their names
   recorded, leaf values from the session override what the code wrote, and
   ``retain_grad`` is applied where asked.
3. While the code runs, ``torch.autograd.backward`` (which ``Tensor.backward`` calls) is
   replaced by a recorder that walks the graph, hooks every node, runs torch's real backward
   and records a :class:`StepRecord`. ``print`` and warnings are captured with their lines.
4. Then the session's own backward steps run on the output tensor, and everything is
   converted to a :class:`RunResult`.
"""

from __future__ import annotations

import ast
import math
import sys
import time
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

import torch
import torch.nn.functional as F
from torch.autograd import Variable

from gui.model import explain, guard, safety
from gui.model.backward import BackwardCall, RecordedStep, record_backward
from gui.model.graph import Naming, walk_graph
from gui.model.recorder import ForwardRecorder
from gui.model.results import (
    Explanation,
    Graph,
    PrintedLine,
    RunResult,
    StepRecord,
    TensorInfo,
)
from gui.model.spec import BackwardStep, RunRequest
from gui.model.tensors import tensor_data

PROGRAM_FILENAME = "<program>"
MAX_DETAILED_STEPS = 100
MAX_STEPS = 10_000
MAX_PRINTED_LINES = 1000
MAX_PRINTED_CHARS = 100_000


class _OutputLimitReached(Exception):
    """The program printed more than the app keeps (a runaway loop, usually)."""


def program_line() -> int | None:
    """The line of the user's program currently running (innermost frame), if any."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == PROGRAM_FILENAME:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _exception_position(exc: BaseException) -> tuple[int | None, int | None]:
    """Line and 1-based column of the innermost frame of the user's code in ``exc``."""
    line = column = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == PROGRAM_FILENAME:
            line = frame.lineno
            column = frame.colno + 1 if frame.colno is not None else None
    if line is None and isinstance(exc, SyntaxError):
        line, column = exc.lineno, exc.offset
    return line, column


class _Run:
    """State of one run. Not reused: a new instance per :func:`run_program` call."""

    def __init__(self, request: RunRequest) -> None:
        self.request = request
        self.lines = request.code.splitlines()
        self.namespace: dict[str, Any] = {}
        self.naming = Naming()
        self.recorder = ForwardRecorder(self.naming)
        self.order: list[str] = []  # names of tensors, in the order first bound
        self.assigned: list[str] = []  # names of tensors, most recently (re)bound last
        self.first_line: dict[str, int | None] = {}
        self.bound_ids: dict[str, int] = {}
        self.keepalive: list[Any] = []
        self.pending_values = dict(request.values)
        self.steps: list[RecordedStep] = []
        self.printed: list[PrintedLine] = []
        self.printed_chars = 0
        self.output_truncated = False
        self.warnings: list[Explanation] = []
        self.warning_keys: set[tuple[str, int | None]] = set()
        self.last_backward_tensor: torch.Tensor | None = None
        self.backward_context = explain.ErrorContext()
        self.raw_backward = torch.autograd.backward

    # -- running the code -------------------------------------------------------------

    def execute(self, tree: ast.Module) -> Explanation | None:
        prepared = safety.prepare_for_execution(tree)
        self.namespace.update(
            {
                "__builtins__": guard.safe_builtins(self._print),
                "torch": torch,
                "tensor": torch.tensor,
                "F": F,
                "math": math,
                "Variable": Variable,
            }
        )
        for stmt in prepared.body:
            code = compile(ast.Module(body=[stmt], type_ignores=[]), PROGRAM_FILENAME, "exec")
            error = self._execute_statement(code, stmt.lineno)
            if error is not None:
                return error
        return None

    def _execute_statement(self, code: CodeType, line: int) -> Explanation | None:
        try:
            with self.recorder:
                exec(code, self.namespace)
        except _OutputLimitReached:
            return explain.explain_runaway("output", line=line)
        except Exception as exc:
            return self.explain(exc)
        finally:
            self._after_statement(line)
        return None

    def _after_statement(self, line: int) -> None:
        for name, value in list(self.namespace.items()):
            if not isinstance(value, torch.Tensor) or name.startswith("__"):
                continue
            if self.bound_ids.get(name) == id(value):
                continue
            self.bound_ids[name] = id(value)
            self.keepalive.append(value)
            if name not in self.first_line:
                self.order.append(name)
                self.first_line[name] = line
            if name in self.assigned:
                self.assigned.remove(name)
            self.assigned.append(name)
            self.naming.tensors.setdefault(id(value), name)
            if value.grad_fn is not None:
                self.keepalive.append(value.grad_fn)
                self.naming.outputs.setdefault((id(value.grad_fn), value.output_nr), name)
            self._apply_value_override(name, value)
            if name in self.request.retain_grad:
                self._retain_grad(name, value, line)

    def _apply_value_override(self, name: str, value: torch.Tensor) -> None:
        if name not in self.pending_values:
            return
        wanted = self.pending_values.pop(name)
        if not value.is_leaf:
            self._note("override-ignored", f"values.{name}: {name} is computed from other tensors, not a leaf, so its value cannot be set directly; the session's value was ignored.")
            return
        try:
            new = torch.tensor(wanted, dtype=value.dtype)
        except (TypeError, ValueError, RuntimeError) as exc:
            self._note("override-ignored", f"values.{name}: {exc}; the session's value was ignored.")
            return
        if tuple(new.shape) != tuple(value.shape):
            self._note("override-ignored", f"values.{name} has shape {list(new.shape)} but the code makes {name} with shape {list(value.shape)}; the code's values were used.")
            return
        with torch.no_grad():
            value.copy_(new)

    def _retain_grad(self, name: str, value: torch.Tensor, line: int) -> None:
        if value.requires_grad and not value.is_leaf:
            value.retain_grad()
        elif not value.requires_grad:
            self._note("retain-grad-ignored", f"retain_grad: {name} does not require grad, so it has no gradient to keep.", line)

    def _note(self, kind: str, message: str, line: int | None = None) -> None:
        self.warnings.append(
            Explanation(
                kind=kind,
                message=message,
                explanation="The session asked for something the program does not allow.",
                fix="Edit the session's values or the program so they agree.",
                line=line,
                severity="warning",
            )
        )

    def _print(self, *args: object, sep: str | None = " ", end: str | None = "\n", file: object = None, flush: bool = False) -> None:
        if file is not None:
            raise TypeError("print(file=...) is not available here: printed text goes to the app's output")
        text = (" " if sep is None else sep).join(str(a) for a in args) + ("\n" if end is None else end)
        self.printed_chars += len(text)
        if len(self.printed) >= MAX_PRINTED_LINES or self.printed_chars > MAX_PRINTED_CHARS:
            self.output_truncated = True
            raise _OutputLimitReached
        self.printed.append(PrintedLine(line=program_line(), text=text.removesuffix("\n"), after_step=len(self.steps)))

    def on_warning(self, message: Warning | str, category: type[Warning], filename: str, lineno: int, file: object = None, line: str | None = None) -> None:
        where = program_line()
        key = (str(message), where)
        if key in self.warning_keys:
            return
        self.warning_keys.add(key)
        context = explain.ErrorContext(
            source_line=self._source(where), leaves=tuple(self.leaves()), attribute_owner=self._grad_owner(where)
        )
        self.warnings.append(explain.explain_warning(category.__name__, str(message), line=where, context=context))

    def _grad_owner(self, line: int | None) -> str | None:
        """The non-leaf tensor whose ``.grad`` is read on ``line``, for the warning's fix."""
        source = self._source(line) or ""
        for name in self.order:
            value = self.namespace.get(name)
            if f"{name}.grad" in source and isinstance(value, torch.Tensor) and not value.is_leaf:
                return name
        return None

    def _source(self, line: int | None) -> str | None:
        if line is None or not 1 <= line <= len(self.lines):
            return None
        return self.lines[line - 1].strip()

    # -- backward ---------------------------------------------------------------------

    def leaves(self) -> dict[str, torch.Tensor]:
        out = {}
        for name in self.order:
            value = self.namespace.get(name)
            if isinstance(value, torch.Tensor) and value.is_leaf and value.requires_grad:
                out[name] = value
        return out

    def code_backward(self, tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None, create_graph: bool = False, grad_variables: Any = None, inputs: Any = None) -> None:
        """Stands in for ``torch.autograd.backward`` while the user's code runs."""
        if inputs is not None or grad_variables is not None or not isinstance(tensors, torch.Tensor):
            # Rare forms (several outputs, ``inputs=``): run as is, record the leaves only.
            self.raw_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=inputs)
            return
        gradient = grad_tensors[0] if isinstance(grad_tensors, tuple | list) and len(grad_tensors) == 1 else grad_tensors
        call = BackwardCall(
            tensor=tensors, gradient=gradient, retain_graph=retain_graph, create_graph=create_graph,
            source="code", line=program_line(), zero_grad=self._grads_were_zeroed(), name=self._name_of(tensors),
        )
        recorded = self.backward(call)
        if recorded.error is not None:
            raise recorded.error

    def backward(self, call: BackwardCall) -> RecordedStep:
        if len(self.steps) >= MAX_STEPS:
            raise RuntimeError(f"more than {MAX_STEPS} backward calls: stopped")
        self.last_backward_tensor = call.tensor
        self.backward_context = explain.ErrorContext(
            tensor=call.name,
            tensor_shape=tuple(call.tensor.shape),
            gradient_shape=tuple(call.gradient.shape) if isinstance(call.gradient, torch.Tensor) else None,
            source_line=self._source(call.line),
            leaves=tuple(self.leaves()),
        )
        recorded = record_backward(
            call, len(self.steps), self.leaves(), self.naming, self.raw_backward,
            detailed=len(self.steps) < MAX_DETAILED_STEPS, explain=self.explain,
            retained=self._retaining_tensors(),
        )
        self.backward_context = explain.ErrorContext()
        self.steps.append(recorded)
        return recorded

    def _retaining_tensors(self) -> list[torch.Tensor]:
        named = (self.namespace.get(n) for n in self.order)
        return [t for t in named if isinstance(t, torch.Tensor) and not t.is_leaf and t.retains_grad]

    def _grads_were_zeroed(self) -> bool:
        """Whether the leaves' gradients were zeroed (or set to None) since the last step."""
        if not self.steps:
            return False
        previous = self.steps[-1].record.grads_after
        had_grad = False
        for name, leaf in self.leaves().items():
            old = previous.get(name)
            if old is None or not _any_nonzero(old.values):
                continue
            had_grad = True
            if leaf.grad is not None and bool(torch.any(leaf.grad != 0)):
                return False
        return had_grad

    def _name_of(self, t: torch.Tensor) -> str | None:
        for name in reversed(self.assigned):
            if self.namespace.get(name) is t:
                return name
        return self.naming.name_of_tensor(t)

    def run_session_steps(self, output: torch.Tensor, name: str | None, steps: tuple[BackwardStep, ...]) -> Explanation | None:
        for step in steps:
            if step.zero_grad:
                for leaf in self.leaves().values():
                    if leaf.grad is not None:
                        leaf.grad.zero_()
            try:
                gradient = None if step.gradient is None else torch.tensor(step.gradient, dtype=output.dtype)
            except (TypeError, ValueError, RuntimeError) as exc:
                return self.explain(exc)
            call = BackwardCall(
                tensor=output, gradient=gradient, retain_graph=step.retain_graph, create_graph=step.create_graph,
                source="session", line=None, zero_grad=step.zero_grad, name=name,
            )
            recorded = self.backward(call)
            if recorded.record.error is not None:
                return recorded.record.error
        return None

    # -- explaining -------------------------------------------------------------------

    def explain(self, exc: BaseException) -> Explanation:
        line, column = _exception_position(exc)
        if isinstance(exc, guard.CodeRefusedAtRuntime):
            return explain.explain_refusal(exc.message, str(exc), line=line, column=column)
        if isinstance(exc, RecursionError):
            return explain.explain_runaway("recursion", line=line)
        message = str(exc)
        if isinstance(exc, MemoryError) or "can't allocate memory" in message or "DefaultCPUAllocator" in message:
            return explain.explain_runaway("memory", line=line)
        context = self.backward_context
        if context.source_line is None:
            context = explain.ErrorContext(source_line=self._source(line), leaves=tuple(self.leaves()))
        return explain.explain_exception(type(exc).__name__, message, line=line, column=column, context=context)

    # -- the result -------------------------------------------------------------------

    def choose_output(self) -> tuple[torch.Tensor | None, str | None, Explanation | None]:
        wanted = self.request.output
        if wanted is not None:
            value = self.namespace.get(wanted)
            if isinstance(value, torch.Tensor):
                return value, wanted, None
            return None, None, Explanation(
                kind="unknown-output",
                message=f"output: the program has no tensor named {wanted!r}",
                explanation="The session names a tensor to differentiate that the program does not define (any more).",
                fix=f"Pick one of: {', '.join(self.order) or 'no tensors yet'}.",
            )
        if self.last_backward_tensor is not None:
            t = self.last_backward_tensor
            return t, self._name_of(t), None
        for pick in (lambda v: v.grad_fn is not None, lambda v: v.requires_grad, lambda v: True):
            for name in reversed(self.assigned):
                value = self.namespace.get(name)
                if isinstance(value, torch.Tensor) and pick(value):
                    return value, name, None
        return None, None, None

    def output_graph(self, output: torch.Tensor, name: str | None) -> Graph:
        """The output's graph as walked before its first backward, else walked now."""
        for step in self.steps:
            same = step.root_fn is output.grad_fn if output.grad_fn is not None else step.record.tensor == name
            if step.walked is not None and same:
                return step.walked.graph
        return walk_graph(output, self.naming, name).graph

    def tensor_infos(self) -> dict[str, TensorInfo]:
        infos = {}
        for name in self.order:
            value = self.namespace.get(name)
            if not isinstance(value, torch.Tensor):
                continue
            infos[name] = TensorInfo(
                name=name,
                value=tensor_data(value),
                requires_grad=value.requires_grad,
                is_leaf=value.is_leaf,
                grad_fn=type(value.grad_fn).__name__ if value.grad_fn is not None else None,
                grad=self._read_grad(name, value),
                retains_grad=value.retains_grad,
                line=self.first_line.get(name),
                grad_warning=self._grad_warning(name, value),
            )
        return infos

    def _read_grad(self, name: str, value: torch.Tensor) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = value.grad
        return None if g is None else tensor_data(g)

    def _grad_warning(self, name: str, value: torch.Tensor) -> Explanation | None:
        """torch's own warning for reading ``name.grad`` on a non-leaf, explained."""
        if value.is_leaf or value.retains_grad:
            return None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _ = value.grad
        if not caught:
            return None
        w = caught[0]
        context = explain.ErrorContext(tensor=name, attribute_owner=name, leaves=tuple(self.leaves()))
        return explain.explain_warning(w.category.__name__, str(w.message), context=context)


def _any_nonzero(values: Any) -> bool:
    if isinstance(values, list):
        return any(_any_nonzero(v) for v in values)
    return values is not None and values != 0


@contextmanager
def _backward_recorded_by(run: _Run) -> Iterator[None]:
    """Route ``torch.autograd.backward`` (and so ``Tensor.backward``) through ``run``."""
    original = torch.autograd.backward
    torch.autograd.backward = run.code_backward  # type: ignore[assignment]
    try:
        yield
    finally:
        torch.autograd.backward = original


def run_program(request: RunRequest) -> RunResult:
    """Run ``request`` and return everything it produced as plain data.

    The program's own errors do not raise: they end the run and come back in
    ``RunResult.error``, explained, like everything else the learner should see.
    """
    started = time.perf_counter()
    run = _Run(request)
    try:
        tree = safety.check_source(request.code)
    except safety.CodeRefused as refused:
        return _result(run, None, None, None, explain.explain_refusal(refused.message, refused.construct, line=refused.line, column=refused.column, kind=refused.kind), started)
    torch.manual_seed(request.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = run.on_warning
        with _backward_recorded_by(run):
            error = run.execute(tree)
        output, name, output_error = run.choose_output()
        error = error or output_error
        graph = run.output_graph(output, name) if output is not None else None
        if error is None and output is not None:
            steps = request.steps
            if steps is None:
                steps = () if run.steps else (BackwardStep(),)
            error = run.run_session_steps(output, name, steps)
    return _result(run, output, name, graph, error, started)


def _result(run: _Run, output: torch.Tensor | None, name: str | None, graph: Graph | None, error: Explanation | None, started: float) -> RunResult:
    for name_left in run.pending_values:
        run._note("override-ignored", f"values.{name_left}: the program has no tensor named {name_left}; the value was ignored.")
    steps: tuple[StepRecord, ...] = tuple(s.record for s in run.steps)
    return RunResult(
        tensors=run.tensor_infos(),
        leaves=tuple(run.leaves()),
        output=name,
        output_value=tensor_data(output) if output is not None else None,
        output_grad_fn=type(output.grad_fn).__name__ if output is not None and output.grad_fn is not None else None,
        graph=graph,
        steps=steps,
        printed=tuple(run.printed),
        error=error,
        warnings=tuple(run.warnings),
        seed=run.request.seed,
        output_truncated=run.output_truncated,
        elapsed_seconds=time.perf_counter() - started,
    )
