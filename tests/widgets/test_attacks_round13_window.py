"""Round 13's red team, the window: what a program names shows as text, in every panel.

Layer names are any string a program gives ``add_module`` or a ``ModuleDict`` (the engine
names each parameter ``<variable>.<qualified name>``), printed lines and exception messages
are the program's too, and since round 12 the memory panel lists what a checkpointed block
recomputes. A real engine run whose every name, printed line and message holds ``<img
src=PIPE>`` (a named pipe a separate process counts opens of, see
:mod:`tests.widgets.hostile_text`), a bidirectional override and a bell goes through the
wire into a real window: every node selected, every tab raised, every tooltip asked for.
Nothing may open the pipe, no label may read the text as HTML, and the code stays.

A hole, closed: the SVG the layout worker answers was painted into ``graph.png`` by
``QSvgRenderer`` in the window's (or the command line's) own process, which has no wall:
``<image xlink:href="/any/local/file.png">`` in it was read from the disk and painted into
the export (a named pipe there blocked the export for ever), and written into
``graph.svg``. The worker parses the program's labels in native code, so its SVG is no
more trusted than an answer from the engine; Graphviz's SVG of the app's DOT holds no
``<image>`` and no ``href``: one that does is neither written nor painted
(``export.files.reaches_out``).

A hole, closed: the layout worker's *layout* was read for its fields' types only. With
NaN or infinite places (one forged reply) the graph panel raised on the GUI thread
(``label_placement._cell_keys``: "cannot convert float NaN to integer"), and with places
near 1e308 it walked grid cells for ever (the window froze). Places and sizes must now be
finite numbers within ten million points (``wire_places``). Still open: places within that
limit whose boxes or edges span millions of 100-point cells (an edge from (0, 0) to
(1e7, 1e7)) keep the label placement walking every cell they cover; it should walk no more
cells per item than the graph has boxes (``label_placement``; not tried here: it hangs).
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QMessageBox, QTabWidget
from pytestqt.qtbot import QtBot

from gui import picture_export
from gui.model import wire
from gui.model.drawing.layout import GraphLayout, NodeBox
from gui.model.drawing.layout_process import LAYOUT_MESSAGES, LayoutProcess, LayoutUnavailable
from gui.model.drawing.layout_worker import Reply
from gui.model.engine.run import run_program
from gui.model.export.files import reaches_out, write_export
from gui.model.request import Program, RunRequest
from gui.model.result import Explanation, RunResult
from gui.model.session import Session
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.main_window import MainWindow
from tests.fixtures import through_the_wire
from tests.widgets.hostile_text import PipeTripwire, hover_everything, rich_labels

quiet_tooltips = pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)")

RUNS = (
    "import torch.nn as nn\n"
    "from torch.utils.checkpoint import checkpoint\n"
    "img = {img!r} + '\\u202e\\x07'\n"
    "layers = nn.ModuleDict({{img: nn.Linear(3, 4)}})\n"
    "net = nn.Sequential()\n"
    "net.add_module(img, nn.Linear(4, 1))\n"
    "x = torch.randn(2, 3, requires_grad=True)\n"
    "h = checkpoint(lambda t: torch.tanh(layers[img](t)), x, use_reentrant=False)\n"
    "out = net(h).sum()\n"
    "print(img, 'Saved to /home/user/report.txt')\n"
    "out.backward()\n"
)
RAISES = (
    "img = {img!r} + '\\u202e\\x07'\n"
    "x = torch.ones(2, requires_grad=True)\n"
    "y = (x * 2).sum()\n"
    "raise ValueError(img * 3)\n"
)


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[PipeTripwire]:
    tripwire = PipeTripwire(tmp_path)
    yield tripwire
    tripwire.close()


def _answer(code: str) -> RunResult:
    return through_the_wire(run_program(RunRequest(Program(code=code), time_limit=60)))


@quiet_tooltips
@pytest.mark.parametrize("program", [RUNS, RAISES], ids=["runs", "raises"])
def test_a_programs_names_and_texts_show_as_text_in_every_panel(
    qtbot: QtBot,
    pipe: PipeTripwire,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    program: str,
) -> None:
    code = "import torch\n" + program.format(img=pipe.img)
    result = _answer(code)
    if program is RUNS:
        assert result.error is None, result.error
        assert any(pipe.img in name for name in result.tensors), list(result.tensors)
    else:
        assert result.error is not None and pipe.img in result.error.message
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    session = Session(lambda request: result)
    window = MainWindow(session, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    session.set_code(code)
    graph = session.snapshot.graph
    for key in [] if graph is None else [n.key for n in graph.nodes]:
        session.select_node(key)
        QApplication.processEvents()
    for tabs in window.findChildren(QTabWidget):
        for page in range(tabs.count()):
            tabs.setCurrentIndex(page)
            QApplication.processEvents()
    hover_everything(window)
    assert pipe.opens() == 0, "a panel loaded the image a program's text names"
    assert rich_labels(window, pipe.img) == []
    assert session.snapshot.code == code
    assert not window.grab().isNull()


FORGED_ELEMENTS = {
    "image": '<image x="0" y="0" width="100" height="100" xlink:href="{secret}"/>',
    "image_href": '<image x="0" y="0" width="100" height="100" href=\'{secret}\'/>',
    "use": '<use xlink:href="{secret}#a"/>',
    "foreign_object": "<foreignObject><p>{secret}</p></foreignObject>",
}


@pytest.mark.parametrize("way", sorted(FORGED_ELEMENTS))
def test_a_compromised_layout_workers_svg_reads_no_file_into_the_export(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    secret = tmp_path / "secret.png"
    red = QImage(40, 40, QImage.Format.Format_ARGB32)
    red.fill(QColor("red"))
    assert red.save(str(secret))
    forged = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'width="100" height="100" viewBox="0 0 100 100">'
        + FORGED_ELEMENTS[way].format(secret=secret)
        + "</svg>"
    )
    result = _answer("import torch\nx = torch.ones(2, requires_grad=True)\nout = (x * 2).sum()\n")
    layouts = LayoutProcess()
    # What a worker past both walls could answer (the pipe's reply, as read).
    monkeypatch.setattr(layouts, "_request", lambda *args, **kwargs: forged)
    try:
        svg = write_export(result, "", tmp_path / "export", layouts)
    finally:
        layouts.close()
    assert (
        str(secret) not in svg
        and str(secret) not in (tmp_path / "export" / "graph.svg").read_text()
    )
    image = picture_export.graph_image(svg)  # what graph.png is made of
    colors = {
        image.pixelColor(x, y).name()
        for x in range(0, image.width(), 7)
        for y in range(0, image.height(), 7)
    }
    assert QColor("red").name() not in colors, "the export painted a file from the disk"


def test_the_workers_own_svg_is_still_written(tmp_path: Path) -> None:
    result = _answer("import torch\nx = torch.ones(2, requires_grad=True)\nout = (x * 2).sum()\n")
    svg = write_export(result, "", tmp_path / "export")
    assert "MulBackward0" in svg and not reaches_out(svg)


def _forged_layout(monkeypatch: pytest.MonkeyPatch, forge: Any) -> None:
    """Layout replies as a worker past both walls could send them, read by the real reader."""
    real_request = LayoutProcess._request

    def request(self: LayoutProcess, job: Any, time_limit: float, cancelled: Any) -> object:
        value = real_request(self, job, time_limit, cancelled)
        if not isinstance(value, GraphLayout):
            return value
        data = pickle.dumps(Reply(1, forge(value)))
        try:
            reply = wire.loads(data, LAYOUT_MESSAGES, max_text=None)
        except pickle.UnpicklingError as exc:
            raise LayoutUnavailable(Explanation("layout", str(exc), "", "")) from exc
        assert isinstance(reply, Reply)
        return reply.value

    monkeypatch.setattr(LayoutProcess, "_request", request)


def _not_a_number(layout: GraphLayout) -> GraphLayout:
    nan, inf = math.nan, math.inf
    nodes = {key: NodeBox(nan, inf, -inf, nan) for key in layout.nodes}
    edges = {i: tuple((nan, inf) for _ in points) for i, points in layout.edges.items()}
    return dataclasses.replace(layout, nodes=nodes, edges=edges, width=inf, height=nan)


def _far_away(layout: GraphLayout) -> GraphLayout:
    nodes = {key: NodeBox(1e308, -1e308, 1e308, 1e308) for key in layout.nodes}
    return dataclasses.replace(layout, nodes=nodes, width=1e308, height=1e308)


def _as_it_was(layout: GraphLayout) -> GraphLayout:
    return layout


def _spanning(layout: GraphLayout) -> GraphLayout:
    """Within the limits, but every edge drawn corner to corner of a 1e7-point picture:
    its label's grid lookups once walked 10 billion cells (the window froze)."""
    far = 9.9e6
    edges = {i: ((0.0, 0.0), (far, far), *points[2:]) for i, points in layout.edges.items()}
    return dataclasses.replace(layout, edges=edges, width=far, height=far)


@pytest.mark.parametrize("forge", [_not_a_number, _far_away, _as_it_was, _spanning])
def test_a_compromised_layout_workers_places_never_raise_in_the_window(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forge: Any
) -> None:
    code = "import torch\nx = torch.ones(2, requires_grad=True)\nout = (x.sin() * 2).sum()\n"
    result = _answer(code)
    _forged_layout(monkeypatch, forge)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    session = Session(lambda request: result)
    window = MainWindow(session, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    session.set_code(code)  # before: a ValueError from the graph panel, or no end
    for _ in range(20):
        QApplication.processEvents()
    assert session.snapshot.code == code
    assert not window.grab().isNull()
    drawn = window.findChild(GraphPanel)
    assert drawn is not None
    boxes = drawn.items.nodes if drawn.items is not None else {}
    # An honest layout is drawn, and one within the limits; others are not (the panel
    # says why instead).
    assert bool(boxes) == (forge in (_as_it_was, _spanning))
