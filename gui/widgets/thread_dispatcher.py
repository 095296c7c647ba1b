"""Run the session's work on one worker thread and hand results back on the GUI thread.

The engine call blocks for as long as the user's program runs (up to the time limit), so
it must never run on the GUI thread: the window would freeze. One thread is enough because
the session never has more than one run in flight (Graphviz itself runs in its own
process, :mod:`gui.model.drawing.layout_process`, whose handle this thread uses alone).
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from gui.widgets import gui_thread_collections

# How long the GUI thread may keep Python's GIL from the worker thread (Python's default
# is 5 ms). A slider tick hands the job to the worker while the GUI thread goes on drawing
# the change; with the default the job could wait that long before it is even sent.
GIL_SWITCH_SECONDS = 0.0002


class _Relay(QObject):
    """Carries finished work across threads: a queued signal lands on the GUI thread."""

    delivered = Signal(object)


class ThreadDispatcher:
    """A :class:`~gui.model.session.dispatch.Dispatcher` backed by one daemon worker thread.

    Create it on the GUI thread (after the QApplication); ``done`` callbacks run there.
    While it lives, garbage is collected on the GUI thread only (see
    :mod:`.gui_thread_collections`): close it on the GUI thread too.
    """

    inline = False

    def __init__(self) -> None:
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_SECONDS))
        gui_thread_collections.hold()
        self._closed = False
        self._relay = _Relay()
        self._relay.delivered.connect(self._deliver)
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], Callable[[Any], None]] | None]
        self._queue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="engine-runs", daemon=True)
        self._thread.start()

    def submit(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        self._queue.put((work, done))

    def close(self) -> None:
        """Stop the worker after the work already queued."""
        self._queue.put(None)
        self._thread.join(timeout=5)
        if not self._closed:
            self._closed = True
            gui_thread_collections.release()

    def _serve(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            work, done = item
            # The session's work catches its own failures; anything escaping is a bug that
            # must not kill the thread (every later run would hang).
            try:
                value = work()
            except Exception as exc:  # pragma: no cover - defensive
                value = exc
            self._relay.delivered.emit((done, value))

    def _deliver(self, payload: tuple[Callable[[Any], None], Any]) -> None:
        done, value = payload
        if isinstance(value, Exception):
            raise value
        done(value)
