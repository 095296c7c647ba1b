"""The gradient plots are rebuilt when a leaf's shape changes: its shape from the result."""

from __future__ import annotations

from gui.model.session import Session
from gui.model.views.grad_plots import leaf_shape


def test_a_leafs_shape_or_nothing(session: Session) -> None:
    assert leaf_shape(None, "x") == ()
    session.set_code("x = torch.ones(2, 3, requires_grad=True)\ny = x.sum()\n")
    assert leaf_shape(session.snapshot.result, "x") == (2, 3)
    assert leaf_shape(session.snapshot.result, "missing") == ()
