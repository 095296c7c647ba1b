"""Values of the same shape share one shape tuple (sent once on the pipe), bounded."""

from __future__ import annotations

import pickle

import torch

from gui.model.engine import tensors
from gui.model.engine.tensors import tensor_data


def test_tensors_of_one_shape_share_its_tuple_and_it_is_their_shape() -> None:
    a = tensor_data(torch.ones(2, 3))
    b = tensor_data(torch.zeros(2, 3, dtype=torch.float64))
    c = tensor_data(torch.ones(3, 2))
    assert a.shape == tuple(torch.ones(2, 3).shape) == (2, 3)
    assert a.shape is b.shape
    assert c.shape == (3, 2) and c.shape is not a.shape
    assert type(a.shape) is tuple and all(type(d) is int for d in a.shape)
    # Sent once: the second value refers back to the first one's tuple.
    assert len(pickle.dumps([a, b])) < len(pickle.dumps([a])) * 2


def test_the_shapes_kept_are_bounded() -> None:
    for n in range(tensors.MAX_SHAPES + 10):
        assert tensor_data(torch.zeros(n + 1)).shape == (n + 1,)
    assert len(tensors._SHAPES) <= tensors.MAX_SHAPES
