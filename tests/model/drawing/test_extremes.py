"""The colour scale's numbers found in bulk: the same scale as tensor by tensor."""

from __future__ import annotations

import math

import pytest
import torch

from gui.model.drawing.colors import dominant_value, scale_for
from gui.model.drawing.extremes import dominant_values
from gui.model.result import TensorData, TensorSummary


def data(values: object, shape: tuple[int, ...] = (2,)) -> TensorData:
    return TensorData(shape, "float32", values)


def one_by_one(tensors: list[TensorData | None]) -> float:
    return scale_for(v for v in (dominant_value(t) for t in tensors) if v is not None)


def in_bulk(tensors: list[TensorData | None]) -> float:
    return scale_for(v for v in dominant_values(tensors) if v is not None)


SUMMARY = TensorData((5000,), "float32", None, TensorSummary(-7.5, 3.0, 0.1, 40.0))

CASES = {
    "flat rows": [data([0.5, -3.25]), data([2.0, 1.0]), None],
    "0-d numbers": [data(-4.5, ()), data([1.0, 2.0])],
    "a nan hides its tensor": [data([math.nan, 100.0]), data([2.0, -3.0])],
    "an inf hides its tensor": [data([math.inf, 1.0]), data([-2.5, 0.5])],
    "only non-finite": [data([math.nan]), data(-math.inf, ())],
    "ints and bools": [data([3, -9]), data([True, False]), data([0.5, 1.5])],
    "nested rows": [data([[1.0, -6.0], [2.0, 0.0]], (2, 2)), data([5.0, 0.0])],
    "a summary": [SUMMARY, data([1.0, 2.0])],
    "complex": [data([3 + 4j, 1.0]), data([2.0, 0.0])],
    "nothing": [None, data([], (0,))],
    "zeros": [data([0.0, -0.0])],
    "overflowing sum": [data([1e308, 1e308]), data([-1e308, 5.0])],
}


@pytest.mark.parametrize("name", CASES)
def test_the_bulk_scale_is_the_one_tensor_by_tensor(name: str) -> None:
    tensors = CASES[name]
    assert in_bulk(tensors) == one_by_one(tensors)


def test_a_shared_tensor_counts_as_itself() -> None:
    shared = data([-12.0, 4.0])
    assert in_bulk([shared, shared, data([1.0, 2.0]), shared]) == 12.0


def test_the_scale_is_the_largest_magnitude_torch_finds() -> None:
    generator = torch.Generator().manual_seed(3)
    rows = [torch.randn(2, generator=generator) * (i + 1) for i in range(500)]
    tensors: list[TensorData | None] = [data(row.tolist()) for row in rows]
    expected = torch.stack(rows).abs().max().item()
    assert in_bulk(tensors) == pytest.approx(expected, rel=1e-12)
    assert in_bulk(tensors) == one_by_one(tensors)
