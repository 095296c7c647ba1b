"""``--export`` of a big loop: a quick SVG of the whole graph, in bounded memory.

It once took 19 GB: Graphviz rendered the SVG of a 100-iteration loop in the exporting
process. Then the graph was measured first (:mod:`gui.model.drawing.limits`) and the SVG
said it was not drawn. Now a graph too slow for Graphviz is placed by the app's own layout
(:mod:`gui.model.drawing.fast_layout`) in the layout worker, and drawn; the result's other
files keep every number.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOOP = (
    "w = torch.tensor([0.5, -0.3, 0.2], requires_grad=True)\n"
    "b = torch.tensor([0.1, 0.1, 0.1], requires_grad=True)\n"
    "h = torch.zeros(3)\n"
    "for i in range(100):\n"
    "    h = torch.tanh(w * h + b) * 0.9 + h ** 2 * 0.01\n"
    "loss = h.sum()\n"
)
# Runs the export and reports the biggest resident memory of any process it started.
MEASURED = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


@pytest.mark.slow
def test_exporting_a_big_loop_is_quick_small_and_draws_it(tmp_path: Path) -> None:
    session = tmp_path / "loop.json"
    session.write_text(json.dumps({"format": "autograd-explorer/1", "code": LOOP}))
    out = tmp_path / "out"
    command = [sys.executable, str(ROOT / "main.py"), str(session), "--export", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *command],
        capture_output=True,
        text=True,
        timeout=400,
        cwd=ROOT,
        check=True,
    )
    status, peak_kib = map(int, done.stdout.split())
    assert status == 0
    assert peak_kib < 2 * 1024**2  # KiB: under 2 GB for every process (torch included)
    svg = ET.fromstring((out / "graph.svg").read_text())
    text = " ".join(svg.itertext())
    assert "not drawn" not in text
    assert text.count("TanhBackward0") == 100  # every iteration's box is in the picture
    result = json.loads((out / "result.json").read_text())
    assert result["leaves"]["w"]["grad"] is not None and result["error"] is None
