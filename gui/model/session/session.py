"""The window's single source of truth: what the user asked for and what came back.

Every user action is one method call (``set_input("x", 1, 3.5)``). The session changes its
state only if the value really changed, asks the engine for a new result through a
:class:`~gui.model.session.dispatch.Dispatcher` (off the GUI thread in the app, inline in
tests), and emits one frozen :class:`~gui.model.session.snapshot.Snapshot` on ``changed``
per change. Panels render snapshots; none of them talks to another. No Qt here.

What each action does to the state is decided by pure functions (:mod:`.steps`,
:mod:`.fixes`, :mod:`.ranges`); this class holds the state, schedules runs and emits. While
a run is in flight, further changes coalesce into one follow-up run with the newest state,
so dragging a slider never queues up work.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from psygnal import Signal

from gui.model import nested
from gui.model.drawing.collapse import AUTOMATIC, GroupChoice
from gui.model.drawing.colors import nice_scale
from gui.model.export.files import write_export
from gui.model.export.script import plain_script
from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS, Program, RunRequest, SweepRequest
from gui.model.result import NestedValues, RunResult, SweepResult
from gui.model.session import fixes, jacobian_recipe, lesson_steps, replay
from gui.model.session import steps as backward_steps
from gui.model.session.computed import Computed, compute, lay_out
from gui.model.session.dispatch import Dispatcher, ImmediateDispatcher
from gui.model.session.document import Document
from gui.model.session.drag_detail import DragDetail, same_state
from gui.model.session.file_format import load_session, save_session
from gui.model.session.function_controls import FunctionViewControls
from gui.model.session.function_view import (
    FunctionSweeps,
    function_view_for,
)
from gui.model.session.group_controls import GroupControls
from gui.model.session.layouts import LayoutCache
from gui.model.session.lesson_navigation import LessonNavigation
from gui.model.session.ranges import GRADIENT_RANGE, DefaultRanges, InputRange
from gui.model.session.recipe_controls import JacobianRecipeControls
from gui.model.session.replay_controls import ReplayControls
from gui.model.session.snapshot import ResultViews, Snapshot
from gui.model.session.state import SessionState
from gui.model.session.steps import Preset


class Session(
    ReplayControls,
    JacobianRecipeControls,
    LessonNavigation,
    FunctionViewControls,
    GroupControls,
    DragDetail,
):
    """State of one window plus the newest result; emits a :class:`Snapshot` per change.

    The teaching features' actions live in mixins, one module each (the step-through,
    "Build J row by row", lesson steps, the function view); their state is held here.

    Parameters
    ----------
    run
        Runs one request (``EngineProcess.run`` in the app); called through ``dispatcher``.
    dispatcher
        Where runs happen. The app passes one that uses a worker thread and delivers back on
        the GUI thread; the default runs inline.
    time_limit
        Seconds a program may run before it is stopped.
    layouts
        Where graph layouts come from (default: a cache over the process's layout worker).
    """

    changed = Signal(object)

    def __init__(
        self,
        run: Callable[[RunRequest], RunResult],
        dispatcher: Dispatcher | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT_SECONDS,
        layouts: LayoutCache | None = None,
        sweep: Callable[[SweepRequest], SweepResult] | None = None,
    ) -> None:
        self._run = run
        # Runs the function view's sweeps (EngineProcess.sweep; None: the view has no curves).
        self._sweep = sweep
        self._function = FunctionSweeps()
        self._dispatcher: Dispatcher = dispatcher or ImmediateDispatcher()
        self._time_limit = time_limit
        self._layouts = layouts if layouts is not None else LayoutCache()
        # Bumped when the code changes while a run is in flight: that run's graph is
        # outdated, and its layout is given up rather than awaited (see _submit).
        self._code_version = 0
        self._default_ranges = DefaultRanges()
        self._show_saved = False
        # Which modules the graph draws as one box each (see group_controls).
        self._group_choice: GroupChoice = AUTOMATIC
        # The locked scale taken from the first result with gradients, when the document
        # locks the scale without saying at what (a lesson's "scale_lock": true).
        self._captured_scale: float | None = None
        self._views = ResultViews()
        self._state = SessionState(Document(Program(code="")))
        self._live = True
        self._generation = 0
        self._shown: Computed | None = None
        self._latest: Computed | None = None
        self._in_flight = False
        self._rerun = False
        self._selected_node: str | None = None
        self._selected_step: int | None = None
        # A value slider held, and the graph's boxes in view (see drag_detail).
        self._dragging = False
        self._on_screen: frozenset[str] | None = None
        # "Build J row by row" (None: not on); see jacobian_recipe.
        self._jacobian: jacobian_recipe.JacobianRecipe | None = None
        self._replay: replay.Replay | None = None
        self._path: str | None = None
        # A lesson with steps: its starting state and the step on screen (None: no steps),
        # and the node a step names, selected once a result has it (_select_lesson_node).
        self._lesson_start: SessionState | None = None
        self._lesson_index: int | None = None
        self._lesson_select: str | None = None
        self._saved_state: SessionState | None = self._state
        # What the backward calls were last seen to fit (see steps.refit); None after a load.
        self._fitted: backward_steps.OutputKey | None = None
        self._snapshot = self._make_snapshot(frozenset())

    # -- reading -----------------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    def request(self) -> RunRequest:
        """What the current state asks the engine for (while "Build J row by row" builds:
        the row it is on, see :func:`.jacobian_recipe.row_request`)."""
        recipe = self._jacobian
        if recipe is not None and recipe.building:
            return jacobian_recipe.row_request(recipe, self._state, self._time_limit)
        return self._with_detail(self._state.request(self._time_limit))

    # -- code and inputs ---------------------------------------------------------------

    def set_code(self, code: str) -> None:
        """New program text. Overrides of leaves whose defining line was edited are dropped,
        so editing ``x = torch.tensor([1., 2.])`` takes effect instead of being overridden."""
        program = self._state.program
        if code == program.code:
            return
        names = {*program.values, *self._default_ranges.ranges}
        edited = {n for n in names if self._line_edited(n, program.code, code)}
        values = {n: v for n, v in program.values.items() if n not in edited}
        self._default_ranges.forget(edited)  # a new value in the code gets a range made for it
        self._change(self._state.with_program(code=code, values=values), {"code", "values"})

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
        program = self._state.program
        if program.values.get(name) == values:
            return
        self._change(self._state.with_program(values={**program.values, name: values}), {"values"})

    def reset_input(self, name: str) -> None:
        """Forget the override of ``name``: the program's own value comes back."""
        program = self._state.program
        if name not in program.values:
            return
        values = {n: v for n, v in program.values.items() if n != name}
        self._change(self._state.with_program(values=values), {"values"})

    def set_range(self, name: str, value_range: InputRange) -> None:
        """The slider range of leaf ``name`` (or :data:`GRADIENT_RANGE`); nothing reruns."""
        s = self._state
        if s.ranges.get(name) == value_range:
            return
        self._change(replace(s, ranges={**s.ranges, name: value_range}), {"ranges"}, run=False)

    # -- backward ----------------------------------------------------------------------

    def set_output(self, name: str | None) -> None:
        """Which tensor the session's backward calls differentiate (``None``: automatic).

        The calls were made for another tensor: back to one call, implicit gradient.
        """
        if name == self._state.program.output:
            return
        self._change(backward_steps.with_output(self._state, name), {"output", "steps"})

    def set_gradient(self, gradient: NestedValues | None) -> None:
        """The ``gradient`` argument of the last backward call (``None``: implicit 1)."""
        self._edit_step(backward_steps.edit_last(self._state, gradient=gradient))

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
        self.set_gradient(nested.with_element(gradient, index, value))

    def apply_gradient_preset(self, preset: Preset, index: int = 0, factor: float = 1) -> None:
        """Fill the gradient argument: ones, zeros, the basis vector e_index, or scaled."""
        snap = self.snapshot
        shape = snap.output_shape
        if shape is None:
            raise ValueError("the output's shape is not known yet")
        gradient = backward_steps.preset_gradient(
            preset, shape, snap.current_step.gradient, index, factor
        )
        self.set_gradient(gradient)

    def set_options(
        self,
        *,
        retain_graph: bool | None = None,
        zero_grad: bool | None = None,
        create_graph: bool | None = None,
    ) -> None:
        """Options of the last backward call (``None``: left as it is); ``zero_grad`` zeroes
        grads before it. A ``retain_graph`` given here is explicit: ``False`` frees the graph
        after the call even when another follows, as torch does (its error is the lesson)."""
        options = {
            "retain_graph": retain_graph,
            "zero_grad": zero_grad,
            "create_graph": create_graph,
        }
        chosen = {k: v for k, v in options.items() if v is not None}
        self._edit_step(backward_steps.edit_last(self._state, **chosen))

    def _edit_step(self, state: SessionState) -> None:
        if state != self._state:
            self._change(state, {"steps"})

    def set_retain_grad(self, name: str, keep: bool) -> None:
        """Whether intermediate ``name`` keeps its ``.grad`` (``name.retain_grad()``)."""
        kept = self._state.program.retain_grad
        if (name in kept) == keep:
            return
        names = (*kept, name) if keep else tuple(n for n in kept if n != name)
        self._change(self._state.with_program(retain_grad=names), {"retain_grad"})

    def backward(self) -> None:
        """Call backward once more with the current gradient and options (runs even when
        live is off). Gradients accumulate unless zeroing is on or "Zero grad" came first."""
        state = backward_steps.press_backward(self._state, self.snapshot.adds_no_backward)
        self._selected_step = None
        self._change(state, {"steps", "selection"}, force_run=True)

    def zero_grad(self) -> None:
        """Zero every leaf's ``.grad`` now, as ``x.grad.zero_()`` would (runs even when live
        is off); the next "Backward" starts from zero."""
        if self._state.zero_after:
            return
        self._change(backward_steps.press_zero_grad(self._state), {"steps"}, force_run=True)

    def clear_steps(self) -> None:
        """Back to a single backward call with the current gradient and options (none when
        the code calls backward itself), nothing pending."""
        state = backward_steps.clear(self._state, self.snapshot.adds_no_backward)
        if state != self._state:
            self._change(state, {"steps"})

    def apply_fix(self, kind: fixes.FixKind) -> None:
        """One click on a suggested fix (see :attr:`Snapshot.fixes` and :mod:`.fixes`)."""
        old = self._state.program
        state = fixes.with_fix(self._state, kind, self.snapshot.result)
        if state == self._state:
            return
        new = state.program
        changed = {
            name
            for name, differs in (
                ("code", new.code != old.code),
                ("output", new.output != old.output),
                ("steps", new.steps != old.steps),
            )
            if differs
        }
        self._change(state, changed)

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

    def _change(
        self, state: SessionState, changes: set[str], run: bool = True, force_run: bool = False
    ) -> None:
        if self._jacobian is not None and changes & jacobian_recipe.STOPPED_BY:
            self._jacobian = None  # the user's own calls run again, as they were
        self._state = state
        self._generation += 1
        pending = self._claim_run(force_run) if force_run or (run and self._live) else None
        if "code" in changes and self._rerun:
            # The run in flight has the old code and a newer run follows it: do not wait
            # for Graphviz to lay out a graph nobody will see (a big one takes seconds).
            self._code_version += 1
            self._layouts.interrupt()
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
        request = self.request()
        if not force and self._latest is not None and self._latest.request == request:
            return None
        self._in_flight = True
        return request

    def _outdated_check(self) -> Callable[[], bool]:
        """A check, safe to call from the dispatcher's thread, that turns true once the code
        changes under the work submitted now."""
        version = self._code_version
        return lambda: self._code_version != version

    def _submit(self, request: RunRequest | None) -> None:
        if request is not None:
            show_saved = self._show_saved
            groups = self._group_choice
            outdated = self._outdated_check()
            base = None if self._shown is None else self._shown.result
            self._dispatcher.submit(
                lambda: compute(
                    self._run, self._layouts, request, show_saved, outdated, groups, base
                ),
                self._on_computed,
            )

    def _on_computed(self, computed: Computed) -> None:
        self._in_flight = False
        if computed.cancelled:
            # Newer code is waiting (that is what cancelled it): run it instead of showing
            # a picture of code that is gone.
            self._rerun = False
            pending = self._claim_run()
            self._emit({"status"})
            self._submit(pending)
            return
        self._latest = computed
        recipe = self._jacobian
        if recipe is not None and recipe.waiting and same_state(computed.request, self.request()):
            self._jacobian = jacobian_recipe.collect(recipe, computed.result)
            if not self._jacobian.building:  # a row's call failed: the user's calls again
                self._selected_step = recipe.selected_step
                self._rerun = True
        self._settle_ranges(computed.result)
        refitted = self._refit_steps(computed)
        if refitted:
            self._rerun = True
        if computed.result.graph is not None or self._shown is None:
            self._show(computed)
        selected = self._select_lesson_node(computed)
        pending = None
        if self._rerun:
            self._rerun = False
            pending = self._claim_run()
        # A new big structure's layout (or one for a saved-tensor setting changed meanwhile)
        # is asked for before the panels draw the numbers: the layout worker places the
        # boxes while this thread renders (a 5,000-function graph's picture ~80 ms sooner).
        self._relayout_if_needed()
        self._emit({"result", *refitted, *selected})
        self._submit(pending)

    def _show(self, computed: Computed) -> None:
        """Make ``computed`` the result on screen; drop selections it no longer has."""
        self._shown = computed
        self._views = ResultViews()
        graph = computed.result.graph
        keys = {n.key for n in graph.nodes} if graph is not None else set()
        if computed.grouping is not None:  # a collapsed module's box can stay selected
            keys |= set(computed.grouping.groups)
        if self._selected_node is not None and self._selected_node not in keys:
            self._selected_node = None
        step_count = len(computed.result.steps)
        if self._selected_step is not None and self._selected_step >= step_count:
            self._selected_step = None

    def _settle_ranges(self, result: RunResult) -> None:
        current: dict[str, NestedValues | None] = {
            name: info.value.values
            for name, info in result.tensors.items()
            if name in result.leaves and info.value.values is not None
        }
        if result.output_value is not None:
            current[GRADIENT_RANGE] = self._snapshot.current_step.gradient
        self._default_ranges.settle(current)

    def _refit_steps(self, computed: Computed) -> set[str]:
        """Put back backward calls that no longer fit the output (see :func:`.steps.refit`);
        what changed (empty: nothing). Judged only on a result of the current state: an
        older one is followed by a run that is."""
        if not same_state(computed.request, self.request()):
            return set()
        result = computed.result
        key = backward_steps.output_key(result)
        if key is None:
            return set()
        old, self._fitted = self._fitted, key
        unknown = result.error is not None and result.error.kind == "unknown-output"
        state = backward_steps.refit(self._state, old, key, unknown)
        if state == self._state:
            return set()
        changed = {"steps"}
        if state.program.output != self._state.program.output:
            changed.add("output")
        self._state = state
        self._generation += 1
        return changed

    @property
    def time_limit(self) -> float:
        """Seconds a run may take before the engine stops it."""
        return self._time_limit

    def set_time_limit(self, seconds: float) -> None:
        """How long a run may take (the window's Run > Time Limit). A result stopped by the
        old limit is stale now: the code runs again, when live, with the new one."""
        if seconds <= 0 or not math.isfinite(seconds):
            raise ValueError(f"a time limit must be a positive number of seconds, not {seconds}")
        if seconds == self._time_limit:
            return
        self._time_limit = seconds
        self._change(self._state, {"time_limit"})

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
        if shown is None or shown.result.graph is None:
            return
        groups = self._group_choice
        if (
            shown.show_saved == self._show_saved
            and not shown.layout_pending
            and shown.groups == groups
        ):
            return
        show = self._show_saved
        outdated = self._outdated_check()
        # Through the dispatcher: layouts are asked for one at a time, off the GUI thread.
        self._dispatcher.submit(
            lambda: (shown, lay_out(self._layouts, shown, show, outdated, groups)),
            self._on_relayout,
        )

    def _on_relayout(self, done: tuple[Computed, Computed]) -> None:
        shown, laid_out = done
        if self._shown is not shown or laid_out.cancelled:
            return  # a newer result came meanwhile and was checked on arrival
        self._shown = laid_out
        if self._latest is shown:
            self._latest = self._shown
        self._emit({"view", "layout"})
        self._relayout_if_needed()  # the setting may have flipped again meanwhile

    def set_scale_lock(self, on: bool) -> None:
        """Lock the colour scale and the plots' axes (or let them follow the numbers again).

        Locking takes the scale the numbers on screen have now, rounded up to a round number
        (:func:`~gui.model.drawing.colors.nice_scale`); numbers beyond it later are drawn in
        the end colours and the legend says so. Saved with the session; runs nothing.
        """
        document = self._state.document
        if on == document.scale_lock:
            return
        natural = self._snapshot.natural_scale if on else None
        locked = None if natural is None else nice_scale(natural)
        self._captured_scale = None
        document = replace(document, scale_lock=on, locked_scale=locked)
        self._change(replace(self._state, document=document), {"scale"}, run=False)

    def rescale(self) -> None:
        """Lock the scale again at the numbers on screen now (it stays locked)."""
        document = self._state.document
        natural = self._snapshot.natural_scale
        if not document.scale_lock or natural is None:
            return
        locked = nice_scale(natural)
        if locked == self._snapshot.locked_scale:
            return
        self._captured_scale = None
        document = replace(document, locked_scale=locked)
        self._change(replace(self._state, document=document), {"scale"}, run=False)

    def _locked_scale(self) -> float | None:
        document = self._state.document
        if not document.scale_lock:
            return None
        return document.locked_scale if document.locked_scale is not None else self._captured_scale

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

    def load(self, document: Document, path: str | None = None) -> None:
        """Replace the state with a document's (a lesson or a file); runs it."""
        state = self._start_lesson(SessionState(document))
        self._path = path
        self._saved_state = state
        self._default_ranges.forget()
        self._selected_node = None
        self._selected_step = None
        self._replay = self._lesson_replay()
        self._shown = None
        self._views = ResultViews()
        self._latest = None
        self._fitted = None  # the file's calls are what it asks for
        self._captured_scale = None
        self._function.forget()
        self._change(state, {"code", "values", "ranges", "output", "steps", "file"}, force_run=True)

    def open(self, path: str | os.PathLike[str]) -> None:
        """Load a session file; raises :class:`~gui.model.session.file_format.SessionFileError`
        (and changes nothing) when the file cannot be used."""
        self.load(load_session(path), os.fspath(path))

    def to_file(self) -> Document:
        """The state as a session file's contents (a lesson with steps: see
        :func:`.lesson_steps.document_to_save`)."""
        start, index = self._lesson_start, self._lesson_index
        if start is not None and index is not None:
            return lesson_steps.document_to_save(start, index, self._state)
        return self._state.document

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the session atomically; raises ``OSError`` and leaves the old file alone."""
        save_session(self.to_file(), path)
        self._path = os.fspath(path)
        self._saved_state = self._state
        self._emit({"file"})

    def export(self, out_dir: str | os.PathLike[str]) -> str:
        """Write result.json, script.py, graph.svg and graph.dot for the result on screen
        (the same files as ``--export``) and return the SVG (the PNG is drawn from it);
        raises ``OSError`` if the folder cannot be written."""
        shown = self._shown
        if shown is None:
            raise ValueError("nothing has run yet")
        if shown.read is not None:  # mid-drag: boxes out of view hold older numbers
            raise ValueError(
                "a value is still being moved: once the slider is let go (or its keys "
                "pause), every number is read again; export then"
            )
        request = shown.request
        script = plain_script(request.program, shown.result, request.zero_grad_after)
        drawn = None if shown.grouping is None else shown.grouping.result(shown.result)
        return write_export(
            shown.result, script, Path(out_dir), locked_scale=self._locked_scale(), drawn=drawn
        )

    # -- emitting ----------------------------------------------------------------------

    def _make_snapshot(self, changes: frozenset[str]) -> Snapshot:
        shown = self._shown
        latest = self._latest
        # (Which nodes a run read is not what it computed: see drag_detail.)
        stale = (
            self._in_flight
            or shown is None
            or not same_state(shown.request, self.request())
            or (latest is not None and latest is not shown)
        )
        return Snapshot(
            generation=self._generation,
            changes=changes,
            state=self._state,
            ranges={**self._default_ranges.ranges, **self._state.ranges},
            live=self._live,
            result=None if shown is None else shown.result,
            layout=None if shown is None else shown.layout,
            error=None if latest is None else latest.result.error,
            warnings=() if latest is None else latest.result.warnings,
            stale=bool(stale and (shown is not None or self._in_flight)),
            running=self._in_flight,
            selected_node=self._selected_node,
            show_saved=self._show_saved,
            selected_step=self._selected_step,
            replay=self._replay,
            jacobian_recipe=self._jacobian,
            path=self._path,
            modified=self._saved_state != self._state,
            views=self._views,
            time_limit=self._time_limit,
            locked_scale=self._locked_scale(),
            lesson_step=self._lesson_position(),
            laying_out=None if shown is None else shown.laying_out,
            grouping=None if shown is None else shown.grouping,
        )

    def _emit(self, changes: set[str]) -> None:
        revealed = self._reveal(self._selected_node)  # a node hidden in a collapsed module
        if revealed:
            changes = {*changes, "view"}
        snapshot = self._make_snapshot(frozenset(changes))
        document = self._state.document
        if document.scale_lock and snapshot.locked_scale is None:
            # Locked without a scale yet: the first numbers with gradients set it.
            natural = snapshot.natural_scale
            if natural is not None:
                self._captured_scale = nice_scale(natural)
                snapshot = self._make_snapshot(frozenset({*changes, "scale"}))
        self._snapshot = replace(snapshot, function=function_view_for(self._function, snapshot))
        self.changed.emit(self._snapshot)
        self._sweep_if_idle()
        if revealed:
            self._relayout_if_needed()
