"""The numpy arithmetic behind the local rules, edge by edge.

Every expected value here is what the earlier hand-written (flat list) implementation gave,
so the numbers the details pane shows did not change when numpy took over: broadcasting and
summing back, reordering and stacking dims, and Python's float conventions for division by
zero, powers and logs (``fdiv(1, -0.0)`` is ``+inf``, not IEEE's ``-inf``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from gui.model import nested
from gui.model.explain.local_rules import elementwise
from gui.model.explain.local_rules.flat import (
    RECOMPUTE_LIMIT,
    Arr,
    agrees,
    arr,
    expand,
    fdiv,
    flog,
    fmap,
    fmul,
    fpow,
    matmul,
    permute,
    reshape,
    scalar,
    stack,
    sum_to,
    transpose,
)
from gui.model.result import TensorData

INF, NAN = math.inf, math.nan
WRAPPED_MINUS_ONE = 2**64 - 1  # how torch hands a saved dim of -1 over


def a(values: Any, dtype: str = "float32") -> Arr:
    result = arr(TensorData(nested.shape_of(values), dtype, values), limit=None)
    assert result is not None
    return result


def counting(*shape: int) -> Arr:
    return a(nested.unflatten([float(i) for i in range(math.prod(shape))], shape))


def same(x: Any, y: Any) -> bool:
    """Equal numbers, nan equal to nan, and -0.0 told apart from 0.0."""
    if isinstance(x, list) or isinstance(y, list):
        return (
            isinstance(x, list)
            and isinstance(y, list)
            and len(x) == len(y)
            and all(same(p, q) for p, q in zip(x, y, strict=True))
        )
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def evaluated(f: Any, *columns: Any) -> Any:
    result = fmap(f, *(a(c) for c in columns))
    assert result is not None
    return result.nested()


# -- reading torch's numbers ---------------------------------------------------------------


def test_arr_takes_real_numbers_only_and_hands_back_python_floats() -> None:
    ints = a([1, 2], "int64")
    assert ints.shape == (2,) and ints.nested() == [1.0, 2.0]
    assert all(type(v) is float for v in ints.nested())
    assert a(2.5).shape == () and a(2.5).nested() == 2.5
    assert arr(TensorData((2,), "bool", [True, False])) is None
    assert arr(TensorData((1,), "complex64", [1j])) is None
    assert arr(TensorData((1,), "float32", None)) is None
    assert arr(None) is None
    over = TensorData((RECOMPUTE_LIMIT + 1,), "float32", [0.0] * (RECOMPUTE_LIMIT + 1))
    assert arr(over) is None and arr(over, limit=None) is not None
    assert a([[], []]).shape == (2, 0) and a([[], []]).nested() == [[], []]


def test_scalar_is_a_plain_number_only() -> None:
    two = scalar(2)
    assert two is not None and two.shape == () and two.nested() == 2.0
    assert scalar(True) is None and scalar("x") is None and scalar(None) is None


def test_numbers_are_read_only() -> None:
    x = a([1.0, 2.0])
    with pytest.raises(ValueError):
        x.values[0] = 5.0


# -- broadcasting and summing back ---------------------------------------------------------


def test_fmap_broadcasts_like_numpy() -> None:
    assert evaluated(fmul, [1.0, 2.0, 3.0], [[10.0], [20.0]]) == [
        [10.0, 20.0, 30.0],
        [20.0, 40.0, 60.0],
    ]
    assert fmap(fmul, a([1.0, 2.0, 3.0]), a([1.0, 2.0])) is None
    assert fmap(fmul, None, a([1.0])) is None
    # A constant is broadcast to the operands' shape.
    assert evaluated(lambda _: -1.0, [[1.0, 2.0]]) == [[-1.0, -1.0]]


def test_fmap_refuses_more_work_than_the_limit() -> None:
    column = a([[1.0]] * 17)
    row = a([1.0] * 16)
    assert RECOMPUTE_LIMIT < 17 * 16
    assert fmap(fmul, column, row) is None
    assert fmap(fmul, a([[1.0]] * 16), row) is not None


def test_expand() -> None:
    assert expand(a([[1.0], [2.0]]), (2, 3)).nested() == [[1.0] * 3, [2.0] * 3]  # type: ignore[union-attr]
    assert expand(a(5.0), (2,)).nested() == [5.0, 5.0]  # type: ignore[union-attr]
    assert expand(a([1.0, 2.0]), (2, 1)) is None  # (2,) does not expand to (2, 1)
    assert expand(None, (2,)) is None


@pytest.mark.parametrize(
    ("shape", "to", "expected"),
    [
        ((2, 3), (3,), [3.0, 5.0, 7.0]),
        ((2, 3), (2, 1), [[3.0], [12.0]]),
        ((2, 3), (1, 1), [[15.0]]),
        ((2, 3), (), 15.0),
        ((4, 2, 3), (2, 1), [[120.0], [156.0]]),
        ((4, 2, 3), (1, 3), [[84.0, 92.0, 100.0]]),
    ],
)
def test_sum_to_sums_the_broadcast_dims(
    shape: tuple[int, ...], to: tuple[int, ...], expected: Any
) -> None:
    result = sum_to(counting(*shape), to)
    assert result is not None and result.shape == to
    assert result.nested() == expected


def test_sum_to_edges() -> None:
    x = counting(2, 3)
    assert sum_to(x, (2, 3)) is x
    assert sum_to(x, (2,)) is None  # (2,) does not broadcast to (2, 3)
    assert sum_to(x, (2, 3, 1)) is None
    assert sum_to(None, (2,)) is None
    assert same(sum_to(a([-0.0, -0.0]), ()).nested(), 0.0)  # type: ignore[union-attr]
    assert same(sum_to(a([[INF, 1.0], [-INF, 2.0]]), (2,)).nested(), [NAN, 3.0])  # type: ignore[union-attr]


# -- moving numbers around -----------------------------------------------------------------


def test_permute_output_dim_k_is_input_dim_dims_k() -> None:
    x = counting(2, 3, 4)
    moved = permute(x, (2, 0, 1))
    assert moved is not None and moved.shape == (4, 2, 3)
    assert moved.nested() == [
        [[0.0, 4.0, 8.0], [12.0, 16.0, 20.0]],
        [[1.0, 5.0, 9.0], [13.0, 17.0, 21.0]],
        [[2.0, 6.0, 10.0], [14.0, 18.0, 22.0]],
        [[3.0, 7.0, 11.0], [15.0, 19.0, 23.0]],
    ]
    assert permute(x, (1, 2, 0)).nested()[0] == [[0.0, 12.0], [1.0, 13.0], [2.0, 14.0], [3.0, 15.0]]  # type: ignore[union-attr]
    assert permute(x, (0, 1)) is None
    assert permute(x, (0, 0, 1)) is None
    assert permute(a([1.0, 2.0]), (WRAPPED_MINUS_ONE,)) is None


def test_stack_puts_the_new_dim_at_dim() -> None:
    rows = [a([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), a([[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]])]
    expected = {
        0: [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]],
        1: [[[1.0, 2.0, 3.0], [7.0, 8.0, 9.0]], [[4.0, 5.0, 6.0], [10.0, 11.0, 12.0]]],
        2: [[[1.0, 7.0], [2.0, 8.0], [3.0, 9.0]], [[4.0, 10.0], [5.0, 11.0], [6.0, 12.0]]],
    }
    for dim, values in expected.items():
        assert stack(rows, dim).nested() == values  # type: ignore[union-attr]
    # torch's saved -1 arrives as 2**64 - 1 and means the last position.
    assert stack(rows, WRAPPED_MINUS_ONE).nested() == expected[2]  # type: ignore[union-attr]
    assert stack([a([1.0, 2.0, 3.0]), a([4.0, 5.0, 6.0])], 1).shape == (3, 2)  # type: ignore[union-attr]


def test_stack_needs_every_part_with_one_shape() -> None:
    assert stack([a([1.0]), None], 0) is None
    assert stack([], 0) is None
    assert stack([a([1.0]), a([1.0, 2.0])], 0) is None


def test_matrix_helpers() -> None:
    m = a([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    n = a([[1.0, 0.5], [-2.0, 2.0], [3.0, -1.0]])
    assert matmul(m, n).nested() == [[6.0, 1.5], [12.0, 6.0]]  # type: ignore[union-attr]
    assert matmul(m, m) is None
    assert matmul(a([1.0, 2.0]), n) is None
    assert same(matmul(a([[-0.0]]), a([[1.0]])).nested(), [[0.0]])  # type: ignore[union-attr]
    big = a([[1.0] * 8] * 8)
    assert matmul(big, a([[1.0] * 5] * 8)) is None  # 8·8·5 multiply-adds > the limit
    assert transpose(m).nested() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]  # type: ignore[union-attr]
    assert transpose(a([1.0, 2.0])) is None
    assert reshape(m, (3, 2)).nested() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]  # type: ignore[union-attr]
    assert reshape(m, (4,)) is None and reshape(m, None) is None


# -- Python's float conventions ------------------------------------------------------------


def test_division_by_zero_takes_the_sign_of_the_numerator() -> None:
    numerators = [1.0, -1.0, 1.0, -1.0, 0.0, -0.0, NAN, 3.0, -0.0]
    denominators = [0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, -2.0, 5.0]
    assert same(
        evaluated(fdiv, numerators, denominators),
        [INF, -INF, INF, -INF, NAN, NAN, NAN, -1.5, -0.0],
    )
    # DivBackward0's grad_b = -g·a / b² at b = ±0
    assert same(
        evaluated(lambda g, p, q: fdiv(-g * p, q * q), [1.0, 1.0], [1.0, 2.0], [0.0, -0.0]),
        [-INF, -INF],
    )


def test_powers_as_python_floats_give_them() -> None:
    bases = [0.0, -0.0, -0.0, -10.0, 10.0, -8.0, -1e300, -2.0, 0.0, NAN, 2.0]
    exponents = [-1.0, -1.0, -2.0, 401.0, 400.0, 1 / 3, 2.5, 3.0, 0.0, 0.0, 0.5]
    assert same(
        evaluated(fpow, bases, exponents),
        [INF, INF, INF, INF, INF, NAN, INF, -8.0, 1.0, 1.0, math.sqrt(2.0)],
    )


def test_log_and_sign() -> None:
    assert same(
        evaluated(flog, [0.0, -0.0, -1.0, math.e, NAN, INF]), [-INF, -INF, NAN, 1.0, NAN, INF]
    )
    abs_derivative = elementwise.UNARY["Abs"].derivative
    values = np.array([-0.0, 0.0, -3.0, 2.0, NAN, -INF])
    assert same(np.asarray(abs_derivative(values)).tolist(), [0.0, 0.0, -1.0, 1.0, 0.0, -1.0])


# -- comparing with torch ------------------------------------------------------------------


def tensor(values: list[float]) -> TensorData:
    return TensorData((len(values),), "float32", values)


def test_agrees_up_to_float32_rounding() -> None:
    assert agrees(a([1.0, NAN]), tensor([1.00001, NAN])) is True
    assert agrees(a([INF]), tensor([1e30])) is False
    assert agrees(a([INF]), tensor([INF])) is True
    assert agrees(a([INF]), tensor([-INF])) is False
    assert agrees(a([1.0]), tensor([1.0, 2.0])) is False
    # The absolute tolerance grows with torch's largest finite number.
    assert agrees(a([0.0]), tensor([2e-6])) is False
    assert agrees(a([0.0]), tensor([5e-7])) is True
    assert agrees(a([0.0, 1000.0]), tensor([5e-4, 1000.0])) is True
    assert agrees(a([0.0, 1000.0]), tensor([2e-3, 1000.0])) is False
    assert agrees(a([1.0]), TensorData((1,), "float32", None)) is None
