"""How fast the real window answers: slider ticks, structure changes, start-up.

Run: ``.venv/bin/python benchmarks/window_speed.py [--ticks N]`` (offscreen, no screen
needed). It builds the same window ``python main.py`` shows and prints, in milliseconds:

- per lesson and for a synthetic ~200-node graph: the time from a slider value change (a
  keyboard step on the first input slider, as a user would make) until every panel has
  rendered the new result and Qt has painted, p50 and p95 over N ticks, and the CPU time
  the window's process spent per tick (all its threads, p50: what the window itself costs,
  less sensitive than the wall time to the other processes of a shared machine);
- the relayout time when the structure changes (200 nodes): Graphviz alone, and the whole
  change from new code to a painted window;
- start-up: from launching the app (``gui.app.main``, as ``main.py`` does) to the first
  painted window and to the first painted result, next to the time a process takes just
  to import torch and PySide6 (the floor).

``--breakdown`` adds, per case, where a tick's time goes (medians over the ticks, ms): the
engine round trip (pickling and sending the job, waiting for the child, of which the
child's own run, reading and unpickling the answer on the worker thread), the wait for the
queued signal to reach the GUI thread, the session's snapshot building, each panel's
``render`` for the change snapshot and for the result snapshot, and Qt's paint of each
panel (per widget ``Paint`` events, attributed to the panel they sit in), layout requests
and the whole window repaint. ``--profile DIR`` also writes a cProfile of the GUI thread
per case (``DIR/<case>.prof``). ``--cases`` picks cases by a part of their name.
``--chain 5000`` adds a big graph: ``torchviz_sizes.py``'s chain of 5,000 function nodes
(with ``--cases none --skip structure startup --ticks 10``: that graph alone).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QAbstractSlider, QApplication, QSlider  # noqa: E402
from torchviz_sizes import chain_program  # noqa: E402

from gui.model import wire  # noqa: E402
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
    if snapshot.running or snapshot.stale or snapshot.laying_out is not None:
        loop = QEventLoop()
        rendered: list[bool] = []

        def check(snap: Snapshot) -> None:
            # A big graph's numbers come first, its picture once laid out (laying_out).
            if not snap.running and not snap.stale and snap.laying_out is None:
                rendered.append(True)
                loop.quit()

        session.changed.connect(check)
        QTimer.singleShot(int(timeout * 1000), loop.quit)
        loop.exec()
        session.changed.disconnect(check)
        # (Not the snapshot now: events handled before the loop returned may have started
        # the next run already, a held value's pause ending and every number read again.)
        if not rendered:
            raise TimeoutError("no result")
    app.processEvents()  # the paints the renders asked for


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def tick_times(
    app: QApplication,
    window: MainWindow,
    session: Session,
    ticks: int,
    probe: Probe | None = None,
    cpu: list[float] | None = None,
    drag: bool = False,
) -> list[float]:
    """Milliseconds from each slider step to the painted result (``cpu``: appended with
    the CPU time the window's process spent on each). ``drag``: the steps are made with
    the handle held, as a mouse drag makes them (see gui.model.session.drag_detail)."""
    sliders = window.inputs.findChildren(QSlider)
    if not sliders:
        raise RuntimeError("no input slider to drag")
    slider = sliders[0]
    times = []
    if drag:
        slider.setSliderDown(True)  # sliderPressed, as a mouse press on the handle
    for i in range(ticks + 10):
        # Up and down in turn, so the value never pins at an end of the range.
        action = (
            QAbstractSlider.SliderAction.SliderSingleStepAdd
            if (i // 5) % 2 == 0
            else QAbstractSlider.SliderAction.SliderSingleStepSub
        )
        if probe is not None:
            probe.end_tick(keep=False)  # what happened between ticks is not the tick's
        start = time.perf_counter()
        spent = time.process_time()
        slider.triggerAction(action)
        wait_until_rendered(app, session)
        elapsed = (time.perf_counter() - start) * 1000
        if i >= 10:  # the first ticks warm caches
            times.append(elapsed)
            if cpu is not None:
                cpu.append((time.process_time() - spent) * 1000)
        if probe is not None:
            probe.add("tick: slider value change to painted window", elapsed)
            probe.end_tick(keep=i >= 10)
    if drag:
        slider.setSliderDown(False)
        wait_until_rendered(app, session)
    return times


class Probe:
    """Milliseconds per named part, summed over one tick; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[str, float] = {}
        self.ticks: list[dict[str, float]] = []

    def add(self, part: str, ms: float) -> None:
        with self._lock:
            self._parts[part] = self._parts.get(part, 0.0) + ms

    def end_tick(self, keep: bool) -> None:
        with self._lock:
            if keep:
                self.ticks.append(self._parts)
            self._parts = {}

    def medians(self) -> dict[str, float]:
        names = {name for tick in self.ticks for name in tick}
        return {
            name: statistics.median(tick.get(name, 0.0) for tick in self.ticks) for name in names
        }


class TimedApplication(QApplication):
    """A QApplication that times what its event loop hands out, for ``--breakdown``.

    Every widget's ``Paint`` event is charged to the panel it sits in; other events are
    charged by type, outermost only (a queued result's delivery contains the renders).
    """

    probe: Probe | None = None
    areas: dict[int, str] = {}  # noqa: RUF012 - one application per process

    _depth = 0

    def notify(self, receiver: QObject, event: QEvent) -> bool:  # type: ignore[override]
        probe = self.probe
        if probe is None:
            return super().notify(receiver, event)
        kind = event.type()
        self._depth += 1
        start = time.perf_counter()
        try:
            return super().notify(receiver, event)
        finally:
            self._depth -= 1
            ms = (time.perf_counter() - start) * 1000
            if kind == QEvent.Type.Paint:
                probe.add(f"paint: {self.area(receiver)}", ms)
            elif self._depth == 0:
                probe.add(f"event loop: {kind.name} to {type(receiver).__name__}", ms)

    def area(self, obj: QObject | None) -> str:
        while obj is not None:
            name = self.areas.get(id(obj))
            if name is not None:
                return name
            obj = obj.parent()
        return "window (menus, status bar, tabs)"


class TimedConnection:
    """The engine's pipe, timing each side of a job's round trip (worker thread)."""

    def __init__(self, conn: object, probe: Probe) -> None:
        self._conn = conn
        self._probe = probe

    def send(self, obj: object) -> None:
        start = time.perf_counter()
        self._conn.send(obj)  # type: ignore[attr-defined]
        self._probe.add("engine: send the job (pickle + write)", _ms(start))

    def poll(self, timeout: float | None = None) -> bool:
        start = time.perf_counter()
        ready = self._conn.poll(timeout)  # type: ignore[attr-defined]
        self._probe.add("engine: wait for the child's answer", _ms(start))
        return bool(ready)

    def recv_bytes(self, maxlength: int | None = None) -> bytes:
        start = time.perf_counter()
        data = self._conn.recv_bytes(maxlength)  # type: ignore[attr-defined]
        self._probe.add("engine: read the answer", _ms(start))
        self._probe.add("engine: answer size (KB, not ms)", len(data) / 1024)
        return bytes(data)

    def __getattr__(self, name: str) -> object:
        return getattr(self._conn, name)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def instrument(
    app: QApplication,
    window: MainWindow,
    session: Session,
    engine: EngineProcess,
    dispatcher: ThreadDispatcher,
) -> Probe:
    """Time every part of a tick (see ``--breakdown``); returns the probe that holds them."""
    probe = Probe()
    panels: list[tuple[str, object]] = [
        ("editor", window.editor),
        ("inputs", window.inputs),
        ("graph", window.graph),
        ("plots", window.plots),
        ("backward", window.backward),
        ("details", window.details),
        ("window", window),
    ]
    if isinstance(app, TimedApplication):
        app.areas = {id(panel): name for name, panel in panels if name != "window"}
        app.probe = probe
    # Every render in the order the panels connected, each timed.
    session.changed.disconnect()

    def fan_out(snapshot: Snapshot) -> None:
        phase = "result" if "result" in snapshot.changes else "change"
        for name, panel in panels:
            start = time.perf_counter()
            panel.render(snapshot)  # type: ignore[attr-defined]
            probe.add(f"render ({phase} snapshot): {name}", _ms(start))

    session.changed.connect(fan_out)
    make_snapshot = session._make_snapshot

    def timed_snapshot(changes: frozenset[str]) -> Snapshot:
        start = time.perf_counter()
        snapshot = make_snapshot(changes)
        probe.add("session: build the snapshot", _ms(start))
        return snapshot

    session._make_snapshot = timed_snapshot  # type: ignore[method-assign]
    layouts_get = session._layouts.get

    def timed_layout(*args: object, **kwargs: object) -> object:
        start = time.perf_counter()
        value = layouts_get(*args, **kwargs)  # type: ignore[arg-type]
        probe.add("worker: layout lookup", _ms(start))
        return value

    session._layouts.get = timed_layout  # type: ignore[method-assign]
    submit = dispatcher.submit

    def timed_submit(work: object, done: object) -> None:
        ended: list[float] = []
        submitted = time.perf_counter()

        def timed_work() -> object:
            start = time.perf_counter()
            # The worker thread needs the GIL the GUI thread holds while it renders.
            probe.add("worker: submitted to started (queue, GIL)", _ms(submitted))
            value = work()  # type: ignore[operator]
            probe.add("worker: the whole job (engine + layout)", _ms(start))
            result = getattr(value, "result", None)
            if result is not None:
                probe.add("engine: the child's run (its own clock)", result.elapsed_seconds * 1000)
            ended.append(time.perf_counter())
            return value

        def timed_done(value: object) -> None:
            if ended:
                probe.add("queued signal: job done to GUI thread", _ms(ended[0]))
            start = time.perf_counter()
            done(value)  # type: ignore[operator]
            probe.add("session: take the result (renders included)", _ms(start))

        submit(timed_work, timed_done)

    dispatcher.submit = timed_submit  # type: ignore[method-assign]
    engine._conn = TimedConnection(engine._conn, probe)  # type: ignore[assignment]
    loads = wire.loads

    def timed_loads(data: bytes, *args: object, **kwargs: object) -> object:
        # (the layout worker's replies pass max_text: a wrapper dropping it would fail
        # there, and the worker's ready message would be lost to the waiting window)
        start = time.perf_counter()
        value = loads(data, *args, **kwargs)  # type: ignore[arg-type]
        probe.add("engine: unpickle and check the answer", _ms(start))
        return value

    wire.loads = timed_loads  # type: ignore[assignment]
    return probe


def print_breakdown(name: str, probe: Probe) -> None:
    """The medians of ``probe``'s parts, grouped: engine, session, renders, paints."""
    medians = probe.medians()
    ticks = [sum(v for k, v in tick.items() if k == "tick") for tick in probe.ticks]
    print(f"\n  where a tick's time goes, {name} (medians over {len(ticks)} ticks, ms)")
    order = ("tick", "engine", "worker", "queued", "session", "render (change", "render (result")
    order += ("paint", "event loop")
    for prefix in order:
        for part in sorted(k for k in medians if k.startswith(prefix)):
            print(f"    {part:58} {medians[part]:7.3f}")


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
STARTUP_WINDOW = '''"""Start-up probe: the app as main.py starts it; prints painted, then result."""
import importlib.abc, importlib.util, os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
sys.path.insert(0, {root!r})


def watch(window_app):
    from PySide6.QtCore import QEvent, QObject

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

    original = window_app.MainWindow

    class Watched(original):
        def __init__(self, session, *args, **kwargs):
            super().__init__(session, *args, **kwargs)
            self._watch = Painted(session)
            self.installEventFilter(self._watch)
            session.changed.connect(self._poke)

        def _poke(self, snapshot):
            self.update()

    window_app.MainWindow = Watched


class Hook(importlib.abc.MetaPathFinder):
    """Watches the window once gui.window_app is loaded, whenever the app loads it."""

    def find_spec(self, name, path=None, target=None):
        if name != "gui.window_app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            watch(module)

        spec.loader.exec_module = exec_module
        return spec


if __name__ == "__main__":  # the engine's child imports this file too, as main.py
    sys.meta_path.insert(0, Hook())
    from gui.app import main

    sys.exit(main([]))
'''


def startup(runs: int) -> dict[str, float]:
    """Median wall times from process launch to each printed milestone (ms)."""
    marks: dict[str, list[float]] = {"floor": [], "painted": [], "result": []}
    home = Path(tempfile.mkdtemp(prefix="ae-startup-"))
    probe = home / "probe.py"  # a file, as main.py is: the spawned children import it too
    probe.write_text(STARTUP_WINDOW.format(root=str(ROOT)))
    # The user's settings and autosaves stay out of it: a fresh, empty place each time.
    env = {**os.environ, "XDG_CONFIG_HOME": str(home), "XDG_DATA_HOME": str(home)}
    for _ in range(runs):
        for args in (["-c", STARTUP_FLOOR], [str(probe)]):
            start = time.perf_counter()
            # A session of its own: the window's engine process inherits the pipe, and is
            # killed with it once the last milestone is read.
            proc = subprocess.Popen(
                [sys.executable, *args],
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env=env,
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
    shutil.rmtree(home, ignore_errors=True)
    return {k: statistics.median(v) for k, v in marks.items() if v}


@dataclasses.dataclass
class Bench:
    """The real window, offscreen at 1280x720, with its engine and worker thread."""

    app: QApplication
    engine: EngineProcess
    dispatcher: ThreadDispatcher
    session: Session
    window: MainWindow
    freezer: FreezeAfterFirstResult
    probe: Probe | None = None

    def close(self) -> None:
        self.window.hide()  # not close(): it would ask to save the changed session
        self.dispatcher.close()
        self.engine.close()


def build_window(breakdown: bool = False, events: bool = True) -> Bench:
    """The window as ``python main.py`` builds it (``breakdown``: with every part timed;
    ``events``: Qt's events and paints too, which routes every event through Python)."""
    if breakdown and events and QApplication.instance() is None:
        TimedApplication(sys.argv[:1])
    app = application()
    engine = EngineProcess()
    engine.start()
    dispatcher = ThreadDispatcher()
    session = Session(engine.run, dispatcher)
    settings = QSettings(str(Path("/tmp") / "ae-bench.ini"), QSettings.Format.IniFormat)
    settings.clear()
    window = MainWindow(session, settings)
    probe = None
    if breakdown:
        probe = instrument(app, window, session, engine, dispatcher)
    freezer = FreezeAfterFirstResult(session)  # as the app does
    window.resize(1280, 720)
    window.show()
    return Bench(app, engine, dispatcher, session, window, freezer, probe)


def cases(only: list[str] | None = None) -> list[tuple[str, Document]]:
    """Every shipped lesson and the synthetic ~200-node graph (``only``: names containing)."""
    found = [(p.stem, load_session(p)) for p in lesson_paths()]
    found.append(("synthetic ~200-node graph", Document(Program(code=chain(40)))))
    if only:
        found = [(name, doc) for name, doc in found if any(o in name for o in only)]
    return found


def warm_engine(bench: Bench) -> None:
    """Wait until the engine has finished warming up, as a window open for a few seconds
    has: two different small programs, the second of which runs in the first spare forked
    after the engine's warm-up (``gui.model.engine.fork_server``: a new program right after
    start-up waits for it, 1-2 s here, which a first-picture figure must not count)."""
    for factor in (2, 3):
        load_case(
            bench,
            Document(
                Program(code=f"w = torch.ones(2, requires_grad=True)\nz = (w * {factor}).sum()")
            ),
        )


def load_case(bench: Bench, document: Document) -> int:
    """Show ``document`` and wait for its first result; the number of graph nodes."""
    bench.session.load(document)
    wait_until_rendered(bench.app, bench.session, timeout=120)
    graph = bench.session.snapshot.graph
    return 0 if graph is None else len(graph.nodes)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ticks", type=int, default=200)
    parser.add_argument("--startup-runs", type=int, default=5)
    parser.add_argument("--breakdown", action="store_true", help="where a tick's time goes")
    parser.add_argument(
        "--drag", action="store_true", help="ticks with the slider's handle held (a mouse drag)"
    )
    parser.add_argument(
        "--no-events",
        action="store_true",
        help="with --breakdown: leave Qt's events untimed (no Python in every event)",
    )
    parser.add_argument("--profile", metavar="DIR", help="cProfile of the GUI thread per case")
    parser.add_argument("--cases", nargs="*", help="only cases whose name contains one of these")
    parser.add_argument("--skip", nargs="*", default=[], choices=["ticks", "structure", "startup"])
    parser.add_argument(
        "--chain",
        type=int,
        nargs="*",
        default=[],
        metavar="FUNCTIONS",
        help="also big graphs: torchviz_sizes.py's chains of this many function nodes",
    )
    args = parser.parse_args()

    if "ticks" not in args.skip:
        ticks_report(args)
    if "startup" not in args.skip:
        startup_report(args.startup_runs)


def ticks_report(args: argparse.Namespace) -> None:
    bench = build_window(args.breakdown, events=not args.no_events)
    app, window, session = bench.app, bench.window, bench.session
    print(f"slider tick to painted window, {args.ticks} ticks each (ms)")
    print(f"{'case':34} {'nodes':>6} {'p50':>7} {'p95':>7} {'window CPU p50':>15}")
    chains = [
        (f"chain of {n} functions", Document(Program(code=chain_program(n)))) for n in args.chain
    ]
    if chains:
        session.set_time_limit(120.0)  # a big graph's first run takes seconds
    for name, file in [*cases(args.cases), *chains]:
        nodes = load_case(bench, file)
        profiler = cProfile.Profile() if args.profile else None
        if profiler is not None:
            profiler.enable()
        cpu: list[float] = []
        times = tick_times(app, window, session, args.ticks, bench.probe, cpu, args.drag)
        if profiler is not None:
            profiler.disable()
            Path(args.profile).mkdir(parents=True, exist_ok=True)
            profiler.dump_stats(str(Path(args.profile) / f"{name.split()[0]}.prof"))
        p50, p95 = percentiles(times)
        print(
            f"{name:34} {nodes:6d} {p50:7.2f} {p95:7.2f} {statistics.median(cpu):15.2f}", flush=True
        )
        if bench.probe is not None:
            print_breakdown(name, bench.probe)
            bench.probe.ticks.clear()

    if "structure" not in args.skip:
        structure_report(app, window, session)
    bench.close()


def structure_report(app: QApplication, window: MainWindow, session: Session) -> None:
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


def startup_report(runs: int) -> None:
    marks = startup(runs)
    print(f"\nstart-up, median of {runs} launches (ms):")
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
