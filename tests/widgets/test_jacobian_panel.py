"""The Jacobian panel: lesson 5's matrix with its labels and numbers, the equation with its
check, a hover that names the derivative, plain words when there is no Jacobian, and the
"Build J row by row" button filling the rows in order, numbers checked against torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.model.session import Session, Snapshot
from gui.model.tensor_format import format_number
from gui.widgets.jacobian_panel import JacobianPanel
from tests.fixtures import (
    CUBE_FUNCTION_CODE,
    MLP_CODE,
    X5,
    SessionSpy,
    click,
    cube_function_jacobian,
    load_lesson,
    show_panel,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> JacobianPanel:
    return show_panel(qtbot, JacobianPanel(session), 300, 600)


def cube_jacobian() -> np.ndarray:
    x = torch.tensor(X5)
    return torch.autograd.functional.jacobian(lambda t: (2 * t) ** 3, x).reshape(4, 4).numpy()


def test_lesson_5_shows_the_matrix_its_labels_and_the_equation(
    panel: JacobianPanel, session: Session
) -> None:
    load_lesson(session, 5)
    view = panel.view
    assert view is not None and view.matrix is not None
    assert view.row_labels == ("z[0, 0]", "z[0, 1]", "z[1, 0]", "z[1, 1]")
    assert view.column_labels == ("x[0, 0]", "x[0, 1]", "x[1, 0]", "x[1, 1]")
    expected = cube_jacobian()
    for i in range(4):
        for j in range(4):
            assert view.cell_text(i, j) == format_number(float(expected[i, j]))
    assert panel.canvas.isVisible() and panel.canvas.width() > 0
    texts = panel.texts()
    assert texts["title"] == "J of z w.r.t. x"
    assert "∂z_i/∂x_j" in texts["explanation"]
    assert texts["equation"].startswith("x.grad += Jᵀv = [[0., 2.052], [0., 18.76]]")
    assert "torch's backward added to x.grad: [[0., 2.052], [0., 18.76]]" in texts["equation"]
    assert texts["check"].startswith("✓")
    assert texts["message"] == ""


def test_hovering_a_cell_names_its_derivative(panel: JacobianPanel, session: Session) -> None:
    load_lesson(session, 5)
    canvas = panel.canvas
    center = canvas.cell_rect(3, 3).center()
    QTest.mouseMove(canvas, center)
    assert (
        panel.texts()["hover"]
        == f"∂z[1, 1]/∂x[1, 1] = {format_number(float(cube_jacobian()[3, 3]))}"
    )
    QTest.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=canvas.cell_rect(0, -1).center())
    assert panel.texts()["hover"] == "v at z[0, 0] = 0."
    assert canvas.cell_at(QPoint(0, 0)) is None


def test_no_jacobian_shows_the_reason_not_an_empty_panel(
    panel: JacobianPanel, session: Session
) -> None:
    assert "Nothing has run yet" in panel.texts()["message"]
    session.set_code("x = torch.tensor([1.0, 2.0])\n")
    assert "No backward call yet" in panel.texts()["message"]
    session.set_code(CUBE_FUNCTION_CODE)
    session.set_gradient([1.0, 1.0, 1.0])
    message = panel.texts()["message"]
    assert "custom Function" in message and "Build J row by row" in message
    assert not panel.canvas.isVisible()


def test_the_build_button_fills_rows_in_order(
    panel: JacobianPanel, session: Session, qtbot: QtBot, spy: SessionSpy
) -> None:
    load_lesson(session, 5)
    before = (session.snapshot.state, session.request())
    built: list[int] = []

    def note(snapshot: Snapshot) -> None:
        recipe = snapshot.jacobian_recipe
        if recipe is not None and (not built or len(recipe.rows) != built[-1]):
            built.append(len(recipe.rows))

    session.changed.connect(note)
    panel.set_row_seconds(0.01)
    click(qtbot, panel.findChild(type(panel._build_button), "buildJacobian"))
    qtbot.waitUntil(
        lambda: (
            session.snapshot.jacobian_recipe is not None
            and session.snapshot.jacobian_recipe.status == "done"
        ),
        timeout=20_000,
    )
    session.changed.disconnect(note)
    assert built == [0, 1, 2, 3, 4]  # one row at a time, in order
    assert set(spy.calls) == {"step_jacobian_recipe"}
    view = panel.view
    assert view is not None and view.matrix is not None
    np.testing.assert_allclose(view.matrix, cube_jacobian(), rtol=1e-5)
    assert panel.texts()["check"].startswith("✓ the rows built equal the engine's J")
    assert (session.snapshot.state, session.request()) == before


def test_step_shows_unbuilt_rows_empty_and_stop_restores(
    panel: JacobianPanel, session: Session, qtbot: QtBot
) -> None:
    session.set_code(CUBE_FUNCTION_CODE)
    session.set_gradient([1.0, 1.0, 1.0])
    before = (session.snapshot.state, session.request())
    step = panel._step_button
    click(qtbot, step)
    click(qtbot, step)
    view = panel.view
    assert view is not None and view.built == (True, True, False)
    assert view.current_row == 1 and view.v == (0.0, 1.0, 0.0)
    assert view.cell_text(2, 0) == ""
    assert view.matrix is not None
    expected = cube_function_jacobian().numpy()
    np.testing.assert_allclose(view.matrix[:2], expected[:2], rtol=1e-5)
    assert panel.texts()["equation"].startswith("Row 2 of 3: v = e_1")
    click(qtbot, panel._stop_button)
    assert session.snapshot.jacobian_recipe is None
    assert (session.snapshot.state, session.request()) == before


def test_the_leaf_box_picks_which_parameter(
    panel: JacobianPanel, session: Session, qtbot: QtBot
) -> None:
    session.set_code(MLP_CODE)
    combo = panel._combo
    assert combo.isVisible() and combo.count() == 4
    combo.setCurrentText("model.2.weight")
    view = panel.view
    assert view is not None and view.leaf == "model.2.weight"
    assert view.column_labels == tuple(f"model.2.weight[0, {j}]" for j in range(4))
    assert view.row_labels == ("loss",)


def test_presentation_fonts_grow_the_cells_and_nothing_is_cut(
    panel: JacobianPanel, session: Session, qtbot: QtBot
) -> None:
    load_lesson(session, 5)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    font = app.font()
    small = panel.canvas.cell_rect(0, 0)
    try:
        bigger = QFont(font)
        bigger.setPointSizeF(font.pointSizeF() * 1.45)
        app.setFont(bigger)
        qtbot.waitUntil(lambda: panel.canvas.cell_rect(0, 0).width() > small.width())
        big = panel.canvas.cell_rect(0, 0)
        assert big.height() > small.height()
        metrics = QFontMetrics(panel.canvas.font())
        assert metrics.horizontalAdvance("43.40") < big.width()
        assert metrics.height() < big.height()
    finally:
        app.setFont(font)
