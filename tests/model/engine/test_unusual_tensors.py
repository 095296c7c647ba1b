"""Tensors whose numbers cannot be read the usual way still give a result, never a crash."""

from __future__ import annotations

import math

import torch

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest

CODE = (
    "x = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)\n"
    "m = torch.ones(3).to('meta')\n"
    "s = (x * 2).to_sparse()\n"
    "y = (x ** 2).sum()\n"
)


def test_sparse_and_meta_tensors_are_shown_and_the_run_goes_on() -> None:
    result = run_program(RunRequest(Program(code=CODE)))
    assert result.error is None
    sparse = result.tensors["s"].value
    assert sparse.values == (torch.tensor([1.0, -2.0, 0.0]) * 2).tolist()
    meta = result.tensors["m"].value
    assert meta.shape == (3,) and meta.values is None  # a shape without numbers
    assert meta.summary is not None and math.isnan(meta.summary.mean)
    x = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)
    (x**2).sum().backward()
    assert x.grad is not None
    assert result.tensors["x"].grad is not None
    assert result.tensors["x"].grad.values == x.grad.tolist()
