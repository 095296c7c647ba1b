"""Round 9's red team, behind both walls: answers a compromised engine could send that the
window's reader (:mod:`gui.model.wire`) accepted, though they cost the window far more than
their size.

The reader checked each field's *type*; a few kilobytes with the right types still said
"this node's value has 10,000,000 numbers, here is one" (a ``TensorData`` whose listed
``values`` do not match its ``shape``) or "this function has 10,000,000 outputs": the
window's layout (``layout.widest_like``/``node_size``) then built lists of that length
(a 3 KB answer: 39 s of layout at 10**7; at 10**9 eight gigabytes), and a tensor's
``values`` could be any message object or a dict. The reader now refuses them
(:mod:`gui.model.wire_tensors`), whether the graph comes as columns or as records.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable

import pytest

from gui.model import wire
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Answer, GraphNode, RunResult
from tests.fixtures import records_bytes

SMALL = "x = torch.tensor([0.5, -0.3], requires_grad=True)\ny = (x.exp() * 2).sum()\n"


@pytest.fixture(scope="module")
def small() -> RunResult:
    result = run_program(RunRequest(Program(code=SMALL), time_limit=60))
    assert result.error is None and result.graph is not None
    return result


def tampered(
    result: RunResult, change: Callable[[GraphNode], None], as_records: bool = False
) -> bytes:
    """The answer for ``result`` with ``change`` made to its first function node that has
    a value, pickled as the engine's child pickles it (its graph as columns), or with
    its graph as records (``as_records``: what a child could send instead)."""
    bad = copy.deepcopy(result)
    assert bad.graph is not None
    node = next(n for n in bad.graph.nodes if n.kind == "function" and n.value is not None)
    change(node)
    return records_bytes(Answer(1, bad)) if as_records else pickle.dumps(Answer(1, bad))


def test_an_untampered_answer_still_loads(small: RunResult) -> None:
    answer = wire.loads(tampered(small, lambda node: None))
    assert type(answer) is Answer and answer.result == small


def _claims_many_numbers(node: GraphNode) -> None:
    assert node.value is not None
    object.__setattr__(node.value, "shape", (10**9,))


def _many_outputs(node: GraphNode) -> None:
    object.__setattr__(node, "output_count", 10**9)


def _values_of_a_message(node: GraphNode) -> None:
    assert node.value is not None
    object.__setattr__(node.value, "values", Answer(2, None))


def _values_of_a_dict(node: GraphNode) -> None:
    assert node.value is not None
    object.__setattr__(node.value, "values", {"a": [1.0]})


@pytest.mark.parametrize("as_records", [False, True], ids=["columns", "records"])
@pytest.mark.parametrize(
    "change",
    [_claims_many_numbers, _many_outputs, _values_of_a_message, _values_of_a_dict],
    ids=["shape-claims-1e9-numbers", "1e9-outputs", "values-a-message", "values-a-dict"],
)
def test_an_answer_that_costs_more_than_its_size_is_refused(
    small: RunResult, change: Callable[[GraphNode], None], as_records: bool
) -> None:
    data = tampered(small, change, as_records)
    assert len(data) < 10_000
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(data)


@pytest.mark.parametrize("as_records", [False, True], ids=["columns", "records"])
def test_values_that_do_not_match_their_shape_are_refused(
    small: RunResult, as_records: bool
) -> None:
    def ragged(node: GraphNode) -> None:
        assert node.value is not None
        object.__setattr__(node.value, "shape", (2, 1))  # values are 2 numbers, not 2x1

    with pytest.raises(pickle.UnpicklingError, match="do not have its shape"):
        wire.loads(tampered(small, ragged, as_records))

    def negative(node: GraphNode) -> None:
        assert node.value is not None
        object.__setattr__(node.value, "shape", (-2,))
        object.__setattr__(node.value, "values", None)

    with pytest.raises(pickle.UnpicklingError, match="negative"):
        wire.loads(tampered(small, negative, as_records))


def test_a_big_tensor_claimed_without_its_numbers_costs_the_layout_nothing() -> None:
    # A real one (a billion bytes fits the engine's memory): its summary travels, not its
    # numbers, and sizing its box must not build a list of its shape.
    from gui.model.drawing.layout import node_size
    from gui.model.result import TensorData, TensorSummary

    big = TensorData((10**9,), "uint8", None, TensorSummary(0.0, 1.0, 0.5, 100.0))
    node = GraphNode("0:AddBackward0", "AddBackward0", "y", "function", value=big)
    many = GraphNode("1:UnbindBackward0", "UnbindBackward0", "u", "function", output_count=10**6)
    assert node_size(node)[0] > 0 and node_size(many)[0] > 0
