"""Reading what the engine's child sends, without trusting it.

The child runs a stranger's program. Its walls (the Python guard, the operating-system
wall) keep the program from reaching the pipe, but if one ever gave way, whatever it wrote
on the pipe would be the stranger's, and ``pickle`` runs any callable a message names. So
the window never calls ``Connection.recv``: it reads the bytes and unpickles them with
:func:`loads`, which builds only the engine's own message classes (the dataclasses of
:mod:`gui.model.result` and :mod:`gui.model.request`, by identity) and plain data
(numbers, strings, bytes, tuples, lists, dicts, sets). Anything else is refused with
:class:`pickle.UnpicklingError` before it is built. The layout worker's replies are read
the same way, with its own classes (the graphs it lays out come from the program).

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import io
import pickle
import pickletools
import types
from array import array
from typing import Any

from gui.model import graph_columns, request, result
from gui.model.deep_stack import StackUnavailable, call_with_stack, levels_covered
from gui.model.wire_fields import ATOMS, check_fields, holds_only_numbers
from gui.model.wire_tensors import LARGEST_INT, MAX_STR_CHARS, SMALLEST_INT, check_atoms

# Deeper pickles than this are refused: each level of ``loads`` inside a message (see
# :func:`_nested_loads`) is another unpickler on the stack.
MAX_NESTING = 4
# Limits on a message's shape: its depth on its opcodes before anything is built (when it
# could matter, see CHEAP_NESTING), its expanded size on what was built. Results nest a
# few levels of dataclasses over tensors of at most 32 dimensions; a result is at most
# 3 MB. A deeper structure crashes the interpreter when it is hashed or printed (in
# C, without a depth check), and shared sub-lists expand when the window walks them (ten
# references to ten references..., ten deep, is 10**10 numbers in under a kilobyte).
MAX_DEPTH = 100
MAX_EXPANDED = 2_000_000
# What the calls of one message (``loads`` inside it, graphs, steps and layouts sent as
# columns) may build in all, in items as MAX_EXPANDED counts them. Each call is bounded,
# but pickle's memo lets a message call again with the same arguments for a few bytes: a
# 64 MB message calling ``loads`` on one 17 MB list ten million times built a copy each
# time (20 calls: 1.5 GB in 5 s; red team, round 17). A message the final check accepts
# holds every record its calls made, each level of ``loads`` at most MAX_EXPANDED items.
MAX_BUILT = (MAX_NESTING + 1) * MAX_EXPANDED
# How many opcodes one level of a message may have (one making a set counts four) when
# they are read one by one (:func:`check_shape`): each makes, keeps or points to one more
# thing (a stack, a memo, a list's entry). A message the final check accepts has fewer
# than twice the items it expands to (a 4,000-function graph's result: 843,000 opcodes
# and 618,000 items).
MAX_OPCODES = 2 * MAX_EXPANDED
# Hashing a tuple (or frozenset) nested ~200,000 deep crashes the interpreter in C (50,000
# measured harmless on a thread's stack): a message with fewer bytes that could build one
# level of them than this cannot be that deep, and skips the slow opcode-by-opcode check
# of :func:`check_shape` (about a second for a long training loop's result, two for a
# 2,000-function graph). A message with more is built on a thread whose stack holds that
# many levels (:mod:`.deep_stack`), for every level of ``loads`` inside it, and what it
# built is then refused if its tuples nest deeper than MAX_DEPTH (:func:`check_expanded`):
# nothing deeper leaves the reader. Only past what a thread's stack can be (or when the
# system refuses such a thread) does :func:`check_shape` read the opcodes first.
_NESTING_OPCODES = (b"\x85", b"\x86", b"\x87", b"t", b"\x91")
CHEAP_NESTING = 20_000
# What each byte of a message could make the window hold while pickle builds it, before
# any check counts what was built: by the opcode it would be, at most, in bytes (the
# object made and the places that point to it: the stack, its container, the memo). An
# empty set is one byte and 216 bytes of memory: a 64 MB message of them built 14 GB; a
# record (``NEWOBJ`` on a memoized class) is four bytes and 180 (red team, round 18). A
# message that could make more than MAX_UNREAD_MEMORY has its opcodes read first
# (:func:`check_shape`), which refuses one of more than MAX_OPCODES opcodes.
_MADE_BYTES = (
    (240, b"\x8f\x91\x81\x92Rb"),  # sets, records (NEWOBJ, REDUCE, BUILD)
    (96, b"}d]l\x85\x86\x87t\x8cXCBMJ\x8aG"),  # containers, texts, numbers
    (24, b"N\x88\x89)2Khj\x94("),  # singletons, memo reads and writes, marks
)
# Each byte of a message as the class of its weight in _MADE_BYTES (1, 2, 3; 0: none).
_WEIGHT_CLASSES = bytes(
    next((i for i, (_, ops) in enumerate(_MADE_BYTES, 1) if byte in ops), 0) for byte in range(256)
)
_WEIGHTLESS = bytes(byte for byte in range(256) if not _WEIGHT_CLASSES[byte])
MAX_UNREAD_MEMORY = 256 * 1024**2
# Opcodes that name something outside the message: never in what the engine sends.
_NEVER = frozenset({"PERSID", "BINPERSID", "EXT1", "EXT2", "EXT4", "INST", "OBJ",
                    "NEXT_BUFFER", "READONLY_BUFFER"})  # fmt: skip
# Opcodes that add items to the container below them on the stack.
_ADD_ONE = {"APPEND": 1, "SETITEM": 2, "BUILD": 1}
_ADD_MANY = frozenset({"APPENDS", "SETITEMS", "ADDITEMS"})
_MEMO_PUT = frozenset({"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"})
_MEMO_GET = frozenset({"GET", "BINGET", "LONG_BINGET"})
_SLICE = (pickletools.markobject, pickletools.stackslice)
_MAKES_A_SET = frozenset({"EMPTY_SET", "FROZENSET"})


@functools.cache
def _message_classes(modules: tuple[types.ModuleType, ...]) -> dict[tuple[str, str], type]:
    """The classes a message may hold, by (module, qualified name), as pickle names them:
    the dataclasses defined in ``modules``, each given :func:`_fields_of_a_record` as its
    way to take the state a message gives it."""
    found: dict[tuple[str, str], type] = {}
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
            ):
                found[(module.__name__, value.__qualname__)] = value
                if "__setstate__" not in vars(value):
                    value.__setstate__ = _fields_of_a_record  # type: ignore[attr-defined]
    return found


def _fields_of_a_record(record: object, state: object) -> None:
    """A message class's ``__setstate__``: a record's fields, as pickle's own BUILD sets
    them, and nothing else.

    Pickle's own BUILD sets attributes on whatever the message gives it: given one of the
    message classes themselves (``GLOBAL`` then ``BUILD`` with a "slot state"), it set
    that class's attributes in the window for good (``TensorData.numel``, ``__eq__``...;
    red team, round 17). Called on a class, this takes the state alone and refuses it.
    A record's fields are set once, on the empty record pickle made: a second BUILD on a
    record made and checked from columns (a graph, a step) replaced its fields with
    unchecked ones, which the message checks then skipped (it was known as checked).
    """
    if type(state) is not dict or isinstance(record, type) or record.__dict__:
        raise pickle.UnpicklingError("the engine sent a record whose state is not its fields")
    record.__dict__.update(state)


class _Call(functools.partial):
    """A call a message may make (a reader's own function, its arguments bound), which
    the message cannot change: pickle's BUILD on a ``functools.partial`` replaces its
    function, arguments and keywords (``depth`` of a nested ``loads``...)."""

    def __setstate__(self, state: object) -> None:
        raise pickle.UnpicklingError("the engine sent a message that changes a reader's call")


class _MessageUnpickler(pickle.Unpickler):
    """An unpickler that finds only the engine's message classes."""

    def __init__(self, data: bytes, depth: int, reading: _Reading) -> None:
        super().__init__(io.BytesIO(data))
        self._depth = depth
        self._reading = reading

    def find_class(self, module: str, name: str) -> Any:
        found = _message_classes(self._reading.modules).get((module, name))
        if found is not None:
            return found
        if (module, name) == _GRAPH_COLUMNS and result in self._reading.modules:
            # A graph sent as columns (``Graph.__reduce__``): checked column by column.
            return _Call(_graph_from_columns, reading=self._reading)
        if (module, name) == _STEP_COLUMNS and result in self._reading.modules:
            return _Call(_step_from_columns, reading=self._reading)
        if (module, name) == LAYOUT_COLUMNS:
            # A layout sent as columns (the layout worker's answer): checked column by
            # column. (Imported here: the engine's readers never need the drawing code.)
            from gui.model.drawing import layout

            if layout in self._reading.modules:
                return _Call(_layout_from_columns, reading=self._reading)
        if (module, name) == ("builtins", "complex"):
            # A complex number (a complex tensor's values): pickle makes it by calling
            # complex(real, imag), which makes only a number (a string it parses, bounded
            # by the message's size; anything else is a TypeError, a refused answer).
            return complex
        if (module, name) in (("_pickle", "loads"), ("pickle", "loads")):
            # The child sends a result it already pickled (to measure it) as the call
            # ``loads(those bytes)``: read them the same careful way.
            return _Call(_nested_loads, depth=self._depth + 1, reading=self._reading)
        raise pickle.UnpicklingError(
            f"the engine sent {module}.{name}, which is not one of its message types"
        )


_GRAPH_COLUMNS = (graph_columns.__name__, graph_columns.unpack_graph.__name__)
_STEP_COLUMNS = (graph_columns.__name__, graph_columns.unpack_step.__name__)


# Where a layout sent as columns names its maker (:mod:`.drawing.layout_columns`, not
# imported by this module: the engine's readers never need the drawing code).
LAYOUT_COLUMNS = ("gui.model.drawing.layout_columns", "unpack_layout")


def _layout_from_columns(*columns: object, reading: _Reading) -> object:
    """The layout of ``columns`` (:func:`.drawing.layout_columns.unpack_layout` checks
    every one), sized and known to the reading as a graph sent as columns is."""
    from gui.model.drawing import layout_columns

    made = layout_columns.unpack_layout(*columns, most=MAX_EXPANDED)
    _known(made, layout_columns.expanded_size(made), reading)
    return made


def _graph_from_columns(*columns: object, reading: _Reading) -> result.Graph:
    """The graph of ``columns`` (:func:`.graph_columns.checked_graph` checks every one),
    its expanded size counted from them (refused past :data:`MAX_EXPANDED`), and known to
    the reading as checked and sized: the message checks do not walk it again."""
    if len(columns) != 5:
        raise pickle.UnpicklingError("the engine sent a graph with other columns")
    graph, table, references = graph_columns.checked_graph(*columns)
    saved = [value for node in graph.nodes for value in node.saved]
    # What walking the graph reaches, as :func:`_expanded_size` would count it: every
    # record's fields and, for each record holding a tensor, that tensor (a tensor held by
    # several records counts once for each).
    size = 1 + 12 * len(graph.nodes) + 8 * len(saved) + 5 * len(graph.edges)
    size += sum(6 * len(value.memory) + 1 for value in saved)
    sizes = _tensor_sizes(table, reading)
    size += sum(map(sizes.__getitem__, references))
    # A saved value that is not a tensor (an exponent, a list of dims) is plain data of any
    # shape: walked as any message's, which also refuses tuples nested too deep.
    plain = [value.value for value in saved if value.value is not None]
    size += _expanded_size(plain, reading.sizes, MAX_EXPANDED - size)
    _known(graph, size, reading)
    return graph


def _step_from_columns(*columns: object, reading: _Reading) -> result.StepRecord:
    """The step of ``columns``, its flows checked column by column, sized and known to the
    reading as :func:`_graph_from_columns` does (the step's other fields are checked and
    sized as any record's)."""
    if len(columns) != 3:
        raise pickle.UnpicklingError("the engine sent a step with other columns")
    fields, tensors, flow_columns = columns
    flows, table, referred = graph_columns.checked_flows(tensors, flow_columns)
    sizes = _tensor_sizes(table, reading)
    for flow, rows in zip(flows.values(), referred, strict=True):
        _known(flow, 4 + len(rows) + sum(map(sizes.__getitem__, rows)), reading)
    return graph_columns.step_with_flows(fields, flows)


def _tensor_sizes(table: list[result.TensorData], reading: _Reading) -> list[int]:
    """How many items walking each tensor record reaches (its fields and its numbers)."""
    sizes = []
    for tensor in table:
        values: Any = tensor.values
        kind = type(values)
        if kind in _ATOMS:
            counted = 1
        elif kind is list and holds_only_numbers(values):
            counted = 1 + len(values)
        else:
            counted = _expanded_size(values, reading.sizes, MAX_EXPANDED)
        sizes.append(6 + len(tensor.shape) + counted)
    return sizes


def _known(record: object, size: int, reading: _Reading) -> None:
    """``record`` (built and checked by the reading) is ``size`` items walked: refused
    past :data:`MAX_EXPANDED`, else known to the checks, which do not walk it again."""
    if size > MAX_EXPANDED:
        raise pickle.UnpicklingError("the engine sent a message that expands too far")
    _built(size, reading)
    reading.sizes[id(record)] = (size, record)
    reading.checked[id(record)] = record


def _nesting_bytes(data: bytes) -> int:
    """How many levels of tuples ``data`` could build at most: its bytes that are
    tuple-building opcodes, or could be (counted in C)."""
    return sum(data.count(op) for op in _NESTING_OPCODES)


def _made_bytes(data: bytes) -> int:
    """The most memory building ``data`` could take (see _MADE_BYTES), from its bytes
    that are opcodes that make something, or could be (counted in C: one pass over the
    message keeps them as their classes, one pass over those per weight)."""
    if len(data) * _MADE_BYTES[0][0] <= MAX_UNREAD_MEMORY:
        return len(data) * _MADE_BYTES[0][0]
    classes = data.translate(_WEIGHT_CLASSES, _WEIGHTLESS)
    return sum(classes.count(i) * size for i, (size, _) in enumerate(_MADE_BYTES, 1))


class _Reading:
    """What the levels of one message (``loads`` inside ``loads``) share."""

    def __init__(
        self, modules: tuple[types.ModuleType, ...], covered: int, max_text: int | None
    ) -> None:
        self.modules = modules
        # The longest text any object of the message may hold (None: any; see loads).
        self.max_text = max_text
        # The nesting bytes per level that the reading thread's stack holds (for every
        # level of ``loads`` inside the message, see CHEAP_NESTING).
        self.covered = covered
        # Message objects sized so far, by identity, each kept alive with its size (no
        # identity is reused while the reading lasts): a level is not walked again by
        # the level that holds it (the result, by its answer).
        self.sizes: Sizes = {}
        # Message objects built and checked as they were read (graphs sent as columns), by
        # identity, each kept alive: :func:`check_fields` does not walk them again.
        self.checked: dict[int, object] = {}
        # Items the message's calls built so far (see MAX_BUILT).
        self.built = 0


def _built(size: int, reading: _Reading) -> None:
    """A call of the message built ``size`` more items: refused past :data:`MAX_BUILT`."""
    reading.built += size
    if reading.built > MAX_BUILT:
        raise pickle.UnpicklingError("the engine sent a message that builds too much")


def _nested_loads(data: object, depth: int, reading: _Reading) -> object:
    if not isinstance(data, bytes | bytearray):
        raise pickle.UnpicklingError("the engine sent a nested message that is not bytes")
    if depth > MAX_NESTING:
        raise pickle.UnpicklingError("the engine sent messages nested too deep")
    data = bytes(data)
    if _nesting_bytes(data) > reading.covered or _made_bytes(data) > MAX_UNREAD_MEMORY:
        check_shape(data)  # slow (Python reads every opcode): only when it could matter
    message = _MessageUnpickler(data, depth, reading).load()
    size = check_expanded(message, reading.sizes, reading.max_text)
    if depth:  # (the message itself is no call's)
        _built(size, reading)
    return message


def _loads_on_a_deep_stack(
    data: bytes, modules: tuple[types.ModuleType, ...], max_text: int | None
) -> tuple[object, _Reading]:
    """The message in ``data``, built on a stack that holds every tuple it could nest
    (see CHEAP_NESTING), or checked opcode by opcode first when no stack can; and how
    it was read."""
    nesting = _nesting_bytes(data)
    # Each level of ``loads`` inside may nest its own bytes' worth under the one above.
    levels = nesting * (MAX_NESTING + 1)
    reading = _Reading(modules, CHEAP_NESTING, max_text)
    if nesting <= CHEAP_NESTING or not levels_covered(levels):
        return _nested_loads(data, 0, reading), reading
    deep = _Reading(modules, nesting, max_text)
    try:
        return call_with_stack(levels, lambda: _nested_loads(data, 0, deep)), deep
    except StackUnavailable:
        return _nested_loads(data, 0, reading), reading


# Expanded sizes of message objects by identity, each with the object (kept alive).
Sizes = dict[int, tuple[int, object]]


def check_expanded(
    message: object, sizes: Sizes | None = None, max_text: int | None = MAX_STR_CHARS
) -> int:
    """Refuse a message that would expand to more than :data:`MAX_EXPANDED` items when
    walked (shared sub-lists count each time they are reached): the window walks them.
    ``sizes``: message objects already sized (see :func:`_expanded_size`); this one is
    added. Every whole number in it must be a 64-bit one, every text at most ``max_text``
    characters long (``None``: any; see :func:`~.wire_tensors.check_atoms`). Returns the size."""
    sizes = {} if sizes is None else sizes
    size = _expanded_size(message, sizes, MAX_EXPANDED, max_text=max_text)
    if size > MAX_EXPANDED:
        raise pickle.UnpicklingError("the engine sent a message that expands too far")
    if hasattr(message, "__dataclass_fields__"):
        sizes[id(message)] = (size, message)
    return size


# Leaves of a message: nothing inside them to walk.
_ATOMS = ATOMS


def _expanded_size(
    root: object,
    sizes: Sizes,
    budget: int,
    walked: set[int] | None = None,
    max_text: int | None = MAX_STR_CHARS,
) -> int:
    """How many items walking ``root`` reaches, or anything above ``budget`` once past it.

    The engine's message objects (dataclass instances) are walked once each, their size
    remembered in ``sizes`` by identity: a result shares its graph with its last step, and
    a shared object counts its full size at every reference without being walked again.
    ``sizes`` keeps each object it names alive, so no identity is reused while it lives.
    ``walked``: the lists of more than numbers met so far (inside ``root``: alive).
    """
    size = 0
    pending = [root]
    walked = set() if walked is None else walked
    while pending:
        value = pending.pop()
        kind = type(value)
        if kind in _ATOMS:
            size += 1
            # (check_atoms, inlined: a big answer holds thousands of loose numbers)
            too_big = kind is int and not SMALLEST_INT <= value <= LARGEST_INT  # type: ignore[operator]
            too_long = kind is str and max_text is not None and len(value) > max_text  # type: ignore[arg-type]
            if too_big or too_long:
                check_atoms((value,), "a message", max_text)  # (raises, saying which)
            continue
        if kind is list:
            # A tensor's row of numbers (most of a message) is counted in C: ``array``
            # takes only numbers, so a list it takes holds nothing to walk into. A list
            # it refused is not tried again when shared (the try costs a raised error).
            if id(value) in walked:
                pending.extend(value)  # type: ignore[arg-type]
                size += 1
            else:
                try:
                    array("d", value)  # type: ignore[call-overload]
                except (TypeError, OverflowError):  # not a number; an int past a float's
                    walked.add(id(value))  # range: walked into at every reference
                    pending.extend(value)  # type: ignore[arg-type]
                    size += 1
                else:
                    size += 1 + len(value)  # type: ignore[arg-type]
        elif kind in _HASHED_NESTS:
            kinds = set(map(type, value))  # type: ignore[call-overload]
            if kind is not tuple and kinds.isdisjoint(_HASHED_NESTS):
                raise pickle.UnpicklingError(_NO_SETS)  # (one nesting: see _nest_size)
            if kinds <= _ATOMS:  # a shape, a pair of names
                size += 1 + len(value)  # type: ignore[arg-type]
                if int in kinds or str in kinds:
                    check_atoms(value, "a message", max_text)  # type: ignore[arg-type]
            elif kinds.isdisjoint(_HASHED_NESTS):  # nodes, gradients: walked as any item
                pending.extend(value)  # type: ignore[arg-type]
                size += 1
            else:  # tuples in tuples: their depth is bounded there
                size += _nest_size(value, pending, budget - size)  # type: ignore[arg-type]
        elif kind is dict:
            pending.extend(value.keys())  # type: ignore[attr-defined]
            pending.extend(value.values())  # type: ignore[attr-defined]
            size += 1
        elif hasattr(value, "__dataclass_fields__"):
            if value is root:  # the object this call sizes: its fields
                pending.extend(vars(value).values())
                size += 1
            else:  # another: sized once, by a call of its own
                known = sizes.get(id(value))
                if known is None:
                    known = (
                        _expanded_size(value, sizes, budget - size, walked, max_text),
                        value,
                    )
                    sizes[id(value)] = known
                size += known[0]
        else:
            size += 1
        if size > budget:
            return size
    return size


# Containers whose hash (or their items' hash) recurses in C without a depth check.
_HASHED_NESTS = frozenset({tuple, set, frozenset})
# No message holds a set (no field of a message class is one), and each is 216 bytes of
# the window's memory made from one byte of a message: a message calling ``loads`` ten
# times on a megabyte of empty sets held 2.6 GB before the calls' count (MAX_BUILT, in
# items) refused it (red team, round 18). Refused as soon as a level is sized.
_NO_SETS = "the engine sent a set, which no message holds"


def _nest_size(root: tuple | set | frozenset, pending: list[object], budget: int) -> int:
    """The items of ``root`` and of the tuples and sets nested in it, level by level,
    refused past :data:`MAX_DEPTH` levels (hashing a deeper one can crash the window: see
    CHEAP_NESTING); anything else inside goes on ``pending``. Above ``budget``: stops."""
    size = 0
    level: list[tuple | set | frozenset] = [root]
    sets = False  # (refused once the depth is known not to be: that refusal says more)
    for _ in range(MAX_DEPTH):
        inner: list[tuple | set | frozenset] = []
        for nest in level:
            sets = sets or type(nest) is not tuple
            size += 1
            if _HASHED_NESTS.isdisjoint(set(map(type, nest))):
                pending.extend(nest)  # the usual case (a tuple of nodes, of numbers...)
            else:
                for item in nest:
                    (inner if type(item) in _HASHED_NESTS else pending).append(item)
        if not inner or size > budget:
            if sets:
                raise pickle.UnpicklingError(_NO_SETS)
            return size
        level = inner
    raise pickle.UnpicklingError("the engine sent a message nested too deep")


def check_shape(data: bytes) -> None:
    """Refuse a pickle nested deeper than :data:`MAX_DEPTH`, that would expand to more
    than :data:`MAX_EXPANDED` items or of more than :data:`MAX_OPCODES` opcodes (one that
    makes a set counts four: what is left on the stack or in the memo costs as much as
    what a container holds), reading its opcodes only (nothing is built).

    Every value on the stack is a cell ``[depth, expanded size]``: a container is one
    deeper than its deepest item and as big as all of them. The memo keeps the cells
    themselves, so a container filled after it was memoized is counted at its full size
    each time it is referenced again.
    """
    stack: list[list[int] | None] = []  # cells, and None for a mark
    memo: dict[object, list[int]] = {}
    read = 0

    def pop_to_mark() -> list[list[int]]:
        items: list[list[int]] = []
        while stack:
            top = stack.pop()
            if top is None:
                return items
            items.append(top)
        raise pickle.UnpicklingError("the engine sent a malformed message (no mark)")

    def pop() -> list[int]:
        top = stack.pop() if stack else None
        if top is None:
            raise pickle.UnpicklingError("the engine sent a malformed message (stack)")
        return top

    def holding(container: list[int], items: list[list[int]]) -> list[int]:
        container[0] = max([container[0], *(d + 1 for d, _ in items)])
        container[1] += sum(n for _, n in items)
        if container[0] > MAX_DEPTH or container[1] > MAX_EXPANDED:
            raise pickle.UnpicklingError("the engine sent a message too deep or too big")
        return container

    try:
        for opcode, arg, _ in pickletools.genops(data):
            name = opcode.name
            read += 4 if name in _MAKES_A_SET else 1
            if read > MAX_OPCODES:
                raise pickle.UnpicklingError("the engine sent a message of too many parts")
            if name in _NEVER:
                raise pickle.UnpicklingError(f"the engine sent a {name} opcode")
            if name == "MARK":
                stack.append(None)
            elif name in _MEMO_PUT:
                top = stack[-1] if stack else None
                if top is None:
                    raise pickle.UnpicklingError("the engine sent a malformed message (memo)")
                memo[len(memo) if name == "MEMOIZE" else arg] = top
            elif name in _MEMO_GET:
                cell = memo.get(arg)
                if cell is None:
                    raise pickle.UnpicklingError("the engine sent a malformed message (memo)")
                stack.append(cell)
            elif name in _ADD_ONE:
                items = [pop() for _ in range(_ADD_ONE[name])]
                stack.append(holding(pop(), items))
            elif name in _ADD_MANY:
                items = pop_to_mark()
                stack.append(holding(pop(), items))
            elif name == "POP":
                pop()
            elif name == "POP_MARK":
                pop_to_mark()
            elif name == "DUP":
                stack.append(stack[-1] if stack else pop())
            elif name in ("PROTO", "FRAME", "STOP"):
                continue
            else:
                # Everything else pops what it reads and pushes one new value made of it.
                marked, reads, after = _stack_effect(opcode)
                items = pop_to_mark() if marked else []
                items += [pop() for _ in range(reads)]
                for _ in range(after):
                    stack.append(holding([0, 1], items) if items else [0, 1])
    except pickle.UnpicklingError:
        raise
    except Exception as exc:  # a truncated or garbled message
        raise pickle.UnpicklingError(f"the engine sent a malformed message: {exc}") from exc


@functools.cache
def _stack_effect(opcode: pickletools.OpcodeInfo) -> tuple[bool, int, int]:
    """Whether ``opcode`` pops to a mark, how many more items it pops, how many it pushes."""
    before = opcode.stack_before
    reads = sum(1 for b in before if b not in _SLICE)
    return pickletools.markobject in before, reads, len(opcode.stack_after)


ENGINE_MESSAGES = (result, request)


def loads(
    data: bytes,
    modules: tuple[types.ModuleType, ...] = ENGINE_MESSAGES,
    max_text: int | None = MAX_STR_CHARS,
) -> object:
    """One message from another of the app's processes: the dataclasses of ``modules``
    (the engine's: :mod:`gui.model.result` and :mod:`gui.model.request`) and plain data
    only, of a bounded shape, each field holding what its class says, every whole number
    a 64-bit one and every text at most ``max_text`` characters (``None``: any, for the
    layout worker's pictures) (else :class:`pickle.UnpicklingError`, whatever went
    wrong)."""
    # A big graph's answer is a million new objects, none of them garbage: while they are
    # built and checked the collector would run hundreds of times for nothing (its full
    # passes over everything the window holds took most of a 5,000-node read). Turned
    # back on after, unless something else had turned it off.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if not isinstance(data, bytes | bytearray):
            raise pickle.UnpicklingError("the engine sent a message that is not bytes")
        message, reading = _loads_on_a_deep_stack(bytes(data), modules, max_text)
        check_fields(message, checked=reading.checked)
        return message
    except pickle.UnpicklingError:
        raise
    except Exception as exc:  # MemoryError, ValueError, UnicodeDecodeError...
        raise pickle.UnpicklingError(f"the engine sent an unreadable message: {exc}") from exc
    finally:
        if collecting:
            gc.enable()
