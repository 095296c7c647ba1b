"""Sparse gradients (``nn.Embedding(sparse=True)``, word2vec-style tutorials) run as in
plain torch: the backward, its Jacobian check and ``explore()`` read them as their dense
numbers."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from gui.explore_live import explore
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest

CODE = """
import torch.nn as nn
torch.manual_seed(0)
emb = nn.Embedding(6, 2, sparse=True)
words = torch.tensor([1, 3, 1])
loss = (emb(words) ** 2).sum()
loss.backward()
print(emb.weight.grad.is_sparse)
"""


def plain_grad() -> torch.Tensor:
    torch.manual_seed(0)
    emb = nn.Embedding(6, 2, sparse=True)
    (emb(torch.tensor([1, 3, 1])) ** 2).sum().backward()
    assert emb.weight.grad is not None and emb.weight.grad.is_sparse
    return emb.weight.grad.to_dense()


def test_a_sparse_grad_runs_and_equals_plain_torch() -> None:
    result = run_program(RunRequest(Program(code=CODE)))
    assert result.error is None, result.error
    assert [p.text for p in result.printed] == ["True"]
    grad = result.tensors["emb.weight"].grad
    assert grad is not None
    assert grad.values == plain_grad().tolist()
    (step,) = result.steps
    assert step.jacobians and all(check.matches for check in step.jacobians)


def test_explore_reads_a_sparse_grad(tmp_path: Path) -> None:
    torch.manual_seed(0)
    emb = nn.Embedding(6, 2, sparse=True)
    loss = (emb(torch.tensor([1, 3, 1])) ** 2).sum()
    explore(loss, model=emb, export=tmp_path)
    assert (tmp_path / "graph.svg").stat().st_size > 0
    assert emb.weight.grad is None  # the caller's leaf is left as it was
