"""The big graph's cheaper run records exactly what it recorded before.

Records made by the generated makers equal ``__init__``'s, positional or by name; numbers
read once and shared are shared only where ``==`` tells them apart exactly (never a signed
zero, a NaN, a complex number or a matrix); the forward recorder's early reads equal the
later reads of its copies; a graph walk shares a node's value with the next node's saved
input, and keeps them apart when the program changed one behind autograd's back.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
import torch

from gui.model.engine.graph_walk import Naming, structure_key, walk_graph
from gui.model.engine.recorder import ForwardRecorder
from gui.model.engine.records import quick_maker
from gui.model.engine.run import run_program
from gui.model.engine.tensors import (
    READ_WHEN_RECORDED,
    SHARED_MOST,
    SharedReads,
    read_tensor_data,
    recorded_value,
    snapshot,
)
from gui.model.request import Program, RunRequest
from gui.model.result import GraphNode, NodeFlow, RunResult, SavedStorage, TensorData


def run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code=code), time_limit=60))


def signs(values: Any) -> Any:
    """``values`` with every float as ``(value, sign)``: ``0.0`` and ``-0.0`` differ."""
    if isinstance(values, list):
        return [signs(v) for v in values]
    if isinstance(values, float):
        return ("nan",) if math.isnan(values) else (values, math.copysign(1.0, values))
    return values


# -- records ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "args"),
    [
        (TensorData, ((2,), "float32", [1.0, -0.0])),
        (GraphNode, ("0:MulBackward0", "MulBackward0", "y", "function", "y")),
        (SavedStorage, (0, 8, 8, True)),
        (NodeFlow, ((None,), (), 3)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_a_record_made_from_positions_is_the_one_init_makes(cls: type, args: tuple) -> None:
    make = quick_maker(cls)
    made, quick = cls(*args), make(*args)
    assert quick == made and repr(quick) == repr(made)
    assert list(vars(quick)) == [f.name for f in dataclasses.fields(cls)]
    names = [f.name for f in dataclasses.fields(cls)][: len(args)]
    assert make(**dict(zip(names, args, strict=True))) == made
    with pytest.raises(TypeError):
        make(*args, *([None] * len(dataclasses.fields(cls))))  # more than there are fields
    with pytest.raises(TypeError):
        make(*args, **{names[0]: args[0]})  # one field twice


def test_no_quick_maker_for_a_field_that_would_shadow_its_helpers() -> None:
    @dataclasses.dataclass(frozen=True)
    class Shadowing:
        _new: int

    with pytest.raises(TypeError):
        quick_maker(Shadowing)


# -- shared reads ----------------------------------------------------------------------

TENSORS = [
    torch.tensor([0.5, -0.25]),
    torch.tensor(1.01, dtype=torch.float64),
    torch.tensor([3, 4]),
    torch.tensor([True, False]),
    torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
    torch.tensor([0.0, -0.0]),
    torch.tensor(-0.0),
    torch.tensor([float("nan"), 1.0]),
    torch.tensor([1 + 0j, 2 - 0j]),
    torch.zeros(0),
    torch.arange(5000.0),  # statistics only
    torch.ones(3, device="meta"),
    torch.tensor([[0.0, 1.0]]).to_sparse(),
]


@pytest.mark.parametrize("t", TENSORS, ids=lambda t: f"{t.dtype}{tuple(t.shape)}")
def test_a_shared_read_is_the_plain_read(t: torch.Tensor) -> None:
    reads = SharedReads()
    first, second = reads.read(t), reads.read(t.clone())
    expected = read_tensor_data(t)
    for read in (first, second):
        assert read.shape == expected.shape and read.dtype == expected.dtype
        assert signs(read.values) == signs(expected.values)
        assert (read.summary is None) == (expected.summary is None)


@pytest.mark.parametrize(
    ("t", "shared"),
    [
        (torch.tensor([0.5, -0.25]), True),
        (torch.tensor(1.01, dtype=torch.float64), True),
        (torch.tensor([3, 4]), True),
        (torch.tensor([0.0, 1.0]), False),  # a zero: 0.0 == -0.0
        (torch.tensor(-0.0), False),
        (torch.tensor([float("nan")]), False),
        (torch.tensor([1 + 0j]), False),  # complex(1, 0.0) == complex(1, -0.0)
        (torch.tensor([[1.0, 2.0]]), False),  # more than one dimension
        (torch.arange(1.0, SHARED_MOST + 1), True),
        (torch.arange(1.0, SHARED_MOST + 2), False),  # its key would cost more than it saves
    ],
)
def test_only_numbers_equality_tells_apart_are_shared(t: torch.Tensor, shared: bool) -> None:
    reads = SharedReads()
    assert (reads.read(t) is reads.read(t.clone())) == shared


def test_a_signed_zero_is_never_given_the_other_zeros_record() -> None:
    reads = SharedReads()
    positive = reads.read(torch.tensor([0.0, 2.0]))
    negative = reads.read(torch.tensor([-0.0, 2.0]))
    assert signs(positive.values) == [(0.0, 1.0), (2.0, 1.0)]
    assert signs(negative.values) == [(0.0, -1.0), (2.0, 1.0)]


def test_equal_numbers_of_another_dtype_or_shape_are_not_shared() -> None:
    reads = SharedReads()
    one = reads.read(torch.tensor([1.0]))
    assert reads.read(torch.tensor([1.0], dtype=torch.float64)) is not one
    assert reads.read(torch.tensor(1.0)) is not one
    assert reads.read(torch.tensor([1])) is not one
    assert reads.shared(read_tensor_data(torch.tensor([1.0]))) is one


# -- the forward recorder --------------------------------------------------------------


@pytest.mark.parametrize(
    "t",
    [
        torch.tensor([0.5, -0.0]),
        torch.tensor(3),
        torch.ones(READ_WHEN_RECORDED + 1),
        torch.nn.Parameter(torch.tensor([1.0, 2.0])),
    ],
    ids=["small", "0-d int", "bigger", "subclass"],
)
def test_the_recorders_early_read_is_the_later_read_of_its_copy(t: torch.Tensor) -> None:
    kept = recorded_value(t)
    later = read_tensor_data(snapshot(t))
    if isinstance(kept, TensorData):
        assert type(t) is torch.Tensor and t.numel() <= READ_WHEN_RECORDED
        assert kept == later and signs(kept.values) == signs(later.values)
    else:
        assert read_tensor_data(kept) == later
    with torch.no_grad():
        t.add_(1)  # an in-place change afterwards alters neither
    now = kept if isinstance(kept, TensorData) else read_tensor_data(kept)
    assert now == later


def walked(code: str) -> tuple[dict[str, Any], dict[str, GraphNode]]:
    naming = Naming()
    names: dict[str, Any] = {"torch": torch}
    with ForwardRecorder(naming):
        exec(compile(code, "<test>", "exec"), names)
    graph = walk_graph(names["out"], naming, "out").graph
    return names, {n.key: n for n in graph.nodes}


def test_a_walk_shares_a_nodes_value_with_the_next_nodes_saved_input() -> None:
    names, nodes = walked(
        "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
        "for i in range(3):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
    )
    muls = [n for n in nodes.values() if n.name == "MulBackward0"]
    sins = [n for n in nodes.values() if n.name == "SinBackward0"]
    assert len(muls) == len(sins) == 3
    for mul, sin in zip(muls[1:], sins, strict=False):
        (saved,) = sin.saved
        assert saved.tensor is mul.value  # read once, shared
    constants = [n.value for n in nodes.values() if n.kind == "constant"]
    assert len(constants) == 3 and all(c is constants[0] for c in constants)
    assert constants[0] == TensorData((), "float64", 1.01)
    # The numbers are torch's: the last sin's saved input is the value of h before it.
    h = names["x"].detach()
    for _ in range(2):
        h = torch.sin(h) * 1.01
    assert sins[0].saved[0].tensor.values == h.tolist()


def test_numbers_changed_behind_autograds_back_stay_apart() -> None:
    # ``y.data`` shares y's numbers without its version counter: the value recorded when y
    # was made and the tensor sin saved differ, and each is shown as it is.
    _, nodes = walked(
        "x = torch.tensor([1., -2.], requires_grad=True)\ny = x * 3\nz = y.sin()\n"
        "y.data.mul_(2)\nout = z.sum()\n"
    )
    (mul,) = [n for n in nodes.values() if n.name == "MulBackward0"]
    (sin,) = [n for n in nodes.values() if n.name == "SinBackward0"]
    assert mul.value is not None and mul.value.values == [3.0, -6.0]
    assert sin.saved[0].tensor is not None and sin.saved[0].tensor.values == [6.0, -12.0]


def test_signed_zeros_reach_the_graph_as_torch_computed_them() -> None:
    code = (
        "x = torch.tensor([0., -0., 1.], requires_grad=True)\ny = x * -1.0\n"
        "z = (y * 0.0).exp()\nw = z * x\nout = w.sum()\n"
    )
    result = run(code)
    assert result.error is None and result.graph is not None
    names: dict[str, Any] = {"torch": torch}
    exec(compile(code, "<plain>", "exec"), names)
    by_var = {n.var: n for n in result.graph.nodes if n.kind == "function" and n.var}
    for var in ("y", "z", "w"):
        value = by_var[var].value
        assert value is not None
        assert signs(value.values) == signs(names[var].tolist()), var


def test_the_same_structure_gets_the_same_key_and_another_shape_another() -> None:
    code = "x = torch.tensor({}, requires_grad=True)\nout = (x.sin() * 2).sum()\n"
    keys = [run(code.format(v)).graph for v in ("[1., 2.]", "[3., 4.]", "[1., 2., 3.]")]
    assert all(g is not None for g in keys)
    first, again, longer = (g.structure_key for g in keys if g is not None)
    assert first == again != longer
    graph = keys[0]
    assert graph is not None
    assert structure_key(list(graph.nodes), list(graph.edges)) == first
