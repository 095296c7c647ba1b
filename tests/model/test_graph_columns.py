"""Graphs and backward calls' flows on the wire as columns (``gui.model.graph_columns``):
read back equal to what was sent, for every kind of program, and refused whole when any
column is off (the child that sends them runs a stranger's program)."""

from __future__ import annotations

import copy
import io
import math
import pickle
from pathlib import Path
from typing import Any

import pytest

from gui.model import graph_columns, wire
from gui.model.engine.jobs import _answer_bytes
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Answer, Graph, NodeFlow, RunResult, StepRecord, TensorData
from gui.model.session.file_format import load_session
from gui.resources import lesson_paths
from tests.corpus.harness import snippets
from tests.fixtures import records_bytes

ROOT = Path(__file__).resolve().parents[2]

# Programs whose results hold every kind of record the columns carry: saved lists and
# non-tensor saved values, views (storages), constants, custom Functions, several
# backward calls with their own graphs, summaries of big tensors, NaN and infinities,
# integers and booleans, gradients shared between flows.
PROGRAMS = {
    "views and saved values": (
        "x = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)\n"
        "y = torch.cat([x[0] ** 3, x[1].exp(), x.T.reshape(-1)])\n"
        "z = torch.stack([y, y * 2]).max(dim=0).values.sum() + x.norm(p=3)\n"
        "z.backward(retain_graph=True)\n"
    ),
    "big tensors are summarised": (
        "w = torch.linspace(-1, 1, 5000, requires_grad=True)\n"
        "loss = (w.sin() * w).pow(2).mean()\n"
        "loss.backward()\n"
    ),
    "non-finite and whole numbers": (
        "x = torch.tensor([0.0, 1.0, float('inf')], requires_grad=True)\n"
        "i = torch.tensor([2, 0, 1])\n"
        "y = (x.log() * x)[i] + x.sqrt()\n"
        "y.backward(torch.tensor([1.0, float('nan'), -1.0]))\n"
    ),
    "a training loop": (
        "w = torch.tensor([0.5, -0.2], requires_grad=True)\n"
        "opt = torch.optim.SGD([w], lr=0.1)\n"
        "for step in range(4):\n"
        "    opt.zero_grad()\n"
        "    loss = ((w * torch.tensor([1.0, 2.0])).sum() - 1) ** 2\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    ),
    "a custom Function": (
        "class Square(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * x\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        (x,) = ctx.saved_tensors\n"
        "        return 2 * x * g\n"
        "x = torch.tensor([1.5, -0.5], requires_grad=True)\n"
        "Square.apply(x).sum().backward()\n"
    ),
}


def _result(code: str) -> RunResult:
    return run_program(RunRequest(Program(code=code), time_limit=60))


def _answer(result: RunResult) -> bytes:
    """What the engine's child sends for ``result``."""
    return _answer_bytes(Answer(7, result), pickle.dumps(result, protocol=5))


def _same(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN (a result holds NaNs: ``==`` says a record differs)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))  # type: ignore[arg-type]
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(map(_same, a, b))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)  # type: ignore[attr-defined]
    if hasattr(a, "__dataclass_fields__"):
        return vars(a).keys() == vars(b).keys() and all(
            _same(vars(a)[name], vars(b)[name]) for name in vars(a)
        )
    return a == b


def _every_result() -> list[tuple[str, RunResult]]:
    found = [(name, _result(code)) for name, code in PROGRAMS.items()]
    found += [(path.stem, _result(load_session(path).program.code)) for path in lesson_paths()]
    found += [(s.name, _result(s.code)) for s in snippets()[::6]]
    return found


@pytest.fixture(scope="module")
def results() -> list[tuple[str, RunResult]]:
    return _every_result()


def test_every_result_reads_back_equal_and_checked(results: list[tuple[str, RunResult]]) -> None:
    graphs = steps = 0
    for name, result in results:
        assert _same(pickle.loads(pickle.dumps(result, protocol=5)), result), name
        answer = wire.loads(_answer(result))
        assert isinstance(answer, Answer) and _same(answer.result, result), name
        assert _same(copy.deepcopy(result), result), name
        graphs += result.graph is not None
        steps += sum(1 for step in result.steps if step.flows)
    assert graphs >= 20 and steps >= 20  # the columns were really exercised


def test_the_columns_keep_what_records_share() -> None:
    # A gradient that leaves one node and arrives at the next is one record in the
    # engine (read once): still one on the window's side, and the graph of the result
    # is the graph of its last step.
    result = _result(
        "x = torch.tensor([0.5, 2.0], requires_grad=True)\n(x.sin() * 3).sum().backward()\n"
    )
    read = wire.loads(_answer(result))
    assert isinstance(read, Answer) and isinstance(read.result, RunResult)
    step = read.result.steps[-1]
    assert step.graph is read.result.graph
    flows = step.flows
    shared = [
        (key, other)
        for key, flow in flows.items()
        for other, later in flows.items()
        if flow.leaving and later.arriving and flow.leaving[0] is later.arriving[0]
    ]
    assert shared, "no gradient record is shared between two flows"


def test_a_big_graph_is_half_the_bytes() -> None:
    code = (
        "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
        "for i in range(500):\n    h = torch.sin(h) * 1.01\nh.sum().backward()\n"
    )
    result = _result(code)
    assert len(pickle.dumps(result, protocol=5)) < 0.75 * len(records_bytes(result))


# -- refused -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small() -> RunResult:
    return _result(PROGRAMS["views and saved values"])


def test_records_sent_one_by_one_are_still_read_and_checked(small: RunResult) -> None:
    assert _same(wire.loads(records_bytes(Answer(1, small))), Answer(1, small))
    extra = copy.deepcopy(small)
    assert extra.graph is not None and extra.graph.nodes[0].value is not None
    vars(extra.graph.nodes[0].value)["numel"] = 3  # would shadow TensorData.numel
    with pytest.raises(pickle.UnpicklingError, match="TensorData with other attributes"):
        wire.loads(records_bytes(Answer(1, extra)))


def _graph_call(columns: tuple[Any, ...]) -> bytes:
    """A message whose graph is ``columns`` given to the reader's ``unpack_graph``."""
    return pickle.dumps(_Call(graph_columns.unpack_graph, columns), protocol=5)


def _step_call(columns: tuple[Any, ...]) -> bytes:
    return pickle.dumps(_Call(graph_columns.unpack_step, columns), protocol=5)


class _Call:
    """Pickles as the call ``function(*arguments)``, whatever the arguments hold."""

    def __init__(self, function: Any, arguments: tuple[Any, ...]) -> None:
        self.function, self.arguments = function, arguments

    def __reduce__(self) -> tuple[Any, ...]:
        return self.function, self.arguments


def _columns(graph: Graph) -> list[list[Any]]:
    return [
        list(map(list, part)) if i < 4 else list(part)
        for i, part in enumerate(graph_columns.pack_graph(graph))
    ]


def _as_tuples(columns: list[list[Any]]) -> tuple[Any, ...]:
    return tuple(
        tuple(map(tuple, part)) if i < 4 else tuple(part) for i, part in enumerate(columns)
    )


def _edited(graph: Graph, part: int, column: int, row: int, value: object) -> tuple[Any, ...]:
    columns = _columns(graph)
    columns[part][column][row] = value
    return _as_tuples(columns)


TENSORS, NODES, SAVED, EDGES = range(4)
N = {name: i for i, name in enumerate(graph_columns.NODE_COLUMNS)}
S = {name: i for i, name in enumerate(graph_columns.SAVED_COLUMNS)}
E = {name: i for i, name in enumerate(graph_columns.EDGE_COLUMNS)}


def test_the_untouched_columns_read_back(small: RunResult) -> None:
    assert small.graph is not None
    read = wire.loads(_graph_call(_as_tuples(_columns(small.graph))))
    assert _same(read, small.graph)


@pytest.mark.parametrize(
    ("part", "column", "value", "message"),
    [
        (NODES, N["output_count"], "1", "GraphNode whose output_count is a str"),
        (NODES, N["kind"], "module", "GraphNode whose kind is 'module'"),
        (NODES, N["key"], None, "GraphNode whose key is a NoneType"),
        (NODES, N["made"], "3", "GraphNode whose made is a str"),
        (NODES, N["made"], 2.0, "GraphNode whose made is a float"),
        (NODES, N["value"], -1, "out of range"),
        (NODES, N["value"], 10**6, "out of range"),
        (NODES, N["value"], True, "wrong GraphNode value"),
        (NODES, N["saved"], (0, 0), "saved values not in their nodes' order"),
        (SAVED, S["freed"], 0, "SavedValue whose freed is a int"),
        (SAVED, S["recomputed"], None, "SavedValue whose recomputed is a NoneType"),
        (SAVED, S["memory"], ((0, 1, 2),), "wrong saved memory"),
        (EDGES, E["kind"], "sideways", "GraphEdge whose kind is 'sideways'"),
        (EDGES, E["input_index"], 1.5, "GraphEdge whose input_index is a float"),
        (TENSORS, 0, (2, "x"), "TensorData whose shape is a str"),
        (TENSORS, 3, (1.0, 2.0), "wrong summary"),
    ],
)
def test_a_wrong_column_value_is_refused(
    small: RunResult, part: int, column: int, value: object, message: str
) -> None:
    assert small.graph is not None
    columns = _columns(small.graph)
    rows = [i for i, v in enumerate(columns[part][column]) if v not in ((), None)] or [0]
    columns[part][column][rows[0]] = value
    with pytest.raises(pickle.UnpicklingError, match=message):
        wire.loads(_graph_call(_as_tuples(columns)))


def test_malformed_tables_are_refused(small: RunResult) -> None:
    assert small.graph is not None
    good = _as_tuples(_columns(small.graph))
    short_column = list(good)
    short_column[NODES] = (*good[NODES][:-1], good[NODES][-1][:-1])
    for columns in (
        good[:4],  # a part missing
        (good[0], list(good[1]), *good[2:]),  # a list of columns
        tuple(short_column),  # columns of different lengths
        (*good[:4], (None, "key")),  # the graph's own fields
        (*good[:4], (None, "key", 1)),  # truncated is not a bool
    ):
        with pytest.raises(pickle.UnpicklingError):
            wire.loads(_graph_call(columns))


def test_one_big_tensor_held_by_every_node_expands_too_far() -> None:
    # 1,000 nodes that all refer to one row of 4,096 numbers: 4 million numbers to walk
    # in the window, in a message of a few kilobytes.
    count = 1000
    tensors = (((4096,),), ("float32",), ([0.5] * 4096,), (None,))
    nodes = (
        tuple(f"{i}:AddBackward0" for i in range(count)),
        ("AddBackward0",) * count,
        ("AddBackward0",) * count,
        ("function",) * count,
        (None,) * count,
        (0,) * count,
        ((),) * count,
        (None,) * count,
        (1,) * count,
        (None,) * count,
        (None,) * count,
    )
    assert len(nodes) == len(graph_columns.NODE_COLUMNS)
    saved: tuple[Any, ...] = ((),) * len(graph_columns.SAVED_COLUMNS)
    edges: tuple[Any, ...] = ((),) * 4
    columns = (tensors, nodes, saved, edges, ("0:AddBackward0", "k", False, False))
    with pytest.raises(pickle.UnpicklingError, match="expands too far"):
        wire.loads(_graph_call(columns))
    fewer = (tensors, tuple(column[:100] for column in nodes), saved, edges, columns[4])
    read = wire.loads(_graph_call(fewer))
    assert isinstance(read, Graph) and len(read.nodes) == 100


def test_deeply_nested_numbers_are_refused(small: RunResult) -> None:
    assert small.graph is not None
    nested: object = 1.0
    for _ in range(wire.MAX_DEPTH + 5):
        nested = (nested,)
    columns = _columns(small.graph)
    columns[TENSORS][2][0] = nested  # as a tensor's numbers: not its shape
    with pytest.raises(pickle.UnpicklingError, match=r"not numbers|not have its shape"):
        wire.loads(_graph_call(_as_tuples(columns)))
    columns = _columns(small.graph)
    row = next(i for i, v in enumerate(columns[SAVED][S["value"]]) if v is None)
    columns[SAVED][S["value"]][row] = nested  # as a saved value's (plain data of any shape)
    with pytest.raises(pickle.UnpicklingError, match="too deep"):
        wire.loads(_graph_call(_as_tuples(columns)))


def _step() -> StepRecord:
    result = _result(
        "x = torch.tensor([0.5, 2.0], requires_grad=True)\n(x.exp() * x).sum().backward()\n"
    )
    return result.steps[-1]


def test_flows_read_back_and_wrong_ones_are_refused() -> None:
    step = _step()
    fields, tensors, flows = graph_columns.pack_step(step)
    assert _same(wire.loads(_step_call((fields, tensors, flows))), step)
    keys, arriving, leaving, order = flows
    for wrong in (
        (keys, arriving, leaving, ("0",) * len(order)),  # order not an int
        (keys[:1] * len(keys), arriving, leaving, order),  # one node's flow twice
        (keys, ((99,),) * len(keys), leaving, order),  # a row out of range
        (keys, arriving, leaving[:-1], order),  # columns of different lengths
    ):
        with pytest.raises(pickle.UnpicklingError):
            wire.loads(_step_call((fields, tensors, wrong)))
    with pytest.raises(pickle.UnpicklingError, match="other fields"):
        wire.loads(_step_call((fields[:-1], tensors, flows)))
    # The step's own fields are checked as any record's.
    wrong_index = ("first", *fields[1:])
    with pytest.raises(pickle.UnpicklingError, match="StepRecord whose index is a str"):
        wire.loads(_step_call((wrong_index, tensors, flows)))


def test_plain_pickle_reads_the_columns_too() -> None:
    # The layout worker and tests read with plain pickle: the same records come back.
    step = _step()
    assert step.graph is not None
    assert _same(pickle.loads(pickle.dumps(step.graph)), step.graph)
    assert _same(pickle.loads(pickle.dumps(step)), step)
    flow = next(iter(step.flows.values()))
    assert isinstance(flow, NodeFlow) and all(
        isinstance(t, TensorData) for t in flow.arriving if t is not None
    )


def _answer_with_saved_value(result: RunResult, value: object) -> bytes:
    """The answer for ``result`` (its graph as columns), one plain saved value replaced."""
    assert result.graph is not None
    columns = _columns(result.graph)
    row = next(i for i, v in enumerate(columns[SAVED][S["value"]]) if v is not None)
    columns[SAVED][S["value"]][row] = value
    packed = _as_tuples(columns)

    class Pickler(pickle.Pickler):
        def reducer_override(self, obj: object) -> Any:
            if type(obj) is Graph:
                return graph_columns.unpack_graph, packed
            return NotImplemented

    buffer = io.BytesIO()
    Pickler(buffer, protocol=5).dump(Answer(1, result))
    return buffer.getvalue()


def test_a_saved_value_inside_an_answer_is_sized_and_its_depth_bounded() -> None:
    # Inside an answer the graph is not walked again: what a plain saved value holds must
    # be counted when the columns are read (a shared-list bomb, tuples too deep to hash).
    result = _result(
        "x = torch.tensor([1.5, 2.0], requires_grad=True)\n(x ** 3).sum().backward()\n"
    )
    assert wire.loads(_answer_with_saved_value(result, [3]))  # an ordinary one reads
    bomb: object = [1.0] * 10
    for _ in range(8):
        bomb = [bomb] * 10
    with pytest.raises(pickle.UnpicklingError, match="expands too far"):
        wire.loads(_answer_with_saved_value(result, bomb))
    deep: object = 1
    for _ in range(wire.MAX_DEPTH + 5):
        deep = (deep,)
    with pytest.raises(pickle.UnpicklingError, match="too deep"):
        wire.loads(_answer_with_saved_value(result, deep))
