"""The function view in the whole window: raised by ``show_view("function")``, its curves
come from the engine's sweep, dragging the swept element's slider moves the point (no new
sweep), and the page fits at 1280x720 and in presentation mode at 1024x768."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from pytestqt.qtbot import QtBot

from gui.model.request import Program
from gui.model.session.document import Document
from tests.e2e.conftest import RESULT_TIMEOUT_MS, Explorer, settle
from tests.fixtures import drag_slider

CODE = "x = torch.tensor([0.5, 2.0], requires_grad=True)\ny = (x ** 3 - 2 * x).sum()\n"


def curve_ready(explorer: Explorer) -> bool:
    view = explorer.snapshot.function
    return (
        view.curve is not None
        and view.curve_current
        and view.probe_current
        and not view.sweeping
        and not explorer.snapshot.running
    )


def wait_for_curve(qtbot: QtBot, explorer: Explorer) -> None:
    qtbot.waitUntil(lambda: curve_ready(explorer), timeout=RESULT_TIMEOUT_MS)


def test_the_function_view_sweeps_and_follows_the_slider(
    qtbot: QtBot, make_explorer: Callable[..., Explorer], tmp_path: Path
) -> None:
    explorer = make_explorer()
    window, session = explorer.window, explorer.session
    session.load(Document(Program(code=CODE)))
    settle(qtbot, session)
    assert window.show_view("function")
    wait_for_curve(qtbot, explorer)
    panel = window.function
    assert panel.isVisible()
    curve = explorer.snapshot.function.curve
    assert curve is not None and curve.values == tuple(
        pytest.approx(x**3 - 2 * x + 4.0, rel=1e-6, abs=1e-6) for x in curve.xs
    )
    window.grab().save(str(tmp_path / "function-1280x720.png"))
    editor = window.inputs.groups["x"].editor
    assert editor is not None
    if not editor.sliders[0].slider.isVisible():  # compact: the inputs share a tab
        window.controls.setCurrentWidget(window.inputs)
        qtbot.waitUntil(editor.sliders[0].slider.isVisible)
    drag_slider(qtbot, editor.sliders[0].slider, 10, 30)
    settle(qtbot, session)
    window.show_view("function")
    wait_for_curve(qtbot, explorer)
    assert explorer.snapshot.function.curve is curve  # the same curve: no new sweep
    x0 = explorer.snapshot.values["x"][0]
    t = torch.tensor([x0, 2.0], requires_grad=True)
    y = (t**3 - 2 * t).sum()
    y.backward()
    assert t.grad is not None
    ((px, py),) = panel.f_plot.points()
    assert (px, py) == (x0, pytest.approx(y.item(), rel=1e-6))
    assert panel.frame.slope == pytest.approx(t.grad[0].item(), rel=1e-6)
    assert panel.frame.agrees is True


def test_the_function_view_in_presentation_mode_at_1024_by_768(
    qtbot: QtBot, make_explorer: Callable[..., Explorer], tmp_path: Path
) -> None:
    explorer = make_explorer(size=(1024, 768))
    window, session = explorer.window, explorer.session
    window.set_presentation(True)
    session.load(Document(Program(code=CODE)))
    settle(qtbot, session)
    # Presentation mode turns the window compact once its layout settles (the views move
    # into the controls' tabs, and the tab up may change then): raise the page until it
    # stays on screen with its curves.
    qtbot.waitUntil(
        lambda: (
            window.show_view("function") and window.function.isVisible() and curve_ready(explorer)
        ),
        timeout=RESULT_TIMEOUT_MS,
    )
    assert window.width() <= 1024 and window.height() <= 768
    panel = window.function
    assert panel.isVisible() and panel.f_plot.isVisible()
    # The plots keep room for a few lines of ticks in the bigger font.
    assert panel.f_plot.height() >= 5 * panel.f_plot.fontMetrics().height()
    image = window.grab()
    image.save(str(tmp_path / "function-1024x768-presentation.png"))
    assert (image.width(), image.height()) == (window.width(), window.height())
