"""A graph on the wire as columns: one tuple per field instead of an object per record.

A 5,000-function graph is some 50,000 records (nodes, edges, saved values, their storages,
tensor data) and its backward call's flows 10,000 more. Pickled one object each, the
window's careful reader (:mod:`.wire`) built and then checked every one of them in
Python: two thirds of the time a big graph's answer took to read. Importing this module
makes every :class:`~gui.model.result.Graph` and :class:`~gui.model.result.StepRecord`
pickle as columns instead (``copyreg``: :func:`pack_graph`, :func:`pack_step`), which the
reader checks a whole column at a time with type lookups that run in C
(``set(map(type, column))``) and turns into records itself, already checked; the bytes
are fewer too. A process that has not imported it pickles records, which every reader
still takes (through the checks of every record).

:func:`unpack_graph` and :func:`unpack_step` trust nothing in the columns: every column's
length, every value's type, every index into another column is checked before a record is
made, and anything off is refused (``pickle.UnpicklingError``). Records are made without
their ``__init__`` (see :mod:`gui.model.engine.records`), equal to the ones packed.

Kept free of torch and Qt: it runs in the window's process too.
"""

from __future__ import annotations

import collections
import copyreg
import itertools
import pickle
import typing
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import Any

from gui.model.result import (
    Graph,
    GraphEdge,
    GraphNode,
    NodeFlow,
    NodeKind,
    SavedStorage,
    SavedValue,
    StepRecord,
    TensorData,
    TensorSummary,
)
from gui.model.wire_tensors import (
    check_atoms,
    check_input_indices,
    check_output_counts,
    check_plain,
    check_tensor_values,
)

# The columns, in order, of each kind of record (and of the graph's own fields).
TENSOR_COLUMNS = ("shape", "dtype", "values", "summary")
NODE_COLUMNS = (
    "key", "name", "label", "kind", "var", "value", "saved", "owner", "output_count", "storage",
    "made",
)  # fmt: skip
SAVED_COLUMNS = ("name", "tensor", "value", "refers_to", "freed", "memory", "recomputed")
EDGE_COLUMNS = ("source", "target", "kind", "input_index")
# What the records' annotations allow (as the message checks do: see wire_fields).
NODE_KINDS = frozenset(typing.get_args(NodeKind))
EDGE_KINDS = frozenset(typing.get_args(typing.get_type_hints(GraphEdge)["kind"]))

Columns = tuple[tuple[Any, ...], ...]
_new = object.__new__
_set = object.__setattr__


def pack_graph(graph: Graph) -> tuple[Columns, Columns, Columns, Columns, tuple[Any, ...]]:
    """``graph`` as columns: tensors, nodes, saved values, edges, and the graph's own fields
    (the arguments :func:`unpack_graph` takes). A tensor record held in several places is
    packed once and referred to by its row. Fields are read a record at a time in C
    (``attrgetter`` of all of them), and turned into columns by ``zip``."""
    table = _Table()
    row = table.row
    nodes = graph.nodes
    node_columns = _columns(nodes, NODE_COLUMNS)
    held = node_columns[NODE_COLUMNS.index("saved")]
    saved = list(itertools.chain.from_iterable(held))
    counter = itertools.count()
    node_columns[NODE_COLUMNS.index("saved")] = tuple(
        tuple(itertools.islice(counter, len(values))) for values in held
    )
    column = NODE_COLUMNS.index("value")
    node_columns[column] = tuple(map(row, node_columns[column]))
    saved_columns = _columns(saved, SAVED_COLUMNS)
    column = SAVED_COLUMNS.index("tensor")
    saved_columns[column] = tuple(map(row, saved_columns[column]))
    column = SAVED_COLUMNS.index("memory")
    memory_fields = attrgetter("storage", "storage_bytes", "own_bytes", "by_value")
    saved_columns[column] = tuple(tuple(map(memory_fields, held)) for held in saved_columns[column])
    head = (graph.root, graph.structure_key, graph.truncated, graph.partial)
    return (
        table.columns(),
        tuple(node_columns),
        tuple(saved_columns),
        tuple(_columns(graph.edges, EDGE_COLUMNS)),
        head,
    )


class _Table:
    """The tensor records a packing refers to, each once, by its row."""

    def __init__(self) -> None:
        self._rows: dict[int, int] = {}
        self._tensors: list[TensorData] = []

    def row(self, data: TensorData | None) -> int | None:
        """The row of ``data`` (``None`` for none), added if new."""
        if data is None:
            return None
        found = self._rows.get(id(data))
        if found is None:
            found = self._rows[id(data)] = len(self._tensors)
            self._tensors.append(data)
        return found

    def columns(self) -> Columns:
        """The records' columns (their summaries as tuples)."""
        columns = _columns(self._tensors, TENSOR_COLUMNS)
        summary_fields = attrgetter("minimum", "maximum", "mean", "norm")
        at = TENSOR_COLUMNS.index("summary")
        columns[at] = tuple(None if s is None else summary_fields(s) for s in columns[at])
        return tuple(columns)


def _columns(records: Sequence[Any], names: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """The fields ``names`` of ``records``, one tuple per field (empty ones for none)."""
    if not records:
        return [()] * len(names)
    return list(zip(*map(attrgetter(*names), records), strict=True))


# -- reading ---------------------------------------------------------------------------

# The types a column's values may have, as the record's annotation says (``float`` takes
# an ``int`` or a ``bool``, ``int`` a ``bool``, as the message checks do: see wire_fields).
_STR: frozenset[type] = frozenset({str})
_OPT_STR: frozenset[type] = frozenset({str, type(None)})
_INT: frozenset[type] = frozenset({int, bool})
_OPT_INT: frozenset[type] = frozenset({int, bool, type(None)})
_BOOL: frozenset[type] = frozenset({bool})
_FLOAT: frozenset[type] = frozenset({float, int, bool})


def _refuse(what: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(f"the engine sent a graph with {what}")


def _table(value: object, names: Sequence[str]) -> Columns:
    """``value`` as a tuple of ``len(names)`` columns (tuples) of one length."""
    if type(value) is not tuple or len(value) != len(names):
        raise _refuse("a malformed table")
    columns: Columns = value
    if not set(map(type, columns)) <= {tuple} or len(set(map(len, columns))) > 1:
        raise _refuse("columns of different lengths")
    return columns


def _typed(column: tuple[Any, ...], allowed: frozenset[type], name: str) -> None:
    """Every value of ``column`` has one of the types ``allowed``; ``name``: the record and
    field (``"GraphNode output_count"``), for the message that says which value is not."""
    if not set(map(type, column)) <= allowed:
        wrong = next(type(value).__name__ for value in column if type(value) not in allowed)
        record, _, field = name.partition(" ")
        raise pickle.UnpicklingError(f"the engine sent a {record} whose {field} is a {wrong}")
    if int in allowed or str in allowed:
        check_atoms(column, f"a {name}")


def _rows(column: Iterable[Any], count: int, name: str) -> None:
    """Every index in ``column`` (ints, ``None`` skipped) points at one of ``count`` rows."""
    indices = [i for i in column if i is not None]
    if not set(map(type, indices)) <= {int}:
        raise _refuse(f"a wrong {name}")
    if indices and (min(indices) < 0 or max(indices) >= count):
        raise _refuse(f"a {name} out of range")


def _literals(column: tuple[Any, ...], allowed: frozenset[str], name: str) -> None:
    _typed(column, _STR, name)
    if not set(column) <= allowed:
        wrong = next(value for value in column if value not in allowed)
        record, _, field = name.partition(" ")
        raise pickle.UnpicklingError(f"the engine sent a {record} whose {field} is {wrong!r}")


def _tuples_of(column: tuple[Any, ...], items: frozenset[type], name: str) -> list[Any]:
    """Check a column of tuples whose items have the types ``items``; their items."""
    _typed(column, frozenset({tuple}), name)
    flat = list(itertools.chain.from_iterable(column))
    _typed(tuple(flat), items, name)
    return flat


def _checked_tensors(tensors: object) -> list[TensorData]:
    """The tensor records of a table's columns, checked."""
    shapes, dtypes, values, summaries = _table(tensors, TENSOR_COLUMNS)
    _tuples_of(shapes, _INT, "TensorData shape")
    _typed(dtypes, _STR, "TensorData dtype")
    given = [s for s in summaries if s is not None]
    if not set(map(type, given)) <= {tuple} or not set(map(len, given)) <= {4}:
        raise _refuse("a wrong summary")
    _typed(tuple(itertools.chain.from_iterable(given)), _FLOAT, "TensorSummary number")
    check_tensor_values(shapes, values)
    made = iter(make_records(TensorSummary, given))
    table = make_records(
        TensorData,
        zip(
            shapes,
            dtypes,
            values,
            [None if s is None else next(made) for s in summaries],
            strict=True,
        ),
    )
    return table


def unpack_graph(
    tensors: object, nodes: object, saved: object, edges: object, head: object
) -> Graph:
    """The :class:`Graph` :func:`pack_graph` made the columns of, every column checked
    (what ``pickle.loads`` calls for a graph; the window's reader calls
    :func:`checked_graph` instead, for what bounds the graph's size too)."""
    return checked_graph(tensors, nodes, saved, edges, head)[0]


def checked_graph(
    tensors: object, nodes: object, saved: object, edges: object, head: object
) -> tuple[Graph, list[TensorData], list[int]]:
    """The graph, with what bounds how much walking it costs: its table of tensor records
    and the rows its records refer to (a row once per reference)."""
    table = _checked_tensors(tensors)
    n_key, n_name, n_label, n_kind, n_var, n_value, n_saved, n_owner, n_count, n_storage, n_made = (
        _table(nodes, NODE_COLUMNS)
    )
    s_name, s_tensor, s_value, s_refers, s_freed, s_memory, s_recomputed = _table(
        saved, SAVED_COLUMNS
    )
    e_source, e_target, e_kind, e_index = _table(edges, EDGE_COLUMNS)
    if type(head) is not tuple or len(head) != 4:
        raise _refuse("malformed fields")
    root, structure_key, truncated, partial = head
    if (
        type(root) not in _OPT_STR
        or type(structure_key) is not str
        or type(truncated) is not bool
        or type(partial) is not bool
    ):
        raise _refuse("malformed fields")

    # Nodes.
    plain: tuple[tuple[tuple[Any, ...], frozenset[type], str], ...] = (
        (n_key, _STR, "GraphNode key"),
        (n_name, _STR, "GraphNode name"),
        (n_label, _STR, "GraphNode label"),
        (n_var, _OPT_STR, "GraphNode var"),
        (n_owner, _OPT_STR, "GraphNode owner"),
        (n_count, _INT, "GraphNode output_count"),
        (n_storage, _OPT_INT, "GraphNode storage"),
        (n_made, _OPT_INT, "GraphNode made"),
        (s_name, _STR, "SavedValue name"),
        (s_refers, _OPT_STR, "SavedValue refers_to"),
        (s_freed, _BOOL, "SavedValue freed"),
        (s_recomputed, _BOOL, "SavedValue recomputed"),
        (e_source, _STR, "GraphEdge source"),
        (e_target, _STR, "GraphEdge target"),
        (e_index, _OPT_INT, "GraphEdge input_index"),
    )
    for column, allowed, name in plain:
        _typed(column, allowed, name)
    _literals(n_kind, NODE_KINDS, "GraphNode kind")
    check_output_counts(n_count)
    _literals(e_kind, EDGE_KINDS, "GraphEdge kind")
    check_input_indices(e_index)
    tensor_count = len(table)
    _rows(n_value, tensor_count, "GraphNode value")
    _rows(s_tensor, tensor_count, "SavedValue tensor")
    saved_rows = _tuples_of(n_saved, frozenset({int}), "GraphNode saved")
    # Each saved value belongs to exactly one node, in order (as pack_graph lays them out).
    if saved_rows != list(range(len(s_name))):
        raise _refuse("saved values not in their nodes' order")
    check_plain(s_value, "a SavedValue value")
    memory = _tuples_of(s_memory, frozenset({tuple}), "SavedValue memory")
    if not set(map(len, memory)) <= {4}:
        raise _refuse("a wrong saved memory")
    for i, allowed in enumerate((_INT, _INT, _INT, _BOOL)):
        _typed(tuple(m[i] for m in memory), allowed, "SavedValue memory")

    # Records, made as their classes' __init__ would (see gui.model.engine.records).
    storages = iter(make_records(SavedStorage, memory))
    saved_records = make_records(
        SavedValue,
        zip(
            s_name,
            [None if i is None else table[i] for i in s_tensor],
            s_value,
            s_refers,
            s_freed,
            [tuple(itertools.islice(storages, len(held))) for held in s_memory],
            s_recomputed,
            strict=True,
        ),
    )
    node_records = make_records(
        GraphNode,
        zip(
            n_key,
            n_name,
            n_label,
            n_kind,
            n_var,
            [None if i is None else table[i] for i in n_value],
            [tuple(saved_records[i] for i in held) for held in n_saved],
            n_owner,
            n_count,
            n_storage,
            n_made,
            strict=True,
        ),
    )
    edge_records = make_records(GraphEdge, zip(e_source, e_target, e_kind, e_index, strict=True))
    graph = make_records(
        Graph,
        [(tuple(node_records), tuple(edge_records), root, structure_key, truncated, partial)],
    )[0]
    references = [i for i in itertools.chain(n_value, s_tensor) if i is not None]
    return graph, table, references


def make_records(cls: type, rows: Iterable[Sequence[Any]]) -> list[Any]:
    """Instances of the frozen dataclass ``cls``, one per row of its fields' values in
    order, made without ``__init__`` and without a Python call per instance: the
    instances, their ``__dict__`` s and the setting of those all run in C (``map``).
    The rows' lengths are the caller's to check (a short row leaves a field unset)."""
    names = tuple(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    states = list(map(dict, map(zip, itertools.repeat(names), rows)))
    made: list[Any] = list(map(_new, itertools.repeat(cls, len(states))))
    collections.deque(map(_set, made, itertools.repeat("__dict__"), states), maxlen=0)
    return made


# -- a backward call's flows -------------------------------------------------------------

FLOW_COLUMNS = ("key", "arriving", "leaving", "order")
_STEP_FIELDS = tuple(StepRecord.__dataclass_fields__)
_FLOWS_AT = _STEP_FIELDS.index("flows")


def pack_step(step: StepRecord) -> tuple[tuple[Any, ...], Columns, Columns]:
    """``step`` as its fields but ``flows`` (in order), and its flows as columns: the
    tensors they hold (each once) and, per node, its key, the rows of what arrived and
    what left, and its order (the arguments :func:`unpack_step` takes)."""
    table = _Table()
    row = table.row
    flows = step.flows
    keys = tuple(flows)
    records = tuple(flows.values())
    flow_columns = (
        keys,
        tuple(tuple(map(row, flow.arriving)) for flow in records),
        tuple(tuple(map(row, flow.leaving)) for flow in records),
        tuple(flow.order for flow in records),
    )
    fields = attrgetter(*_STEP_FIELDS)(step)
    return fields[:_FLOWS_AT] + fields[_FLOWS_AT + 1 :], table.columns(), flow_columns


def unpack_step(fields: object, tensors: object, flows: object) -> StepRecord:
    """The :class:`StepRecord` :func:`pack_step` packed; its flows checked column by column
    (its other fields are the message checks' to check, as any record's)."""
    return step_with_flows(fields, checked_flows(tensors, flows)[0])


def step_with_flows(fields: object, flows: dict[str, NodeFlow]) -> StepRecord:
    """A step of ``fields`` (all but ``flows``, in order) and ``flows``."""
    if type(fields) is not tuple or len(fields) != len(_STEP_FIELDS) - 1:
        raise _refuse("a step of other fields")
    values = (*fields[:_FLOWS_AT], flows, *fields[_FLOWS_AT:])
    step: StepRecord = make_records(StepRecord, [values])[0]
    return step


def checked_flows(
    tensors: object, flows: object
) -> tuple[dict[str, NodeFlow], list[TensorData], list[list[int]]]:
    """The flows of ``flows`` over the tensors of ``tensors``, every column checked; with
    the table of tensor records and, per flow, the rows it refers to."""
    table = _checked_tensors(tensors)
    keys, arriving, leaving, order = _table(flows, FLOW_COLUMNS)
    _typed(keys, _STR, "NodeFlow key")
    if len(set(keys)) != len(keys):
        raise _refuse("a node's flow twice")
    _typed(order, _INT, "NodeFlow order")
    for column, name in ((arriving, "NodeFlow arriving"), (leaving, "NodeFlow leaving")):
        _typed(column, frozenset({tuple}), name)
        _rows(itertools.chain.from_iterable(column), len(table), name)
    pick = table.__getitem__
    made = make_records(
        NodeFlow,
        zip(
            [tuple(None if i is None else pick(i) for i in held) for held in arriving],
            [tuple(None if i is None else pick(i) for i in held) for held in leaving],
            order,
            strict=True,
        ),
    )
    referred = [
        [i for i in itertools.chain(came, went) if i is not None]
        for came, went in zip(arriving, leaving, strict=True)
    ]
    return dict(zip(keys, made, strict=True)), table, referred


def _graph_reduced(graph: Graph) -> tuple[Any, ...]:
    return unpack_graph, pack_graph(graph)


def _step_reduced(step: StepRecord) -> tuple[Any, ...]:
    return unpack_step, pack_step(step)


copyreg.pickle(Graph, _graph_reduced)
copyreg.pickle(StepRecord, _step_reduced)
