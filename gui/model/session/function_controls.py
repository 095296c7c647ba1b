"""The session's function-view controls: the swept element, ``h``, and the sweeps.

A mixin of :class:`~gui.model.session.session.Session`; the sweeps' bookkeeping is
:class:`~.function_view.FunctionSweeps` (``_function``), run one at a time through the
session's dispatcher when no ordinary run is in flight.
"""

from __future__ import annotations

from collections.abc import Callable

from gui.model.request import SweepRequest
from gui.model.result import SweepResult
from gui.model.session.dispatch import Dispatcher
from gui.model.session.function_view import (
    FunctionSweeps,
    clamp_h,
    finished_sweep,
    next_sweep,
)
from gui.model.session.snapshot import Snapshot


class FunctionViewControls:
    """Choose the swept element and ``h``; run the next sweep when the session is idle."""

    # What the session holds (see Session.__init__) and the methods of it used here.
    _function: FunctionSweeps
    _sweep: Callable[[SweepRequest], SweepResult] | None
    _dispatcher: Dispatcher
    _snapshot: Snapshot
    _in_flight: bool
    _rerun: bool

    def _emit(self, changes: set[str]) -> None:
        raise NotImplementedError

    def select_function_element(self, leaf: str, index: int) -> None:
        """The leaf element the function view sweeps (flat, row-major ``index``)."""
        if self._function.choice == (leaf, index):
            return
        self._function.choice = (leaf, index)
        self._emit({"function"})

    def set_function_h(self, h: float) -> None:
        """The step ``h`` of the function view's finite difference (1e-6 to 1)."""
        h = clamp_h(h)
        if h == self._function.h:
            return
        self._function.h = h
        self._emit({"function"})

    def set_function_view_shown(self, shown: bool) -> None:
        """Whether the function view is on screen: it sweeps only while it is."""
        if shown == self._function.shown:
            return
        self._function.shown = shown
        self._emit({"function"})

    def settle_function_view(self) -> None:
        """The user stopped changing things (the function view's timer): sweep the curve
        that was held back meanwhile (see :data:`.function_view.SETTLE_SECONDS`)."""
        self._sweep_if_idle(settled=True)

    def _sweep_if_idle(self, settled: bool = False) -> None:
        """Start the function view's next sweep, when no run is in flight or waiting."""
        if self._sweep is None or self._in_flight or self._rerun:
            return
        request = next_sweep(self._function, self._snapshot, settled)
        if request is None:
            return
        self._function.started(request)
        sweep = self._sweep
        self._dispatcher.submit(lambda: sweep(request), self._on_swept)
        if not self._dispatcher.inline:
            self._emit({"function"})  # "sweeping…" (inline: it is back already)

    def _on_swept(self, result: SweepResult) -> None:
        # Kept, or dropped when it is for an older state: emitting starts the next sweep.
        finished_sweep(self._function, self._snapshot, result)
        self._emit({"function"})
