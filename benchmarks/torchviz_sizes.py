"""The app next to torchviz on graphs of growing size: first picture and value-only refresh.

Run through ``benchmarks/compare_torchviz.py --sizes [N ...]`` (default sizes 100, 500,
2000 and 5000). Each size is a plain torch program, an unrolled chain
``h = torch.sin(h) * 1.01`` with N autograd function nodes, measured in the same run:

- **app first picture**: the real window at 1280x720 (``window_speed.build_window``),
  engine and layout worker already warm, from loading the program to the window painted
  with its result (engine run + layout + first paint: ``window_speed.wait_until_rendered``).
  Measured in a child process of its own per size, which is killed at the cap: nothing a
  size does can hang the benchmark or slow the next size.
- **app drag**: a slider step on ``x`` made with the handle held, as a mouse drag makes
  it, until every panel has rendered and painted the new values (measured as
  ``window_speed.tick_times`` does), p50 over the ticks (fewer ticks when they would take
  more than a quarter of the cap). A graph of 1,000 nodes or more then reads the boxes in
  view (``gui.model.session.drag_detail``); **release** is letting go, until every node's
  numbers are read and painted.
- **app key**: the same step from the keyboard (an arrow key on the slider); steps count
  as held until they pause (``gui.widgets.slider_hold``), so they read what is on screen
  too; **settle** is from the last step to every node's numbers read and painted, the
  pause included.
- **torchviz first picture**: the notebook way, in a Python process of its own (killed
  at the cap too): run the program, draw it with ``make_dot`` (the leaf as ``params``),
  render it with the ``dot`` program to SVG and paint that SVG with ``QSvgRenderer`` onto
  an image the size of the app's graph panel.
- **torchviz refresh**: a value change in a notebook is that whole cell again (torchviz
  has no other way to show new numbers), p50 over a few runs.

A size whose first picture takes longer than the cap prints "over cap" and the table goes on.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_SIZES = (100, 500, 2000, 5000)
DEFAULT_CAP_SECONDS = 120.0
# What a child needs on top of the cap to start (torch and Qt imports, the engine's start).
CHILD_START_SECONDS = 90.0
# The graph panel's size at 1280x720, for painting torchviz's picture (as the tick's).
PANEL_SIZE = (700, 560)


def chain_program(functions: int) -> str:
    """Plain torch code whose backward graph has about ``functions`` function nodes
    (``SinBackward0`` and ``MulBackward0`` per step, then the ``sum``)."""
    steps = max(1, (functions - 1) // 2)
    return (
        "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
        f"for i in range({steps}):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
    )


# -- torchviz, in this process --------------------------------------------------------


@dataclass
class TorchvizTimes:
    nodes: int
    first_ms: float | None  # None: over the cap
    refresh_ms: float | None
    note: str = ""


def torchviz_picture(code: str, cap: float) -> tuple[int, float]:
    """Run ``code``, ``make_dot`` it, render with ``dot`` and paint it; (nodes, ms).

    Raises ``subprocess.TimeoutExpired`` when ``dot`` runs past ``cap`` seconds.
    """
    import torch
    from PySide6.QtCore import QByteArray, QRectF
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer
    from torchviz import make_dot

    start = time.perf_counter()
    names: dict[str, Any] = {"torch": torch}
    exec(compile(code, "<cell>", "exec"), names)
    dot = make_dot(names["out"], params={"x": names["x"]})
    svg = subprocess.run(
        ["dot", "-Tsvg"],
        input=dot.source.encode("utf-8"),
        capture_output=True,
        timeout=max(0.1, cap - (time.perf_counter() - start)),
        check=True,
    ).stdout
    renderer = QSvgRenderer(QByteArray(svg))
    image = QImage(*PANEL_SIZE, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    view = renderer.viewBoxF()
    scale = min(PANEL_SIZE[0] / view.width(), PANEL_SIZE[1] / view.height())
    renderer.render(painter, QRectF(0, 0, view.width() * scale, view.height() * scale))
    painter.end()
    elapsed = (time.perf_counter() - start) * 1000
    nodes = sum(1 for line in dot.body if " [label=" in line and "->" not in line)
    return nodes, elapsed


def torchviz_times(code: str, runs: int, cap: float) -> TorchvizTimes:
    """First picture and p50 refresh for ``code`` (see the module docstring).

    ``make_dot`` recurses once per node: past Python's default recursion limit (about
    1,000 nodes deep) it raises ``RecursionError``, which a notebook user meets as is. The
    note says so and the times are taken again with a raised limit, so the table still has
    torchviz's figures (run in a child of its own: a too-deep C stack would end it).
    """
    if shutil.which("dot") is None:
        return TorchvizTimes(0, None, None, "no `dot` program (apt-get install graphviz)")
    note = ""
    try:
        try:
            nodes, first = torchviz_picture(code, cap)
        except RecursionError:
            note = "tv: make_dot RecursionError at Python's default limit, timed with it raised"
            sys.setrecursionlimit(max(sys.getrecursionlimit(), 200_000))
            nodes, first = torchviz_picture(code, cap)
        refresh = []
        spent = first / 1000
        for _ in range(runs):
            if spent + first / 1000 > cap:
                break
            _, ms = torchviz_picture(code, cap)
            refresh.append(ms)
            spent += ms / 1000
    except subprocess.TimeoutExpired:
        return TorchvizTimes(0, None, None, "tv: over cap")
    return TorchvizTimes(nodes, first, statistics.median(refresh) if refresh else None, note)


def torchviz_child(functions: int, runs: int, cap: float) -> dict[str, Any]:
    """In the child: :func:`torchviz_times` with Qt offscreen for the painting."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 - kept alive
    times = torchviz_times(chain_program(functions), runs, cap)
    return {
        "nodes": times.nodes,
        "first_ms": times.first_ms,
        "refresh_ms": times.refresh_ms,
        "note": times.note,
    }


def torchviz_in_child(functions: int, runs: int, cap: float) -> TorchvizTimes:
    """Run :func:`torchviz_child` in a child process, killed if it outlives the cap."""
    data, problem = _child(["--torchviz-child", str(functions), str(runs), str(cap)], cap)
    if data is None:
        return TorchvizTimes(0, None, None, f"tv: {problem}")
    return TorchvizTimes(data["nodes"], data["first_ms"], data["refresh_ms"], data["note"])


def _child(arguments: list[str], cap: float) -> tuple[dict[str, Any] | None, str]:
    """Run this file with ``arguments``; its JSON answer, or ``None`` and what happened."""
    command = [sys.executable, str(Path(__file__).resolve()), *arguments]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, timeout=2 * cap + CHILD_START_SECONDS, env=env
        )
    except subprocess.TimeoutExpired:
        return None, "over cap"
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return None, f"failed: {tail[:70]}"
    return json.loads(lines[-1]), ""


# -- the app, in a child process per size ----------------------------------------------


def app_child(functions: int, ticks: int, cap: float) -> dict[str, Any]:
    """In the child: the window, warmed on a small program, then the size's program."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(HERE))
    import window_speed

    from gui.model.request import Program
    from gui.model.session import Document

    bench = window_speed.build_window()
    try:
        session = bench.session
        session.set_time_limit(min(3600.0, cap))
        window_speed.warm_engine(bench)
        window_speed.load_case(bench, Document(Program(code=chain_program(10))))
        start = time.perf_counter()
        session.load(Document(Program(code=chain_program(functions))))
        try:
            window_speed.wait_until_rendered(bench.app, session, timeout=cap)
        except TimeoutError:
            return {"first_ms": None}
        first = (time.perf_counter() - start) * 1000
        snapshot = session.snapshot
        graph = snapshot.graph
        out: dict[str, Any] = {
            "first_ms": first,
            "nodes": 0 if graph is None else len(graph.nodes),
            "drawn": snapshot.layout is not None,
            "error": None if snapshot.error is None else snapshot.error.message[:80],
        }
        times, settle = ticks_within(bench, ticks, budget=cap / 4, how="keys")
        out["step_ms"] = statistics.median(times) if times else None
        out["settle_ms"] = settle
        times, release = ticks_within(bench, ticks, budget=cap / 4, how="drag")
        out["tick_ms"] = statistics.median(times) if times else None
        out["release_ms"] = release
        out["ticks"] = len(times)
        return out
    finally:
        bench.close()


# Ticks before the measured ones: the first after a new structure warm caches.
WARM_TICKS = 3


def ticks_within(bench: Any, ticks: int, budget: float, how: str) -> tuple[list[float], float]:
    """Up to ``ticks`` slider steps (ms each, step to painted window, as
    ``window_speed.tick_times`` measures them), fewer when they use up ``budget`` seconds:
    a big graph's ticks must not keep the size past its cap; and the time from the last
    step to the window painted with every number read.

    ``how``: ``"drag"``, the steps made with the slider's handle held, as a mouse drag
    makes them, then let go; ``"keys"``, arrow-key presses on the slider, then the pause
    after which every number is read (``gui.widgets.slider_hold.SETTLE_MS`` of it is the
    wait). A big graph's held steps read what is on screen (gui.model.session.drag_detail).
    """
    import window_speed
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QAbstractSlider, QSlider

    from gui.widgets.tensor_editor import TensorEditor

    slider = bench.window.inputs.findChildren(QSlider)[0]
    editor = next(
        w
        for w in bench.window.inputs.findChildren(TensorEditor)
        if slider in w.findChildren(QSlider)
    )
    actions = (
        QAbstractSlider.SliderAction.SliderSingleStepAdd,
        QAbstractSlider.SliderAction.SliderSingleStepSub,
    )
    keys = (Qt.Key.Key_Right, Qt.Key.Key_Left)
    end = time.perf_counter() + budget
    times: list[float] = []
    if how == "drag":
        slider.setSliderDown(True)  # sliderPressed, as a mouse press on the handle
    for i in range(ticks + WARM_TICKS):
        start = time.perf_counter()
        if how == "drag":
            slider.triggerAction(actions[(i // 5) % 2])  # up and down: never pinned at an end
        else:
            QTest.keyClick(slider, keys[(i // 5) % 2])
        window_speed.wait_until_rendered(bench.app, bench.session, timeout=budget)
        if i >= WARM_TICKS:
            times.append((time.perf_counter() - start) * 1000)
        if time.perf_counter() > end:
            break
    start = time.perf_counter()
    if how == "drag":
        slider.setSliderDown(False)  # sliderReleased: every number is read again
    while editor.value_held:  # the keys' pause, in the event loop as the app waits it
        QTest.qWait(5)
    window_speed.wait_until_rendered(bench.app, bench.session, timeout=budget)
    return times, (time.perf_counter() - start) * 1000


@dataclass
class AppTimes:
    nodes: int
    first_ms: float | None  # None: over the cap
    refresh_ms: float | None
    note: str = ""
    step_ms: float | None = None  # an arrow key's step
    settle_ms: float | None = None  # from the last key step to every number read
    release_ms: float | None = None  # letting go of a drag, to every number read


def app_times(functions: int, ticks: int, cap: float) -> AppTimes:
    """Run :func:`app_child` in a child process, killed if it outlives the cap."""
    data, problem = _child(["--app-child", str(functions), str(ticks), str(cap)], cap)
    if data is None:
        return AppTimes(0, None, None, f"app: {problem}")
    if data["first_ms"] is None:
        return AppTimes(0, None, None, "app: over cap")
    note = "" if data["drawn"] else "app: graph not drawn (over the layout limits)"
    if data.get("error"):
        note = f"app: error: {data['error']}"
    return AppTimes(
        data["nodes"],
        data["first_ms"],
        data["tick_ms"],
        note,
        data.get("step_ms"),
        data.get("settle_ms"),
        data.get("release_ms"),
    )


# -- the table -------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "over cap" if value is None else f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0 or math.isnan(a) or math.isnan(b):
        return "-"
    return f"{a / b:.2f}"


def sizes_report(sizes: list[int], ticks: int, runs: int, cap: float) -> None:
    """Print the table: per size, both tools' first picture and refresh, and the ratios."""
    print(
        f"graphs by size: first picture and value-only refresh, ms (cap {cap:.0f} s; "
        f"app refresh p50 of {ticks} ticks, torchviz refresh p50 of up to {runs} redraws)"
    )
    print(
        f"{'functions':>9} {'nodes app/tv':>13} {'app first':>10} {'tv first':>10} "
        f"{'app ÷ tv':>9} {'app drag':>9} {'tv redraw':>10} {'tv ÷ app':>9} "
        f"{'app key':>9} {'tv ÷ key':>9} {'settle':>8} {'release':>8}  notes"
    )
    for functions in sizes:
        app = app_times(functions, ticks, cap)
        tv = torchviz_in_child(functions, runs, cap)
        notes = "; ".join(n for n in (app.note, tv.note) if n)
        print(
            f"{functions:9d} {app.nodes:6d}/{tv.nodes:<6d} {_ms(app.first_ms):>10} "
            f"{_ms(tv.first_ms):>10} {_ratio(app.first_ms, tv.first_ms):>9} "
            f"{_ms(app.refresh_ms):>9} {_ms(tv.refresh_ms):>10} "
            f"{_ratio(tv.refresh_ms, app.refresh_ms):>9} {_ms(app.step_ms):>9} "
            f"{_ratio(tv.refresh_ms, app.step_ms):>9} {_ms(app.settle_ms):>8} "
            f"{_ms(app.release_ms):>8}  {notes}",
            flush=True,
        )
    print(
        "nodes: the app's graph (functions, leaves, constants, output) / torchviz's boxes; "
        "app ÷ tv below 1: the app's first picture is faster; app drag: a tick while the "
        "slider's handle is held (what is on screen is read); tv ÷ app: how many times "
        "faster it is than torchviz's redraw; app key: an arrow key's step on the slider; "
        "settle: from the last key step to every number read and painted (300 ms of it is "
        "the pause that ends the keys' gesture); release: letting go of the drag until "
        "every number is read and painted"
    )


if __name__ == "__main__" and sys.argv[1:2] in (["--app-child"], ["--torchviz-child"]):
    size, count, cap_seconds = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    child = app_child if sys.argv[1] == "--app-child" else torchviz_child
    print(json.dumps(child(size, count, cap_seconds)), flush=True)
    # The window's threads and child processes are closed; leave without Qt's teardown.
    os._exit(0)
