"""explore()'s engine: a live graph built by ordinary PyTorch code, answered in-process.

Every number is checked against torch run the ordinary way on a copy of the model, and
the user's own state (their ``.grad``, their graph) against what it was before.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable

import pytest
import torch
from torch import nn

from gui.model.engine.live import KEEPS_GRAPH, LiveGraph, NotExplorable
from gui.model.engine.live_names import named_sources
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import RunResult

Build = Callable[[], tuple[nn.Module, torch.Tensor]]


class RepeatedBlocks(nn.Module):
    """Three identical Linear+Tanh blocks in a ModuleList, then a head."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(3))
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def mlp() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)), torch.randn(4, 3)


def cnn() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(2)
    model = nn.Sequential(
        nn.Conv2d(1, 2, kernel_size=3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 3)
    )
    return model, torch.randn(2, 1, 6, 6)


def repeated() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(3)
    return RepeatedBlocks(), torch.randn(5, 4)


MODELS = {"mlp": mlp, "cnn": cnn, "repeated": repeated}


def loss_of(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return model(x).pow(2).mean()


def run(graph: LiveGraph, *steps: BackwardStep) -> RunResult:
    program = Program(code="# explored", steps=steps or None)
    return graph.run(RunRequest(program))


def torch_node_count(t: torch.Tensor) -> int:
    """The nodes of ``t``'s backward graph, counted by walking ``next_functions``."""
    seen = {id(t.grad_fn)}
    queue = deque([t.grad_fn])
    while queue:
        fn = queue.popleft()
        for child, _ in fn.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                queue.append(child)
    return len(seen)


def reference_grads(model: nn.Module, x: torch.Tensor, scale: float = 1.0) -> dict[str, list]:
    """Each parameter's gradient as plain torch computes it, on a copy of the model."""
    twin = copy.deepcopy(model)
    (loss_of(twin, x) * scale).backward()
    return {name: p.grad.tolist() for name, p in twin.named_parameters()}


@pytest.mark.parametrize("build", MODELS.values(), ids=MODELS.keys())
def test_explore_names_the_parameters_and_matches_torchs_gradients(build: Build) -> None:
    model, x = build()
    loss = loss_of(model, x)
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    result = run(graph)
    assert result.error is None
    parameter_names = [name for name, _ in model.named_parameters()]
    assert list(result.leaves) == parameter_names  # qualified names, in the model's order
    expected = reference_grads(model, x)
    for name in parameter_names:
        grad = result.tensors[name].grad
        assert grad is not None
        assert torch.allclose(torch.tensor(grad.values), torch.tensor(expected[name]), atol=1e-6)
    # Every node torch recorded is one box: function nodes and the leaves' AccumulateGrad.
    assert result.graph is not None
    boxes = [n for n in result.graph.nodes if n.kind in ("function", "leaf")]
    assert len(boxes) == torch_node_count(loss)
    labels = {n.label for n in result.graph.nodes if n.kind == "leaf"}
    assert labels == set(parameter_names)
    # The step-through has a flow for every node, in torch's order.
    flows = result.steps[0].flows
    assert {n.key for n in boxes} == set(flows)
    assert sorted(f.order for f in flows.values()) == list(range(len(boxes)))


def test_repeated_blocks_keep_one_name_per_block() -> None:
    model, x = repeated()
    graph = LiveGraph(loss_of(model, x), "loss", named_sources(None, model, None))
    leaves = run(graph).leaves
    assert [n for n in leaves if n.endswith(".weight")] == [
        "blocks.0.0.weight",
        "blocks.1.0.weight",
        "blocks.2.0.weight",
        "head.weight",
    ]


def test_a_layer_name_holding_reordering_controls_is_shown_escaped() -> None:
    """``add_module`` takes any string: explore shows a name with a right-to-left override
    as its escapes, as the engine does for a program's layers."""
    model = torch.nn.Sequential()
    model.add_module("enc\u202eder", torch.nn.Linear(2, 1))
    loss = model(torch.ones(1, 2)).sum()
    names = [name for name, _ in named_sources({"m": model}, None, None)]
    assert names == ["m.enc\\u202eder.weight", "m.enc\\u202eder.bias"]
    graph = LiveGraph(loss, "loss", named_sources({"m": model}, None, None))
    assert set(run(graph).leaves) == set(names)


@pytest.mark.parametrize("build", MODELS.values(), ids=MODELS.keys())
def test_the_users_grads_and_graph_are_left_as_they_were(build: Build) -> None:
    model, x = build()
    params = dict(model.named_parameters())
    first = next(iter(params))
    existing = torch.full_like(params[first], 0.25)
    params[first].grad = existing  # one leaf has a .grad already, the others None
    loss = loss_of(model, x)
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    result = run(graph, BackwardStep(), BackwardStep(gradient=3.0), BackwardStep(zero_grad=True))
    assert result.error is None
    # The window saw the existing .grad as the start of its calls...
    before = result.steps[0].grads_before[first]
    assert before is not None and torch.allclose(torch.tensor(before.values), existing)
    # ...and the user's .grad is the very same object, unchanged; the others still None.
    assert params[first].grad is existing
    assert torch.equal(existing, torch.full_like(existing, 0.25))
    assert all(p.grad is None for name, p in params.items() if name != first)
    # The graph is still the user's to use: their own backward gives torch's numbers.
    loss.backward()
    expected = reference_grads(model, x)
    for name, p in params.items():
        offset = torch.full_like(p, 0.25) if name == first else torch.zeros_like(p)
        assert torch.allclose(p.grad - offset, torch.tensor(expected[name]), atol=1e-6)


def test_grads_the_user_sets_while_the_window_is_open_are_theirs() -> None:
    model, x = mlp()
    loss = loss_of(model, x)
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    run(graph)
    bias = model.get_parameter("2.bias")
    mine = torch.tensor([10.0, 20.0])
    bias.grad = mine  # a notebook cell run between two of the window's runs
    result = run(graph)
    assert bias.grad is mine and torch.equal(mine, torch.tensor([10.0, 20.0]))
    before = result.steps[0].grads_before["2.bias"]
    assert before is not None and before.values == [10.0, 20.0]
    expected = torch.tensor(reference_grads(model, x)["2.bias"]) + mine
    after = result.tensors["2.bias"].grad
    assert after is not None and torch.allclose(torch.tensor(after.values), expected)


def test_backward_calls_accumulate_and_scale_with_the_gradient_argument() -> None:
    model, x = mlp()
    graph = LiveGraph(loss_of(model, x), "loss", named_sources(None, model, None))
    result = run(graph, BackwardStep(gradient=1.0), BackwardStep(gradient=0.5))
    assert len(result.steps) == 2
    expected = reference_grads(model, x, scale=1.5)  # 1 v, then 0.5 v: added up in .grad
    grad = result.tensors["0.weight"].grad
    assert grad is not None
    assert torch.allclose(torch.tensor(grad.values), torch.tensor(expected["0.weight"]), atol=1e-6)
    zeroed = run(graph, BackwardStep(), BackwardStep(zero_grad=True, gradient=2.0))
    twice = reference_grads(model, x, scale=2.0)
    grad = zeroed.tensors["2.bias"].grad
    assert grad is not None
    assert torch.allclose(torch.tensor(grad.values), torch.tensor(twice["2.bias"]), atol=1e-6)


def test_names_from_the_caller_and_explicit_names_win() -> None:
    model, x = mlp()
    x.requires_grad_(True)
    hidden = model[1](model[0](x))
    loss = model[2](hidden).sum()
    variables = {"x": x, "hidden": hidden, "net": model, "_": loss, "loss": loss}
    graph = LiveGraph(loss, "loss", named_sources({"w1": model[0].weight}, None, variables))
    result = run(graph)
    assert result.leaves[0] == "w1"
    assert {"x", "net.0.bias", "net.2.weight"} <= set(result.leaves)
    assert "net.0.weight" not in result.leaves  # named w1 already
    labels = {n.label for n in result.graph.nodes} if result.graph else set()
    assert "hidden" in labels and "loss" in labels
    node = next(n for n in result.graph.nodes if n.label == "hidden") if result.graph else None
    assert node is not None and node.value is not None
    assert torch.allclose(torch.tensor(node.value.values), hidden.detach())
    # x's gradient is torch's: d sum(f(x)) / dx.
    (expected,) = torch.autograd.grad(loss, x, retain_graph=True)
    grad = result.tensors["x"].grad
    assert grad is not None and torch.allclose(torch.tensor(grad.values), expected)
    assert x.grad is None


def test_retain_grad_from_the_window_adds_up_without_marking_the_users_tensors() -> None:
    model, x = mlp()
    hidden = model[1](model[0](x))
    loss = model[2](hidden).pow(2).sum()
    graph = LiveGraph(loss, "loss", [("hidden", hidden)])
    program = Program(
        code="# explored",
        steps=(BackwardStep(), BackwardStep(gradient=2.0)),
        retain_grad=("hidden", "loss"),
    )
    result = graph.run(RunRequest(program))
    info = result.tensors["hidden"]
    assert info.retains_grad and info.grad is not None
    twin_hidden = hidden.detach().requires_grad_(True)
    (expected,) = torch.autograd.grad(model[2](twin_hidden).pow(2).sum(), twin_hidden)
    assert torch.allclose(torch.tensor(info.grad.values), 3 * expected, atol=1e-6)  # 1 v + 2 v
    root = result.tensors["loss"].grad
    assert root is not None and root.values == 3.0
    assert not hidden.retains_grad and not loss.retains_grad


def test_a_tensor_the_user_retains_keeps_its_own_grad() -> None:
    model, x = mlp()
    hidden = model[1](model[0](x))
    hidden.retain_grad()
    loss = model[2](hidden).sum()
    loss.backward(retain_graph=True)
    assert hidden.grad is not None
    mine = hidden.grad
    seen = mine.clone()
    graph = LiveGraph(loss, "loss", [("hidden", hidden)])
    result = graph.run(RunRequest(Program(code="#", steps=(BackwardStep(), BackwardStep()))))
    shown = result.tensors["hidden"].grad
    assert shown is not None and torch.allclose(torch.tensor(shown.values), 3 * seen)
    assert hidden.grad is mine and torch.equal(mine, seen)


def test_a_freed_graph_is_explained_not_raised() -> None:
    model, x = mlp()
    loss = loss_of(model, x)
    loss.backward()  # frees the graph, as torch does by default
    for p in model.parameters():
        p.grad = None
    result = run(LiveGraph(loss, "loss", named_sources(None, model, None)))
    assert result.error is not None and result.error.kind == "backward-twice"
    assert all(p.grad is None for p in model.parameters())


def test_retain_graph_false_is_not_passed_and_says_so() -> None:
    model, x = mlp()
    loss = loss_of(model, x)
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    result = run(graph, BackwardStep(retain_graph=False), BackwardStep())
    assert result.error is None and KEEPS_GRAPH in result.warnings
    loss.backward()  # still there


def test_a_tensor_without_a_graph_is_refused_in_words() -> None:
    with pytest.raises(NotExplorable, match="no autograd graph"):
        LiveGraph(torch.ones(3).sum())
    with pytest.raises(TypeError, match="names"):
        named_sources({"w": 3}, None, None)


class CheckpointedBlocks(RepeatedBlocks):
    """The same blocks under torch's own checkpoint (as ``gradient_checkpointing`` does):
    built outside the engine, so no stand-in noted which nodes the blocks made."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = torch.utils.checkpoint.checkpoint(self._counted, block, x, use_reentrant=False)
        return self.head(x)

    def _counted(self, block: nn.Module, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return block(x)


def test_a_checkpointed_model_is_drawn_without_running_its_blocks_again() -> None:
    torch.manual_seed(4)
    model = CheckpointedBlocks()
    x = torch.randn(5, 4)
    loss = loss_of(model, x)
    assert model.calls == 3
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    result = run(graph)
    assert result.error is None and result.graph is not None
    # The walk unpacked nothing; the window's backward recomputed each block once.
    assert model.calls == 6
    recomputed = [n for n in result.graph.nodes if any(s.recomputed for s in n.saved)]
    assert {n.name for n in recomputed} == {"AddmmBackward0", "TanhBackward0"}
    assert len(recomputed) == 6  # every block's two nodes; the head's product is read
    head = [n for n in result.graph.nodes if n.name == "AddmmBackward0" and n not in recomputed]
    assert len(head) == 1 and any(s.tensor is not None for s in head[0].saved)
    expected = reference_grads(model, x)
    for name, _ in model.named_parameters():
        grad = result.tensors[name].grad
        assert grad is not None
        assert torch.allclose(torch.tensor(grad.values), torch.tensor(expected[name]), atol=1e-6)
