"""The worker-thread dispatcher: work runs off the GUI thread, results come back on it."""

from __future__ import annotations

import threading

from pytestqt.qtbot import QtBot

from gui.model.engine_process import EngineProcess
from gui.model.session import Session
from gui.widgets.thread_dispatcher import ThreadDispatcher


def test_work_runs_on_the_worker_and_done_on_the_gui_thread(qtbot: QtBot) -> None:
    dispatcher = ThreadDispatcher()
    seen: dict[str, object] = {}

    def work() -> int:
        seen["work_thread"] = threading.current_thread()
        return 42

    def done(value: int) -> None:
        seen["done_thread"] = threading.current_thread()
        seen["value"] = value

    dispatcher.submit(work, done)
    qtbot.waitUntil(lambda: "value" in seen)
    dispatcher.close()
    assert seen["value"] == 42
    assert seen["work_thread"] is not threading.main_thread()
    assert seen["done_thread"] is threading.main_thread()


def test_a_runaway_program_never_blocks_the_gui_thread(
    qtbot: QtBot, engine_process: EngineProcess
) -> None:
    dispatcher = ThreadDispatcher()
    session = Session(engine_process.run, dispatcher, time_limit=0.5)
    session.set_code("while True:\n    pass\n")
    # The call returned at once: the run is in flight on the worker thread.
    assert session.snapshot.running
    qtbot.waitUntil(lambda: not session.snapshot.running, timeout=10_000)
    error = session.snapshot.error
    assert error is not None and error.kind == "runaway-code"
    session.set_code("x = torch.tensor([2.], requires_grad=True)\ny = (x * x).sum()\n")
    qtbot.waitUntil(lambda: not session.snapshot.running, timeout=60_000)
    assert session.snapshot.error is None
    dispatcher.close()


def test_the_gui_thread_hands_the_gil_over_quickly(qtbot: QtBot) -> None:
    """A job submitted while the GUI thread draws must not wait Python's default 5 ms for
    the GIL before it is even sent to the engine."""
    import sys

    from gui.widgets.thread_dispatcher import GIL_SWITCH_SECONDS

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        dispatcher = ThreadDispatcher()
        dispatcher.close()
        assert sys.getswitchinterval() <= GIL_SWITCH_SECONDS < 0.001
    finally:
        sys.setswitchinterval(before)
