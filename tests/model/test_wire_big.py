"""The careful reader on a big graph's answer: read without walking its opcodes one by
one in Python, on a thread whose stack holds any tuple it could nest, and still refused
when it nests or expands too far or when any one of its objects holds a wrong field."""

from __future__ import annotations

import copy
import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from gui.model import wire
from gui.model.deep_stack import StackUnavailable
from gui.model.engine.jobs import _answer_bytes, _ResultAsBytes
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Answer, RunResult
from tests.fixtures import records_bytes

ROOT = Path(__file__).resolve().parents[2]
# About 4,000 function nodes: more bytes that could nest tuples than CHEAP_NESTING.
BIG_CHAIN = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
    "for i in range(2000):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
)


@pytest.fixture(scope="module")
def big() -> tuple[RunResult, bytes]:
    """A big graph's result and the bytes the engine's child sends for it (the result
    already pickled by the budget, inside the answer as ``loads(those bytes)``)."""
    result = run_program(RunRequest(Program(code=BIG_CHAIN), time_limit=60))
    assert result.error is None and result.graph is not None
    return result, _answer_bytes(Answer(1, result), pickle.dumps(result))


def nested_tuple(levels: int) -> tuple[object, ...]:
    value: tuple[object, ...] = ()
    for _ in range(levels - 1):
        value = (value,)
    return value


def test_a_big_answer_is_read_without_the_opcode_walk(
    big: tuple[RunResult, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    result, data = big
    assert wire._nesting_bytes(data) > wire.CHEAP_NESTING

    def no_walk(data: bytes) -> None:
        raise AssertionError("check_shape ran")

    monkeypatch.setattr(wire, "check_shape", no_walk)
    answer = wire.loads(data)
    assert answer == Answer(1, result)


def test_without_a_deep_stack_the_opcodes_are_read_first(
    big: tuple[RunResult, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system that refuses a thread with such a stack: the old way, the same answer."""
    result, data = big
    walked: list[int] = []
    check_shape = wire.check_shape

    def refused(levels: int, call: object) -> object:
        raise StackUnavailable("no")

    def counted(data: bytes) -> None:
        walked.append(len(data))
        check_shape(data)

    monkeypatch.setattr(wire, "call_with_stack", refused)
    monkeypatch.setattr(wire, "check_shape", counted)
    assert wire.loads(data) == Answer(1, result)
    assert walked  # the answer, or the result inside it


def test_tuples_nest_at_most_max_depth_deep() -> None:
    assert wire.loads(pickle.dumps([nested_tuple(wire.MAX_DEPTH)])) == [
        nested_tuple(wire.MAX_DEPTH)
    ]
    for deeper in (nested_tuple(wire.MAX_DEPTH + 1), frozenset({nested_tuple(wire.MAX_DEPTH)})):
        with pytest.raises(pickle.UnpicklingError, match="nested too deep"):
            wire.loads(pickle.dumps({"values": [deeper]}))


def test_a_dict_key_nested_past_an_ordinary_stack_is_refused_and_the_window_lives() -> None:
    """400,000 levels of ``TUPLE1`` as a dict key: hashed while unpickling (past 150,000
    levels an ordinary thread's stack overflows and the process dies). In a process of
    its own: it must end normally, having refused the message."""
    script = (
        "import pickle\nfrom gui.model import wire\n"
        "payload = b'\\x80\\x04}K\\x01' + b'\\x85' * 400_000 + b'K\\x02s.'\n"
        "try:\n    wire.loads(payload)\n    print('accepted')\n"
        "except pickle.UnpicklingError as exc:\n    print('refused', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.decode().startswith("refused"), done.stdout


def test_a_nested_result_counts_in_full_at_every_reference(big: tuple[RunResult, bytes]) -> None:
    """The result is sized once, inside its own ``loads``, and that size counts at each
    reference the message holding it makes: ten of them expand too far."""
    result, _ = big
    size = wire._expanded_size(result, {}, 10**9)
    assert 2 * size < wire.MAX_EXPANDED < 10 * size
    inner = pickle.dumps(result)
    for copies, fits in ((2, True), (10, False)):
        buffer = io.BytesIO()
        _ResultAsBytes(buffer, result, inner).dump([result] * copies)
        if fits:
            loaded = wire.loads(buffer.getvalue())
            assert loaded == [result] * copies
        else:
            with pytest.raises(pickle.UnpicklingError, match="expands too far"):
                wire.loads(buffer.getvalue())


def test_one_wrong_field_among_thousands_of_objects_is_refused(
    big: tuple[RunResult, bytes],
) -> None:
    result, _ = big
    assert result.graph is not None
    middle = len(result.graph.nodes) // 2
    wrong_type = copy.deepcopy(result)
    assert wrong_type.graph is not None
    object.__setattr__(wrong_type.graph.nodes[middle], "output_count", "1")
    with pytest.raises(pickle.UnpicklingError, match="GraphNode whose output_count is a str"):
        wire.loads(pickle.dumps(Answer(1, wrong_type)))
    wrong_kind = copy.deepcopy(result)
    assert wrong_kind.graph is not None
    object.__setattr__(wrong_kind.graph.nodes[middle], "kind", "module")
    with pytest.raises(pickle.UnpicklingError, match="GraphNode whose kind"):
        wire.loads(pickle.dumps(Answer(1, wrong_kind)))
    extra = copy.deepcopy(result)
    assert extra.graph is not None
    node = extra.graph.nodes[middle]
    assert node.value is not None
    vars(node.value)["numel"] = 3  # would shadow TensorData.numel
    # Graphs go as columns, which carry fields only: a child that sent the graph as
    # records (one object each, as the reader still takes them) is checked record by record.
    with pytest.raises(pickle.UnpicklingError, match="TensorData with other attributes"):
        wire.loads(records_bytes(Answer(1, extra)))
