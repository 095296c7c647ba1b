"""What the panels render: one frozen :class:`Snapshot` of the session per change.

A snapshot holds the session's state (the document with its code, leaf values and backward
calls; the slider ranges) and the last result, plus views the panels share (the step the
graph shows, each leaf's ``.grad``, the one colour scale of the picture), computed once per
shown result. Plain data only: no Qt, no torch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from gui.model.drawing.collapse import Grouping
from gui.model.drawing.gradient_maps import edge_gradient, node_gradient
from gui.model.drawing.layout import GraphLayout
from gui.model.drawing.paint import (
    Gradients,
    beyond_scale,
    colour_scale,
    gradients,
    step_for_graph,
)
from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS, BackwardStep, Program
from gui.model.result import Explanation, Graph, NestedValues, RunResult, StepRecord, TensorData
from gui.model.session import steps as backward_steps
from gui.model.session.fixes import FixKind, fixes_for
from gui.model.session.function_view import FunctionView
from gui.model.session.jacobian_recipe import JacobianRecipe
from gui.model.session.lesson import LessonPosition
from gui.model.session.ranges import GRADIENT_RANGE, InputRange, default_range
from gui.model.session.replay import (
    Replay,
    active_node,
    clamp,
    replayed_leaf_grads,
    replayed_step,
)
from gui.model.session.state import SessionState


class ResultViews:
    """Views derived from one shown result, shared by every snapshot that shows it.

    A slider tick emits a snapshot for the change and one for its result; what the panels
    derive from the result (the gradients painted on the graph, per shown step) is computed
    once, not again for each of them.
    """

    def __init__(self) -> None:
        self._paint: dict[tuple[int | None, float | None, int | None], Gradients] = {}
        self._scale: dict[int | None, float] = {}
        self._drawn: dict[tuple[object, ...], Gradients] = {}

    def drawn(self, key: tuple[object, ...], compute: Callable[[], Gradients]) -> Gradients:
        """The gradients of the graph as drawn with its modules collapsed, by ``key``
        (the drawn structure, the shown step, the scale, the step-through's position)."""
        if key not in self._drawn:
            self._drawn[key] = compute()
        return self._drawn[key]

    def paint(
        self,
        selected_step: int | None,
        locked: float | None,
        compute: Callable[[], Gradients],
        replayed: int | None = None,
    ) -> Gradients:
        """The gradients of the graph for one shown step and scale, and ``replayed`` nodes
        into a step-through of it (``None``: the whole call)."""
        key = (selected_step, locked, replayed)
        if key not in self._paint:
            self._paint[key] = compute()
        return self._paint[key]

    def scale(self, selected_step: int | None, compute: Callable[[], float]) -> float:
        if selected_step not in self._scale:
            self._scale[selected_step] = compute()
        return self._scale[selected_step]


@dataclass(frozen=True)
class Snapshot:
    """Everything the panels show, frozen: the state and the last result.

    ``result`` is what the panels draw: the newest result that has a graph (so broken code
    leaves the last good picture on screen) or the newest result if none had one. ``error``
    and ``warnings`` always belong to the newest run. ``stale`` says that ``result`` does not
    reflect the current state (a run is pending, the code is broken, or live is off).
    ``changes`` names what differs from the previous snapshot, so panels can skip work.
    ``ranges`` holds every slider range in use: the user's own over the default ones.
    """

    generation: int
    changes: frozenset[str]
    state: SessionState
    ranges: Mapping[str, InputRange]
    live: bool
    result: RunResult | None
    layout: GraphLayout | None
    error: Explanation | None
    warnings: tuple[Explanation, ...]
    stale: bool
    running: bool
    selected_node: str | None
    selected_step: int | None
    show_saved: bool
    path: str | None
    modified: bool
    views: ResultViews = field(default_factory=ResultViews, compare=False, repr=False)
    # The magnitude the colour scale and the plots' axes are locked at (None: they follow
    # the numbers, or the lock waits for the first gradients).
    locked_scale: float | None = None
    # Seconds a run may take before it is stopped (the window's Run > Time Limit).
    time_limit: float = DEFAULT_TIME_LIMIT_SECONDS
    # The function view: the element swept, its curves and the finite difference's runs.
    function: FunctionView = field(default_factory=FunctionView)
    # A step-through of the graph's backward call (None: the whole call is shown); read
    # it through ``replay_state``, which fits it to the call on screen.
    replay: Replay | None = None
    # "Build J row by row": the rows built so far (None: the recipe is not on).
    jacobian_recipe: JacobianRecipe | None = None
    # The open lesson's step, its note and the view it asks for (None: no lesson steps).
    lesson_step: LessonPosition | None = None
    # How many boxes of the shown graph are being laid out (a big graph: its numbers are
    # shown first, its picture when laid out); None when no layout is pending.
    laying_out: int | None = None
    # The graph as drawn, its collapsed modules folded into boxes (None: no modules):
    # what the graph panel, the minimap, search and the exports of the picture show.
    grouping: Grouping | None = None

    # -- the state, as panels read it --------------------------------------------------

    @property
    def program(self) -> Program:
        return self.state.program

    @property
    def code(self) -> str:
        return self.state.program.code

    @property
    def values(self) -> Mapping[str, NestedValues]:
        """The leaf values the user set (overriding the code's)."""
        return self.state.program.values

    @property
    def output(self) -> str | None:
        """The tensor the user chose to differentiate (``None``: automatic)."""
        return self.state.program.output

    @property
    def steps(self) -> tuple[BackwardStep, ...] | None:
        return self.state.program.steps

    @property
    def retain_grad(self) -> tuple[str, ...]:
        return self.state.program.retain_grad

    @property
    def zero_after(self) -> bool:
        return self.state.zero_after

    @property
    def title(self) -> str | None:
        return self.state.document.title

    @property
    def notes(self) -> str | None:
        return self.state.document.notes

    @property
    def scale_lock(self) -> bool:
        """Whether the colour scale and the plots' axes are locked (see
        :meth:`~.session.Session.set_scale_lock`)."""
        return self.state.document.scale_lock

    # -- derived views, for panels ---------------------------------------------------

    @property
    def graph(self) -> Graph | None:
        return None if self.result is None else self.result.graph

    @property
    def leaves(self) -> tuple[str, ...]:
        return () if self.result is None else self.result.leaves

    def leaf_value(self, name: str) -> NestedValues | None:
        """A leaf's current numbers: the user's override, else what the program made."""
        if name in self.values:
            return self.values[name]
        info = None if self.result is None else self.result.tensors.get(name)
        return None if info is None else info.value.values

    def range_for(self, name: str) -> InputRange:
        """The slider range of a leaf (or of the gradient, :data:`GRADIENT_RANGE`)."""
        if name in self.ranges:
            return self.ranges[name]
        if name == GRADIENT_RANGE:
            return default_range(self.current_step.gradient)
        return default_range(self.leaf_value(name))

    @property
    def zero_each(self) -> bool:
        """The "zero grads before each backward" option (see :func:`.steps.zeroes_each`)."""
        return backward_steps.zeroes_each(self.steps, self.state.one_off_zero)

    @property
    def current_step(self) -> BackwardStep:
        """The step the gradient and option controls edit: the last one."""
        return backward_steps.current_step(self.steps)

    @property
    def output_value(self) -> TensorData | None:
        return None if self.result is None else self.result.output_value

    @property
    def output_shape(self) -> tuple[int, ...] | None:
        value = self.output_value
        return None if value is None else value.shape

    @property
    def shown_step(self) -> StepRecord | None:
        """The backward step whose gradients the graph shows (the chosen one, else the last)."""
        recorded = () if self.result is None else self.result.steps
        if not recorded:
            return None
        if self.selected_step is not None and 0 <= self.selected_step < len(recorded):
            return recorded[self.selected_step]
        return recorded[-1]

    @cached_property
    def graph_step(self) -> StepRecord | None:
        """The step whose gradients the graph shows: :attr:`replayed_call` as far as the
        step-through has gone (the whole call when there is none)."""
        step = self.replayed_call
        replay = self.replay_state
        if step is None or replay is None:
            return step
        return replayed_step(step, replay.position)

    @cached_property
    def replay_state(self) -> Replay | None:
        """The step-through fitted to the call it replays (``None``: none is on)."""
        if self.replay is None:
            return None
        return clamp(self.replay, self.replayed_call)

    @cached_property
    def replay_active_node(self) -> str | None:
        """The node the step-through reached last (``None``: none, or before the first)."""
        replay = self.replay_state
        return None if replay is None else active_node(replay, self.replayed_call)

    @cached_property
    def replayed_call(self) -> StepRecord | None:
        """The whole call the graph shows: :attr:`shown_step` if it ran on this graph (a
        backward the code made on another tensor has other nodes), else none."""
        if self.result is None:
            return None
        if self.selected_step is None:
            return step_for_graph(self.result)
        step = self.shown_step
        graph = self.result.graph
        if step is None or step.graph is None or graph is None:
            return None
        return step if step.graph.structure_key == graph.structure_key else None

    @property
    def paint(self) -> Gradients | None:
        """Every gradient the graph shows and the one colour scale for them, resolved once
        per result and step for all panels (so a value has the same colour everywhere)."""
        graph = self.graph
        if graph is None:
            return None
        locked = self.locked_scale
        whole = self.views.paint(
            self.selected_step,
            locked,
            lambda: gradients(graph, self.replayed_call, self.leaf_grads, self.shown_step, locked),
        )
        replay, step = self.replay_state, self.replayed_call
        if replay is None or step is None or step is self.graph_step:
            return whole

        # Part-way through a step-through: the numbers torch had made by then, on the
        # whole call's scale (colours must not jump as boxes fill in).
        def compute() -> Gradients:
            leaves = {n.var or n.label: n.key for n in graph.nodes if n.kind == "leaf"}
            grads = replayed_leaf_grads(step, replay.position, leaves)
            part = gradients(graph, self.graph_step, grads)
            return replace(part, scale=whole.scale, natural=whole.natural, locked=whole.locked)

        return self.views.paint(self.selected_step, locked, compute, replay.position)

    @property
    def drawn_graph(self) -> Graph | None:
        """The graph as the window draws it: :attr:`graph` with collapsed modules folded
        into one box each (``snapshot.layout`` places this one)."""
        if self.grouping is None or self.graph is None:
            return self.graph
        return self.grouping.graph

    @property
    def drawn_step(self) -> StepRecord | None:
        """:attr:`graph_step` with a flow for each collapsed module's box."""
        if self.grouping is None:
            return self.graph_step
        return self.grouping.step(self.graph_step)

    def drawn_key(self, key: str | None) -> str | None:
        """The drawn box of node ``key`` (its module's while the module is collapsed)."""
        return key if self.grouping is None else self.grouping.shown_key(key)

    @property
    def drawn_paint(self) -> Gradients | None:
        """:attr:`paint` for :attr:`drawn_graph`: the same numbers on the same scale, a
        collapsed module's box and the edges it stands for included."""
        whole = self.paint
        grouping = self.grouping
        if whole is None or grouping is None or not grouping.groups:
            return whole
        replay = self.replay_state

        def compute() -> Gradients:
            step = grouping.step(self.graph_step)
            nodes = {
                n.key: node_gradient(n, step, {}) if n.kind == "group" else whole.nodes.get(n.key)
                for n in grouping.graph.nodes
            }
            edges = {i: edge_gradient(e, step) for i, e in enumerate(grouping.graph.edges)}
            return replace(whole, nodes=nodes, edges=edges)

        key = (
            grouping.graph.structure_key,
            self.selected_step,
            self.locked_scale,
            None if replay is None else replay.position,
        )
        return self.views.drawn(key, compute)

    @property
    def colour_scale(self) -> float:
        """The magnitude drawn darkest everywhere in the window (graph, legend, swatches,
        plots): one scale, so a value has one colour (:func:`~.paint.colour_scale`); while
        the scale is locked, the locked one."""
        paint = self.paint
        if paint is not None:
            return paint.scale
        if self.locked_scale is not None:
            return self.locked_scale
        return self._unlocked_scale()

    def _unlocked_scale(self) -> float:
        return self.views.scale(
            self.selected_step,
            lambda: colour_scale(self.leaf_grads.values(), self.shown_step),
        )

    @property
    def natural_scale(self) -> float | None:
        """The scale the numbers on screen would have unlocked (``None``: no gradient yet):
        what locking takes."""
        paint = self.paint
        if paint is not None:
            if not paint.any and not any(g is not None for g in self.leaf_grads.values()):
                return None
            return paint.natural
        if not any(g is not None for g in self.leaf_grads.values()):
            return None
        return self._unlocked_scale()

    @property
    def beyond_scale(self) -> bool:
        """Whether some number on screen is beyond the locked scale (drawn in the end
        colours, its bar running off the plot): the legend marks it."""
        natural = self.natural_scale
        if self.locked_scale is None or natural is None:
            return False
        return beyond_scale(natural, self.locked_scale, locked=True)

    @cached_property
    def leaf_grads(self) -> dict[str, TensorData | None]:
        """Each leaf's ``.grad`` after the whole run."""
        if self.result is None:
            return {}
        return {
            name: info.grad
            for name, info in self.result.tensors.items()
            if name in self.result.leaves
        }

    @property
    def code_calls_backward(self) -> bool:
        return self.result is not None and any(s.source == "code" for s in self.result.steps)

    @property
    def adds_no_backward(self) -> bool:
        """Whether the app adds no backward call of its own when the session asks for none:
        the code calls backward itself, or it uses forward-mode AD only (see
        ``RunResult.no_added_backward``). Backward then adds exactly one call."""
        forward_only = self.result is not None and self.result.no_added_backward is not None
        return self.code_calls_backward or forward_only

    @cached_property
    def fixes(self) -> tuple[FixKind, ...]:
        """The one-click fixes that answer the newest error, if any (a backward call's, made
        by the session or by the code: see :mod:`.fixes`)."""
        return fixes_for(self.error, self.result, self.program)

    @property
    def code_calls(self) -> int:
        """How many backward calls the code itself made in the shown result."""
        return 0 if self.result is None else sum(s.source == "code" for s in self.result.steps)

    @property
    def can_clear(self) -> bool:
        """Whether "Clear steps" would change anything (see :func:`.steps.can_clear`)."""
        return backward_steps.can_clear(self.state, self.code_calls)

    @property
    def keeps_graph(self) -> bool:
        """Whether the last call keeps its graph for another: automatic does (a Backward
        press after it accumulates), as does an explicit ``retain_graph=True``."""
        return self.current_step.retain_graph is not False
