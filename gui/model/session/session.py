"""The window's single source of truth: what the user asked for and what came back.

Every user action is one method call (``set_input("x", 1, 3.5)``). The session changes its
state only if the value really changed, asks the engine for a new result through a
:class:`Dispatcher` (off the GUI thread in the app, inline in tests), and emits one frozen
:class:`Snapshot` on ``changed`` per change. Panels render snapshots; none of them talks
to another. No Qt here: the dispatcher is the only thing the app injects.

A run is the user's program replayed from scratch, followed by the session's backward
calls (``steps``). The gradient and option controls edit the *last* step; "Backward" adds
another call (so ``.grad`` accumulates, as in torch) and "Zero grad" zeroes every leaf's
``.grad`` after the calls. While a run is in flight, further changes coalesce into one
follow-up run with the newest state, so dragging a slider never queues up work.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from psygnal import Signal

from gui.model import nested
from gui.model.drawing.layout import GraphLayout, layout_graph
from gui.model.export.files import write_export
from gui.model.export.script import plain_script
from gui.model.request import (
    DEFAULT_SEED,
    DEFAULT_TIME_LIMIT_SECONDS,
    BackwardStep,
    RunRequest,
    failed_result,
)
from gui.model.result import (
    Explanation,
    Graph,
    NestedValues,
    RunResult,
)
from gui.model.session.file_format import Session as SessionFile
from gui.model.session.file_format import load_session, save_session
from gui.model.session.snapshot import (
    GRADIENT_RANGE,
    FixKind,
    InputRange,
    Snapshot,
    default_range,
    fits,
)

T = TypeVar("T")


class Dispatcher(Protocol):
    """Runs ``work`` somewhere and hands its return value to ``done`` on the caller's thread.

    ``inline`` says ``submit`` returns only after ``done`` ran (no event loop involved).
    """

    inline: bool

    def submit(self, work: Callable[[], T], done: Callable[[T], None]) -> None: ...


class ImmediateDispatcher:
    """Runs work inline: deterministic, for tests and scripts without an event loop."""

    inline = True

    def submit(self, work: Callable[[], T], done: Callable[[T], None]) -> None:
        done(work())


@dataclass(frozen=True)
class _State:
    code: str
    values: dict[str, NestedValues] = field(default_factory=dict)
    ranges: dict[str, InputRange] = field(default_factory=dict)
    output: str | None = None
    steps: tuple[BackwardStep, ...] | None = None
    zero_after: bool = False
    # The index of the step whose zeroing came from a "Zero grad" press, not the option.
    one_off_zero: int | None = None
    retain_grad: tuple[str, ...] = ()
    seed: int = DEFAULT_SEED
    title: str | None = None
    notes: str | None = None


@dataclass(frozen=True)
class _Computed:
    request: RunRequest
    result: RunResult
    layout: GraphLayout | None
    show_saved: bool = False


class LayoutCache:
    """Graph layouts by structure key: values changing never moves a node."""

    def __init__(self, size: int = 16) -> None:
        self._size = size
        self._layouts: OrderedDict[tuple[str, bool], GraphLayout] = OrderedDict()

    def get(self, graph: Graph | None, show_saved: bool) -> GraphLayout | None:
        if graph is None or not graph.nodes:
            return None
        key = (graph.structure_key, show_saved)
        layout = self._layouts.get(key)
        if layout is None:
            layout = layout_graph(graph, show_saved)
            self._layouts[key] = layout
            if len(self._layouts) > self._size:
                self._layouts.popitem(last=False)
        else:
            self._layouts.move_to_end(key)
        return layout


class Session:
    """State of one window plus the newest result; emits a :class:`Snapshot` per change.

    Parameters
    ----------
    run
        Runs one request (``EngineProcess.run`` in the app); called through ``dispatcher``.
    dispatcher
        Where runs happen. The app passes one that uses a worker thread and delivers back on
        the GUI thread; the default runs inline.
    time_limit
        Seconds a program may run before it is stopped.
    """

    changed = Signal(object)

    def __init__(
        self,
        run: Callable[[RunRequest], RunResult],
        dispatcher: Dispatcher | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT_SECONDS,
    ) -> None:
        self._run = run
        self._dispatcher: Dispatcher = dispatcher or ImmediateDispatcher()
        self._time_limit = time_limit
        self._layouts = LayoutCache()
        self._auto_ranges: dict[str, InputRange] = {}
        self._show_saved = False
        self._derived: dict[object, object] = {}
        self._state = _State(code="")
        self._live = True
        self._generation = 0
        self._shown: _Computed | None = None
        self._latest: _Computed | None = None
        self._in_flight = False
        self._rerun = False
        self._selected_node: str | None = None
        self._selected_step: int | None = None
        self._path: str | None = None
        self._saved_state: _State | None = self._state
        self._snapshot = self._make_snapshot(frozenset())

    # -- reading -----------------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    def request(self) -> RunRequest:
        """What the current state asks the engine for."""
        s = self._state
        return RunRequest(
            code=s.code,
            values=dict(s.values),
            output=s.output,
            steps=s.steps,
            seed=s.seed,
            retain_grad=s.retain_grad,
            time_limit=self._time_limit,
            zero_grad_after=s.zero_after,
        )

    # -- code and inputs ---------------------------------------------------------------

    def set_code(self, code: str) -> None:
        """New program text. Overrides of leaves whose defining line was edited are dropped,
        so editing ``x = torch.tensor([1., 2.])`` takes effect instead of being overridden."""
        s = self._state
        if code == s.code:
            return
        edited = {n for n in (*s.values, *self._auto_ranges) if self._line_edited(n, s.code, code)}
        values = {n: v for n, v in s.values.items() if n not in edited}
        for name in edited:  # a new value in the code gets a range made for it
            self._auto_ranges.pop(name, None)
        self._change(replace(s, code=code, values=values), {"code", "values"})

    def _line_edited(self, name: str, old: str, new: str) -> bool:
        result = None if self._shown is None else self._shown.result
        info = None if result is None else result.tensors.get(name)
        if info is None or info.line is None:
            return False
        old_lines, new_lines = old.splitlines(), new.splitlines()
        line = info.line - 1
        old_text = old_lines[line] if line < len(old_lines) else None
        return old_text is None or old_text not in new_lines

    def set_input(self, name: str, index: int, value: float) -> None:
        """One element (flat, row-major ``index``) of leaf ``name`` takes ``value``."""
        current = self.snapshot.leaf_value(name)
        if current is None:
            raise KeyError(f"no leaf named {name!r} with known values")
        if nested.flatten(current)[index] == value:
            return
        self.set_input_values(name, nested.with_element(current, index, value))

    def set_input_values(self, name: str, values: NestedValues) -> None:
        """All numbers of leaf ``name`` at once (the table editor, "reset")."""
        s = self._state
        if s.values.get(name) == values:
            return
        self._change(replace(s, values={**s.values, name: values}), {"values"})

    def reset_input(self, name: str) -> None:
        """Forget the override of ``name``: the program's own value comes back."""
        s = self._state
        if name not in s.values:
            return
        values = {n: v for n, v in s.values.items() if n != name}
        self._change(replace(s, values=values), {"values"})

    def set_range(self, name: str, value_range: InputRange) -> None:
        """The slider range of leaf ``name`` (or :data:`GRADIENT_RANGE`); nothing reruns."""
        s = self._state
        if s.ranges.get(name) == value_range:
            return
        self._change(replace(s, ranges={**s.ranges, name: value_range}), {"ranges"}, run=False)

    # -- backward ----------------------------------------------------------------------

    def set_output(self, name: str | None) -> None:
        """Which tensor the session's backward calls differentiate (``None``: automatic).

        A different tensor has a different shape, so the gradient goes back to implicit.
        """
        s = self._state
        if name == s.output:
            return
        steps = None if s.steps is None else tuple(replace(st, gradient=None) for st in s.steps)
        self._change(replace(s, output=name, steps=steps), {"output", "steps"})

    def set_gradient(self, gradient: NestedValues | None) -> None:
        """The ``gradient`` argument of the last backward call (``None``: implicit 1)."""
        self._edit_step(gradient=gradient)

    def set_gradient_element(self, index: int, value: float) -> None:
        """One element of the gradient argument; an implicit gradient becomes explicit."""
        snap = self.snapshot
        gradient = snap.current_step.gradient
        if gradient is None:
            shape = snap.output_shape
            if shape is None:
                raise ValueError("the output's shape is not known yet")
            gradient = nested.full(shape, 1.0)
        if nested.flatten(gradient)[index] == value and snap.current_step.gradient is not None:
            return
        self._edit_step(gradient=nested.with_element(gradient, index, value))

    def apply_gradient_preset(
        self,
        preset: Literal["ones", "zeros", "one_hot", "scale"],
        index: int = 0,
        factor: float = 1,
    ) -> None:
        """Fill the gradient argument: ones, zeros, the basis vector e_index, or scaled."""
        snap = self.snapshot
        shape = snap.output_shape
        if shape is None:
            raise ValueError("the output's shape is not known yet")
        if preset == "ones":
            gradient = nested.full(shape, 1.0)
        elif preset == "zeros":
            gradient = nested.full(shape, 0.0)
        elif preset == "one_hot":
            gradient = nested.one_hot(shape, index)
        else:
            current = snap.current_step.gradient
            base = current if current is not None else nested.full(shape, 1.0)
            gradient = nested.scaled(base, factor)
        self.set_gradient(gradient)

    def set_options(
        self,
        *,
        retain_graph: bool | None = None,
        zero_grad: bool | None = None,
        create_graph: bool | None = None,
    ) -> None:
        """Options of the last backward call; ``zero_grad`` zeroes grads before it."""
        changes: dict[str, Any] = {
            k: v
            for k, v in (
                ("retain_graph", retain_graph),
                ("zero_grad", zero_grad),
                ("create_graph", create_graph),
            )
            if v is not None
        }
        self._edit_step(**changes)

    def _edit_step(self, **fields: Any) -> None:
        s = self._state
        steps = s.steps if s.steps else (BackwardStep(),)
        last = replace(steps[-1], **fields)
        one_off = None if "zero_grad" in fields else s.one_off_zero  # the user's own choice now
        state = replace(s, steps=(*steps[:-1], last), one_off_zero=one_off)
        if state == s:
            return
        self._change(state, {"steps"})

    def set_retain_grad(self, name: str, keep: bool) -> None:
        """Whether intermediate ``name`` keeps its ``.grad`` (``name.retain_grad()``)."""
        s = self._state
        if (name in s.retain_grad) == keep:
            return
        names = (*s.retain_grad, name) if keep else tuple(n for n in s.retain_grad if n != name)
        self._change(replace(s, retain_grad=names), {"retain_grad"})

    def backward(self) -> None:
        """Call backward once more with the current gradient and options (runs even when
        live is off). Gradients accumulate unless zeroing is on or "Zero grad" came first."""
        s = self._state
        base = s.steps
        if base is None:
            base = () if self.snapshot.code_calls_backward else (BackwardStep(),)
        last = base[-1] if base else BackwardStep()
        # "Zero grads before each backward" carries over to the new call; a one-off
        # "Zero grad" press zeroes before the new call only, then calls accumulate again.
        keeps_zeroing = last.zero_grad and s.one_off_zero != len(base) - 1
        new = replace(last, zero_grad=bool(s.zero_after or keeps_zeroing))
        state = replace(
            s,
            steps=(*base, new),
            zero_after=False,
            one_off_zero=len(base) if s.zero_after and not keeps_zeroing else None,
        )
        self._selected_step = None
        self._change(state, {"steps", "selection"}, force_run=True)

    def zero_grad(self) -> None:
        """Zero every leaf's ``.grad`` now, as ``x.grad.zero_()`` would (runs even when live
        is off); the next "Backward" starts from zero."""
        s = self._state
        if s.zero_after:
            return
        self._change(replace(s, zero_after=True), {"steps"}, force_run=True)

    def clear_steps(self) -> None:
        """Back to a single backward call with the current gradient and options."""
        s = self._state
        last = self.snapshot.current_step
        steps = (replace(last, zero_grad=self.snapshot.zero_each),)
        state = replace(s, steps=steps, zero_after=False, one_off_zero=None)
        if state == s:
            return
        self._change(state, {"steps"})

    def apply_fix(self, kind: FixKind) -> None:
        """One click on a suggested fix (see :attr:`Snapshot.fixes`).

        ``"sum"``/``"mean"`` add ``loss = out.sum()`` to the program and differentiate that;
        ``"ones_like"`` passes ``torch.ones_like(out)`` as the gradient instead;
        ``"retain_graph"`` keeps the graph on every backward call but the last.
        """
        snap = self.snapshot
        out = snap.result.output if snap.result is not None else None
        if kind == "ones_like":
            self.apply_gradient_preset("ones")
            return
        if kind == "retain_graph":
            state = self._state
            steps = state.steps or ()
            kept = tuple(replace(st, retain_graph=True) for st in steps[:-1])
            self._change(replace(state, steps=(*kept, *steps[-1:])), {"steps"})
            return
        if out is None:
            raise ValueError("the output has no name to reduce")
        taken = set(snap.result.tensors) if snap.result is not None else set()
        name = "loss"
        counter = 2
        while name in taken or name in _assigned_names(snap.code):
            name, counter = f"loss{counter}", counter + 1
        code = snap.code if snap.code.endswith("\n") or not snap.code else snap.code + "\n"
        code += f"{name} = {out}.{kind}()\n"
        s = self._state
        new_steps = None if s.steps is None else tuple(replace(st, gradient=None) for st in s.steps)
        self._change(
            replace(s, code=code, output=name, steps=new_steps), {"code", "output", "steps"}
        )

    # -- running -----------------------------------------------------------------------

    def set_live(self, live: bool) -> None:
        """Live: every change re-runs forward and backward. Off: only explicit runs."""
        if live == self._live:
            return
        self._live = live
        self._generation += 1
        pending = self._claim_run() if live else None
        self._emit({"live"})
        self._submit(pending)

    def run_now(self) -> None:
        """Run the current state now (Ctrl+Enter, or after changes with live off)."""
        pending = self._claim_run(force=True)
        self._emit({"status"})
        self._submit(pending)

    def _needs_run(self) -> bool:
        return self._latest is None or self._latest.request != self.request()

    def _change(
        self, state: _State, changes: set[str], run: bool = True, force_run: bool = False
    ) -> None:
        self._state = state
        self._generation += 1
        pending = self._claim_run(force_run) if force_run or (run and self._live) else None
        # Panels always see a change before its result. A background dispatcher starts the
        # run first, so the engine works while the panels render the change; an inline one
        # would deliver the result first, so the change goes out before it.
        if not self._dispatcher.inline:
            self._submit(pending)
            pending = None
        self._emit(changes)
        self._submit(pending)

    def _claim_run(self, force: bool = False) -> RunRequest | None:
        """The request to run now, or ``None`` (nothing new, or one is in flight: then the
        newest state runs when it returns)."""
        if self._in_flight:
            self._rerun = True
            return None
        if not force and not self._needs_run():
            return None
        self._in_flight = True
        return self.request()

    def _submit(self, request: RunRequest | None) -> None:
        if request is not None:
            show_saved = self._show_saved
            self._dispatcher.submit(lambda: self._compute(request, show_saved), self._on_computed)

    def _compute(self, request: RunRequest, show_saved: bool) -> _Computed:
        # Runs on the dispatcher's thread: the engine and, when the structure changed,
        # Graphviz. The cache is only touched here, one run at a time.
        try:
            result = self._run(request)
        except Exception as exc:  # the engine process failed: say so, keep the window alive
            result = failed_result(request, _engine_error(exc))
        try:
            layout = self._layouts.get(result.graph, show_saved)
        except Exception as exc:  # Graphviz refused: show the result without a picture
            result = replace(result, warnings=(*result.warnings, _layout_error(exc)))
            layout = None
        return _Computed(request, result, layout, show_saved)

    def _on_computed(self, computed: _Computed) -> None:
        self._in_flight = False
        self._latest = computed
        self._settle_ranges(computed.result)
        if self._drop_outgrown_gradients(computed.result):
            self._rerun = True
        if computed.result.graph is not None or self._shown is None:
            self._shown = computed
            self._derived = {}  # what snapshots derive from the shown result, per result
            graph = computed.result.graph
            keys = {n.key for n in graph.nodes} if graph is not None else set()
            if self._selected_node is not None and self._selected_node not in keys:
                self._selected_node = None
            if self._selected_step is not None and self._selected_step >= len(
                computed.result.steps
            ):
                self._selected_step = None
        pending = None
        if self._rerun:
            self._rerun = False
            pending = self._claim_run()
        self._emit({"result"})
        self._submit(pending)
        self._relayout_if_needed()  # laid out before the saved-tensor setting changed

    def _settle_ranges(self, result: RunResult) -> None:
        """Keep each default slider range fixed while its values fit in it.

        A range recomputed from every new value would rescale the slider under the mouse
        while it is dragged; a value typed beyond the range gets a new range that holds it.
        """
        current: dict[str, NestedValues | None] = {
            name: info.value.values
            for name, info in result.tensors.items()
            if name in result.leaves and info.value.values is not None
        }
        if result.output_value is not None:
            current[GRADIENT_RANGE] = self._snapshot.current_step.gradient
        for name, values in current.items():
            kept = self._auto_ranges.get(name)
            if kept is None or not fits(values, kept):
                self._auto_ranges[name] = default_range(values)

    def _drop_outgrown_gradients(self, result: RunResult) -> bool:
        """When edited code changes the output's shape under gradients that fitted the old
        one, those gradients go back to implicit (a leftover [[1, 0], [1, 0]] would only
        raise a shape error about a tensor the user no longer has). Gradients that never
        fitted (an old tutorial's ``[1, 0]``) stay: their error is the lesson."""
        s = self._state
        old = self._shown.result.output_value if self._shown is not None else None
        new = result.output_value
        if not s.steps or old is None or new is None or old.shape == new.shape:
            return False
        steps = tuple(
            replace(st, gradient=None)
            if st.gradient is not None and nested.shape_of(st.gradient) == old.shape
            else st
            for st in s.steps
        )
        if steps == s.steps:
            return False
        self._state = replace(s, steps=steps)
        self._generation += 1
        return True

    # -- view ------------------------------------------------------------------------

    def set_show_saved(self, show: bool) -> None:
        """Whether the graph shows saved-tensor boxes (their numbers are always in the node
        details). A view preference: it relayouts the graph on screen, runs nothing."""
        if show == self._show_saved:
            return
        self._show_saved = show
        self._emit({"view"})
        self._relayout_if_needed()

    def _relayout_if_needed(self) -> None:
        shown = self._shown
        if shown is None or shown.result.graph is None or shown.show_saved == self._show_saved:
            return
        graph, show = shown.result.graph, self._show_saved
        # Through the dispatcher: Graphviz must only ever run on one thread.
        self._dispatcher.submit(
            lambda: (shown, self._layouts.get(graph, show), show), self._on_relayout
        )

    def _on_relayout(self, done: tuple[_Computed, GraphLayout | None, bool]) -> None:
        shown, layout, show = done
        if self._shown is not shown:
            return  # a newer result came meanwhile and was checked on arrival
        self._shown = replace(shown, layout=layout, show_saved=show)
        if self._latest is shown:
            self._latest = self._shown
        self._emit({"view", "layout"})
        self._relayout_if_needed()  # the setting may have flipped again meanwhile

    # -- selection ---------------------------------------------------------------------

    def select_node(self, key: str | None) -> None:
        """The graph node whose details are shown (``None``: none)."""
        if key == self._selected_node:
            return
        self._selected_node = key
        self._emit({"selection"})

    def select_step(self, index: int | None) -> None:
        """The backward step the graph shows (``None``: the last)."""
        if index == self._selected_step:
            return
        self._selected_step = index
        self._emit({"selection"})

    # -- files -------------------------------------------------------------------------

    def load(self, file: SessionFile, path: str | None = None) -> None:
        """Replace the state with a session's (a lesson or a file); runs it."""
        state = _State(
            code=file.code,
            values=dict(file.values),
            output=file.output,
            steps=file.backward,
            retain_grad=file.retain_grad,
            seed=file.seed,
            title=file.title,
            notes=file.notes,
        )
        self._path = path
        self._saved_state = state
        self._auto_ranges.clear()
        self._selected_node = None
        self._selected_step = None
        self._shown = None
        self._derived = {}
        self._latest = None
        self._change(state, {"code", "values", "ranges", "output", "steps", "file"}, force_run=True)

    def open(self, path: str | os.PathLike[str]) -> None:
        """Load a session file; raises :class:`~gui.model.session.file_format.SessionFileError`
        (and changes nothing) when the file cannot be used."""
        file = load_session(path)
        self.load(file, os.fspath(path))

    def to_file(self) -> SessionFile:
        """The state as a session file."""
        s = self._state
        return SessionFile(
            code=s.code,
            values=dict(s.values),
            output=s.output,
            backward=s.steps,
            seed=s.seed,
            retain_grad=s.retain_grad,
            title=s.title,
            notes=s.notes,
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the session atomically; raises ``OSError`` and leaves the old file alone."""
        save_session(self.to_file(), path)
        self._path = os.fspath(path)
        self._saved_state = self._state
        self._emit({"file"})

    def export(self, out_dir: str | os.PathLike[str]) -> None:
        """Write result.json, script.py and graph.svg for the result on screen (the same
        files as ``--export``); raises ``OSError`` if the folder cannot be written."""
        shown = self._shown
        if shown is None:
            raise ValueError("nothing has run yet")
        script = plain_script(shown.request, shown.result)
        write_export(shown.result, script, Path(out_dir))

    # -- emitting ----------------------------------------------------------------------

    def _make_snapshot(self, changes: frozenset[str]) -> Snapshot:
        s = self._state
        shown = self._shown
        latest = self._latest
        current = self.request()
        stale = (
            self._in_flight
            or shown is None
            or shown.request != current
            or (latest is not None and latest is not shown)
        )
        return Snapshot(
            generation=self._generation,
            changes=changes,
            code=s.code,
            values=dict(s.values),
            ranges={**self._auto_ranges, **s.ranges},
            output=s.output,
            steps=s.steps,
            zero_after=s.zero_after,
            one_off_zero=s.one_off_zero,
            retain_grad=s.retain_grad,
            live=self._live,
            seed=s.seed,
            result=None if shown is None else shown.result,
            layout=None if shown is None else shown.layout,
            error=None if latest is None else latest.result.error,
            warnings=() if latest is None else latest.result.warnings,
            stale=bool(stale and (shown is not None or self._in_flight)),
            running=self._in_flight,
            selected_node=self._selected_node,
            show_saved=self._show_saved,
            selected_step=self._selected_step,
            path=self._path,
            title=s.title,
            notes=s.notes,
            modified=self._saved_state != s,
            derived=self._derived,
        )

    def _emit(self, changes: set[str]) -> None:
        self._snapshot = self._make_snapshot(frozenset(changes))
        self.changed.emit(self._snapshot)


def _engine_error(exc: Exception) -> Explanation:
    return Explanation(
        kind="engine-error",
        message=f"{type(exc).__name__}: {exc}",
        explanation="The app could not run the program: the process that runs it failed.",
        fix="Run again (Ctrl+Enter); if it keeps failing, restart the app.",
    )


def _layout_error(exc: Exception) -> Explanation:
    return Explanation(
        kind="layout-error",
        message=f"{type(exc).__name__}: {exc}",
        explanation="Graphviz could not lay out this graph, so it is not drawn.",
        fix="Simplify the program; the numbers in the other panels are still right.",
        severity="warning",
    )


def _assigned_names(code: str) -> set[str]:
    """Names assigned anywhere in ``code`` (cheap, textual): new names must not clash."""
    names = set()
    for line in code.splitlines():
        head, sep, _ = line.partition("=")
        if sep and head.strip().isidentifier():
            names.add(head.strip())
    return names
