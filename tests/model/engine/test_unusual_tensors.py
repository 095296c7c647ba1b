"""Tensors whose numbers cannot be read the usual way still give a result, never a crash."""

from __future__ import annotations

import math

import torch

from gui.model.engine import tensors
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


def test_a_zero_tensor_reads_as_its_zeros() -> None:
    # torch's efficient zeros (no memory: `tolist` refuses them), which forward-mode AD
    # saves in a node (`MmBackward0`'s self in a jvp through a layer): zeros, as torch
    # prints them, not "no numbers".
    zeros = torch._efficientzerotensor((2, 3))
    assert zeros._is_zerotensor()
    data = tensors.read_tensor_data(zeros)
    assert data.values == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]] and data.shape == (2, 3)
    code = (
        "import torch.autograd.forward_ad as fwAD\n"
        "from torch.func import functional_call\n"
        "model = torch.nn.Linear(3, 2)\n"
        "params = dict(model.named_parameters())\n"
        "with fwAD.dual_level():\n"
        "    duals = {n: fwAD.make_dual(p, torch.ones_like(p)) for n, p in params.items()}\n"
        "    out = functional_call(model, duals, torch.ones(4, 3))\n"
        "    jvp = fwAD.unpack_dual(out).tangent\n"
        "loss = jvp.sum()\n"
    )
    result = run_program(RunRequest(Program(code=code), time_limit=30))
    assert result.error is None and result.graph is not None
    saved = [
        value.tensor
        for node in result.graph.nodes
        if node.name == "MmBackward0"
        for value in node.saved
        if value.name == "self" and value.tensor is not None
    ]
    assert saved and all(t.values == [[0.0] * 3] * 4 for t in saved)
