"""One run and its graph layout: the work a session hands to its dispatcher's thread."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from gui.model import detail_merge
from gui.model.drawing.collapse import (
    AUTOMATIC,
    GroupChoice,
    Grouping,
    draws_whole,
    safe_group_view,
)
from gui.model.drawing.layout import GraphLayout
from gui.model.drawing.layout_process import (
    LAYOUT_CRASHED,
    LAYOUT_ERROR,
    LAYOUT_TIMEOUT,
    LayoutCancelled,
    LayoutUnavailable,
    never,
)
from gui.model.drawing.limits import GRAPH_TOO_BIG, drawn_keys
from gui.model.request import RunRequest
from gui.model.result import Explanation, Graph, RunResult, failed_result
from gui.model.session.layouts import LayoutCache

# Warnings that say why the graph is not drawn (they belong to the layout, not the run).
LAYOUT_PROBLEMS = frozenset({GRAPH_TOO_BIG, LAYOUT_TIMEOUT, LAYOUT_CRASHED, LAYOUT_ERROR})


@dataclass(frozen=True)
class Computed:
    """What came back for ``request``: the engine's result and its graph laid out.

    When the graph is not drawn, ``result.warnings`` ends with why (a kind in
    :data:`LAYOUT_PROBLEMS`). ``cancelled`` means newer code made this run outdated before
    it was laid out: it is not to be shown.
    """

    request: RunRequest
    result: RunResult
    layout: GraphLayout | None
    show_saved: bool = False
    cancelled: bool = False
    # The graph is big and still being laid out: shown without a picture (the graph panel
    # says it is laying it out) until the session's second request brings the layout.
    layout_pending: bool = False
    # The graph as drawn, its collapsed modules folded (None: no modules), and the choice
    # of collapsed modules it was made for (see gui.model.drawing.collapse).
    grouping: Grouping | None = None
    groups: GroupChoice = AUTOMATIC
    # A run that read only the nodes in view (see gui.model.detail_merge): their keys,
    # the rest keeping the numbers of the result shown before (None: every node read).
    read: frozenset[str] | None = None

    @property
    def drawn_graph(self) -> Graph | None:
        """The graph the layout is for: the result's, with collapsed modules folded."""
        return self.result.graph if self.grouping is None else self.grouping.graph

    @property
    def laying_out(self) -> int | None:
        """How many boxes are being laid out (``None``: no layout pending)."""
        graph = self.drawn_graph
        if not self.layout_pending or graph is None:
            return None
        return len(drawn_keys(graph, self.show_saved))


def compute(
    run: Callable[[RunRequest], RunResult],
    layouts: LayoutCache,
    request: RunRequest,
    show_saved: bool,
    outdated: Callable[[], bool] = never,
    groups: GroupChoice = AUTOMATIC,
    base: RunResult | None = None,
) -> Computed:
    """Run ``request`` and lay its graph out (``groups``: the modules drawn collapsed);
    never raises.

    A request with :class:`~gui.model.request.Detail` may come back reading only part of
    its graph: that is merged into ``base``, the result on screen it was asked against,
    or, if it does not fit, run again whole.

    Runs on the dispatcher's thread: the engine, then (when the structure is new) the
    layout worker, both in other processes, so this thread only waits. A failing engine
    or layout becomes an explanation in the result, so the window stays alive and says what
    happened. Once ``outdated()`` is true (the user changed the code) the layout is not
    awaited: the result comes back ``cancelled``.
    """
    try:
        result = run(request)
        if not isinstance(result, RunResult):  # never trusted: it came from another process
            raise TypeError(f"the engine answered a {type(result).__name__}, not a result")
        read = detail_merge.read_keys(result)
        if detail_merge.is_partial(result):
            merged = None if base is None else detail_merge.merge(base, result)
            if merged is None:  # not what the window shows after all: every number, then
                read, merged = None, run(replace(request, detail=None))
                if not isinstance(merged, RunResult) or detail_merge.is_partial(merged):
                    raise TypeError("the engine answered a run without detail partially")
            result = merged
    except Exception as exc:  # the engine process failed: say so, keep the window alive
        result = failed_result(_engine_error(exc), seed=request.program.seed)
        read = None
    if outdated():
        return Computed(request, result, None, show_saved, cancelled=True)
    try:
        ahead = draws_whole(result.graph, groups) and layouts.takes_a_while(
            result.graph, show_saved
        )
        if ahead:
            # Drawn as it is: its layout is asked for before its module tree is worked
            # out (for the menus), 0.1 s sooner on a 5,000-function graph.
            layouts.start(result.graph, show_saved, outdated)
        grouping = safe_group_view(result.graph, groups)
        done = Computed(
            request, result, None, show_saved, grouping=grouping, groups=groups, read=read
        )
        # (Asked for ahead: numbers first however soon the layout came, decided once.)
        if ahead or layouts.takes_a_while(done.drawn_graph, show_saved):
            # Numbers first, the picture once laid out: the layout is asked for now, on a
            # thread of its own, the session takes it next (a request of its own, which
            # waits for this one), and the panels show the result meanwhile.
            layouts.start(done.drawn_graph, show_saved, outdated)
            return replace(done, layout_pending=True)
        return lay_out(layouts, done, show_saved, outdated, groups)
    except Exception as exc:  # a result with fields of the wrong kind: still an answer
        failed = failed_result(_engine_error(exc), seed=request.program.seed)
        return Computed(request, failed, None, show_saved)


def lay_out(
    layouts: LayoutCache,
    computed: Computed,
    show_saved: bool,
    outdated: Callable[[], bool] = never,
    groups: GroupChoice | None = None,
) -> Computed:
    """``computed`` with its graph laid out for ``show_saved`` and ``groups`` (``None``:
    the modules it has collapsed now; and, if it cannot be drawn, the reason as its last
    warning, replacing any earlier one); never raises."""
    result = computed.result
    if groups is not None and groups != computed.groups:
        grouping = safe_group_view(result.graph, groups)
        computed = replace(computed, grouping=grouping, groups=groups)
    warnings = tuple(w for w in result.warnings if w.kind not in LAYOUT_PROBLEMS)
    try:
        layout = layouts.get(computed.drawn_graph, show_saved, outdated)
    except LayoutCancelled:
        return replace(computed, cancelled=True)
    except LayoutUnavailable as unavailable:
        warnings, layout = (*warnings, unavailable.explanation), None
    except Exception as exc:  # a bug on this side: show the numbers without a picture
        warnings, layout = (*warnings, _layout_error(exc)), None
    if warnings != result.warnings:
        result = replace(result, warnings=warnings)
    return replace(
        computed, result=result, layout=layout, show_saved=show_saved, layout_pending=False
    )


def _engine_error(exc: Exception) -> Explanation:
    return Explanation(
        kind="engine-error",
        message=f"{type(exc).__name__}: {exc}",
        explanation="The app could not run the program: the process that runs it failed.",
        fix="Run again (Ctrl+Enter); if it keeps failing, restart the app.",
    )


def _layout_error(exc: Exception) -> Explanation:
    return Explanation(
        kind=LAYOUT_ERROR,
        message=f"{type(exc).__name__}: {exc}",
        explanation="Graphviz could not lay out this graph, so it is not drawn.",
        fix="Simplify the program; the numbers in the other panels are still right.",
        severity="warning",
    )
