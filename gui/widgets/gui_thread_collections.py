"""Garbage collections on the GUI thread only, while the window has a worker thread.

Python collects garbage on whichever thread allocates past its threshold. When that is the
engine's worker thread (:mod:`.thread_dispatcher`: reading a big answer, pickling a graph
for the layout worker), the collection may end a Qt object's Python wrapper, and PySide
then disconnects its signals from that thread: it takes Qt's connection lock there and
waits for the GIL, while the GUI thread, holding the GIL, waits for that lock to connect
something. The window froze that way in the test suite (twice in one day, gdb: the worker
in ``handle_weakrefs`` -> ``QObject::disconnect`` -> ``PyGILState_Ensure``, the GUI thread
in ``QObject::connectImpl``).

So while a worker thread lives (:func:`hold` ... :func:`release`), automatic collection is
off and a timer on the GUI thread collects instead, each generation when Python itself
would have (its thresholds against :func:`gc.get_count`), as pyqtgraph's
``GarbageCollector`` does for the same reason. Reference counting frees everything else at
once, on every thread, as always. The code that pauses the collector around big reads
(:mod:`gui.model.paused_collector`, :func:`gui.model.wire.loads`) leaves it as it found
it: off, here.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

# How often the GUI thread looks at the allocation counts: often enough that a drag's
# garbage (reference cycles are few) never piles up, rare enough to cost nothing.
CHECK_INTERVAL_MS = 250


class _Collections(QObject):
    """The timer and who holds it (a QObject: its slot is not watched by a weak
    reference, see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.holders = 0
        self.was_enabled = True
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_INTERVAL_MS)
        self.timer.timeout.connect(self.collect)

    def collect(self) -> None:
        """Collect each generation whose count is past Python's threshold for it."""
        first, second, third = gc.get_threshold()
        count0, count1, count2 = gc.get_count()
        if first and count0 > first:
            gc.collect(0)
            if second and count1 > second:
                gc.collect(1)
                if third and count2 > third:
                    gc.collect(2)


_COLLECTIONS: list[_Collections] = []  # made on first use, on the GUI thread


def hold() -> None:
    """Collect on the GUI thread only, from now until every :func:`hold` is released.
    Call on the GUI thread."""
    if not _COLLECTIONS:
        _COLLECTIONS.append(_Collections())
    collections = _COLLECTIONS[0]
    if collections.holders == 0:
        collections.was_enabled = gc.isenabled()
        gc.disable()
        collections.timer.start()
    collections.holders += 1


def release() -> None:
    """Undo one :func:`hold`; the last one collects once and gives collection back to
    Python as it was. Call on the GUI thread."""
    if not _COLLECTIONS or _COLLECTIONS[0].holders == 0:
        return
    collections = _COLLECTIONS[0]
    collections.holders -= 1
    if collections.holders == 0:
        collections.timer.stop()
        gc.collect()
        if collections.was_enabled:
            gc.enable()


def postpone() -> None:
    """The next look at the counts waits a whole interval: the window has just built
    something big (a graph's thousands of items) that is about to be painted, and a full
    collection over it (tens of milliseconds) would come first. Call on the GUI thread."""
    if _COLLECTIONS and _COLLECTIONS[0].holders:
        _COLLECTIONS[0].timer.start()  # (restarts a running timer)
