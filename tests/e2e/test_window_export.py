"""File > Export Report from the window: all six files, for the result on screen."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pygraphviz as pgv
import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from gui.model.session.file_io import EXPORT_FILES, PICTURE_FILES
from tests.e2e.conftest import Explorer, open_lesson

pytestmark = pytest.mark.slow


def test_the_window_exports_every_file_for_the_shown_result(
    qtbot: QtBot, explorer: Explorer, tmp_path: Path
) -> None:
    snapshot = open_lesson(qtbot, explorer, "05-gradients-accumulate")
    window = explorer.window
    before = window.plots.size()
    out = tmp_path / "report"  # tmp_path holds the window's settings file
    assert window.export_to(out)
    assert sorted(p.name for p in out.iterdir()) == sorted((*EXPORT_FILES, *PICTURE_FILES))
    document = json.loads((out / "result.json").read_text())
    assert snapshot.result is not None and snapshot.result.graph is not None
    assert len(document["graph"]["nodes"]) == len(snapshot.result.graph.nodes)
    assert ET.fromstring((out / "graph.svg").read_text()).tag.endswith("svg")
    dot = pgv.AGraph(string=(out / "graph.dot").read_text())
    assert dot.number_of_nodes() == len(snapshot.result.graph.nodes)
    for name, least in (("graph.png", 400), ("plots.png", 900)):
        image = QImage()
        assert image.loadFromData((out / name).read_bytes(), "PNG")
        assert image.width() >= least
    assert "graph.png, plots.png" in window.statusBar().currentMessage()
    # Drawing the plots offscreen left the window's own panel as it was.
    assert window.plots.size() == before
    assert not explorer.errors
