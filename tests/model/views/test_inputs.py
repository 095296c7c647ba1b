"""Which leaves get a group in the inputs panel, and their numbers as flat lists."""

from __future__ import annotations

from gui.model.result import TensorData
from gui.model.session import Session
from gui.model.views.inputs import constants, flat_numbers, grad_text, structure


def test_flat_numbers_keep_only_real_numbers_in_row_major_order() -> None:
    assert flat_numbers([[1.5, 2], [True, -0.0]]) == [1.5, 2.0, 1.0, -0.0]
    assert flat_numbers(3) == [3.0]
    assert flat_numbers([[], []]) == []
    assert flat_numbers([1 + 2j, 3j]) == []
    assert flat_numbers([1 + 2j, 0.5]) == [0.5]  # a slider's value put into a complex leaf
    assert flat_numbers([[1.0, 2.0], [3.0]]) == [1.0, 2.0, 3.0]  # ragged: element by element
    assert flat_numbers([None, 1.0]) == [1.0]


def test_structure_and_constants_come_from_the_result(session: Session) -> None:
    assert structure(None) == () and constants(None) == ()
    session.set_code(
        "x = torch.tensor([1., 2.], requires_grad=True)\nc = torch.ones(2)\n"
        "b = torch.randn(100, 100, requires_grad=True)\ny = (x * c).sum() + b.sum()\n"
    )
    assert structure(session.snapshot.result) == (("x", (2,), True), ("b", (100, 100), False))
    assert constants(session.snapshot.result) == ["c"]


def test_flat_numbers_of_floats_are_the_floats_themselves() -> None:
    values = [[0.5, -0.0], [1e-30, float("inf")]]
    flat = flat_numbers(values)
    assert flat == [0.5, -0.0, 1e-30, float("inf")]
    assert all(type(v) is float for v in flat)
    assert str(flat[1]) == "-0.0"


def test_the_grad_line_says_when_it_is_the_last_runs() -> None:
    grad = TensorData(shape=(2,), dtype="float32", values=[6.0, 8.0])
    assert grad_text("x", grad) == "x.grad = [6., 8.]"
    assert grad_text("x", None) == "x.grad = None"
    assert grad_text("x", grad, stale_live_off=True) == (
        "x.grad = [6., 8.]  (from the last run: live is off)"
    )
