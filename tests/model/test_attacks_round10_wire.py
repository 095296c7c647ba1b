"""Round 10's red team, behind both walls: answers only a compromised engine could send,
read by the window's reader (:mod:`gui.model.wire`) and then shown.

The reader checked a graph edge's ``input_index`` for its type only. The window indexes a
node's flows with it (``flow.leaving[edge.input_index]``, in the graph's painting and in
a group's collapsed flows), guarding only the upper end: an answer with a negative index
raised ``IndexError`` on the window's thread at every render of that step. The reader now
refuses an index below 0 or past any op's inputs, whether the graph comes as columns or as
records. The other oddities a graph can hold (a key twice, an edge to itself, cycles,
edges and flows naming no node, NaN and infinities everywhere) still load: the window
shows them without raising (``tests/widgets/test_attacks_round10_window.py``).
"""

from __future__ import annotations

import copy
import pickle

import pytest

from gui.model import wire
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Answer, GraphEdge, RunResult
from gui.model.wire_tensors import MAX_OUTPUTS
from tests.fixtures import records_bytes

CODE = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * w).sum()\n"
    "y.backward()\n"
)


@pytest.fixture(scope="module")
def small() -> RunResult:
    result = run_program(RunRequest(Program(code=CODE), time_limit=60))
    assert result.error is None and result.graph is not None and result.steps
    return result


def with_input_index(result: RunResult, index: int, as_records: bool) -> bytes:
    """The answer for ``result`` with every indexed edge's ``input_index`` set to ``index``."""
    bad = copy.deepcopy(result)
    assert bad.graph is not None
    edges = [e for e in bad.graph.edges if e.input_index is not None]
    assert edges
    for edge in edges:
        object.__setattr__(edge, "input_index", index)
    return records_bytes(Answer(1, bad)) if as_records else pickle.dumps(Answer(1, bad))


@pytest.mark.parametrize("as_records", [False, True], ids=["columns", "records"])
@pytest.mark.parametrize("index", [-1, -(10**9), MAX_OUTPUTS + 1, 10**30])
def test_an_edge_of_an_input_no_op_has_is_refused(
    small: RunResult, index: int, as_records: bool
) -> None:
    with pytest.raises(pickle.UnpicklingError, match=r"input no op has|past 64 bits"):
        wire.loads(with_input_index(small, index, as_records))


@pytest.mark.parametrize("as_records", [False, True], ids=["columns", "records"])
def test_edges_of_real_inputs_still_load(small: RunResult, as_records: bool) -> None:
    loaded = wire.loads(with_input_index(small, 0, as_records))
    assert type(loaded) is Answer and type(loaded.result) is RunResult
    original = wire.loads(pickle.dumps(Answer(1, small)))
    assert type(original) is Answer and original.result == small


def test_odd_but_harmless_graphs_still_load(small: RunResult) -> None:
    # What the window must show without raising (see the widget test of this round).
    bad = copy.deepcopy(small)
    graph = bad.graph
    assert graph is not None
    keys = [n.key for n in graph.nodes]
    looped = graph.edges + tuple(GraphEdge(k, k) for k in keys)
    looped += tuple(GraphEdge(e.target, e.source) for e in graph.edges)
    looped += (GraphEdge("nowhere", keys[0]),)
    object.__setattr__(graph, "edges", looped)
    object.__setattr__(graph, "nodes", graph.nodes + graph.nodes)
    object.__setattr__(graph, "root", "nowhere")
    loaded = wire.loads(pickle.dumps(Answer(1, bad)))
    assert type(loaded) is Answer and loaded.result == bad
