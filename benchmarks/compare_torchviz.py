"""The app's slider tick next to torchviz redrawing the same graphs, in the same run.

Run: ``.venv/bin/python benchmarks/compare_torchviz.py [--runs N]`` (offscreen, no screen
needed). torchviz is a benchmark-only dependency: ``.venv/bin/pip install -e '.[bench]'``
(or ``pip install torchviz``); the ``dot`` program is optional (``apt-get install
graphviz``): without it that column says so and the others still run.

For every shipped lesson (``resources/lessons/*.json``) and the synthetic ~200-node graph of
``window_speed.py`` it prints p50 and p95 in milliseconds of:

- **app tick**: the real window at 1280x720, a slider value change until every panel has
  rendered the new result and Qt has painted (``window_speed.py``'s measurement: the engine
  process, the worker thread and every panel included);
- **dot program**: what a notebook user does to redraw: re-run the cell (the program's
  forward pass, in this process), ``make_dot`` with the named tensors as ``params``, and
  the graph as SVG from the ``dot`` program (``Digraph.pipe``, one process per drawing);
- **pygraphviz**: the same, with Graphviz laid out and drawn in-process (pygraphviz);
- **pygraphviz + paint**: the same SVG painted with ``QSvgRenderer`` onto an image the size
  of the app's graph panel: pixels on screen, what the tick ends with too;

and the ratios app tick ÷ each torchviz way (below 1: the app is faster). torchviz redraws
the whole picture (a new layout each time); the tick re-runs the program with backward and
Jacobians and updates every panel, but never lays the graph out again.

``--sizes [N ...]`` prints instead the table by graph size (default 100, 500, 2000 and
5000 function nodes, unrolled chains of plain torch code): time to first picture and
value-only refresh (a mouse drag's tick, a key press's step, letting go of the drag) for
the app and for torchviz in the same run, each size capped
(``--cap SECONDS``, default 120: past it the size says "over cap" and the table goes on);
see ``torchviz_sizes.py``.

The torchviz side builds the torch graph in this process (a benchmark may import torch;
the app's packages never do: the window's engine runs in its own process).
"""

from __future__ import annotations

import argparse
import ast
import math
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torchviz_sizes
import window_speed

try:
    import pygraphviz
    import torch
    from torchviz import make_dot
except ImportError as missing:  # pragma: no cover - said plainly, no traceback
    sys.exit(
        f"compare_torchviz needs torch, pygraphviz and torchviz ({missing}); "
        "install them with: .venv/bin/pip install -e '.[bench]'"
    )
from PySide6.QtCore import QByteArray, QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from gui.model.session import Document

Timed = Callable[[], object]


class Notebook:
    """One program as a notebook cell: run it, draw its graph with torchviz."""

    def __init__(self, document: Document, output: str | None) -> None:
        program = document.program
        # Statement by statement, as the app's engine runs it: a lesson that shows an error
        # (07 calls backward with a gradient of the wrong shape) still has the graph built
        # before it.
        self._code = [
            compile(ast.Module(body=[statement], type_ignores=[]), "<cell>", "exec")
            for statement in ast.parse(program.code).body
        ]
        self._seed = program.seed
        self._output = output

    def forward(self) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Run the cell; its output tensor and every named tensor that has grad (params)."""
        torch.manual_seed(self._seed)
        names: dict[str, Any] = {
            "torch": torch,
            "tensor": torch.tensor,
            "F": torch.nn.functional,
            "math": math,
            "Variable": torch.autograd.Variable,
        }
        for statement in self._code:
            try:
                exec(statement, names)
            except Exception:  # the cell stops here, as a notebook's would
                break
        tensors = {
            k: v for k, v in names.items() if isinstance(v, torch.Tensor) and v.requires_grad
        }
        output = tensors.get(self._output or "")
        if output is None:  # the app's choice is not a tensor here: the last one with a graph
            output = [v for v in tensors.values() if v.grad_fn is not None][-1]
        return output, tensors

    def dot_source(self) -> Any:
        output, params = self.forward()
        return make_dot(output, params=params)


def percentiles(fn: Timed, runs: int, warm: int = 3) -> tuple[float, float]:
    for _ in range(warm):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return window_speed.percentiles(times)


def dot_program(notebook: Notebook) -> bytes:
    return notebook.dot_source().pipe(format="svg")


def svg_in_process(notebook: Notebook) -> bytes:
    source = notebook.dot_source().source
    # pygraphviz's bundled Graphviz crashes on a label that begins with a raw newline
    # (platform notes); torchviz writes one for a tensor it has no name for.
    if 'label="\n' in source:
        raise ValueError("a label begins with a newline (pygraphviz would crash)")
    return pygraphviz.AGraph(string=source).draw(format="svg", prog="dot")


def painted(notebook: Notebook, size: QSize) -> QImage:
    renderer = QSvgRenderer(QByteArray(svg_in_process(notebook)))
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    # Fitted into the panel, keeping the drawing's proportions (as an image viewer would).
    view = renderer.viewBoxF()
    scale = min(size.width() / view.width(), size.height() / view.height())
    renderer.render(painter, QRectF(0, 0, view.width() * scale, view.height() * scale))
    painter.end()
    return image


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100, help="ticks and drawings per case")
    parser.add_argument("--cases", nargs="*", help="only cases whose name contains one of these")
    parser.add_argument(
        "--sizes",
        nargs="*",
        type=int,
        metavar="N",
        help="the table by graph size instead, for these numbers of function nodes "
        f"(none given: {' '.join(map(str, torchviz_sizes.DEFAULT_SIZES))})",
    )
    parser.add_argument(
        "--cap",
        type=float,
        default=torchviz_sizes.DEFAULT_CAP_SECONDS,
        help="with --sizes: seconds a first picture may take before it counts as over cap",
    )
    parser.add_argument(
        "--ticks", type=int, default=30, help="with --sizes: app slider ticks per size"
    )
    args = parser.parse_args()
    if args.sizes is not None:
        sizes = args.sizes or list(torchviz_sizes.DEFAULT_SIZES)
        torchviz_sizes.sizes_report(sizes, args.ticks, min(args.runs, 5), args.cap)
        return
    has_dot = shutil.which("dot") is not None

    bench = window_speed.build_window()
    size = bench.window.graph.size()
    print(
        f"app tick vs torchviz redrawn, {args.runs} runs each, ms (p50 / p95); graph panel "
        f"{size.width()}x{size.height()} at 1280x720"
    )
    if not has_dot:
        print("(no `dot` program on PATH: apt-get install graphviz for that column)")
    header = (
        f"{'case':28} {'nodes':>9} {'app tick':>13} {'dot program':>13} {'pygraphviz':>13}"
        f" {'pgv + paint':>13}   {'app ÷ dot':>9} {'÷ pgv':>6} {'÷ paint':>7}"
    )
    print(header)
    rows: list[tuple[str, float, float, float, float]] = []
    for name, document in window_speed.cases(args.cases):
        app_nodes = window_speed.load_case(bench, document)
        result = bench.session.snapshot.result
        notebook = Notebook(document, None if result is None else result.output)
        ticks = window_speed.tick_times(bench.app, bench.window, bench.session, args.runs)
        app50, app95 = window_speed.percentiles(ticks)
        tv_nodes = pygraphviz.AGraph(string=notebook.dot_source().source).number_of_nodes()
        if has_dot:
            dot50, dot95 = percentiles(
                lambda n=notebook: n.dot_source().pipe(format="svg"), args.runs
            )
        else:
            dot50 = dot95 = math.nan
        pgv50, pgv95 = percentiles(lambda n=notebook: svg_in_process(n), args.runs)
        pnt50, pnt95 = percentiles(lambda n=notebook: painted(n, size), args.runs)
        short = name if len(name) <= 28 else name[:27] + "…"
        print(
            f"{short:28} {app_nodes:4d}/{tv_nodes:<4d} {app50:6.2f}/{app95:6.2f}"
            f" {dot50:6.2f}/{dot95:6.2f} {pgv50:6.2f}/{pgv95:6.2f} {pnt50:6.2f}/{pnt95:6.2f}"
            f"   {app50 / dot50:9.2f} {app50 / pgv50:6.2f} {app50 / pnt50:7.2f}",
            flush=True,
        )
        rows.append((name, app50, dot50, pgv50, pnt50))
    bench.close()
    lessons = [r for r in rows if not r[0].startswith("synthetic")]
    if lessons:
        med = [statistics.median(r[i] for r in lessons) for i in range(1, 5)]
        print(
            f"{'lessons, median of p50s':28} {'':9} {med[0]:6.2f}{'':7} {med[1]:6.2f}{'':7}"
            f" {med[2]:6.2f}{'':7} {med[3]:6.2f}{'':7}   {med[0] / med[1]:9.2f}"
            f" {med[0] / med[2]:6.2f} {med[0] / med[3]:7.2f}"
        )
    print("nodes: the app's graph / torchviz's (the app also draws constants and saved values)")


if __name__ == "__main__":
    main()
