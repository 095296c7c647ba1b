"""The real window against text a program or a file makes look like HTML.

Qt takes a string that looks like HTML (``Qt::mightBeRichText``: a known tag before the
first line break) for rich text in tooltips, labels with the default ``Qt::AutoText`` and
message boxes, and loads every image it names: ``int('<img src="/dev/zero">')`` put that
text in the status bar and hovering it read the device until memory ran out (the app
aborted); a named pipe there blocked the window for ever. Programs put such text in error
messages, in what they print and in tensor names (``setattr(module, '<img ...>', p)``);
files in titles and notes.

Every test points the image at a named pipe served by another process
(:class:`tests.widgets.hostile_text.PipeTripwire`): a regression can neither hang nor eat
memory, and the test fails on the number of times something opened the pipe. Each test then
shows everything there is to show: every tab, every node's details, and a hover over every
widget of the window (tooltips are made when asked for).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QTabWidget, QToolTip, QWidget
from pytestqt.qtbot import QtBot

from gui.model.session.file_format import FORMAT
from gui.widgets.main_window import MainWindow
from tests.e2e.conftest import Explorer, settle
from tests.widgets.hostile_text import (
    PipeTripwire,
    as_plain_text,
    hide_tooltip,
    hover_everything,
    rich_labels,
    showing,
)

# Offscreen, a tooltip cannot be raised: Qt says so, and that is all it says.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)"),
]

LEAF = "x = torch.tensor([1., 2.], requires_grad=True)\n"


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[PipeTripwire]:
    tripwire = PipeTripwire(tmp_path)
    yield tripwire
    tripwire.close()


def tour(window: MainWindow) -> dict[str, set[str]]:
    """Raise every tab of every tab widget in turn (a hidden tab lays nothing out) and
    hover over everything each time; returns every tooltip shown (see hover_everything)."""
    tips = hover_everything(window)
    for tabs in window.findChildren(QTabWidget):
        for index in range(tabs.count()):
            tabs.setCurrentIndex(index)
            for name, texts in hover_everything(window).items():
                tips.setdefault(name, set()).update(texts)
    return tips


def show_every_node(explorer: Explorer, text: str) -> int:
    """Select each graph node in turn, its details open, and check the page shows
    ``text`` as written wherever it shows it; returns on how many pages it showed."""
    graph = explorer.snapshot.graph
    assert graph is not None
    panel = explorer.window.details
    panel.details_shown = True
    pages = 0
    for node in graph.nodes:
        explorer.session.select_node(node.key)
        explorer.window.grab()
        page = panel.browser.toPlainText()
        assert "&lt;" not in page and "&amp;" not in page and "&quot;" not in page, page
        pages += text in page
    explorer.session.select_node(None)
    return pages


def run_code(qtbot: QtBot, explorer: Explorer, code: str) -> None:
    explorer.session.set_code(code)
    settle(qtbot, explorer.session)


def test_an_error_message_with_markup_is_shown_as_text_everywhere(
    qtbot: QtBot, explorer: Explorer, pipe: PipeTripwire
) -> None:
    # The teammate's case: the error's first line in the status bar, whole on hover.
    code = LEAF + f"y = (x * x).sum()\nint('{pipe.img}' + ' and more' * 30)\n"
    run_code(qtbot, explorer, code)
    error = explorer.snapshot.error
    assert error is not None and pipe.img in error.message
    window = explorer.window
    status = window._status
    window.grab()
    assert pipe.img in status.text() and status.is_elided()
    # The hover over the status bar's message, as Qt makes it.
    at = status.rect().center()
    QApplication.sendEvent(status, QHelpEvent(QEvent.Type.ToolTip, at, status.mapToGlobal(at)))
    assert QToolTip.isVisible() and pipe.img in as_plain_text(QToolTip.text())
    hide_tooltip()
    assert pipe.opens() == 0, "the status bar's tooltip loaded the image"
    # Everything else: the explanation, the gutter's marker, every tab.
    window.make_room_for_explanation()
    tips = tour(window)
    assert {"ElidedLabel", "_Gutter"} <= showing(tips, pipe.img)
    assert pipe.opens() == 0
    assert rich_labels(window, pipe.img) == []


def test_a_raised_message_and_printed_markup_are_shown_as_text(
    qtbot: QtBot, explorer: Explorer, pipe: PipeTripwire, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = LEAF + f"y = (x * x).sum()\nprint('{pipe.img}')\nraise ValueError('{pipe.img}')\n"
    run_code(qtbot, explorer, code)
    window = explorer.window
    error = explorer.snapshot.error
    assert error is not None and error.message == pipe.img
    assert window._status.text().endswith(f": {pipe.img}")
    window.make_room_for_explanation()
    assert "_Gutter" in showing(tour(window), pipe.img)
    assert pipe.opens() == 0
    assert rich_labels(window, pipe.img) == []
    # A message box quoting it, shown for real (not modal: nothing waits for a click).
    shown: list[str] = []

    def warning(parent: QWidget, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok)
        box.show()
        box.grab()
        shown.append(as_plain_text(box.text()))
        box.close()

    monkeypatch.setattr(QMessageBox, "warning", warning)
    MainWindow.show_error(window, "Cannot open this session", error.message)
    assert shown == [pipe.img]
    assert pipe.opens() == 0


@pytest.mark.parametrize(
    ("make", "tips_from"),
    [
        pytest.param(
            "class M(torch.nn.Module):\n    pass\nm = M()\n"
            "setattr(m, '{img}', torch.nn.Parameter(torch.ones(2)))\n"
            "y = (x * getattr(m, '{img}')).sum()\ny.backward()\n",
            {"GradBars", "GradHistory", "GradSwatch"},
            id="module-attribute",
        ),
        pytest.param(
            "d = torch.nn.ParameterDict({{'{img}': torch.nn.Parameter(torch.ones(2))}})\n"
            "y = (x * d['{img}']).sum()\ny.backward()\n",
            {"GradBars", "GradHistory", "GradSwatch"},
            id="parameter-dict",
        ),
        pytest.param(
            # A weight of 140 elements: edited in a table, not with sliders.
            "d = torch.nn.ModuleDict({{'{img}': torch.nn.Linear(2, 70)}})\n"
            "h = d['{img}'](x)\nh.retain_grad()\ny = h.sum()\ny.backward()\n",
            {"GradBars", "GradHistory"},
            id="module-dict-big-leaf",
        ),
    ],
)
def test_tensor_names_with_markup_are_shown_as_text(
    qtbot: QtBot, explorer: Explorer, pipe: PipeTripwire, make: str, tips_from: set[str]
) -> None:
    # The leaf's name heads its group of sliders (in bold), labels each slider, names
    # its plots, swatches and cells, and the graph's boxes and their details.
    run_code(qtbot, explorer, LEAF + make.format(img=pipe.img))
    snapshot = explorer.snapshot
    assert snapshot.error is None, snapshot.error
    assert snapshot.result is not None
    leaves = [name for name in snapshot.result.tensors if pipe.img in name]
    assert leaves
    window = explorer.window
    assert set(leaves) & set(window.inputs.groups)
    assert show_every_node(explorer, pipe.img) >= 2  # the leaf's box, its consumer's
    tips = tour(window)
    assert tips_from <= showing(tips, pipe.img)
    assert pipe.opens() == 0
    assert rich_labels(window, pipe.img) == []


def test_a_title_and_notes_with_markup_from_a_file_are_shown_as_text(
    qtbot: QtBot, explorer: Explorer, pipe: PipeTripwire, tmp_path: Path
) -> None:
    path = tmp_path / "from-a-student.json"
    code = LEAF + "y = (x * x).sum()\n"
    notes = f"{pipe.img}\nTry it."
    path.write_text(json.dumps({"format": FORMAT, "code": code, "title": pipe.img, "notes": notes}))
    assert explorer.window.open_path(path)
    settle(qtbot, explorer.session)
    window = explorer.window
    assert pipe.img in window.windowTitle()
    assert pipe.img in window.details.browser.toPlainText()  # the notes, with no node chosen
    tour(window)
    assert pipe.opens() == 0
    assert rich_labels(window, pipe.img) == []


# -- numbers at the ends of the float range --------------------------------------------------


def test_numbers_at_the_ends_of_the_float_range_from_a_file_show(
    qtbot: QtBot, explorer: Explorer, tmp_path: Path
) -> None:
    # A gradient of 1e308 made the slider's tick overflow (every later render raised, the
    # file could not be shown); gradients around 1e-307 made the plots' pixels infinite.
    path = tmp_path / "extremes.json"
    code = "x = torch.tensor([1.0, 2.0], requires_grad=True)\nz = x * 1e-300\n"
    path.write_text(
        json.dumps(
            {
                "format": FORMAT,
                "code": code,
                "values": {"x": [1e308, 5e-324]},
                "backward": [{"gradient": [1e308, -1e-307]}, {"gradient": [1e-307, 1e-307]}],
                "scale_lock": True,
                "locked_scale": 1e-100,  # the least a file may lock at
            }
        )
    )
    window = explorer.window
    assert window.open_path(path), explorer.errors
    snapshot = settle(qtbot, explorer.session)
    assert explorer.errors == [] and snapshot.result is not None
    assert window.backward.editor is not None
    assert [row.value() for row in window.backward.editor.sliders] == [1e-307, 1e-307]
    tour(window)
    # The window goes on: a slider moved, then the scale unlocked.
    explorer.session.set_input("x", 0, 1.0)
    settle(qtbot, explorer.session)
    explorer.session.set_scale_lock(False)
    settle(qtbot, explorer.session)
    tour(window)
    assert explorer.errors == []
