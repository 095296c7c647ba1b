""" "Build J row by row": one real backward call per row (``v = e_k``, grads zeroed first),
the rows equal to torch's Jacobian, and the user's own gradient argument and calls back
exactly as they were after stopping, finishing, or editing.

Runs go through the engine in-process with the inline dispatcher, so each call returns with
its result. Expected Jacobians come from ``torch.autograd.functional.jacobian``.
"""

from __future__ import annotations

import numpy as np
import torch

from gui.model.engine.run import run_program
from gui.model.request import RunRequest
from gui.model.session import Session, Snapshot
from gui.model.session.jacobian_recipe import JacobianRecipe, cannot_start
from gui.model.session.state import SessionState
from gui.model.views.jacobian import jacobian_view
from tests.fixtures import (
    CUBE_FUNCTION_CODE,
    MLP_CODE,
    X5,
    approx,
    cube_function_jacobian,
    load_lesson,
    mlp_reference,
)

MATMUL_CODE = """A = torch.tensor([[1., 2.], [3., -1.], [0.5, 4.]])
x = torch.tensor([0.3, -0.7], requires_grad=True)
y = A @ x
"""
SOFTMAX_CODE = """x = torch.tensor([0.2, -1.0, 0.5], requires_grad=True)
y = torch.softmax(x, dim=0)
"""


def make(code: str | None = None) -> Session:
    session = Session(run_program)
    if code is not None:
        session.set_code(code)
    return session


def user_side(session: Session) -> tuple[SessionState, RunRequest, list[object]]:
    """What the user set (state, what it asks the engine) and what their calls gave."""
    snap = session.snapshot
    assert snap.result is not None
    grads = [
        {n: None if g is None else g.values for n, g in step.grads_after.items()}
        for step in snap.result.steps
    ]
    return snap.state, session.request(), grads


def build_all(session: Session) -> list[Snapshot]:
    """Step the recipe to its end; the snapshot after each step."""
    seen = []
    session.step_jacobian_recipe()
    seen.append(session.snapshot)
    for _ in range(300):
        recipe = session.snapshot.jacobian_recipe
        if recipe is None or not recipe.building:
            break
        session.step_jacobian_recipe()
        seen.append(session.snapshot)
    return seen


def built(recipe: JacobianRecipe | None, leaf: str) -> np.ndarray:
    assert recipe is not None
    return np.array([row[leaf] for row in recipe.rows])


def test_rows_of_z_2x_cubed_equal_torchs_jacobian_and_come_one_call_each() -> None:
    session = make()
    load_lesson(session, 5)
    before = user_side(session)
    seen = build_all(session)
    recipe = session.snapshot.jacobian_recipe
    assert recipe is not None and recipe.status == "done"
    expected = torch.autograd.functional.jacobian(lambda t: (2 * t) ** 3, torch.tensor(X5))
    assert built(recipe, "x").tolist() == approx(expected.reshape(4, 4).tolist())
    # Row k came from a run with exactly one session call, v = e_k, grads zeroed first.
    for k in range(4):
        snap = next(s for s in seen if s.jacobian_recipe and len(s.jacobian_recipe.rows) == k + 1)
        assert snap.result is not None
        (call,) = [s for s in snap.result.steps if s.source == "session"]
        assert call.zero_grad and call.gradient is not None
        assert np.array(call.gradient.values).reshape(-1).tolist() == np.eye(4)[k].tolist()
        after = call.grads_after["x"]
        assert after is not None
        assert np.array(after.values).reshape(-1).tolist() == list(recipe.rows[k]["x"])
    # Finished: the user's own v and both calls are back, and so are their gradients.
    assert user_side(session) == before
    lines = jacobian_view(session.snapshot).lines
    assert lines[-1].startswith("✓ the rows built equal the engine's J")


def test_a_matrix_product_builds_a_non_diagonal_jacobian() -> None:
    session = make(MATMUL_CODE)
    session.set_gradient([1.0, 1.0, 1.0])
    build_all(session)
    a = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]])
    expected = torch.autograd.functional.jacobian(lambda t: a @ t, torch.tensor([0.3, -0.7]))
    assert built(session.snapshot.jacobian_recipe, "x").tolist() == approx(expected.tolist())


def test_softmax_builds_its_full_jacobian() -> None:
    session = make(SOFTMAX_CODE)
    session.set_gradient([1.0, 0.0, 0.0])
    before = user_side(session)
    build_all(session)
    x = torch.tensor([0.2, -1.0, 0.5])
    expected = torch.autograd.functional.jacobian(lambda t: torch.softmax(t, dim=0), x)
    rows = built(session.snapshot.jacobian_recipe, "x")
    assert rows.tolist() == approx(expected.tolist(), rel=1e-4, abs=1e-6)
    assert abs(rows[0, 1]) > 0.01  # every output depends on every input
    assert user_side(session) == before


def test_stopping_half_way_puts_the_users_calls_back() -> None:
    session = make()
    load_lesson(session, 5)
    session.select_step(0)
    before = user_side(session)
    session.step_jacobian_recipe()
    session.step_jacobian_recipe()
    recipe = session.snapshot.jacobian_recipe
    assert recipe is not None and recipe.building and len(recipe.rows) == 2
    assert session.snapshot.state == before[0]  # the user's state is never touched
    session.stop_jacobian_recipe()
    assert session.snapshot.jacobian_recipe is None
    assert user_side(session) == before
    assert session.snapshot.selected_step == 0


def test_editing_the_code_while_building_stops_it() -> None:
    session = make()
    load_lesson(session, 5)
    session.step_jacobian_recipe()
    session.set_code(session.snapshot.code + "w = z * 2\n")
    assert session.snapshot.jacobian_recipe is None
    assert session.request().program.steps == session.snapshot.steps
    assert session.snapshot.result is not None
    assert "w" in session.snapshot.result.tensors


def test_a_done_recipe_is_put_away_by_new_values_or_close() -> None:
    session = make()
    load_lesson(session, 5)
    build_all(session)
    session.set_input("x", 0, 1.0)
    assert session.snapshot.jacobian_recipe is None
    build_all(session)
    session.stop_jacobian_recipe()
    assert session.snapshot.jacobian_recipe is None


def test_a_custom_function_gets_its_jacobian_from_backward_alone() -> None:
    session = make(CUBE_FUNCTION_CODE)
    session.set_gradient([1.0, 1.0, 1.0])
    assert not session.snapshot.shown_step or not session.snapshot.shown_step.jacobians
    build_all(session)
    recipe = session.snapshot.jacobian_recipe
    assert built(recipe, "x").tolist() == approx(cube_function_jacobian().tolist())
    assert "engine computed no J" in jacobian_view(session.snapshot).lines[-1]


def test_a_two_layer_mlp_builds_its_one_row() -> None:
    session = make(MLP_CODE)
    build_all(session)
    recipe = session.snapshot.jacobian_recipe
    assert recipe is not None and recipe.status == "done" and len(recipe.rows) == 1
    for name, grad in mlp_reference().items():
        row = recipe.rows[0][f"model.{name}"]
        assert list(row) == approx(grad.reshape(-1).tolist(), rel=1e-4, abs=1e-6)


def test_a_failing_call_stops_the_recipe_and_says_why() -> None:
    # The code frees the graph itself: the recipe's extra call meets torch's error.
    code = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x ** 2).sum()\ny.backward()\n"
    session = make(code)
    before = user_side(session)
    session.step_jacobian_recipe()
    recipe = session.snapshot.jacobian_recipe
    assert recipe is not None and recipe.status == "failed"
    assert recipe.problem is not None and "second time" in recipe.problem
    assert user_side(session) == before


def test_what_the_recipe_cannot_build() -> None:
    session = make()
    assert cannot_start(session.snapshot.result) is not None
    session.set_code("x = torch.zeros(300, requires_grad=True)\ny = x * 2\n")
    reason = cannot_start(session.snapshot.result)
    assert reason is not None and "300 elements" in reason
    session.step_jacobian_recipe()  # does nothing
    assert session.snapshot.jacobian_recipe is None
