"""``--screenshot`` of a big graph waits for its layout: the picture shows the graph, not
the "Laying out N boxes..." bar shown while a big graph is laid out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QColor, QImage

ROOT = Path(__file__).resolve().parents[2]
CHAIN = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
    "for i in range(300):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
)


def _greenish(image: QImage, left: int, top: int, right: int, bottom: int) -> int:
    """Pixels where green clearly leads (the leaf box's border and fill)."""
    count = 0
    for x in range(left, right, 2):
        for y in range(top, bottom, 2):
            c = QColor(image.pixel(x, y))
            if c.green() > c.red() + 25 and c.green() > c.blue() + 25:
                count += 1
    return count


def test_a_big_graphs_screenshot_shows_the_graph(tmp_path: Path) -> None:
    session = tmp_path / "chain.json"
    session.write_text(json.dumps({"format": "autograd-explorer/1", "code": CHAIN}))
    out = tmp_path / "shot.png"
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), str(session), "--screenshot", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 720)
    # The graph panel (middle column, below its toolbars): the leaf's green box is drawn.
    assert _greenish(image, 440, 160, 990, 680) > 50
