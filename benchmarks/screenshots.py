"""Screenshots of every shipped lesson at the sizes a classroom projector gives.

Run: ``.venv/bin/python benchmarks/screenshots.py [--out DIR] [--lesson STEM ...]``
(offscreen, no screen needed). For every lesson it opens the real window at 1280x720 and
1024x768, in normal and presentation mode (F11), waits for the result and saves
``DIR/<lesson>-<width>x<height>-<mode>.png`` (default ``build/screenshots``). It also
prints the height of the graph's smallest text on screen (scene font size x view scale,
in pixels), the figure the "readable on a projector" rule is about.

A script, not a test: pictures are for people to look at, never compared by pixels.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gui.model.engine_process import EngineProcess  # noqa: E402
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "screenshots")
    parser.add_argument("--lesson", action="append", help="only lessons whose stem starts so")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    engine = EngineProcess()
    engine.start()
    app = application()
    dispatcher = ThreadDispatcher()
    settings_dir = Path(tempfile.mkdtemp())
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
                    print(f"{path.stem:34} {width:>4}x{height:<4} {mode:12} {shown:>13}  {out}")
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
