"""Big graphs: the app's own layout, and a 5,000-node graph in the real window, offscreen.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/big_layout.py [--shots DIR]``.

1. **layout**: :func:`gui.model.drawing.layout.layout_graph` (the layout worker's code, in
   this process) on synthetic graphs past Graphviz's quick range: a 5,000-op chain, RNNs of
   200 and 2,000 steps (shared weights: long edges across every row), best of 3. Each is
   checked for the structure the tests check too (every box placed, none overlapping).
2. **window**: the real window at 1280x720 loads an unrolled RNN with ~5,000 autograd nodes
   (plain torch code, run by the engine) and times: until the panel says it is laying out,
   until the picture is on screen and painted (the engine run, the layout in the worker,
   the scene built, the first paint), then a full repaint of the graph view fitted whole
   (zoomed out: boxes without text) and at the readable zoom, p50 of 10, and the first
   repaint at each zoom (it makes the items coming into view for the first time). ``--chain N``
   loads ``compare_torchviz.py --sizes``'s chain of N functions instead.
   ``--shots DIR`` saves the window both ways.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

import window_speed  # noqa: E402
from big_graphs import chain_graph, loop_graph  # noqa: E402
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402

from gui.model.drawing.layout import layout_graph  # noqa: E402
from gui.model.request import Program  # noqa: E402
from gui.model.session import Document, Snapshot  # noqa: E402

GRAPH_BUDGET_SECONDS = 3.0


def rnn_program(steps: int) -> str:
    """An RNN cell unrolled ``steps`` times: ~``12 * steps`` autograd nodes."""
    return (
        "torch.manual_seed(0)\n"
        "W = torch.randn(4, 4, requires_grad=True)\n"
        "U = torch.randn(4, 4, requires_grad=True)\n"
        "b = torch.zeros(4, requires_grad=True)\n"
        "h = torch.zeros(4)\nloss = torch.zeros(())\n"
        f"for t in range({steps}):\n"
        "    x = torch.full((4,), 0.1 * t)\n"
        "    h = torch.tanh(W @ h + U @ x + b)\n"
        "    loss = loss + (h * h).sum()\n"
    )


def layout_report() -> None:
    print("layout (best of 3), ms")
    for name, graph in (
        ("chain of 5,000 ops", chain_graph(5000)),
        ("RNN of 200 steps", loop_graph(200)),
        ("RNN of 2,000 steps", loop_graph(2000)),
    ):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            layout = layout_graph(graph, show_saved=False)
            times.append((time.perf_counter() - start) * 1000)
        assert set(layout.nodes) == {n.key for n in graph.nodes}
        print(f"  {name:24} {len(graph.nodes):6,d} boxes  {min(times):7.0f}")


def wait_for(app: object, session: object, test: object, timeout: float) -> None:
    loop = QEventLoop()

    def check(snapshot: Snapshot) -> None:
        if test(snapshot):  # type: ignore[operator]
            loop.quit()

    if test(session.snapshot):  # type: ignore[attr-defined, operator]
        return
    session.changed.connect(check)  # type: ignore[attr-defined]
    QTimer.singleShot(int(timeout * 1000), loop.quit)
    loop.exec()
    session.changed.disconnect(check)  # type: ignore[attr-defined]


def paint_ms(bench: window_speed.Bench) -> float:
    view = bench.window.graph.view()
    times = []
    for _ in range(10):
        start = time.perf_counter()
        view.viewport().repaint()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def window_report(name: str, code: str, shots: Path | None) -> None:
    bench = window_speed.build_window()
    bench.app.processEvents()
    window_speed.warm_engine(bench)
    window_speed.load_case(
        bench, Document(Program(code="x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()"))
    )
    panel = bench.window.graph
    rebuilds: list[float] = []
    rebuild = panel._rebuild

    def timed_rebuild(snapshot: Snapshot) -> object:
        started = time.perf_counter()
        try:
            return rebuild(snapshot)
        finally:
            rebuilds.append(time.perf_counter() - started)

    panel._rebuild = timed_rebuild  # type: ignore[method-assign]
    start = time.perf_counter()
    bench.session.load(Document(Program(code=code)))
    wait_for(
        bench.app,
        bench.session,
        lambda s: s.laying_out is not None or (s.layout is not None and not s.running),
        120,
    )
    said = time.perf_counter() - start
    if shots is not None and bench.session.snapshot.laying_out is not None:
        bench.window.grab().save(str(shots / "big-laying-out.png"))
    window_speed.wait_until_rendered(bench.app, bench.session, timeout=120)
    shown = time.perf_counter() - start
    snapshot = bench.session.snapshot
    nodes = 0 if snapshot.graph is None else len(snapshot.graph.nodes)
    boxes = 0 if snapshot.layout is None else len(snapshot.layout.nodes)
    print(f"window: {name}, {nodes:,} nodes, {boxes:,} boxes drawn")
    print(f"  'Laying out…' shown after  {said * 1000:7.0f} ms (the run: engine, transfer)")
    print(
        f"  picture painted after      {shown * 1000:7.0f} ms (budget {GRAPH_BUDGET_SECONDS:.0f} s)"
    )
    print(f"  of which scene built in    {sum(rebuilds) * 1000:7.0f} ms")
    view = panel.view()
    print(f"  repaint at the first view  {paint_ms(bench):7.1f} ms (zoom {view.zoom():.2f})")
    if shots is not None:
        bench.window.grab().save(str(shots / "big-initial.png"))
    view.fit()
    bench.app.processEvents()
    print(f"  repaint fitted whole       {paint_ms(bench):7.1f} ms (zoom {view.zoom():.3f})")
    if shots is not None:
        bench.window.grab().save(str(shots / "big-fitted.png"))
    for zoom in (0.1, 0.16, 0.25):  # the far overview, then the items at their smallest
        view.zoom_by(zoom / view.zoom())
        view.centerOn(view.sceneRect().center())
        # The first paint there makes the boxes and edges coming into view for the first
        # time (a big graph's items are made as they are first seen: graph_items).
        start = time.perf_counter()
        view.viewport().repaint()
        first = (time.perf_counter() - start) * 1000
        bench.app.processEvents()
        print(
            f"  repaint zoomed out         {paint_ms(bench):7.1f} ms (zoom {view.zoom():.3f}; "
            f"the first {first:.0f} ms)"
        )
        if shots is not None:
            bench.window.grab().save(str(shots / f"big-zoom-{zoom}.png"))
    assert snapshot.graph is not None
    start = time.perf_counter()
    layout_graph(snapshot.graph, show_saved=False)
    print(f"  layout (in this process)   {(time.perf_counter() - start) * 1000:7.0f} ms")
    bench.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=333, help="RNN steps in the window")
    parser.add_argument(
        "--chain", type=int, help="the window loads compare_torchviz's chain of N functions"
    )
    parser.add_argument("--shots", type=Path, help="save screenshots into this folder")
    parser.add_argument("--no-window", action="store_true", help="only the layout timings")
    args = parser.parse_args()
    layout_report()
    if args.no_window:
        return
    if args.chain:
        import torchviz_sizes

        code = torchviz_sizes.chain_program(args.chain)
        window_report(f"chain of {args.chain} functions", code, args.shots)
    else:
        window_report(f"RNN of {args.steps} steps", rnn_program(args.steps), args.shots)


if __name__ == "__main__":
    main()
