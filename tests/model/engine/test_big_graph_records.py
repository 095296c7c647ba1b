"""The engine's fast path for big graphs records exactly what torch did.

A 2,000-function graph's flows against torch's own hooks on the same program run the
ordinary way; a node that raises keeps what arrived at it; the Jacobian read from the call's
own gradients against ``torch.autograd.grad``; the collector paused only around the
engine's own work; records made without ``__init__`` equal to those made with it; the
structure key as before.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
from collections import deque
from typing import Any

import pytest
import torch

from gui.model.engine.records import quick_maker
from gui.model.engine.run import run_program
from gui.model.engine.tensors import tensor_data
from gui.model.paused_collector import collector_paused, collector_running
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import (
    Explanation,
    GraphEdge,
    GraphNode,
    NodeFlow,
    RunResult,
    SavedStorage,
    SavedValue,
    TensorData,
)

# About 2,000 function nodes; every step feeds ``h`` to two ops, so gradients add up at
# each step (the engine's accumulation), and a second leaf joins halfway.
BRANCHING = """\
x = torch.tensor([0.5, -0.3, 0.2], requires_grad=True)
w = torch.tensor([1.5, 0.5, -1.0], requires_grad=True)
h = x
for i in range(510):
    h = torch.sin(h) * 1.01 + h * 0.5
    if i == 250:
        h = h * w
out = (h ** 2).sum()
"""


def run(code: str, **fields: Any) -> RunResult:
    return run_program(RunRequest(Program(code=code, **fields), time_limit=60))


def breadth_first_keys(root: Any) -> dict[str, Any]:
    """The graph walk's keys (breadth-first position and class name) for plain torch."""
    keys: dict[int, str] = {id(root): f"0:{type(root).__name__}"}
    nodes = {keys[id(root)]: root}
    queue = deque([root])
    while queue:
        fn = queue.popleft()
        for child, _nr in fn.next_functions:
            if child is not None and id(child) not in keys:
                keys[id(child)] = f"{len(keys)}:{type(child).__name__}"
                nodes[keys[id(child)]] = child
                queue.append(child)
    return nodes


def torch_flows(code: str) -> dict[str, tuple[list[Any], list[Any], int]]:
    """Per node of ``code``'s output, run in plain torch with torch's own hooks: what
    arrived, what left and when it ran."""
    names: dict[str, Any] = {"torch": torch}
    exec(compile(code, "<plain>", "exec"), names)
    seen: dict[str, tuple[list[Any], list[Any], int]] = {}
    order: list[str] = []

    def values(grads: Any) -> list[Any]:
        return [None if g is None else g.tolist() for g in grads]

    arrived: dict[str, list[Any]] = {}
    for key, fn in breadth_first_keys(names["out"].grad_fn).items():

        def prehook(grad_outputs: Any, key: str = key) -> None:
            order.append(key)
            arrived[key] = values(grad_outputs)

        def hook(grad_inputs: Any, grad_outputs: Any, key: str = key) -> None:
            seen[key] = (arrived[key], values(grad_inputs), order.index(key))

        fn.register_prehook(prehook)
        fn.register_hook(hook)
    names["out"].backward()
    return seen


def plain(data: TensorData | None) -> Any:
    return None if data is None else data.values


def test_a_2000_function_graphs_flows_are_torchs_own_in_torchs_order() -> None:
    result = run(BRANCHING)
    assert result.error is None
    step = result.steps[0]
    expected = torch_flows(BRANCHING)
    assert len(expected) > 2000
    assert set(step.flows) == set(expected)
    for key, (arriving, leaving, order) in expected.items():
        flow = step.flows[key]
        assert [plain(t) for t in flow.arriving] == arriving, key
        assert [plain(t) for t in flow.leaving] == leaving, key
        assert flow.order == order, key


def test_a_node_that_raises_keeps_what_arrived_and_nothing_left() -> None:
    code = (
        "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\nz = y.exp()\n"
        "z.add_(1)\nout = z.sum()\n"
    )
    result = run(code)
    step = result.steps[0]
    assert step.error is not None and "inplace" in step.error.message
    graph = step.graph
    assert graph is not None
    key = {n.name: n.key for n in graph.nodes if n.kind in ("function", "leaf")}
    failed = step.flows[key["ExpBackward0"]]
    assert [plain(t) for t in failed.arriving] == [[1.0, 1.0]]
    assert failed.leaving == ()
    # It ran third (sum, the in-place add, then exp), and nothing after it ran.
    assert failed.order == 2
    assert key["MulBackward0"] not in step.flows and key["AccumulateGrad"] not in step.flows


JACOBIAN = """\
x = torch.tensor([[1.3448, -0.2924], [-0.4746, 0.8842]], requires_grad=True)
w = torch.tensor([0.3, 0.7], requires_grad=True)
unused = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = ((2 * x) ** 3 @ w).tanh().sum()
"""


def plain_jacobians() -> dict[str, list[list[float]]]:
    names: dict[str, Any] = {"torch": torch}
    exec(compile(JACOBIAN, "<plain>", "exec"), names)
    leaves = [names["x"], names["w"], names["unused"]]
    grads = torch.autograd.grad(names["out"], leaves, allow_unused=True)
    return {
        name: (torch.zeros(leaf.numel()) if g is None else g.reshape(-1)).reshape(1, -1).tolist()
        for name, g, leaf in zip(("x", "w", "unused"), grads, leaves, strict=True)
    }


def test_a_scalar_outputs_jacobian_is_torchs_exactly_also_when_gradients_pile_up() -> None:
    steps = (BackwardStep(retain_graph=True), BackwardStep())
    result = run(JACOBIAN, steps=steps)
    assert result.error is None
    expected = plain_jacobians()
    for step in result.steps:
        checks = {c.leaf: c for c in step.jacobians}
        assert set(checks) == {"x", "w", "unused"}
        for name, matrix in expected.items():
            assert checks[name].matrix == matrix, name
            assert checks[name].matches, name
        assert checks["unused"].contribution is None
    # The second call's contribution is what it added to the first's .grad.
    second = {c.leaf: c for c in result.steps[1].jacobians}
    assert second["x"].max_abs_difference is not None and second["x"].max_abs_difference < 1e-6


def test_a_leaf_differentiated_directly_has_the_jacobian_one() -> None:
    result = run("x = torch.tensor(3., requires_grad=True)\nx.backward()\n")
    (check,) = result.steps[0].jacobians
    assert check.matrix == [[1.0]] and check.matches


def test_the_collector_is_paused_only_around_the_engines_own_work() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
            with collector_running():
                assert gc.isenabled()
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused(), collector_running():
            assert not gc.isenabled()  # it was off before: the program's code keeps it off
        assert not gc.isenabled()
    finally:
        gc.enable()
    run(BRANCHING)
    assert gc.isenabled()


@pytest.mark.parametrize(
    ("hook", "collecting"),
    [("", False), ("y.register_hook(lambda g: g * 1)\n", True)],
    ids=["engine only", "program hook"],
)
def test_torchs_backward_runs_with_the_collector_on_when_program_code_runs_in_it(
    monkeypatch: pytest.MonkeyPatch, hook: str, collecting: bool
) -> None:
    import gui.model.engine.run as run_module

    states: list[bool] = []
    real = run_module._REAL_BACKWARD

    def watching(*args: Any, **kwargs: Any) -> None:
        states.append(gc.isenabled())
        real(*args, **kwargs)

    monkeypatch.setattr(run_module, "_REAL_BACKWARD", watching)
    code = f"x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\n{hook}out = y.sum()\n"
    result = run(code)
    assert result.error is None and result.tensors["x"].grad is not None
    assert states == [collecting]
    assert gc.isenabled()


MADE = {
    TensorData: {"shape": (2,), "dtype": "float32", "values": [1.0, -0.0]},
    GraphNode: {"key": "0:MulBackward0", "name": "MulBackward0", "label": "y", "kind": "function"},
    GraphEdge: {"source": "1:AccumulateGrad", "target": "0:MulBackward0", "input_index": 0},
    SavedValue: {"name": "self", "value": None, "freed": True},
    SavedStorage: {"storage": 0, "storage_bytes": 8, "own_bytes": 8},
    NodeFlow: {"arriving": (None,), "leaving": (), "order": 3},
}


@pytest.mark.parametrize("cls", list(MADE), ids=lambda c: c.__name__)
def test_a_record_made_quickly_is_the_one_init_makes(cls: type) -> None:
    fields = MADE[cls]
    quick = quick_maker(cls)(**fields)
    made = cls(**fields)
    assert quick == made and repr(quick) == repr(made)
    assert list(vars(quick)) == [f.name for f in dataclasses.fields(cls)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.order = 1
    with pytest.raises(TypeError):
        quick_maker(cls)(**fields, not_a_field=1)
    required = [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    with pytest.raises(TypeError):
        quick_maker(cls)(**{k: v for k, v in fields.items() if k != required[0]})


def test_tensor_data_read_quickly_is_the_one_init_makes() -> None:
    t = torch.tensor([[1.5, -0.0], [float("inf"), 2.0]])
    read = tensor_data(t)
    made = TensorData((2, 2), "float32", t.tolist())
    assert read == made and repr(read) == repr(made)
    assert list(vars(read)) == [f.name for f in dataclasses.fields(TensorData)]


def test_no_quick_maker_for_a_class_whose_init_does_more() -> None:
    with pytest.raises(TypeError):
        quick_maker(Explanation)  # __post_init__ bounds its texts


def test_the_structure_key_is_the_hash_of_nodes_edges_shapes_and_output_counts() -> None:
    for _ in range(2):  # computed, then remembered
        graph = run(BRANCHING).graph
        assert graph is not None
        shape: list[Any] = [
            [
                n.key, n.kind, n.label, None if n.value is None else list(n.value.shape),
                n.output_count,
            ]
            for n in graph.nodes
        ]  # fmt: skip
        shape.append([[e.source, e.target, e.kind, e.input_index] for e in graph.edges])
        assert graph.structure_key == hashlib.sha1(json.dumps(shape).encode()).hexdigest()[:16]
