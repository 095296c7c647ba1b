"""While the window has a worker thread, garbage is collected on the GUI thread only."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

from pytestqt.qtbot import QtBot

from gui.widgets import gui_thread_collections
from gui.widgets.thread_dispatcher import ThreadDispatcher


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_worker_threads_garbage_is_collected_on_the_gui_thread(qtbot: QtBot) -> None:
    threads: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            threads.append(threading.get_ident())

    enabled = gc.isenabled()
    dispatcher = ThreadDispatcher()
    gc.callbacks.append(seen)
    try:
        assert not gc.isenabled()

        def make_garbage() -> int:
            for _ in range(50_000):
                Cycle()  # far past the first generation's threshold
            return 1

        done: list[int] = []
        dispatcher.submit(make_garbage, done.append)
        qtbot.waitUntil(lambda: bool(done), timeout=10_000)
        qtbot.waitUntil(lambda: bool(threads), timeout=5_000)  # the GUI thread's timer
        assert set(threads) == {threading.get_ident()}
    finally:
        gc.callbacks.remove(seen)
        dispatcher.close()
    assert gc.isenabled() == enabled


def test_holds_nest_and_the_last_release_gives_collection_back() -> None:
    enabled = gc.isenabled()
    gui_thread_collections.hold()
    gui_thread_collections.hold()
    gui_thread_collections.release()
    assert not gc.isenabled()
    gui_thread_collections.release()
    assert gc.isenabled() == enabled
    gui_thread_collections.release()  # one too many: nothing happens
    assert gc.isenabled() == enabled


def test_postpone_lets_a_paint_come_before_the_next_collection(qtbot: QtBot) -> None:
    starts: list[float] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            starts.append(time.monotonic())

    gui_thread_collections.hold()
    gc.callbacks.append(seen)
    try:
        for _ in range(50_000):
            Cycle()  # due for a collection at the timer's next look
        postponed = time.monotonic()
        gui_thread_collections.postpone()
        qtbot.wait(gui_thread_collections.CHECK_INTERVAL_MS // 2)
        assert starts == []  # what was about to be painted had its turn first
        qtbot.waitUntil(lambda: bool(starts), timeout=5_000)
        assert starts[0] - postponed >= gui_thread_collections.CHECK_INTERVAL_MS / 1000 * 0.9
    finally:
        gc.callbacks.remove(seen)
        gui_thread_collections.release()


def test_postpone_without_a_hold_changes_nothing() -> None:
    enabled = gc.isenabled()
    gui_thread_collections.postpone()
    assert gc.isenabled() == enabled
