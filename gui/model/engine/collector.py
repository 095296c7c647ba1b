"""Pausing Python's garbage collector while the engine records a big graph.

Recording a 5,000-function graph makes about 100,000 small objects (nodes, tensor data,
flows) that all live until the result is sent. Each collection of the oldest generation
walks every one of them, and with so many new long-lived objects such collections come
again and again (a new one each time the survivors grow by a quarter): they were a fifth to
a half of a 5,000-function run. The engine's own bookkeeping makes no reference cycles worth
collecting, so the collector is off from the end of the program's statements to the end of
the run (:func:`gui.model.engine.run.run_program`); what the run made is then looked at
once, by the collection the engine process makes after every run anyway.

The program's statements always run with the collector as the program left it (a loop that
makes cyclic garbage is collected as in plain Python), and so do its hooks and custom
Functions inside torch's backward (:func:`collector_running`). What may still run paused is
a finaliser of the program's objects as the run lets go of them: it runs as it would
anyway; only cyclic garbage it makes waits for that collection after the run (the memory
limit still applies). Pausing changes no number and gives the program no new power.
"""

from __future__ import annotations

import gc
from types import TracebackType

# Whether the collector was on before the outermost pause still open (empty: none open).
_ENABLED_BEFORE: list[bool] = []


class collector_paused:  # lower case: used like contextlib's context managers
    """No garbage collections inside the block; the collector's state is put back after it.

    Nested blocks are fine: only the outermost one that found the collector on turns it
    back on. A class, not a generator: leaving a generator's block raises StopIteration,
    an allocation that would start the collection at once, inside the run, instead of in
    the engine process's collection right after it.
    """

    def __enter__(self) -> None:
        _ENABLED_BEFORE.append(gc.isenabled())
        gc.disable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if _ENABLED_BEFORE.pop():
            gc.enable()


class collector_running:  # lower case: used like contextlib's context managers
    """The collector as it was before the pauses around this block, for a stretch of a
    paused block where program code may run (its hooks, inside torch's backward)."""

    def __enter__(self) -> None:
        self._resumed = bool(_ENABLED_BEFORE) and _ENABLED_BEFORE[0] and not gc.isenabled()
        if self._resumed:
            gc.enable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._resumed:
            gc.disable()
