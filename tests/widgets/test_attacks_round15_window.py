"""Round 15's red team, the window: a bidirectional override a program puts in a layer's
name, or straight into its code, reaching the screen.

A hole, closed: ``add_module`` and ``ModuleDict`` take any string, and the engine names a
parameter ``<variable>.<qualified name>``. Printed lines and error texts showed controls as
escapes since round 14 (``visible_text``), but a name holding ``\\u202e`` reached the
values panel's combo boxes and labels, the node details, the Jacobian panel's equation,
the memory view's rows and every tooltip naming the parameter raw: the rest of each line
showed reversed. The engine now names parameters with their controls written as escapes
(``bindings.module_parameters``), so every panel shows what the window is sent.

A hole, closed: the code editor shows a session file's code as it is, and Unicode's
embeddings, overrides and isolates make it show the code in another order than Python
reads it ("Trojan Source": ``# \\u202e } \\u2066if access != "none":\\u2069`` reads as a
comment and runs as code). Such a program is refused before it runs, naming the line and
the control (``safety.check_source``); written as an escape in a string it runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import Session
from gui.widgets.main_window import MainWindow
from tests.fixtures import through_the_wire
from tests.widgets.hostile_text import hover_everything

quiet_tooltips = pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)")

HIDDEN = ("\u202e", "\u2066", "\x07")
NAMED = (
    "import torch\nimport torch.nn as nn\n"
    "bad = 'zz\\u202egfedcba\\x07'\n"
    "layers = nn.ModuleDict({bad: nn.Linear(3, 4)})\n"
    "net = nn.Sequential()\nnet.add_module(bad, nn.Linear(4, 1))\n"
    "x = torch.randn(2, 3, requires_grad=True)\n"
    "out = net(torch.tanh(layers[bad](x))).sum()\n"
    "print(bad, 'printed')\nout.backward()\n"
)


def _answer(code: str) -> RunResult:
    return through_the_wire(run_program(RunRequest(Program(code=code), time_limit=60)))


def _item_texts(view: QAbstractItemView) -> list[str]:
    model, texts = view.model(), []
    if model is None:
        return texts
    stack = [model.index(-1, -1)]
    while stack and len(texts) < 20_000:
        parent = stack.pop()
        for row in range(model.rowCount(parent)):
            for column in range(max(1, model.columnCount(parent))):
                index = model.index(row, column, parent)
                for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                    value = model.data(index, role)
                    if isinstance(value, str):
                        texts.append(value)
                if model.hasChildren(index):
                    stack.append(index)
    return texts


def _shown_texts(window: QWidget) -> list[str]:
    """Every text a visible widget of ``window`` shows or would show as its tooltip."""
    QApplication.processEvents()
    texts = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible():
            continue
        texts.append(widget.toolTip())
        if isinstance(widget, QLabel | QAbstractButton):
            texts.append(widget.text())
        elif isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        elif isinstance(widget, QTextEdit | QPlainTextEdit) and widget.objectName() != "codeEditor":
            texts.append(widget.toPlainText())
        elif isinstance(widget, QAbstractItemView):
            texts += _item_texts(widget)
    return texts


@quiet_tooltips
def test_a_layer_name_with_a_bidirectional_override_shows_escaped_everywhere(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _answer(NAMED)
    assert result.error is None, result.error
    assert "layers.zz\\u202egfedcba\\x07.weight" in result.tensors, list(result.tensors)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    session = Session(lambda request: result)
    window = MainWindow(session, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    session.set_code(NAMED)
    shown: list[str] = []
    graph = session.snapshot.graph
    for key in [] if graph is None else [n.key for n in graph.nodes]:
        session.select_node(key)
        shown += _shown_texts(window)
    for tabs in window.findChildren(QTabWidget):
        for page in range(tabs.count()):
            tabs.setCurrentIndex(page)
            shown += [tabs.tabText(page), *_shown_texts(window)]
    shown += [t for tips in hover_everything(window).values() for t in tips]
    assert any("zz\\u202egfedcba" in text for text in shown)  # the names are shown...
    raw = sorted({ascii(t[:120]) for t in shown if any(c in t for c in HIDDEN)})
    assert raw == [], raw  # ...never with the control itself
    assert session.snapshot.code == NAMED


TROJAN = (
    "import torch\nx = torch.ones(2, requires_grad=True)\n"
    'access = "user"  # \u202e } \u2066if access != "none":\u2069 \u2066 # admin\n'
    "y = (x * 2).sum()\n"
)


def test_code_shown_in_another_order_than_it_runs_is_refused() -> None:
    result = _answer(TROJAN)
    assert result.error is not None and result.error.kind == "unsafe-code", result.error
    assert "\\u202e" in result.error.message and "Line 3" in result.error.message
    assert not any(c in result.error.message for c in HIDDEN)
    written = TROJAN
    for control in ("\u202e", "\u2066", "\u2069"):
        written = written.replace(control, control.encode("unicode_escape").decode())
    assert _answer(written).error is None
