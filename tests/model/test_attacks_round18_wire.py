"""Round 18's red team, the wire side: what a compromised engine or layout worker can make
the window hold while it reads one message.

1. A message of many small things, each one byte (or a few) of the message and far more
   of the window's memory, all built by pickle (in C, holding the GIL) before any check
   counted them: an empty set (``EMPTY_SET``) is one byte and 216 bytes of memory, a
   record (``NEWOBJ`` on the memoized ``TensorData``) four bytes and 180, a short text
   three and ~50. A 5 MB message of empty sets took 1.2 GB and 3.7 s before the final
   check refused it as expanding too far: the engine's 64 MB limit is 14 GB (the layout
   worker's 256 MB, 55 GB), the window killed by the system, the window frozen meanwhile.
   Now the reader estimates from the message's bytes (counted in C) the most building it
   could take (``wire._made_bytes``, per opcode it could be); past
   ``MAX_UNREAD_MEMORY`` its opcodes are read first (``check_shape``), which refuses one
   of more than ``MAX_OPCODES`` opcodes (a set counts four). A 60 MB message of empty sets
   is refused in 2.7 s holding 155 MB; 40 MB of records in 8 s holding 165 MB (in Python:
   the window's thread runs meanwhile).
2. (Held) A record's state with fields it has not (``extra``, a number as a name,
   ``__class__``, ``__eq__``) or without one of its fields: refused
   (``wire_fields.check_fields``).
3. A session file's code with a form feed after a line's indentation: the editor draws
   ``    \fx = x * 1000`` where it draws ``    x``, inside the block above, and Python
   runs it after that block. The file reader refuses it, naming the line
   (``file_format._MISREAD``, ``visible_text.INDENT_RESETS``); a page break at a line's
   start loads. The editor draws ``y = א - 2`` as ``y = 2 - א`` (what the code check's
   refusal of right-to-left names rests on: see the engine side's test).
4. A layout worker's reply whose column of boxes (or of point counts, or of arrowheads)
   is longer than its count of nodes (edges, arrowhead numbers) says: round 17 bounded
   the reply's size from the other columns' lengths, but these were read whole before
   their counts were compared: 128 MB of boxes for two nodes took 1.3 GB and two seconds
   holding the GIL. Now the lengths are compared first (``layout_columns._check_lengths``).
5. A message calling ``loads`` (round 17's memoized calls) ten times on one megabyte of
   empty sets, each call under 1.'s estimate: each built a million sets (216 MB) that
   counted a million items toward ``MAX_BUILT``, so the message held 2.6 GB for 18 s
   before it was refused. No message holds a set (no field of a message class is one):
   a level holding one is now refused as soon as it is sized (``wire._expanded_size``,
   ``_nest_size``, after the depth it reaches): 0.6 s.
"""

from __future__ import annotations

import json
import pickle
import tracemalloc
from typing import Any

import pytest

from gui.model import wire
from gui.model.result import TensorData

# One message of ``count`` things of each kind: (the bytes before them, one of them).
HEAD = b"\x80\x04("
CLASS = b"cgui.model.result\nTensorData\n\x94"  # the class, memoized as 0
KINDS: dict[str, tuple[bytes, bytes]] = {
    "empty sets": (HEAD, b"\x8f"),
    "empty frozensets": (HEAD, b"(\x91"),
    "empty lists": (HEAD, b"]"),
    "empty dicts": (HEAD, b"}"),
    "records": (HEAD + CLASS + b"0", b"h\x00)\x81"),
    "texts": (HEAD, b"\x8c\x02ab"),
    "big whole numbers": (HEAD, b"M\x00\x01"),
    "floats": (HEAD, b"G?\xf0\x00\x00\x00\x00\x00\x00"),
    "tuples of one": (HEAD + b"K\x07\x94", b"h\x00\x85"),
}


def message(kind: str, count: int) -> bytes:
    head, one = KINDS[kind]
    return head + one * count + b"l."


def no_build(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The reader's unpickler, each construction noted (by the size of its message)."""
    built: list[int] = []
    unpickler = wire._MessageUnpickler

    def noted(data: bytes, depth: int, reading: Any) -> Any:
        built.append(len(data))
        return unpickler(data, depth, reading)

    monkeypatch.setattr(wire, "_MessageUnpickler", noted)
    return built


def test_a_message_of_empty_sets_is_refused_before_it_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1.2 million empty sets: 1.2 MB, which built 260 MB before the final check."""
    built = no_build(monkeypatch)
    data = message("empty sets", 1_200_000)
    with pytest.raises(pickle.UnpicklingError, match="too many parts"):
        wire.loads(data)
    assert built == []  # refused from its opcodes, nothing built (not timed: shared machine)


@pytest.mark.parametrize("kind", ["empty lists", "empty dicts", "records", "texts"])
def test_a_message_of_many_small_things_is_read_first(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Enough of them to take more than MAX_UNREAD_MEMORY: their opcodes are read before
    anything is built (the limit on opcodes lowered here: the test's time)."""
    built = no_build(monkeypatch)
    monkeypatch.setattr(wire, "MAX_OPCODES", 100_000)
    one = KINDS[kind][1]
    count = 4 * wire.MAX_UNREAD_MEMORY // (40 * len(one))
    data = message(kind, count)
    assert wire._made_bytes(data) > wire.MAX_UNREAD_MEMORY
    with pytest.raises(pickle.UnpicklingError, match="too many parts"):
        wire.loads(data)
    assert built == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_estimate_is_at_least_what_building_takes(kind: str) -> None:
    """``_made_bytes`` (for a message big enough to be counted) is at least what pickle's
    own reader allocates for it: measured, not assumed."""
    count = 20_000
    data = message(kind, count)
    padded = data + b"\x00" * (wire.MAX_UNREAD_MEMORY // 200)  # (past the quick bound)
    estimate = wire._made_bytes(padded)
    tracemalloc.start()
    try:
        made = pickle.loads(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(made) >= count
    assert peak <= estimate, (peak, estimate)


def test_a_big_real_answer_is_not_read_opcode_by_opcode() -> None:
    """An ordinary big answer (3,000 records of tensors) stays under the estimate's
    limit: read at once, as before."""
    records = [TensorData((4,), "float32", [0.5, 1.5, -2.0, float(i)]) for i in range(3000)]
    data = pickle.dumps(records)
    assert wire._made_bytes(data) <= wire.MAX_UNREAD_MEMORY
    assert wire.loads(data) == records


def with_state(**changes: object) -> TensorData:
    record = TensorData((2,), "float32", [1.0, 2.0])
    fields = record.__dict__
    for name, value in changes.items():
        if value is None:
            del fields[name]
        else:
            fields[name] = value
    return record


@pytest.mark.parametrize(
    "record",
    [
        with_state(extra=1),
        with_state(__class__=1),
        with_state(__eq__=1),
        with_state(dtype=None),
    ],
)
def test_a_records_state_is_its_fields(record: TensorData) -> None:
    with pytest.raises(pickle.UnpicklingError, match="other attributes than its fields"):
        wire.loads(pickle.dumps([record]))


def test_a_records_state_named_by_a_number_is_refused() -> None:
    record = with_state()
    record.__dict__[5] = 1  # type: ignore[index]
    with pytest.raises(pickle.UnpicklingError, match="other attributes than its fields"):
        wire.loads(pickle.dumps([record]))


# 3. Code a session file shows otherwise than Python reads it, with no control character.
FORM_FEED = (
    "import torch\n"
    "x = torch.ones(2, requires_grad=True)\n"
    "if x.sum() < 0:\n"
    "    print('never')\n"
    "    \fx = x * 1000\n"
    "print((x * 2).sum())\n"
)


def left_to_right(text: str) -> list[float]:
    """Where the editor's font draws each character of ``text`` (its cursor's x before
    it), as the code editor lays a line out."""
    from PySide6.QtGui import QFont, QTextLayout

    layout = QTextLayout(text, QFont("monospace"))
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(10_000)
    layout.endLayout()
    return [line.cursorToX(i)[0] for i in range(len(text))]


def test_python_runs_a_form_fed_line_after_the_block_it_shows_in(qapp: object) -> None:
    """What the attack relies on: the editor draws ``    \\fx`` where it draws ``    x``
    (inside the block), and Python's tokenizer starts the column again at the form feed,
    so the line runs after the block, whatever the condition."""
    shown, plain = left_to_right("    \fx = 1"), left_to_right("    x = 1")
    assert shown[5] == plain[4]
    namespace: dict[str, object] = {}
    exec(compile("x = 1\nif False:\n    pass\n    \fx = 1000\n", "<s>", "exec"), namespace)
    assert namespace["x"] == 1000


def test_a_session_file_whose_code_holds_a_form_fed_indentation_is_refused() -> None:
    from gui.model.session.file_format import FORMAT, SessionFileError, parse_session

    with pytest.raises(SessionFileError) as refused:
        parse_session(json.dumps({"format": FORMAT, "code": FORM_FEED}))
    assert refused.value.problem == (
        "code: line 5 holds an invisible character that ends the indentation Python reads "
        "before it ('\\x0c'), so the code would not run as it reads; delete it"
    )
    for kept in ("\fx = torch.ones(2)\n", "x = torch.ones(2)\n\f\ny = x * 2\n", "print('\\f')\n"):
        loaded = parse_session(json.dumps({"format": FORMAT, "code": kept}))
        assert loaded.program.code == kept


def test_the_editor_shows_a_right_to_left_name_around_its_operator(qapp: object) -> None:
    """What the refusal of such names rests on (the engine side's test): ``y = א - 2`` is
    drawn with the 2 on the left of the minus, the name on its right."""
    xs = left_to_right("y = \u05d0 - 2")
    assert xs[8] < xs[6] < xs[5]  # the 2, the minus, then the name (ending at its right)
    plain = left_to_right("y = a - 2")
    assert plain[4] < plain[6] < plain[8]


# 4. A layout's columns whose lengths disagree, read before their counts were compared.
LONG_COLUMNS = {1: "boxes of another count than the nodes",
                3: "point counts of another shape than the edges",
                6: "arrowheads of another count than their numbers"}  # fmt: skip


@pytest.mark.parametrize("column", sorted(LONG_COLUMNS))
def test_a_layout_column_longer_than_its_count_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch, column: int
) -> None:
    """16 MB of boxes (or point counts, or arrowheads) for two nodes (one edge, one
    arrowhead): two million numbers read into a list before their count was compared
    (at 128 MB: 1.3 GB and two seconds holding the GIL)."""
    from gui.model.drawing import layout_columns
    from gui.model.drawing.layout_process import LAYOUT_MESSAGES
    from tests.model.drawing.test_layout_columns import Forged, good_columns

    read: list[str] = []
    array_of = layout_columns._array

    def noted(kind: str, data: object, what: str) -> list[Any]:
        read.append(what)
        return array_of(kind, data, what)

    monkeypatch.setattr(layout_columns, "_array", noted)
    columns = good_columns()
    columns[column] = bytes(16 * 1024**2)
    with pytest.raises(pickle.UnpicklingError, match=LONG_COLUMNS[column]):
        wire.loads(pickle.dumps(Forged(*columns)), LAYOUT_MESSAGES, max_text=None)
    assert read == []


# 5. Sets, which no message holds, made again and again by a message's calls.
def test_calls_of_loads_on_a_megabyte_of_empty_sets_are_refused_at_the_first() -> None:
    """Twelve calls of ``loads`` on one memoized megabyte of empty sets (each under the
    estimate's limit: 229 MB): every call built a million sets (216 MB) that counted a
    million items, refused only past MAX_BUILT, at the tenth call (2.6 GB, 18 s)."""
    from tests.model.test_attacks_round17_wire import calls_of_loads

    inner = message("empty sets", 1_000_000)
    assert wire._made_bytes(inner) <= wire.MAX_UNREAD_MEMORY
    tracemalloc.start()
    try:
        with pytest.raises(pickle.UnpicklingError, match="a set, which no message holds"):
            wire.loads(calls_of_loads(inner, 12))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 600 * 1024**2  # one call's sets at most (memory, not time: shared machine)


@pytest.mark.parametrize(
    "value", [set(), frozenset({1.0}), (1, (2, frozenset())), {"a": [frozenset({(1,)})]}]
)
def test_a_set_anywhere_in_a_message_is_refused(value: object) -> None:
    with pytest.raises(pickle.UnpicklingError, match="a set, which no message holds"):
        wire.loads(pickle.dumps([value]))
