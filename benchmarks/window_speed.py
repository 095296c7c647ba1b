"""How fast the real window answers: slider ticks, structure changes, start-up.

Run: ``.venv/bin/python benchmarks/window_speed.py [--ticks N]`` (offscreen, no screen
needed). It builds the same window ``python main.py`` shows and prints, in milliseconds:

- per lesson and for a synthetic ~200-node graph: the time from a slider value change (a
  keyboard step on the first input slider, as a user would make) until every panel has
  rendered the new result and Qt has painted, p50 and p95 over N ticks;
- the relayout time when the structure changes (200 nodes): Graphviz alone, and the whole
  change from new code to a painted window;
- start-up: from launching a process to the first painted window, next to the time a
  process takes just to import torch and PySide6, and to the first painted result.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QAbstractSlider, QApplication, QSlider  # noqa: E402

from gui.model.drawing.layout import layout_graph  # noqa: E402
from gui.model.engine_process import EngineProcess  # noqa: E402
from gui.model.request import Program  # noqa: E402
from gui.model.session import (  # noqa: E402
    Document,
    Session,
    Snapshot,
    load_session,
)
from gui.resources import lesson_paths  # noqa: E402
from gui.widgets.main_window import MainWindow  # noqa: E402
from gui.widgets.thread_dispatcher import ThreadDispatcher  # noqa: E402
from gui.window_app import FreezeAfterFirstResult, application  # noqa: E402


def chain(steps: int) -> str:
    """A program whose graph has about ``5 * steps`` nodes (ops, constants, saved values)."""
    return (
        "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
        f"for i in range({steps}):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
    )


def wait_until_rendered(app: QApplication, session: Session, timeout: float = 30.0) -> None:
    """Run the event loop until the session's newest result has been rendered and painted.

    Waits in a real event loop, as the app does, rather than polling: a busy polling loop
    would hold Python's GIL against the worker thread that receives the result.
    """
    snapshot = session.snapshot
    if snapshot.running or snapshot.stale:
        loop = QEventLoop()

        def check(snap: Snapshot) -> None:
            if not snap.running and not snap.stale:
                loop.quit()

        session.changed.connect(check)
        QTimer.singleShot(int(timeout * 1000), loop.quit)
        loop.exec()
        session.changed.disconnect(check)
        if session.snapshot.running or session.snapshot.stale:
            raise TimeoutError("no result")
    app.processEvents()  # the paints the renders asked for


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def tick_times(app: QApplication, window: MainWindow, session: Session, ticks: int) -> list[float]:
    sliders = window.inputs.findChildren(QSlider)
    if not sliders:
        raise RuntimeError("no input slider to drag")
    slider = sliders[0]
    times = []
    for i in range(ticks + 10):
        # Up and down in turn, so the value never pins at an end of the range.
        action = (
            QAbstractSlider.SliderAction.SliderSingleStepAdd
            if (i // 5) % 2 == 0
            else QAbstractSlider.SliderAction.SliderSingleStepSub
        )
        start = time.perf_counter()
        slider.triggerAction(action)
        wait_until_rendered(app, session)
        if i >= 10:  # the first ticks warm caches
            times.append((time.perf_counter() - start) * 1000)
    return times


def structure_change_times(
    app: QApplication, window: MainWindow, session: Session, steps: int, runs: int
) -> dict[str, list[float]]:
    """New code with a new structure each time (so the layout cache never helps).

    Returns per-run times (ms): ``whole`` (new code to painted window), ``engine`` (the
    run, as the engine measured it), ``graphviz`` (the layout alone) and ``rebuild`` (the
    graph panel rebuilding its scene and painting it).
    """
    times: dict[str, list[float]] = {"whole": [], "engine": [], "graphviz": [], "rebuild": []}
    panel = window.graph
    for i in range(runs):
        start = time.perf_counter()
        session.set_code(chain(steps + i))
        wait_until_rendered(app, session)
        times["whole"].append((time.perf_counter() - start) * 1000)
        snapshot = session.snapshot
        graph = snapshot.graph
        if graph is None or snapshot.result is None:
            continue
        times["engine"].append(snapshot.result.elapsed_seconds * 1000)
        t = time.perf_counter()
        layout = layout_graph(graph)
        times["graphviz"].append((time.perf_counter() - t) * 1000)
        # The panel again, from scratch, with a fresh layout object: what a new structure
        # costs on the GUI thread once Graphviz is done.
        fresh = dataclasses.replace(snapshot, layout=layout)
        t = time.perf_counter()
        panel.render(fresh)
        panel.view().viewport().repaint()
        times["rebuild"].append((time.perf_counter() - t) * 1000)
        panel.render(snapshot)
    return times


STARTUP_FLOOR = "import time, torch, PySide6.QtWidgets; print('ready', flush=True)"
STARTUP_WINDOW = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
sys.path.insert(0, {root!r})
from PySide6.QtCore import QEvent, QObject
from gui.window_app import application, run_window
import gui.window_app as wa

class Painted(QObject):
    def __init__(self, session):
        super().__init__()
        self.session, self.first = session, False
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.first:
            self.first = True
            print("painted", flush=True)
        snap = self.session.snapshot
        if self.first and snap.result is not None and not snap.running:
            print("result", flush=True)
            os._exit(0)
        return False

original = wa.MainWindow
class Watched(original):
    def __init__(self, session, *args, **kwargs):
        super().__init__(session, *args, **kwargs)
        self._watch = Painted(session)
        self.installEventFilter(self._watch)
        session.changed.connect(self._poke)
    def _poke(self, snapshot):
        self.update()
wa.MainWindow = Watched
run_window(None)
"""


def startup(runs: int) -> dict[str, float]:
    """Median wall times from process launch to each printed milestone (ms)."""
    marks: dict[str, list[float]] = {"floor": [], "painted": [], "result": []}
    window_code = STARTUP_WINDOW.format(root=str(ROOT))
    for _ in range(runs):
        for code in (STARTUP_FLOOR, window_code):
            start = time.perf_counter()
            # A session of its own: the window's engine process inherits the pipe, and is
            # killed with it once the last milestone is read.
            proc = subprocess.Popen(
                [sys.executable, "-c", code],
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                start_new_session=True,
            )
            assert proc.stdout is not None
            for line in proc.stdout:
                elapsed = (time.perf_counter() - start) * 1000
                word = line.strip()
                if word in ("ready", "painted", "result"):
                    marks["floor" if word == "ready" else word].append(elapsed)
                if word in ("ready", "result"):
                    break
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=120)
    return {k: statistics.median(v) for k, v in marks.items() if v}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ticks", type=int, default=200)
    parser.add_argument("--startup-runs", type=int, default=5)
    args = parser.parse_args()

    app = application()
    engine = EngineProcess()
    engine.start()
    dispatcher = ThreadDispatcher()
    session = Session(engine.run, dispatcher)
    settings = QSettings(str(Path("/tmp") / "ae-bench.ini"), QSettings.Format.IniFormat)
    window = MainWindow(session, settings)
    freezer = FreezeAfterFirstResult(session)  # as the app does
    window.resize(1280, 720)
    window.show()

    cases = [(p.stem, load_session(p)) for p in lesson_paths()]
    cases.append(("synthetic ~200-node graph", Document(Program(code=chain(40)))))
    print(f"slider tick to painted window, {args.ticks} ticks each (ms)")
    print(f"{'case':34} {'nodes':>6} {'p50':>7} {'p95':>7}")
    for name, file in cases:
        session.load(file)
        wait_until_rendered(app, session, timeout=120)
        graph = session.snapshot.graph
        nodes = 0 if graph is None else len(graph.nodes)
        p50, p95 = percentiles(tick_times(app, window, session, args.ticks))
        print(f"{name:34} {nodes:6d} {p50:7.2f} {p95:7.2f}")

    times = structure_change_times(app, window, session, 35, 30)
    graph = session.snapshot.graph
    nodes = 0 if graph is None else len(graph.nodes)
    print(f"\nstructure change, {nodes} nodes, 30 new structures (ms)   p50     p95")
    labels = {
        "graphviz": "Graphviz layout (worker thread)",
        "rebuild": "graph scene rebuild + paint (GUI thread)",
        "engine": "running the new code (engine process)",
        "whole": "new code to painted window, in all",
    }
    for key, label in labels.items():
        p50, p95 = percentiles(times[key])
        print(f"  {label:48} {p50:7.1f} {p95:7.1f}")

    window.hide()  # not close(): it would ask to save the changed session
    del freezer
    dispatcher.close()
    engine.close()

    marks = startup(args.startup_runs)
    print(f"\nstart-up, median of {args.startup_runs} launches (ms):")
    print(f"  import torch + PySide6 only (floor)  {marks['floor']:8.0f}")
    painted = marks.get("painted", float("nan"))
    print(
        f"  first painted window                 {painted:8.0f}  ({painted / marks['floor']:.2f}x)"
    )
    result = marks.get("result", float("nan"))
    print(
        f"  first painted result (torch in child) {result:7.0f}  ({result / marks['floor']:.2f}x)"
    )


if __name__ == "__main__":
    main()
