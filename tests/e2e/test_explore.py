"""explore() from an interactive session: the window opens on the user's own MLP, shows its
parameters by their qualified names, runs backward with the chosen v on the user's graph,
and leaves the values (and the user's .grad) alone."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QScrollArea
from pytestqt.qtbot import QtBot
from torch import nn

from gui import explore
from gui.explore_window import (
    OPEN_WINDOWS,
    VALUES_TAB,
    ExploreWindow,
    has_display,
    qt_loop_running,
)
from gui.model.views.live_values import READ_ONLY_REASON, values_text
from tests.fixtures import click


@pytest.fixture(autouse=True)
def _app_font(app_font: None) -> None:
    """explore() configures the process's QApplication as the app does (its font): put
    back after each test, so no later test inherits it."""


def leaf_grad(window: ExploreWindow, name: str) -> torch.Tensor:
    data = window.session.snapshot.leaf_grads[name]
    assert data is not None
    return torch.tensor(data.values)


def test_explore_shows_the_users_mlp_and_runs_backward_with_v(
    qtbot: QtBot, qapp: QApplication, tmp_path: Path
) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    x = torch.randn(4, 3, requires_grad=True)
    loss = model(x).pow(2).mean()
    (expected,) = torch.autograd.grad(loss, x, retain_graph=True)

    window = explore(loss, model=model, block=False)
    assert isinstance(window, ExploreWindow) and window in OPEN_WINDOWS
    qtbot.addWidget(window)
    session = window.session
    snapshot = session.snapshot
    assert snapshot.result is not None and snapshot.graph is not None
    # The graph's leaves carry the qualified names, and x its variable name.
    leaves = {n.label for n in snapshot.graph.nodes if n.kind == "leaf"}
    assert leaves == {"0.weight", "0.bias", "2.weight", "2.bias", "x"}
    key = next(n.key for n in snapshot.graph.nodes if n.label == "0.weight")
    assert window.graph.node_item(key) is not None
    assert torch.allclose(leaf_grad(window, "x"), expected)

    # Read-only: no code to edit, no sliders, the values with one line saying why.
    assert window.editor.editor().isReadOnly()
    sliders = window.inputs.findChild(QScrollArea)
    assert sliders is not None and not sliders.isVisibleTo(window)
    assert window.controls.tabText(window.controls.indexOf(window.inputs)) == VALUES_TAB
    assert window.values.reason.text() == READ_ONLY_REASON
    assert window.values.text.isReadOnly()
    assert not window.commands["open"].isEnabled()
    assert window.values.text.toPlainText() == values_text(snapshot.result)

    # v = 0.5 (the scale preset): the x.grad shown halves; Backward adds a second call.
    window.controls.setCurrentWidget(window.backward)
    window.backward.factor.setValue(0.5)
    click(qtbot, window.backward.scale)
    assert session.snapshot.current_step.gradient == 0.5
    assert torch.allclose(leaf_grad(window, "x"), 0.5 * expected)
    click(qtbot, window.backward.backward)
    assert session.snapshot.result is not None and session.snapshot.result.step_count == 2
    assert torch.allclose(leaf_grad(window, "x"), expected)  # 0.5 + 0.5, accumulated
    assert window.values.text.toPlainText() == values_text(session.snapshot.result)

    # File > Export writes the explored graph's script: the two calls, on the user's tensors.
    assert window.export_to(tmp_path)
    script = (tmp_path / "script.py").read_text()
    assert "def backward_calls(output, leaves):" in script
    assert script.count("output.backward(") == 2 and "retain_graph=True" in script

    # The step-through replays the call node by node (F7: the next node).
    window.commands["replay_next"].trigger()
    assert session.snapshot.replay is not None and session.snapshot.selected_node is not None

    # Nothing of the user's changed: x.grad is still None and their graph still works.
    assert x.grad is None and all(p.grad is None for p in model.parameters())
    loss.backward()
    assert x.grad is not None and torch.allclose(x.grad, expected)

    # A narrow window (compact: plots and details become tabs) keeps the values tab.
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.controls.indexOf(window.views) >= 0)
    window.controls.setCurrentWidget(window.inputs)
    assert window.controls.tabText(window.controls.currentIndex()) == VALUES_TAB
    window.close()
    assert window not in OPEN_WINDOWS


def small_loss() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    return model, model(torch.randn(5, 2)).sum()


def test_in_a_notebook_with_a_qt_loop_it_returns_at_once(
    qtbot: QtBot, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    shell = SimpleNamespace(active_eventloop="qt6")  # what `%gui qt` leaves in IPython
    monkeypatch.setitem(sys.modules, "IPython", SimpleNamespace(get_ipython=lambda: shell))
    assert qt_loop_running()
    model, loss = small_loss()
    window = explore(loss, model=model)
    assert isinstance(window, ExploreWindow) and window.isVisible()
    qtbot.addWidget(window)
    window.close()
    shell.active_eventloop = None
    assert not qt_loop_running()


def test_from_a_script_it_blocks_until_the_window_closes(qtbot: QtBot, qapp: QApplication) -> None:
    model, loss = small_loss()
    seen: list[ExploreWindow] = []

    def close_it() -> None:
        shown = [w for w in qapp.topLevelWidgets() if isinstance(w, ExploreWindow)]
        for w in shown:
            if w.isVisible():
                seen.append(w)
                w.close()
                timer.stop()

    timer = QTimer()
    timer.timeout.connect(close_it)
    timer.start(100)  # again and again, until the window is up and can be closed
    assert explore(loss, model=model) is None  # returned only once the window closed
    assert len(seen) == 1 and not seen[0].isVisible()
    assert seen[0] not in OPEN_WINDOWS
    assert all(p.grad is None for p in model.parameters())


def test_explore_is_also_under_the_console_scripts_name() -> None:
    from autograd_explorer import explore as same

    assert same is explore


def test_a_tensor_of_several_numbers_starts_with_v_all_ones(
    qtbot: QtBot, qapp: QApplication
) -> None:
    model, _ = small_loss()
    out = model(torch.randn(4, 2))  # shape (4, 1): backward() alone would fail
    window = explore(out, model=model, block=False)
    assert isinstance(window, ExploreWindow)
    qtbot.addWidget(window)
    snapshot = window.session.snapshot
    assert snapshot.error is None
    assert snapshot.current_step.gradient == [[1.0], [1.0], [1.0], [1.0]]
    twin, twin_out = model, out
    expected = torch.autograd.grad(twin_out, twin[2].weight, torch.ones_like(twin_out))[0]
    assert torch.allclose(leaf_grad(window, "2.weight"), expected)
    window.close()


def test_without_a_display_it_says_so_instead_of_qt_ending_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert not has_display()
    monkeypatch.setenv("DISPLAY", ":0")
    assert has_display()
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert not has_display()
