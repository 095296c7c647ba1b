"""Screenshots of every shipped lesson at the sizes a classroom projector gives.

Run: ``.venv/bin/python benchmarks/screenshots.py [--out DIR] [--lesson STEM ...]``
(offscreen, no screen needed). For every lesson it opens the real window at 1280x720 and
1024x768, in normal and presentation mode (F11), waits for the result and saves
``DIR/<lesson>-<width>x<height>-<mode>.png`` (default ``build/screenshots``). It also
prints the height of the graph's smallest text on screen (scene font size x view scale,
in pixels), the figure the "readable on a projector" rule is about.

``--walkthrough`` instead drives one window at 1280x720 through the README's "first five
minutes" (open a lesson, drag a slider, press Backward twice, break the code, apply the
fix) and saves each step, the README's window picture and its exported graph into
``docs/images`` (or ``--out``).

A script, not a test: pictures are for people to look at, never compared by pixels.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402
from PySide6.QtWidgets import QAbstractSlider, QApplication  # noqa: E402

from gui.model.engine_process import EngineProcess  # noqa: E402
from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS  # noqa: E402
from gui.model.session import Session, load_session  # noqa: E402
from gui.resources import lesson_paths  # noqa: E402
from gui.widgets.main_window import MainWindow  # noqa: E402
from gui.widgets.thread_dispatcher import ThreadDispatcher  # noqa: E402
from gui.window_app import application  # noqa: E402

SIZES = ((1280, 720), (1024, 768))
MODES = ("normal", "presentation")


def settle(app: QApplication, session: Session, timeout: float = 120.0) -> None:
    """Process events until the session's newest result is in and painted."""
    deadline = time.monotonic() + timeout
    while session.snapshot.running or session.snapshot.result is None:
        app.processEvents()
        if time.monotonic() > deadline:
            raise TimeoutError("the engine did not answer in time")
        time.sleep(0.01)
    for _ in range(5):  # layouts and paints the last render asked for
        app.processEvents()
        time.sleep(0.01)


BROKEN = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x**2\ny.backward()\n"


def lesson(stem: str) -> Path:
    return next(p for p in lesson_paths() if p.stem.startswith(stem))


def walkthrough(
    app: QApplication, engine: EngineProcess, dispatcher: ThreadDispatcher, out: Path
) -> None:
    """The README's first five minutes, one picture per step, in one window at 1280x720."""
    settings_dir = Path(tempfile.mkdtemp())

    def window_on(stem: str) -> tuple[MainWindow, Session]:
        settings = QSettings(str(settings_dir / f"{stem}.ini"), QSettings.Format.IniFormat)
        # The app's own default limit: the pictures show what a new user sees.
        session = Session(engine.run, dispatcher, DEFAULT_TIME_LIMIT_SECONDS)
        window = MainWindow(session, settings)
        window.resize(1280, 720)
        window.show()
        window.commands[f"lesson:{lesson(stem).stem}"].trigger()
        settle(app, session)
        return window, session

    def shoot(window: MainWindow, name: str) -> None:
        for _ in range(30):  # the window arranges itself for a new lesson or error
            app.processEvents()
            time.sleep(0.01)
        path = out / name
        window.grab().save(str(path))
        print(f"{path}  ({window.width()}x{window.height()})")

    # The README's headline picture: lesson 3 as it opens (what --screenshot shows).
    window, session = window_on("03")
    shoot(window, "window-chain-rule.png")
    # 1. Open a lesson (Lessons > 6: reducing to a scalar with mean()).
    window.close()
    window, session = window_on("06")
    shoot(window, "first-1-open-a-lesson.png")
    # 2. Drag a slider: x, in the Inputs tab, a few steps up with the keyboard.
    window.controls.setCurrentWidget(window.inputs)
    group = window.inputs.groups["x"]
    assert group.editor is not None
    slider = group.editor.sliders[0].slider
    for _ in range(3):
        slider.triggerAction(QAbstractSlider.SliderAction.SliderPageStepAdd)
        settle(app, session)
    shoot(window, "first-2-drag-a-slider.png")
    # 3. Press Backward twice: .grad accumulates, the plots show each call.
    window.controls.setCurrentWidget(window.backward)
    for _ in range(2):
        window.commands["backward"].trigger()
        settle(app, session)
    shoot(window, "first-3-backward-twice.png")
    # 4. Break the code: backward() on a vector.
    session.set_code(BROKEN)
    settle(app, session)
    shoot(window, "first-4-break-the-code.png")
    # 5. Read the fix and take it: the Backward tab's ".sum()" button rewrites the line.
    window.backward.fixes["sum"].click()
    settle(app, session)
    shoot(window, "first-5-apply-the-fix.png")
    window.hide()  # not close(): the edited code would ask whether to save it
    window.deleteLater()
    # The exported graph of lesson 5 after its two backward calls, as an image.
    folder = Path(tempfile.mkdtemp())
    export = [sys.executable, str(ROOT / "main.py"), str(lesson("05")), "--export", str(folder)]
    subprocess.run(export, check=True, capture_output=True)
    renderer = QSvgRenderer(str(folder / "graph.svg"))
    image = QImage(renderer.defaultSize() * 2, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    image.save(str(out / "graph-gradients-accumulate.png"))
    print(f"{out / 'graph-gradients-accumulate.png'}  ({image.width()}x{image.height()})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--lesson", action="append", help="only lessons whose stem starts so")
    parser.add_argument("--walkthrough", action="store_true", help="the README's pictures")
    args = parser.parse_args()
    if args.out is None:
        args.out = ROOT / ("docs/images" if args.walkthrough else "build/screenshots")
    args.out.mkdir(parents=True, exist_ok=True)
    engine = EngineProcess()
    engine.start()
    app = application()
    dispatcher = ThreadDispatcher()
    settings_dir = Path(tempfile.mkdtemp())
    if args.walkthrough:
        try:
            walkthrough(app, engine, dispatcher, args.out)
        finally:
            dispatcher.close()
            engine.close()
        return 0
    print(f"{'lesson':34} {'size':>9} {'mode':12} {'graph text px':>13}  file")
    try:
        for path in lesson_paths():
            if args.lesson and not any(path.stem.startswith(s) for s in args.lesson):
                continue
            for width, height in SIZES:
                for mode in MODES:
                    # A fresh window each time: nothing a previous picture did carries over.
                    settings = QSettings(
                        str(settings_dir / f"{path.stem}-{width}-{mode}.ini"),
                        QSettings.Format.IniFormat,
                    )
                    session = Session(engine.run, dispatcher, 10.0)
                    window = MainWindow(session, settings)
                    window.set_presentation(mode == "presentation")
                    window.resize(width, height)
                    window.show()
                    session.load(load_session(path), str(path))
                    settle(app, session)
                    out = args.out / f"{path.stem}-{width}x{height}-{mode}.png"
                    window.grab().save(str(out))
                    px = window.graph.smallest_text_pixels()
                    shown = "—" if px is None else f"{px:.1f}"
                    # A window whose minimum is bigger than the screen would be cut off.
                    fits = "" if window.size().toTuple() == (width, height) else " DOES NOT FIT"
                    compact = " compact" if window.compact() else ""
                    print(
                        f"{path.stem:34} {width:>4}x{height:<4} {mode:12} {shown:>13}  {out}"
                        f"{compact}{fits}"
                    )
                    window.set_presentation(False)
                    window.close()
                    window.deleteLater()
                    app.processEvents()
    finally:
        dispatcher.close()
        engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
