"""One run and its graph layout: the work a session hands to its dispatcher's thread."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from gui.model.drawing.layout import GraphLayout
from gui.model.request import RunRequest
from gui.model.result import Explanation, RunResult, failed_result
from gui.model.session.layouts import LayoutCache


@dataclass(frozen=True)
class Computed:
    """What came back for ``request``: the engine's result and its graph laid out."""

    request: RunRequest
    result: RunResult
    layout: GraphLayout | None
    show_saved: bool = False


def compute(
    run: Callable[[RunRequest], RunResult],
    layouts: LayoutCache,
    request: RunRequest,
    show_saved: bool,
) -> Computed:
    """Run ``request`` and lay its graph out; never raises.

    Runs on the dispatcher's thread: the engine and, when the structure changed, Graphviz.
    A failing engine or Graphviz becomes an explanation in the result, so the window stays
    alive and says what happened.
    """
    try:
        result = run(request)
    except Exception as exc:  # the engine process failed: say so, keep the window alive
        result = failed_result(_engine_error(exc), seed=request.program.seed)
    try:
        layout = layouts.get(result.graph, show_saved)
    except Exception as exc:  # Graphviz refused: show the result without a picture
        result = replace(result, warnings=(*result.warnings, _layout_error(exc)))
        layout = None
    return Computed(request, result, layout, show_saved)


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
