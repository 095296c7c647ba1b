"""The window's reader of the engine's messages: what it counts before the window walks it.

Crafted bytes on the pipe (opcodes the window must never run) are in
``tests/model/engine/test_attacks_round4.py``; these check the expanded-size count itself.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
import time

import pytest

from gui.model import wire
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import GraphNode, SavedValue, TensorData


def naive_expanded_size(message: object) -> int:
    """Every item a walk reaches, shared ones each time: what the window's walks cost."""
    count = 0
    pending = [message]
    while pending:
        value = pending.pop()
        count += 1
        if isinstance(value, list | tuple | set | frozenset):
            pending.extend(value)
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif dataclasses.is_dataclass(value):
            pending.extend(vars(value).values())
    return count


@pytest.mark.parametrize(
    "code",
    [
        "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
        "for i in range(12):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n",
        "w = torch.randn(6, 5, requires_grad=True)\nb = torch.zeros(6, requires_grad=True)\n"
        "y = torch.relu(w @ torch.ones(5) + b)\ny.backward(torch.ones(6))\n",
    ],
)
def test_a_real_result_is_counted_as_a_walk_reaches_it(code: str) -> None:
    """A result shares its graph with its last step: counted at both references, as a
    walk of the window reaches it twice."""
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is None
    assert result.graph is not None and result.steps[-1].graph is result.graph
    loaded = wire.loads(pickle.dumps(result))
    assert wire._expanded_size(loaded, {}, 10**9) == naive_expanded_size(loaded)


def shared_node_laughs(levels: int) -> object:
    """Ten references to a node whose saved value holds ten references to the node
    below...: small on the pipe (pickle's memo shares them), 10**levels items once walked.
    (A saved value's ``value`` is plain data of any shape; a tensor's values must match
    their shape, which the reader checks first: see test_attacks_round9_wire.py.)"""
    node: object = GraphNode("k", "n", "l", "function", value=TensorData((1,), "f", [1.0]))
    for _ in range(levels):
        node = GraphNode("k", "n", "l", "function", saved=(SavedValue("s", value=[node] * 10),))
    return [node] * 10


def test_shared_message_objects_count_at_every_reference() -> None:
    """The engine's own classes are walked once each, yet count in full each time they
    are referenced: nine levels of them are refused promptly."""
    payload = pickle.dumps(shared_node_laughs(9))
    assert len(payload) < 3000
    started = time.monotonic()
    with pytest.raises(pickle.UnpicklingError, match="expands too far"):
        wire.loads(payload)
    assert time.monotonic() - started < 2.0
    small = wire.loads(pickle.dumps(shared_node_laughs(2)))
    assert wire._expanded_size(small, {}, 10**9) == naive_expanded_size(small)


def test_message_objects_nested_too_deep_or_in_a_cycle_are_refused() -> None:
    node: object = TensorData((1,), "f", [1.0])
    for _ in range(5_000):
        node = GraphNode("k", "n", "l", "function", value=node)  # type: ignore[arg-type]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)  # the sender's pickler recurses; the window must not
    try:
        deep = pickle.dumps(node)
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(deep)
    values: list[object] = []
    cycle = TensorData((1,), "f", values)  # type: ignore[arg-type]
    values.append(GraphNode("k", "n", "l", "function", value=cycle))
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(pickle.dumps(cycle))


def test_rows_of_numbers_are_counted_without_being_walked() -> None:
    """Rows the C check takes (numbers only) count one per number; a row holding anything
    else is walked."""
    rows = [[1.0, 2, True], [0.5, [3.0, 4.0]], [], ["a", 1.0]]
    assert wire._expanded_size(rows, {}, 10**9) == naive_expanded_size(rows)
    # A whole number past a float's range is walked too, and refused: past 64 bits no
    # number is torch's (round 11: 10**5000 cannot even be printed).
    with pytest.raises(pickle.UnpicklingError, match="64 bits"):
        wire._expanded_size([[10**400, 1.0]], {}, 10**9)


@pytest.mark.parametrize("number", [-(2**63), 2**63 - 1, 2**64 - 1])
def test_every_whole_number_of_torchs_64_bit_types_is_read(number: int) -> None:
    data = TensorData((1,), "int64", [number])
    assert wire.loads(pickle.dumps(data)) == data
    assert wire.loads(pickle.dumps(("loose", number))) == ("loose", number)


@pytest.mark.parametrize("number", [-(2**63) - 1, 2**64])
def test_a_whole_number_one_past_64_bits_is_refused(number: int) -> None:
    """An int64 starts at -2**63, a uint64 ends at 2**64 - 1: one past is no torch number."""
    for message in (TensorData((1,), "int64", [number]), ("loose", number)):
        with pytest.raises(pickle.UnpicklingError, match="64 bits"):
            wire.loads(pickle.dumps(message))
