"""The time limit is visible and adjustable, a long loop shows its progress and its losses,
and the window says which tensor it differentiates and whether it added the backward call."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS
from tests.e2e.conftest import Explorer, settle

NO_BACKWARD = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x ** 2).sum()\n"
LOOP = """model = torch.nn.Linear(2, 1)
X = torch.randn(32, 2)
Y = X.sum(1, keepdim=True)
for i in range(N):
    loss = ((model(X) - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.05 * p.grad
            p.grad.zero_()
"""


def test_the_time_limit_is_shown_chosen_and_kept_for_the_next_window(
    qtbot: QtBot, make_explorer: Callable[..., Explorer]
) -> None:
    first = make_explorer(time_limit=DEFAULT_TIME_LIMIT_SECONDS)
    window = first.window
    assert window.time_limit_button.text() == "Time limit: 1.5 s"
    assert window.time_limit_actions[1.5].isChecked()
    menus = {menu.title(): menu for menu in window.menuBar().findChildren(QMenu)}
    assert window.time_limit_menu.menuAction() in menus["&Run"].actions()
    window.time_limit_actions[30.0].trigger()
    assert first.session.time_limit == 30.0
    assert first.snapshot.time_limit == 30.0
    assert window.time_limit_button.text() == "Time limit: 30 s"
    assert window.time_limit_actions[30.0].isChecked()
    assert not window.time_limit_actions[1.5].isChecked()
    assert window.close()
    second = make_explorer(time_limit=DEFAULT_TIME_LIMIT_SECONDS, settings_path=first.settings_path)
    assert second.session.time_limit == 30.0
    assert second.window.time_limit_button.text() == "Time limit: 30 s"
    # A --time-limit on the command line wins over the kept choice for that start.
    third = make_explorer(time_limit=4.0, settings_path=first.settings_path)
    assert third.session.time_limit == 4.0
    assert third.window.time_limit_button.text() == "Time limit: 4 s"


def test_a_long_loop_shows_its_seconds_then_its_count_and_losses(
    qtbot: QtBot, make_explorer: Callable[..., Explorer]
) -> None:
    explorer = make_explorer(time_limit=30.0)
    explorer.session.set_code("x = torch.tensor(1.0, requires_grad=True)\ny = x * 2\n")
    settle(qtbot, explorer.session)
    explorer.session.set_code(LOOP.replace("N", "1500"))
    status = explorer.window._status  # the status bar's message
    qtbot.waitUntil(lambda: status.text().startswith("Running… "), timeout=20_000)
    assert "(stops at 30 s" in status.text()
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.error is None
    assert snapshot.result is not None and snapshot.result.step_count == 1500
    assert len(snapshot.result.step_values) == 1500
    panel = explorer.window.backward
    assert panel.status.text().startswith("Backward calls: 1,500 (")
    assert "loss: " in panel.status.text() and "(1,500 calls)" in panel.status.text()
    assert status.text() == "Up to date · output loss"
    assert explorer.window._steps_label.text() == "backward calls: 1500"


def test_the_window_says_which_tensor_and_that_the_app_adds_the_call(
    qtbot: QtBot, make_explorer: Callable[..., Explorer]
) -> None:
    explorer = make_explorer()
    explorer.session.set_code(NO_BACKWARD)
    settle(qtbot, explorer.session)
    note = explorer.window.backward.output_note.text()
    assert note == (
        "y: the last tensor your code assigns that has a grad_fn. "
        "Your code does not call backward: the app adds y.backward()."
    )
    assert explorer.window._status.text() == (
        "Up to date · output y: the app adds y.backward() (your code does not call backward)"
    )
    explorer.session.set_code(NO_BACKWARD + "y.backward()\n")
    settle(qtbot, explorer.session)
    assert explorer.window.backward.output_note.text() == (
        "y: your code calls backward on it. The app adds no backward call."
    )
    explorer.session.set_code("x = torch.tensor([1.0, 2.0], requires_grad=True)\n")
    settle(qtbot, explorer.session)
    assert explorer.window.backward.output_note.text().startswith("No tensor has a grad_fn")
    assert explorer.window._status.text().startswith("No tensor has a grad_fn")
