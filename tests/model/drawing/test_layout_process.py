"""The layout worker: Graphviz in a process of its own, restarted when it hangs or crashes.

These start child processes (``slow``). The misbehaving worker is
:mod:`tests.model.drawing.layout_worker_probe`, started by module name like the real one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gui.model.drawing import layout_worker
from gui.model.drawing.layout import layout_graph
from gui.model.drawing.layout_process import (
    LAYOUT_CRASHED,
    LAYOUT_ERROR,
    LAYOUT_TIMEOUT,
    LayoutCancelled,
    LayoutProcess,
    LayoutUnavailable,
)
from gui.model.drawing.layout_worker import JobFailed, LayoutJob
from gui.model.result import Graph
from tests.big_graphs import chain_graph, loop_graph

pytestmark = pytest.mark.slow

PROBE = "tests.model.drawing.layout_worker_probe"


@pytest.fixture
def probe() -> Iterator[LayoutProcess]:
    process = LayoutProcess(time_limit=1.0, entry=PROBE)
    process.layout(keyed("fine"), False)  # started and ready: timings are the job's
    yield process
    process.close()


@pytest.fixture
def real() -> Iterator[LayoutProcess]:
    process = LayoutProcess()
    process.layout(chain_graph(1), False)  # started and ready: timings are the job's
    yield process
    process.close()


def keyed(key: str) -> Graph:
    """A small graph whose structure key tells the probe worker how to behave."""
    return chain_graph(3, key=key)


def test_the_worker_lays_out_exactly_as_graphviz_does_in_process(real: LayoutProcess) -> None:
    graph = loop_graph(4)
    assert real.layout(graph, False) == layout_graph(graph, False)
    assert real.pid is not None and real.pid != os.getpid()


def test_the_worker_draws_svg(real: LayoutProcess) -> None:
    svg = real.svg(chain_graph(3), None, {"w": None})
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg


def test_a_hanging_worker_is_stopped_at_the_time_limit_restarted_and_reported(
    probe: LayoutProcess,
) -> None:
    first = probe.pid
    started = time.monotonic()
    with pytest.raises(LayoutUnavailable) as failed:
        probe.layout(keyed("hang"), False)
    assert 1.0 <= time.monotonic() - started < 3.0
    warning = failed.value.explanation
    assert (warning.kind, warning.severity) == (LAYOUT_TIMEOUT, "warning")
    assert "took too long" in warning.message and "still right" in warning.explanation
    assert probe.pid != first and probe.restarts == 1
    assert probe.layout(keyed("fine"), False).nodes  # the fresh worker serves


@pytest.mark.parametrize(("key", "words"), [("crash", "signal 11"), ("exit", "status 3")])
def test_a_crashing_worker_is_restarted_and_reported(
    probe: LayoutProcess, key: str, words: str
) -> None:
    first = probe.pid
    with pytest.raises(LayoutUnavailable) as failed:
        probe.layout(keyed(key), False)
    warning = failed.value.explanation
    assert (warning.kind, warning.severity) == (LAYOUT_CRASHED, "warning")
    assert words in warning.message and "restarted" in warning.explanation
    assert probe.pid != first and probe.restarts == 1
    assert probe.layout(keyed("fine"), False).nodes


def test_a_worker_found_dead_between_requests_is_replaced_quietly(probe: LayoutProcess) -> None:
    pid = probe.pid
    assert pid is not None
    probe.layout(keyed("fine"), False)
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    assert probe.layout(keyed("fine"), False).nodes
    assert probe.pid != pid


def test_graphviz_errors_come_back_as_explanations(
    probe: LayoutProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(graph: object, show_saved: bool, use_dot: bool | None = None) -> None:
        raise ValueError("syntax error in line 3")

    monkeypatch.setattr(layout_worker, "layout_graph", refuse)
    job = LayoutJob(1, chain_graph(3), False, 1.0)
    assert layout_worker.run_job(job) == JobFailed("ValueError: syntax error in line 3")
    # ...and a failed job reaches the window as a warning, the worker still serving
    pid = probe.pid
    with pytest.raises(LayoutUnavailable) as failed:
        probe.layout(keyed("modules"), False)
    assert failed.value.explanation.kind == LAYOUT_ERROR
    assert failed.value.explanation.severity == "warning"
    assert probe.pid == pid and probe.restarts == 0


def test_an_outdated_layout_is_cancelled_not_awaited(real: LayoutProcess) -> None:
    """A big graph keeps Graphviz busy for seconds (``loop_graph(40)``: ~6 s here); the
    user changes the code: the request gives up at once and the busy worker is replaced."""
    outdated = threading.Event()
    busy = real.pid

    def change_the_code_soon() -> None:
        time.sleep(0.3)
        outdated.set()
        real.interrupt()

    threading.Thread(target=change_the_code_soon).start()
    started = time.monotonic()
    with pytest.raises(LayoutCancelled):
        real.layout(loop_graph(40), False, cancelled=outdated.is_set, use_dot=True)
    assert time.monotonic() - started < 1.5
    assert real.pid != busy and real.restarts == 1
    assert real.layout(chain_graph(3), False).nodes  # and the next one is served


def test_a_request_cancelled_before_it_starts_leaves_the_worker_alone(
    real: LayoutProcess,
) -> None:
    pid = real.pid
    with pytest.raises(LayoutCancelled):
        real.layout(chain_graph(3), False, cancelled=lambda: True)
    real.interrupt()  # a stray wake-up does not cancel the next request
    assert real.layout(chain_graph(3), False).nodes
    assert real.pid == pid and real.restarts == 0


def test_the_worker_memory_is_bounded(real: LayoutProcess) -> None:
    real.layout(chain_graph(3), False)
    pid = real.pid
    with open(f"/proc/{pid}/limits") as limits:
        line = next(ln for ln in limits if ln.startswith("Max address space"))
    soft = line.split()[3]
    assert soft != "unlimited"
    with open(f"/proc/{pid}/status") as status:
        size = next(int(ln.split()[1]) * 1024 for ln in status if ln.startswith("VmSize:"))
    assert int(soft) < size + 1.5 * 1024**3


def test_running_out_of_the_memory_allowed_is_reported_and_survived() -> None:
    """A worker with almost no room: Graphviz cannot allocate, the request says so."""
    process = LayoutProcess(memory_headroom=1024**2)
    try:
        with pytest.raises(LayoutUnavailable) as failed:
            process.layout(loop_graph(40), False, use_dot=True)
        assert failed.value.explanation.kind in (LAYOUT_ERROR, LAYOUT_CRASHED)
        assert failed.value.explanation.severity == "warning"
    finally:
        process.close()


def test_the_worker_loads_graphviz_and_drawing_only(probe: LayoutProcess) -> None:
    with pytest.raises(LayoutUnavailable) as answer:
        probe.layout(keyed("modules"), False)
    loaded = set(answer.value.explanation.message.split())
    assert "pygraphviz" in loaded and "gui.model.drawing.layout" in loaded
    forbidden = ("torch", "PySide6", "pyqtgraph", "gui.model.session", "gui.model.engine")
    forbidden += ("gui.model.export", "gui.model.views", "gui.widgets")
    assert [m for m in loaded if m.startswith(forbidden)] == []


def test_the_window_process_never_loads_graphviz() -> None:
    """Only the worker runs Graphviz: the window's side of the drawing, the session and
    the export do not even import it (a crash in it cannot reach the window)."""
    code = (
        "import sys\n"
        "import gui.model.session.session, gui.model.export.files\n"
        "import gui.model.drawing.layout_process, gui.model.views.graph_caption\n"
        "print('pygraphviz' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_reply_that_names_other_code_is_refused_not_run(tmp_path: Path) -> None:
    """Graphviz's worker lays out labels from a stranger's program in native code: its
    replies are read like the engine's, so a pickle naming ``os.mkdir`` builds nothing
    and the request fails plainly (the worker is replaced)."""
    import multiprocessing

    marker = tmp_path / "window-marker"
    worker = LayoutProcess()
    parent, child = multiprocessing.Pipe()
    worker._conn = parent
    child.send_bytes(f"cos\nmkdir\n(S'{marker}'\ntR.".encode())
    try:
        with pytest.raises(LayoutUnavailable):
            worker._wait_for(None, time.monotonic() + 2.0, lambda: False)
    finally:
        worker.close()
        child.close()
    assert not marker.exists()


def test_the_real_worker_is_walled_in(real: LayoutProcess) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the wall's file and system-call layers are Linux's")
    assert real.walls_missing == (), "every layer of the wall is in place on this machine"
    # Behind it Graphviz still lays out and draws, from text read through a pipe.
    assert real.layout(loop_graph(8), False) == layout_graph(loop_graph(8), False)
    assert real.svg(chain_graph(30), None, {}, None).startswith("<?xml")


def test_native_code_in_the_worker_reaches_no_file_process_socket_or_window(
    tmp_path: Path,
) -> None:
    """What Graphviz's native code could do if a stranger's labels took it over, tried as
    plain Python in the probe worker, which walls itself in exactly as the real one does."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the teacher's file\n")
    process = LayoutProcess(time_limit=10.0, entry=PROBE)
    try:
        process.layout(keyed("fine"), False)
        missing = process.walls_missing
        if missing:
            pytest.skip("this platform lacks part of the wall: " + " ".join(missing))
        with pytest.raises(LayoutUnavailable) as answer:
            process.layout(keyed(f"escape {tmp_path}"), False)
    finally:
        process.close()
    message = answer.value.explanation.message
    outcomes = json.loads(message[message.index("{") : message.rindex("}") + 1])
    assert outcomes == {
        "write": "refused: PermissionError",
        "append": "refused: PermissionError",
        "read": "refused: PermissionError",
        "list": "refused: PermissionError",
        "socket": "refused: PermissionError",
        "process": "refused: PermissionError",
        "signal the window": "refused: PermissionError",
    }
    assert secret.read_text() == "the teacher's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.txt"]
