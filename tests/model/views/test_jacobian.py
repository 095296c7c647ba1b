"""The Jacobian view: labels for every shape, J and Jᵀv equal to plain torch (the
Jacobian from ``torch.autograd.functional.jacobian``, ``x.grad`` from ``backward`` the
ordinary way), and plain words when there is no Jacobian."""

from __future__ import annotations

import numpy as np
import torch

from gui.model.result import TensorData
from gui.model.session import Session
from gui.model.tensor_format import format_tensor
from gui.model.views.jacobian import (
    NO_CALL,
    NO_RUN,
    element_labels,
    jacobian_view,
    vector_text,
)
from tests.fixtures import (
    CUBE_FUNCTION_CODE,
    MLP_CODE,
    V1,
    V2,
    X5,
    approx,
    cube_grad,
    load_lesson,
    mlp_reference,
)


def cube_jacobian(x: list[list[float]]) -> torch.Tensor:
    """d (2x)^3 / dx as a (4, 4) matrix, from torch."""
    return torch.autograd.functional.jacobian(lambda t: (2 * t) ** 3, torch.tensor(x)).reshape(4, 4)


def test_labels_name_each_element_as_python_indexes_it() -> None:
    assert element_labels("loss", ()) == ("loss",)
    assert element_labels("y", (3,)) == ("y[0]", "y[1]", "y[2]")
    assert element_labels("z", (2, 2)) == ("z[0, 0]", "z[0, 1]", "z[1, 0]", "z[1, 1]")
    assert element_labels("w", (2, 3)) == (
        "w[0, 0]",
        "w[0, 1]",
        "w[0, 2]",
        "w[1, 0]",
        "w[1, 1]",
        "w[1, 2]",
    )


def test_lesson_5_shows_torchs_jacobian_and_jtv_equal_to_x_grad(session: Session) -> None:
    snapshot = load_lesson(session, 5)
    view = jacobian_view(snapshot)
    assert view.message is None
    assert view.leaf == "x" and view.output == "z"
    assert view.row_labels == ("z[0, 0]", "z[0, 1]", "z[1, 0]", "z[1, 1]")
    assert view.column_labels == ("x[0, 0]", "x[0, 1]", "x[1, 0]", "x[1, 1]")
    assert view.matrix is not None
    np.testing.assert_allclose(view.matrix, cube_jacobian(X5).numpy(), rtol=1e-5)
    # The shown call is the second: v = [[0, 1], [0, 1]], flattened in the rows' order.
    assert view.v == (0.0, 1.0, 0.0, 1.0)
    # What that call added to x.grad, the ordinary way: after both calls minus after one.
    added = cube_grad(X5, V1, V2) - cube_grad(X5, V1)
    jtv = cube_jacobian(X5).T @ torch.tensor(V2).reshape(-1)
    assert jtv.reshape(2, 2).tolist() == approx(added.tolist())
    equation, torch_side, verdict = view.lines
    text = format_tensor(TensorData((2, 2), "float32", added.tolist()), 8)
    assert equation == f"x.grad += Jᵀv = {text}"
    assert torch_side == f"torch's backward added to x.grad: {text}"
    assert view.check is True and verdict.startswith("✓")
    assert "∂z_i/∂x_j" in view.explanation
    assert view.cell_tip(1, 1) == "∂z[0, 1]/∂x[0, 1] = 2.052"
    assert view.cell_text(0, 0) == "43.40" and view.cell_text(0, 1) == "0."


def test_the_chosen_step_is_the_one_shown(session: Session) -> None:
    load_lesson(session, 5)
    session.select_step(0)
    view = jacobian_view(session.snapshot)
    assert view.v == (1.0, 0.0, 1.0, 0.0)
    text = vector_text(cube_grad(X5, V1).tolist(), (2, 2))
    assert view.lines[1].endswith(text)


def test_a_scalar_output_has_one_row_and_the_implicit_v_of_1(session: Session) -> None:
    session.set_code(
        "x = torch.tensor([-0.4230, -1.2352], requires_grad=True)\nout = ((2 * x) ** 3).mean()\n"
    )
    view = jacobian_view(session.snapshot)
    assert view.row_labels == ("out",) and view.column_labels == ("x[0]", "x[1]")
    assert view.v == (1.0,)
    x = torch.tensor([-0.4230, -1.2352], requires_grad=True)
    ((2 * x) ** 3).mean().backward()
    assert x.grad is not None
    assert view.matrix is not None
    assert view.matrix[0].tolist() == approx(x.grad.tolist())
    assert view.lines[0].startswith("x.grad += Jᵀv (the implicit 1) = ")


def test_a_two_layer_mlp_has_a_1_by_n_jacobian_per_parameter(session: Session) -> None:
    session.set_code(MLP_CODE)
    reference = mlp_reference()
    first = jacobian_view(session.snapshot)
    assert first.leaves == tuple(f"model.{name}" for name in reference)
    for name, grad in reference.items():
        view = jacobian_view(session.snapshot, f"model.{name}")
        assert view.matrix is not None and view.shape == (1, grad.numel())
        assert view.matrix[0].tolist() == approx(grad.reshape(-1).tolist(), rel=1e-4, abs=1e-6)
        assert view.row_labels == ("loss",)
        assert view.check is True
    weight = jacobian_view(session.snapshot, "model.0.weight")
    assert weight.column_labels[:2] == ("model.0.weight[0, 0]", "model.0.weight[0, 1]")
    assert len(weight.column_labels) == 12


def test_a_custom_function_says_why_there_is_no_jacobian(session: Session) -> None:
    session.set_code(CUBE_FUNCTION_CODE)
    session.set_gradient([1.0, 1.0, 1.0])
    view = jacobian_view(session.snapshot)
    assert view.matrix is None
    assert view.message is not None
    assert "custom Function" in view.message
    assert "Build J row by row" in view.message


def test_no_run_and_no_backward_call_are_said_in_words(session: Session) -> None:
    assert jacobian_view(session.snapshot).message == NO_RUN
    session.set_code("x = torch.tensor([1.0, 2.0])\n")
    assert jacobian_view(session.snapshot).message == NO_CALL


def test_a_failed_call_quotes_torch(session: Session) -> None:
    session.set_code("x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x ** 2\n")
    view = jacobian_view(session.snapshot)
    assert view.matrix is None and view.message is not None
    assert "failed" in view.message
    assert "grad can be implicitly created only for scalar outputs" in view.message


def test_a_locked_scale_colours_the_cells(session: Session) -> None:
    snapshot = load_lesson(session, 5)  # the lesson locks the scale at 50
    assert jacobian_view(snapshot).scale == 50.0
    session.set_scale_lock(False)
    assert jacobian_view(session.snapshot).scale == approx(cube_jacobian(X5).abs().max().item())
