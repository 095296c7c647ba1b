"""A function box's attribute line shows whole numbers as the program wrote them."""

from __future__ import annotations

import torch

from gui.model.drawing.layout import as_written, node_lines
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest

CODE = """
x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
emb = torch.nn.Embedding(4, 3)
p = torch.softmax(x, dim=-1)
e = emb(torch.tensor([1, 2]))
loss = torch.nn.functional.cross_entropy(p + e, torch.tensor([0, 2])) + x.select(1, -1).sum()
"""


def _attribute_lines() -> dict[str, list[str]]:
    result = run_program(RunRequest(Program(code=CODE)))
    assert result.error is None and result.graph is not None
    return {
        node.name: node_lines(node, None, None)
        for node in result.graph.nodes
        if node.kind == "function"
    }


def test_negative_dims_and_indices_read_as_written() -> None:
    lines = _attribute_lines()
    assert "dim = -1" in lines["SoftmaxBackward0"]
    assert "padding_idx = -1" in lines["EmbeddingBackward0"]
    assert any("ignore_index = -100" in line for line in lines["NllLossBackward0"])
    assert "dim = 1, index = -1" in lines["SelectBackward0"]
    # Plain torch reports the same attributes as unsigned 64-bit numbers: the same bits.
    x = torch.ones(2, 3, requires_grad=True)
    torch_dim = torch.softmax(x, dim=-1).grad_fn._saved_dim  # type: ignore[union-attr]
    assert torch_dim == 2**64 - 1 and as_written(torch_dim) == -1


def test_other_numbers_pass_through() -> None:
    for value in (0, 5, -3, 2**63 - 1, 2**64, 0.5, -2.0, float("inf")):
        assert as_written(value) == value
    assert as_written(2**63) == -(2**63)
    assert as_written(True) is True  # bools are not numbers to convert
