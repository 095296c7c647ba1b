"""Pausing Python's cyclic garbage collector while a big, garbage-free structure is built.

Building something big makes tens of thousands of long-lived objects, none of them
garbage, and each few hundred start a collection; every so often a full one walks
everything the process holds. Two places pay for that:

- the engine recording a 5,000-function graph (about 100,000 nodes, tensor data and
  flows, kept until the result is sent): collections were a fifth to a half of the run.
  The engine's bookkeeping makes no reference cycles worth collecting, so the collector is
  off from the end of the program's statements to the end of the run
  (:func:`gui.model.engine.run.run_program`); what the run made is looked at once, by the
  collection the engine process makes after every run anyway. The program's statements,
  and its hooks and custom Functions inside torch's backward (:class:`collector_running`),
  run with the collector as the program left it. Pausing changes no number and gives the
  program no new power;
- the window building a 5,000-box graph's scene (a third of the build went to
  collections).

Reference counting still frees what is dropped meanwhile. Kept free of torch and Qt: the
engine and the widgets both use it.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable
from types import TracebackType
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _Pauses(threading.local):
    """Per thread: whether the collector was on before each pause still open, outermost
    first (the collector is the process's; each thread puts back what it found)."""

    def __init__(self) -> None:
        self.enabled_before: list[bool] = []


_PAUSES = _Pauses()


class collector_paused:  # lower case: used like contextlib's context managers
    """No garbage collections inside the block; the collector's state is put back after it.

    Nested blocks are fine: only the outermost one that found the collector on turns it
    back on. A class, not a generator: leaving a generator's block raises StopIteration,
    an allocation that could start a collection at once, inside the block, instead of
    after it.
    """

    def __enter__(self) -> None:
        _PAUSES.enabled_before.append(gc.isenabled())
        gc.disable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if _PAUSES.enabled_before.pop():
            gc.enable()


def paused_during(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` run inside :class:`collector_paused` (a decorator)."""

    @functools.wraps(function)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with collector_paused():
            return function(*args, **kwargs)

    return paused


class collector_running:  # lower case: used like contextlib's context managers
    """The collector as it was before the pauses around this block, for a stretch of a
    paused block where program code may run (its hooks, inside torch's backward)."""

    def __enter__(self) -> None:
        before = _PAUSES.enabled_before
        self._resumed = bool(before) and before[0] and not gc.isenabled()
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
