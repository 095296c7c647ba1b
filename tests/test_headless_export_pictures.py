"""``main.py SESSION --export DIR`` writes every export file, pictures included, with no
screen: each file parses, the PNGs have the sizes asked, the numbers are torch's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pygraphviz as pgv
import pytest
import torch
from PySide6.QtGui import QImage
from PySide6.QtSvg import QSvgRenderer

from gui.model.session.file_io import EXPORT_FILES, PICTURE_FILES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"
CODE = "w = torch.tensor([1.5, -2.0], requires_grad=True)\ny = w * w * 3\nout = y.sum()\n"


def torch_grad() -> list[float]:
    w = torch.tensor([1.5, -2.0], requires_grad=True)
    (w * w * 3).sum().backward()
    assert w.grad is not None
    return w.grad.tolist()


def png(path: Path) -> QImage:
    image = QImage()
    assert image.loadFromData(path.read_bytes(), "PNG")
    return image


def test_export_writes_every_file_without_a_screen(tmp_path: Path) -> None:
    session = tmp_path / "session.json"
    session.write_text(json.dumps({"format": "autograd-explorer/1", "code": CODE}))
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)  # the command line needs no screen of its own accord
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), str(session), "--export", str(out)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted((*EXPORT_FILES, *PICTURE_FILES))
    grad = torch_grad()
    document = json.loads((out / "result.json").read_text())
    assert document["leaves"]["w"]["grad"] == pytest.approx(grad)

    svg = (out / "graph.svg").read_text()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    svg_texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    dot_text = (out / "graph.dot").read_text()
    dot = pgv.AGraph(string=dot_text)
    nodes = document["graph"]["nodes"]
    assert dot.number_of_nodes() == len(nodes)
    # Every edge of the graph, by the Graphviz names n<i> in the graph's node order, plus
    # the dotted owner -> saved links.
    names = {node["key"]: f"n{i}" for i, node in enumerate(nodes)}
    links = [(names[n["owner"]], names[n["key"]]) for n in nodes if n["kind"] == "saved"]
    edges = [(names[a], names[b]) for a, b in document["graph"]["edges"]]
    assert sorted(dot.edges()) == sorted(edges + links)
    for text in (svg_texts, dot_text):
        shown = re.search(r"w\.grad \[([-\d.]+), ([-\d.]+)\]", text)
        assert shown is not None
        assert [float(v) for v in shown.groups()] == pytest.approx(grad)

    view = QSvgRenderer(svg.encode("utf-8")).viewBoxF()
    graph_png = png(out / "graph.png")
    assert (graph_png.width(), graph_png.height()) == (
        int(view.width() * 2),
        int(view.height() * 2),
    )
    plots_png = png(out / "plots.png")
    assert (plots_png.width(), plots_png.height()) == (900, 600)


def test_a_named_pipe_in_a_pngs_place_is_refused_before_running(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("named pipes are POSIX")
    session = tmp_path / "session.json"
    session.write_text(json.dumps({"format": "autograd-explorer/1", "code": CODE}))
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "graph.png")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), str(session), "--export", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 1 and "graph.png" in proc.stderr
    assert not (out / "result.json").exists()
