"""Nested tensor values (what ``tensor.tolist()`` returns) as numpy arrays, for the views
that flatten, subtract and compare them."""

from __future__ import annotations

from typing import TypeGuard

import numpy as np

from gui.model.result import NestedValues


def as_array(values: NestedValues) -> np.ndarray | None:
    """``values`` as one numpy array, or ``None`` when the nested lists are ragged."""
    try:
        return np.asarray(values)
    except ValueError:  # numpy refuses inhomogeneous nesting
        return None


def is_real(array: np.ndarray | None) -> TypeGuard[np.ndarray]:
    """Whether every element is a bool, an integer or a float (nothing complex, no objects)."""
    return array is not None and array.dtype.kind in "biuf"
