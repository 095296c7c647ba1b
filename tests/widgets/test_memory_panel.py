"""The memory page: the totals on top, the nodes biggest first, a click selects the node."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from gui.model.session import Session, Snapshot
from gui.model.views.memory import human_bytes
from gui.widgets import memory_panel
from gui.widgets.memory_panel import MemoryPanel
from tests.fixtures import show_panel

MODEL = """import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(),
    torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
x = torch.randn(32, 16)
h = model[1](model[0](x))
loss = model[4](model[3](model[2](h))).pow(2).mean()
"""


def click_item(qtbot: QtBot, panel: MemoryPanel, item: QTreeWidgetItem) -> None:
    panel.tree.scrollToItem(item)
    rect = panel.tree.visualItemRect(item)
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_page_lists_nodes_biggest_first_with_totals_on_top(
    qtbot: QtBot, session: Session
) -> None:
    session.set_code(MODEL)
    panel = show_panel(qtbot, MemoryPanel(session), 420, 600)
    view = panel.view
    assert view is not None and view.rows
    items = panel.node_items()
    sizes = [row.bytes for row in view.rows]
    assert sizes == sorted(sizes, reverse=True)
    assert [item.text(0) for item in items] == [row.title for row in view.rows]
    assert [item.text(1) for item in items] == [human_bytes(b) for b in sizes]
    # The biggest: the 64x64 layer, keeping its input h and its weight (a view of it).
    first = items[0]
    assert first.text(0) == "AddmmBackward0 · model.2.bias, model.2.weight"
    children = [first.child(i).text(0) for i in range(first.childCount())]
    assert any(c.startswith("mat1 — h itself") for c in children)
    assert "mat2 — view of model.2.weight" in children
    top = panel.tree.topLevelItem(0)
    assert (top.text(0), top.text(1)) == ("Held before backward()", human_bytes(view.total_bytes))


def test_a_click_selects_the_node_and_the_selection_shows_without_echo(
    qtbot: QtBot, session: Session, emitted: list[Snapshot]
) -> None:
    session.set_code(MODEL)
    panel = show_panel(qtbot, MemoryPanel(session), 420, 600)
    items = panel.node_items()
    emitted.clear()
    click_item(qtbot, panel, items[1])
    assert session.snapshot.selected_node == items[1].data(0, Qt.ItemDataRole.UserRole)
    assert [s.changes for s in emitted] == [frozenset({"selection"})]
    # A saved tensor's row selects its node too.
    click_item(qtbot, panel, items[0].child(0))
    assert session.snapshot.selected_node == items[0].data(0, Qt.ItemDataRole.UserRole)
    # Selected elsewhere (the graph): the row follows, and nothing is sent back.
    emitted.clear()
    session.select_node(items[2].data(0, Qt.ItemDataRole.UserRole))
    assert panel.tree.currentItem() is items[2]
    assert len(emitted) == 1
    session.select_node(None)
    assert panel.tree.currentItem() is None
    assert len(emitted) == 2


def test_a_hidden_page_waits_and_a_value_change_does_not_rebuild(
    qtbot: QtBot, session: Session
) -> None:
    panel = MemoryPanel(session)
    qtbot.addWidget(panel)
    session.set_code(MODEL)
    assert panel.view is None  # not on screen: nothing computed
    panel.resize(420, 600)
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.view is not None and panel.view.rows
    first = panel.node_items()[0]
    # New numbers, same shapes: the same bytes, the same items.
    session.set_code(MODEL.replace("manual_seed(0)", "manual_seed(1)"))
    assert panel.node_items()[0] is first


def test_nothing_saved_says_so(qtbot: QtBot, session: Session) -> None:
    session.set_code("import torch\nx = torch.ones(3, requires_grad=True)\ny = (x + 1).sum()\n")
    panel = show_panel(qtbot, MemoryPanel(session), 420, 300)
    assert panel.node_items() == []
    assert panel.tree.topLevelItem(0).text(0).startswith("Nothing saved")


def test_a_slider_tick_does_not_recompute_the_view(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    session.set_code(
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x.exp().sum()\n"
    )
    panel = show_panel(qtbot, MemoryPanel(session), 420, 300)
    computed: list[object] = []
    original = memory_panel.memory_view
    monkeypatch.setattr(memory_panel, "memory_view", lambda *a: computed.append(a) or original(*a))
    session.set_input("x", 0, 1.5)
    assert session.snapshot.result is not None and session.snapshot.result.error is None
    assert computed == []
    assert panel.node_items()[0].text(1) == "8 B"
