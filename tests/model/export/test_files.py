"""The export files: the SVG comes from the layout worker, and says why when there is none."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from gui.model.drawing.layout_process import LayoutProcess
from gui.model.drawing.limits import MAX_LAYOUT_BOXES
from gui.model.export.files import INDENTED_JSON_NODES, graph_svg, message_svg, write_export
from gui.model.result import Explanation
from tests.big_graphs import chain_graph, result_with

pytestmark = pytest.mark.slow  # starts layout workers

SVG = "{http://www.w3.org/2000/svg}"


def svg_text(svg: str) -> str:
    return " ".join(" ".join(e.itertext()) for e in ET.fromstring(svg).iter(f"{SVG}text"))


@pytest.fixture
def worker() -> Iterator[LayoutProcess]:
    process = LayoutProcess()
    yield process
    process.close()


def test_the_graph_is_drawn_by_the_worker(worker: LayoutProcess, tmp_path: Path) -> None:
    result = result_with(chain_graph(3))
    write_export(result, "print(1)\n", tmp_path, worker)
    svg = (tmp_path / "graph.svg").read_text()
    assert ET.fromstring(svg).find(f".//{SVG}g[@id='graph0']") is not None
    assert "AddBackward0" in svg_text(svg) and worker.pid is not None


def test_a_graph_over_the_limits_is_a_message_and_the_numbers_stay(
    worker: LayoutProcess, tmp_path: Path
) -> None:
    result = result_with(chain_graph(MAX_LAYOUT_BOXES))
    write_export(result, "", tmp_path, worker)
    text = svg_text((tmp_path / "graph.svg").read_text())
    assert "not drawn" in text and "still right" in text
    assert worker.pid is None  # Graphviz was never asked
    document = json.loads((tmp_path / "result.json").read_text())
    assert document["leaves"]["w"]["grad"] == [3.0, 4.0]
    assert len(document["graph"]["nodes"]) == len(result.graph.nodes)  # type: ignore[union-attr]


def test_result_json_is_indented_for_reading_and_flat_for_a_big_graph(
    worker: LayoutProcess, tmp_path: Path
) -> None:
    small, big = tmp_path / "small", tmp_path / "big"
    write_export(result_with(chain_graph(3)), "", small, worker)
    write_export(result_with(chain_graph(INDENTED_JSON_NODES)), "", big, worker)
    small_text, big_text = (small / "result.json").read_text(), (big / "result.json").read_text()
    assert small_text.startswith('{\n  "') and len(small_text.splitlines()) > 20
    assert big_text.count("\n") == 1 and big_text.endswith("\n")
    document = json.loads(big_text)
    assert len(document["graph"]["nodes"]) == INDENTED_JSON_NODES + 2
    assert json.loads(small_text)["leaves"] == document["leaves"]


def test_a_hanging_graphviz_is_stopped_and_the_svg_says_so(tmp_path: Path) -> None:
    probe = LayoutProcess(svg_time_limit=1.0, entry="tests.model.drawing.layout_worker_probe")
    try:
        svg = graph_svg(result_with(chain_graph(3, key="hang")), probe)
    finally:
        probe.close()
    assert "took too long" in svg_text(svg)


def test_no_graph_says_why() -> None:
    assert "stopped before" in svg_text(graph_svg(result_with(None)))


def test_message_svg_wraps_and_escapes() -> None:
    words = Explanation("k", "a < b & " + "word " * 60, "why", "fix")
    svg = message_svg([words.message, words.explanation])
    root = ET.fromstring(svg)
    texts = list(root.iter(f"{SVG}text"))
    lines = [t.text or "" for t in texts]
    assert lines[0].startswith("a < b &") and all(len(line) <= 80 for line in lines)
    # One text per line, each at its own height (Qt's SVG renderer ignores tspan offsets),
    # and a blank line's gap between the paragraphs.
    ys = [float(t.attrib["y"]) for t in texts]
    assert ys == sorted(set(ys))
    assert lines[-1] == "why" and ys[-1] - ys[-2] == 2 * (ys[1] - ys[0])
