"""Round 17's red team, the wire and file side: what a compromised engine or layout worker
can make the window build, and files from strangers.

1. A message whose calls share their arguments through pickle's memo: each call of
   ``loads`` (the engine's result as pickled bytes), of a graph's, a step's or a layout's
   columns is bounded, but calling it again with the same (memoized) arguments costs six
   bytes and builds a fresh copy. A 64 MB engine message calling ``loads`` on one 17 MB
   list ten million times: 20 calls took 1.5 GB and 5 s before the final check refused
   it; the window dies long before ten million. Now the calls of one message may build
   :data:`~gui.model.wire.MAX_BUILT` items in all (``wire._built``), refused past that
   while reading (the same calls of a message the final check would accept hold every
   record they made, so no real message comes near it).
2. A layout worker's reply (up to 256 MB) of one column of points: read into 32 million
   numbers and 16 million pairs (3 GB, ten seconds on the reading thread) before their
   count was found past MAX_EXPANDED. Now ``unpack_layout(most=...)`` refuses from the
   columns' lengths before any number is read.
3. A message naming one of the window's message classes and "building" it (pickle's
   ``BUILD`` with a slot state, which sets attributes on whatever it is given): the
   window's ``GraphNode``, ``TensorData``... got the attributes the message chose, for
   as long as the window ran (``TensorData.numel = 0`` and every box drew no cells; a
   dunder and every comparison of records raised), and the message was accepted (a
   class is a message class). Now each message class takes a state through
   ``wire._fields_of_a_record``, which refuses one given a class; the same for the
   readers' own calls (``functools.partial``, whose BUILD replaced the function and its
   keywords: ``depth`` of a nested ``loads``): ``wire._Call`` refuses it.
4. A graph (or step) made from its columns, checked and known as checked, then "built"
   again with a state replacing its fields (``nodes`` a tuple of a text and a number,
   ``root`` a number): the message checks skipped it as checked, and the window got a
   graph of no nodes it could draw. A record's fields are now set once, on the empty
   record pickle made (``_fields_of_a_record``).
5. (Held) A graph made from its columns holding a saved value's list the message
   memoized, which the message then grows after the graph was checked (``BINGET`` that
   list, ``APPEND``): with itself (a cycle), three million numbers or a 10-million
   character text. The message's final checks walk it again and refuse each.
6. A layout worker answering "not compact" for a graph the window draws compact (or the
   reverse): the window made every item of a 10,000-box graph before its first picture
   and labelled every edge. ``LayoutProcess.layout`` now sets the flag the window's own
   rule gives (``layout.drawn_compact``).
7. (Held) A forged layout whose node keys name no box of the graph, whose edge numbers
   are past the graph's edges or whose edges have no points: the panel draws the boxes
   and edges both know (see test_attacks_round17_window.py).
"""

from __future__ import annotations

import io
import pickle
import pickletools
import struct
import time
import tracemalloc
from array import array
from dataclasses import replace
from typing import Any

import pytest

from gui.model import graph_columns, wire
from gui.model.drawing import layout_columns
from gui.model.drawing.layout_process import LAYOUT_MESSAGES
from gui.model.result import Graph, SavedValue
from tests.big_graphs import chain_graph
from tests.model.drawing.test_layout_columns import Forged, good_columns


def calls_of_loads(inner: bytes, copies: int) -> bytes:
    """A message: the list of ``copies`` calls ``pickle.loads(inner)``, the function and
    the bytes written once and memoized (each further call is six bytes)."""
    out = io.BytesIO()
    out.write(b"\x80\x04]")  # PROTO 4, EMPTY_LIST
    out.write(b"(c_pickle\nloads\nq\x00")  # MARK, GLOBAL, BINPUT 0
    out.write(b"B" + struct.pack("<I", len(inner)) + inner + b"q\x01")  # BINBYTES, BINPUT 1
    out.write(b"\x85R")  # TUPLE1, REDUCE
    out.write(b"h\x00h\x01\x85R" * (copies - 1))  # BINGET 0, BINGET 1, TUPLE1, REDUCE
    out.write(b"e.")  # APPENDS, STOP
    return out.getvalue()


def test_one_call_of_loads_is_read() -> None:
    inner = pickle.dumps(["x"] * 1000)
    assert wire.loads(calls_of_loads(inner, 1)) == [["x"] * 1000]


def test_calls_of_loads_sharing_their_bytes_build_a_bounded_amount() -> None:
    """200,000 items a call (a 400 kB inner pickle: one memoized text, referenced again),
    a thousand calls in a 406 kB message: 200 million items once built."""
    inner = pickle.dumps(["x"] * 200_000)
    data = calls_of_loads(inner, 1000)
    assert len(data) < len(inner) + 6 * 1000 + 100
    started = time.monotonic()
    with pytest.raises(pickle.UnpicklingError, match="builds too much"):
        wire.loads(data)
    assert time.monotonic() - started < 15.0  # (1000 calls: over a minute, 1.6 GB)


class SameColumns:
    """Pickles as ``maker(*columns)``; many of them sharing ``columns`` share it on the
    wire (pickle's memo)."""

    def __init__(self, maker: Any, columns: tuple[object, ...]) -> None:
        self.maker = maker
        self.columns = columns

    def __reduce__(self) -> tuple[Any, ...]:
        return self.maker, self.columns


def test_a_graphs_columns_called_again_build_a_bounded_amount() -> None:
    graph = chain_graph(3000)
    columns = graph_columns.pack_graph(graph)
    one = wire.loads(pickle.dumps([SameColumns(graph_columns.unpack_graph, columns)]))
    assert isinstance(one, list) and isinstance(one[0], Graph) and one[0] == graph
    data = pickle.dumps([SameColumns(graph_columns.unpack_graph, columns) for _ in range(500)])
    assert len(data) < len(pickle.dumps(graph)) + 20 * 500
    started = time.monotonic()
    with pytest.raises(pickle.UnpicklingError, match="builds too much"):
        wire.loads(data)
    assert time.monotonic() - started < 10.0


def many_points(count: int) -> list[object]:
    """Good layout columns with one edge of ``count`` points."""
    columns = good_columns()
    columns[2], columns[3] = array("q", [0]).tobytes(), array("q", [count]).tobytes()
    columns[4] = bytes(16 * count)
    columns[5] = columns[6] = b""
    return columns


def test_a_layouts_columns_called_again_build_a_bounded_amount() -> None:
    columns = tuple(many_points(500_000))  # 1.5 million items: under MAX_EXPANDED
    data = pickle.dumps([Forged(*columns)])
    assert len(wire.loads(data, LAYOUT_MESSAGES, max_text=None)[0].edges[0]) == 500_000  # type: ignore[index]
    data = pickle.dumps([SameColumns(layout_columns.unpack_layout, columns) for _ in range(200)])
    assert len(data) < 16 * 500_000 + 20 * 200
    started = time.monotonic()
    with pytest.raises(pickle.UnpicklingError, match="builds too much"):
        wire.loads(data, LAYOUT_MESSAGES, max_text=None)
    assert time.monotonic() - started < 10.0


def test_a_layout_past_the_size_is_refused_before_its_numbers_are_read() -> None:
    """32 MB of points (4 million numbers): refused from the column's length."""
    data = pickle.dumps(Forged(*many_points(2 * 1024**2)))
    tracemalloc.start()
    try:
        with pytest.raises(pickle.UnpicklingError, match="layout that expands too far"):
            wire.loads(data, LAYOUT_MESSAGES, max_text=None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The column's bytes are unpickled, never its numbers (memory, not time: the machine
    # is shared, and reading them took 3 GB).
    assert peak < 1.5 * len(data)
    # One just within is read.
    empty = layout_columns.unpack_layout(*many_points(0))
    most = (wire.MAX_EXPANDED - layout_columns.expanded_size(empty)) // 3
    got = wire.loads(pickle.dumps(Forged(*many_points(most))), LAYOUT_MESSAGES, max_text=None)
    assert len(got.edges[0]) == most  # type: ignore[attr-defined]
    with pytest.raises(pickle.UnpicklingError, match="layout that expands too far"):
        wire.loads(pickle.dumps(Forged(*many_points(most + 1))), LAYOUT_MESSAGES, max_text=None)


def build_a_class(module: str, name: str, attribute: str) -> bytes:
    """A message: the class ``module.name`` itself, "built" with the slot state
    ``{attribute: 5}``."""
    named = f"c{module}\n{name}\n".encode()
    key = attribute.encode()
    return b"\x80\x04" + named + b"N}\x8c" + bytes([len(key)]) + key + b"K\x05s\x86b."


@pytest.mark.parametrize(
    ("module", "name", "attribute", "modules"),
    [
        ("gui.model.result", "GraphNode", "marker", wire.ENGINE_MESSAGES),
        ("gui.model.result", "TensorData", "numel", wire.ENGINE_MESSAGES),
        ("gui.model.drawing.layout", "NodeBox", "__eq__", LAYOUT_MESSAGES),
    ],
)
def test_a_message_cannot_set_attributes_of_the_windows_classes(
    module: str, name: str, attribute: str, modules: Any
) -> None:
    cls = wire._message_classes(modules)[(module, name)]
    before = dict(vars(cls))
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(build_a_class(module, name, attribute), modules, max_text=None)
    assert dict(vars(cls)) == before
    assert not hasattr(cls, "marker")


def test_a_message_cannot_change_a_readers_call() -> None:
    """``loads`` named, then built with another function and keywords: refused."""
    four = b"\x80\x04c_pickle\nloads\n(c_pickle\nloads\n)}\x8c\x05depthJ\x00\x00\xff\xffsNtb."
    with pytest.raises(pickle.UnpicklingError, match="changes a reader's call"):
        wire.loads(four)


class BuiltAgain:
    """Pickles as a graph made from its columns, then built with ``state``."""

    def __init__(self, graph: Graph, state: dict[str, object] | None) -> None:
        self.graph, self.state = graph, state

    def __reduce__(self) -> tuple[Any, ...]:
        made = graph_columns.unpack_graph, graph_columns.pack_graph(self.graph)
        return made if self.state is None else (*made, self.state)


def test_a_graph_made_from_columns_cannot_be_built_again() -> None:
    graph = chain_graph(3)
    assert wire.loads(pickle.dumps(BuiltAgain(graph, None))) == graph  # (no state: no BUILD)
    forged = BuiltAgain(graph, {"nodes": ("not a node", 5), "root": 12345})
    with pytest.raises(pickle.UnpicklingError, match="state is not its fields"):
        wire.loads(pickle.dumps(forged))


def graph_holding(plain: list[object]) -> tuple[bytes, int]:
    """A graph's pickle whose first function saves ``plain`` (a list the pickle memoizes),
    and that list's memo index."""
    graph = chain_graph(2)
    nodes = list(graph.nodes)
    first = next(i for i, node in enumerate(nodes) if node.kind == "function")
    nodes[first] = replace(nodes[first], saved=(SavedValue("dims", value=plain),))
    data = pickle.dumps(replace(graph, nodes=tuple(nodes)), protocol=4)
    ops = list(pickletools.genops(data))
    memo, index = 0, None
    for k, (op, _, _) in enumerate(ops):
        if op.name == "EMPTY_LIST" and any(arg == "MARKER" for _, arg, _ in ops[k + 1 : k + 5]):
            index = memo
        if op.name == "MEMOIZE":
            memo += 1
    assert index is not None and index < 256
    return data, index


@pytest.mark.parametrize(
    "grown",
    [
        b"a",  # the list itself: a cycle
        b"(" + b"K\x07" * 3_000_000 + b"e",  # three million numbers
        b"\x8d" + (10**7).to_bytes(8, "little") + b"x" * 10**7 + b"a",  # a long text
    ],
    ids=["cycle", "many", "text"],
)
def test_a_checked_graphs_list_grown_afterwards_is_refused(grown: bytes) -> None:
    data, index = graph_holding(["MARKER"])
    get = b"h" + bytes([index])
    assert wire.loads(data[:-1] + get + get[:0] + b"0.") is not None  # (untouched: read)
    extra = get + (get if grown == b"a" else b"") + grown + b"0"
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(data[:-1] + extra + b".")


@pytest.mark.parametrize("show_saved", [False, True])
def test_the_window_decides_whether_a_graph_is_drawn_compact(
    monkeypatch: pytest.MonkeyPatch, show_saved: bool
) -> None:
    from gui.model.drawing import layout as layout_module
    from gui.model.drawing.layout_process import LayoutProcess

    big, small = chain_graph(2000), chain_graph(3)
    for graph in (big, small):
        real = layout_module.layout_graph(graph, show_saved, use_dot=False)
        assert real.compact is layout_module.drawn_compact(graph, show_saved)
        forged = replace(real, compact=not real.compact)
        monkeypatch.setattr(LayoutProcess, "_request", lambda *_args, _f=forged, **_kw: _f)
        got = LayoutProcess.__new__(LayoutProcess)
        got._time_limit = 5.0
        assert got.layout(graph, show_saved).compact is real.compact
