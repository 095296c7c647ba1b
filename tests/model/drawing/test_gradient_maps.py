"""The gradients a picture shows, found per key when drawn: the same as found one by one,
and the colour scale the same as over every box and edge, on real runs."""

from __future__ import annotations

import pytest

from gui.model.drawing.gradient_maps import edge_gradient, node_gradient
from gui.model.drawing.paint import colour_scale, gradients, step_for_graph
from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import RunResult

PROGRAMS = {
    "chain": "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
    "for i in range(20):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n",
    "mlp": "import torch.nn as nn\ntorch.manual_seed(0)\n"
    "m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))\n"
    "x = torch.tensor([[1.0, -2.0, 0.5]], requires_grad=True)\nloss = m(x).pow(2).sum()\n",
    "vector seed": "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x * x * 3\n",
    "multi output": "x = torch.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)\n"
    "v, i = x.max(dim=1)\nloss = (v * 2).sum()\n",
    "no backward": "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * 2).sum()\n",
}


def _run(name: str) -> RunResult:
    steps: tuple[BackwardStep, ...] | None = None
    if name == "vector seed":
        steps = (BackwardStep(gradient=[0.5, -1.0, 2.0]),)
    if name == "no backward":
        steps = ()
    return run_program(RunRequest(Program(code=PROGRAMS[name], steps=steps), time_limit=60))


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_each_key_finds_what_it_shows_and_the_scale_covers_all(name: str) -> None:
    result = _run(name)
    graph = result.graph
    assert graph is not None
    step = step_for_graph(result)
    leaf_grads = {n: info.grad for n, info in result.tensors.items() if info.is_leaf}
    found = gradients(graph, step, leaf_grads, step)
    one_by_one = {n.key: node_gradient(n, step, leaf_grads) for n in graph.nodes}
    edges = {i: edge_gradient(e, step) for i, e in enumerate(graph.edges)}
    assert dict(found.nodes) == one_by_one and dict(found.edges) == edges
    assert len(found.nodes) == len(graph.nodes) and len(found.edges) == len(graph.edges)
    with pytest.raises(KeyError):
        found.nodes["no such node"]
    with pytest.raises(KeyError):
        found.edges[len(graph.edges)]
    arriving = [t for f in step.flows.values() for t in f.arriving] if step else []
    every = [*one_by_one.values(), *edges.values(), *arriving, *leaf_grads.values()]
    assert found.scale == colour_scale(every, step)
    assert found.any == any(t is not None for t in one_by_one.values())
