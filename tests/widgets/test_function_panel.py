"""The function view on a real session and the engine's process: pick an element, the
curves show torch's numbers, dragging that element's slider moves the marker along them
(no new sweep), and the h slider changes the finite difference."""

from __future__ import annotations

import pytest
import torch
from pytestqt.qtbot import QtBot

from gui.model.engine_process import EngineProcess
from gui.model.request import Program
from gui.model.session import Session
from gui.model.session.document import Document
from gui.widgets.function_panel import FunctionPanel, h_to_position, position_to_h
from gui.widgets.inputs_panel import InputsPanel
from tests.fixtures import MLP_CODE, drag_slider, mlp_reference, show_panel

CODE = "x = torch.tensor([1.0, -0.5], requires_grad=True)\ny = (torch.sin(x) * x).sum()\n"


def reference(x0: float, x1: float) -> tuple[float, list[float]]:
    x = torch.tensor([x0, x1], requires_grad=True)
    y = (torch.sin(x) * x).sum()
    y.backward()
    assert x.grad is not None
    return y.item(), x.grad.tolist()


@pytest.fixture
def swept(engine_process: EngineProcess) -> Session:
    session = Session(engine_process.run, sweep=engine_process.sweep)
    session.load(Document(Program(code=CODE)))
    return session


def test_pick_an_element_and_its_curves_show(qtbot: QtBot, swept: Session) -> None:
    panel = show_panel(qtbot, FunctionPanel(swept), 600, 600)
    combo = panel.element_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["x[0]", "x[1]"]
    combo.setCurrentIndex(1)
    combo.activated.emit(1)
    assert (swept.snapshot.function.leaf, swept.snapshot.function.index) == ("x", 1)
    (f_curve,) = panel.f_plot.curves()
    slope_curve = panel.slope_plot.curves()[0]
    xs = panel.f_plot.xs()
    assert len(xs) == 41
    for x, f, df in zip(xs, f_curve.values, slope_curve.values, strict=True):
        y, grad = reference(1.0, x)
        assert f == pytest.approx(y, rel=1e-6, abs=1e-6)
        assert df == pytest.approx(grad[1], rel=1e-6, abs=1e-6)
    assert panel.f_plot.title() == "f = y"
    assert combo.currentText() == "x[1]"
    y, grad = reference(1.0, -0.5)
    assert panel.f_plot.points() == ((-0.5, pytest.approx(y)),)
    autograd, finite, check = panel.texts()
    assert autograd == f"autograd: df/dx = {grad[1]:.7g} at x = -0.5"
    assert "finite difference" in finite
    assert "agree" in check


def test_dragging_the_slider_moves_the_marker_along_the_same_curve(
    qtbot: QtBot, swept: Session
) -> None:
    inputs = show_panel(qtbot, InputsPanel(swept), 500, 300)
    panel = show_panel(qtbot, FunctionPanel(swept), 600, 600)
    curve = swept.snapshot.function.curve
    before = panel.f_plot.points()
    editor = inputs.groups["x"].editor
    assert editor is not None
    drag_slider(qtbot, editor.sliders[0].slider, 10, 30, 60)
    x0 = swept.snapshot.values["x"][0]
    assert x0 > 1.0
    assert swept.snapshot.function.curve is curve  # the same curve: no new sweep
    ((px, py),) = panel.f_plot.points()
    assert (px, py) != before[0]
    y, grad = reference(x0, -0.5)
    assert (px, py) == (x0, pytest.approx(y, rel=1e-6))
    ((sx, sy),) = panel.slope_plot.points()
    assert (sx, sy) == (x0, pytest.approx(grad[0], rel=1e-6))
    segment = panel.f_plot.segment()
    assert segment is not None
    (xa, ya), (xb, yb) = segment
    assert (yb - ya) / (xb - xa) == pytest.approx(grad[0], rel=1e-5)


def test_the_h_slider_sets_h_and_a_large_h_disagrees(qtbot: QtBot, swept: Session) -> None:
    panel = show_panel(qtbot, FunctionPanel(swept), 600, 600)
    panel.h_slider.setValue(h_to_position(1.0))
    assert swept.snapshot.function.h == 1.0
    assert panel.frame.agrees is False
    assert "secant" in panel.texts()[2]
    panel.h_slider.setValue(h_to_position(1e-3))
    assert panel.frame.agrees is True


def test_hidden_panel_asks_for_no_sweeps(qtbot: QtBot, swept: Session) -> None:
    panel = FunctionPanel(swept)
    qtbot.addWidget(panel)
    assert not swept.snapshot.function.shown
    panel.show()
    qtbot.waitExposed(panel)
    assert swept.snapshot.function.shown
    panel.hide()
    assert not swept.snapshot.function.shown


def test_h_positions_round_trip() -> None:
    assert position_to_h(h_to_position(1e-3)) == 1e-3
    assert position_to_h(h_to_position(1e-6)) == 1e-6
    assert position_to_h(h_to_position(1.0)) == 1.0


def test_a_weight_of_a_two_layer_mlp_is_picked_and_swept(
    qtbot: QtBot, engine_process: EngineProcess
) -> None:
    session = Session(engine_process.run, sweep=engine_process.sweep)
    session.load(Document(Program(code=MLP_CODE)))
    panel = show_panel(qtbot, FunctionPanel(session), 600, 600)
    combo = panel.element_combo
    row = combo.findText("model.0.weight[1, 2]")
    assert row >= 0
    combo.setCurrentIndex(row)
    combo.activated.emit(row)
    assert (session.snapshot.function.leaf, session.snapshot.function.index) == (
        "model.0.weight",
        5,
    )
    xs = panel.f_plot.xs()
    (f_curve,) = panel.f_plot.curves()
    slopes = panel.slope_plot.curves()[0].values
    for k in (0, len(xs) // 2, len(xs) - 1):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
        inputs, target = torch.randn(5, 3), torch.randn(5, 1)
        with torch.no_grad():
            model[0].weight[1, 2] = xs[k]
        loss = torch.nn.functional.mse_loss(model(inputs), target)
        loss.backward()
        assert model[0].weight.grad is not None
        assert f_curve.values[k] == pytest.approx(loss.item(), rel=1e-5)
        assert slopes[k] == pytest.approx(model[0].weight.grad[1, 2].item(), rel=1e-5, abs=1e-7)
    assert panel.frame.slope == pytest.approx(mlp_reference()["0.weight"][1, 2].item(), rel=1e-5)


def test_another_slider_moving_keeps_the_old_curve_until_it_stops(
    qtbot: QtBot, swept: Session
) -> None:
    panel = show_panel(qtbot, FunctionPanel(swept), 600, 600)
    old = swept.snapshot.function.curve
    swept.set_input("x", 1, 1.5)
    assert swept.snapshot.function.curve is old
    assert panel.frame.stale
    # The panel's timer: once nothing changed for a moment, the new curve is swept.
    qtbot.waitUntil(lambda: swept.snapshot.function.curve_current, timeout=10_000)
    assert not panel.frame.stale
    y, _ = reference(panel.f_plot.xs()[0], 1.5)
    assert panel.f_plot.curves()[0].values[0] == pytest.approx(y, rel=1e-6)
