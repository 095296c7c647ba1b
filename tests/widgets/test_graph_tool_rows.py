"""The graph toolbar never hides a tool in its overflow menu: with a model's "Groups" button
on a narrow graph column (1024x768, presentation mode) the "Show" chooser once went into
the "»" menu. Now the "Show" bar takes a second row when the first is too narrow, and
only then; the panel never asks for more width than it had."""

from __future__ import annotations

import contextlib

import pytest
from PySide6.QtWidgets import QToolBar, QWidget
from pytestqt.qtbot import QtBot

from gui.model.session import Session
from gui.widgets.graph_panel import GraphPanel
from tests.fixtures import MLP_CODE, show_panel


def all_tools_shown(bar: QToolBar) -> bool:
    """Every visible action of ``bar`` has its tool on screen, none in the "»" menu."""
    for action in bar.actions():
        widget = bar.widgetForAction(action)
        if action.isVisible() and widget is not None and not widget.isVisible():
            return False
    return True


def whole(widget: QWidget, panel: GraphPanel) -> bool:
    """Whether ``widget`` shows and lies inside the panel, at least its size hint wide."""
    if not widget.isVisible():
        return False
    rect = widget.rect().translated(widget.mapTo(panel, widget.rect().topLeft()))
    return panel.rect().contains(rect) and widget.width() >= widget.minimumSizeHint().width()


@pytest.mark.parametrize("width", [412, 556, 700])
def test_every_tool_shows_on_a_narrow_graph_column(
    qtbot: QtBot, session: Session, point_size: float, width: int
) -> None:
    # 412 and 556: the graph column of a 1024x768 window, presentation and normal mode.
    panel = show_panel(qtbot, GraphPanel(session), width, 600)
    session.set_code(MLP_CODE)
    assert session.snapshot.grouping is not None
    qtbot.waitUntil(lambda: panel.groups.button.isVisible())
    lead, spill = panel._toolbar, panel._view_bar
    tools = (panel.groups.button, panel.step_choice, panel.saved_toggle, panel.search)
    with contextlib.suppress(Exception):  # the rows settle over a few event loop turns
        qtbot.waitUntil(
            lambda: (
                all_tools_shown(lead)
                and all_tools_shown(spill)
                and all(whole(w, panel) for w in tools)
            )
        )
    assert all_tools_shown(lead) and all_tools_shown(spill), "a tool is in a » menu"
    for widget in tools:
        assert whole(widget, panel), f"{widget} {widget.geometry()} is cut off or hidden"
    # The tools never widen the panel (its caption row has a least width of its own).
    assert panel.tool_rows.minimumSizeHint().width() <= width
    rows = panel.tool_rows
    assert rows.wrapped() == (width < rows.one_row_width())


def test_one_row_while_it_fits_and_back_to_one_when_widened(qtbot: QtBot, session: Session) -> None:
    panel = show_panel(qtbot, GraphPanel(session), 1200, 600)
    session.set_code(MLP_CODE)
    rows = panel.tool_rows
    qtbot.waitUntil(lambda: panel.groups.button.isVisible())
    assert not rows.wrapped(), "a wide column keeps one row (the graph keeps its height)"

    def top() -> int:
        return panel.step_choice.mapTo(panel, panel.step_choice.rect().topLeft()).y()

    first_row = top()
    assert first_row < panel._toolbar.height()
    panel.resize(420, 600)
    qtbot.waitUntil(rows.wrapped)
    qtbot.waitUntil(lambda: top() >= panel._toolbar.height(), timeout=2000)
    panel.resize(1200, 600)
    qtbot.waitUntil(lambda: not rows.wrapped())
    assert all_tools_shown(panel._toolbar) and all_tools_shown(panel._view_bar)
