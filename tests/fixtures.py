"""``approx`` for nested lists (pytest.approx only handles flat sequences)."""

from __future__ import annotations

import pytest


def _flatten(values: object) -> tuple[list[object], tuple[int, ...]]:
    if not isinstance(values, list):
        return [values], ()
    flat: list[object] = []
    inner: tuple[int, ...] | None = None
    for v in values:
        f, s = _flatten(v)
        flat.extend(f)
        inner = s if inner is None else inner
    return flat, (len(values), *(inner or ()))


class NestedApprox:
    """Equal to a nested list of the same shape whose numbers are close to these."""

    def __init__(self, expected: object, rel: float, abs: float) -> None:
        self.expected = expected
        self.flat, self.shape = _flatten(expected)
        self.rel, self.abs = rel, abs

    def __eq__(self, actual: object) -> bool:
        flat, shape = _flatten(actual)
        return shape == self.shape and flat == pytest.approx(self.flat, rel=self.rel, abs=self.abs)

    def __repr__(self) -> str:
        return f"approx({self.expected!r}, rel={self.rel}, abs={self.abs})"


def approx(expected: object, rel: float = 1e-3, abs: float = 1e-3) -> NestedApprox:
    return NestedApprox(expected, rel, abs)
