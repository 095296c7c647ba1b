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
import io
import pickle
import pickletools
import types
import typing
from array import array
from typing import Any, Literal, Union

from gui.model import request, result

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
# Hashing a tuple (or frozenset) nested ~200,000 deep crashes the interpreter in C (50,000
# measured harmless on a thread's stack): a message with fewer bytes that could build one
# level of them than this cannot be that deep, and skips the slow opcode-by-opcode check
# of :func:`check_shape` (about a second for a long training loop's result).
_NESTING_OPCODES = (b"\x85", b"\x86", b"\x87", b"t", b"\x91")
CHEAP_NESTING = 20_000
# Opcodes that name something outside the message: never in what the engine sends.
_NEVER = frozenset({"PERSID", "BINPERSID", "EXT1", "EXT2", "EXT4", "INST", "OBJ",
                    "NEXT_BUFFER", "READONLY_BUFFER"})  # fmt: skip
# Opcodes that add items to the container below them on the stack.
_ADD_ONE = {"APPEND": 1, "SETITEM": 2, "BUILD": 1}
_ADD_MANY = frozenset({"APPENDS", "SETITEMS", "ADDITEMS"})
_MEMO_PUT = frozenset({"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"})
_MEMO_GET = frozenset({"GET", "BINGET", "LONG_BINGET"})
_SLICE = (pickletools.markobject, pickletools.stackslice)


@functools.cache
def _message_classes(modules: tuple[types.ModuleType, ...]) -> dict[tuple[str, str], type]:
    """The classes a message may hold, by (module, qualified name), as pickle names them:
    the dataclasses defined in ``modules``."""
    found: dict[tuple[str, str], type] = {}
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
            ):
                found[(module.__name__, value.__qualname__)] = value
    return found


class _MessageUnpickler(pickle.Unpickler):
    """An unpickler that finds only the engine's message classes."""

    def __init__(self, data: bytes, depth: int, modules: tuple[types.ModuleType, ...]) -> None:
        super().__init__(io.BytesIO(data))
        self._depth = depth
        self._modules = modules

    def find_class(self, module: str, name: str) -> Any:
        found = _message_classes(self._modules).get((module, name))
        if found is not None:
            return found
        if (module, name) in (("_pickle", "loads"), ("pickle", "loads")):
            # The child sends a result it already pickled (to measure it) as the call
            # ``loads(those bytes)``: read them the same careful way.
            return functools.partial(_nested_loads, depth=self._depth + 1, modules=self._modules)
        raise pickle.UnpicklingError(
            f"the engine sent {module}.{name}, which is not one of its message types"
        )


def _nested_loads(data: object, depth: int, modules: tuple[types.ModuleType, ...]) -> object:
    if not isinstance(data, bytes | bytearray):
        raise pickle.UnpicklingError("the engine sent a nested message that is not bytes")
    if depth > MAX_NESTING:
        raise pickle.UnpicklingError("the engine sent messages nested too deep")
    data = bytes(data)
    if sum(data.count(op) for op in _NESTING_OPCODES) > CHEAP_NESTING:
        check_shape(data)  # slow (Python reads every opcode): only when it could matter
    message = _MessageUnpickler(data, depth, modules).load()
    check_expanded(message)
    return message


def check_expanded(message: object) -> None:
    """Refuse a message that would expand to more than :data:`MAX_EXPANDED` items when
    walked (shared sub-lists count each time they are reached): the window walks them."""
    if _expanded_size(message, {}, MAX_EXPANDED) > MAX_EXPANDED:
        raise pickle.UnpicklingError("the engine sent a message that expands too far")


# Leaves of a message: nothing inside them to walk.
_ATOMS = frozenset({float, int, str, bool, type(None), bytes, complex})


def _expanded_size(root: object, sizes: dict[int, int], budget: int) -> int:
    """How many items walking ``root`` reaches, or anything above ``budget`` once past it.

    The engine's message objects (dataclass instances) are walked once each, their size
    remembered in ``sizes`` by identity: a result shares its graph with its last step, and
    a shared object counts its full size at every reference without being walked again.
    ``root`` is alive all along, so no identity is reused while ``sizes`` lives.
    """
    size = 0
    pending = [root]
    while pending:
        value = pending.pop()
        kind = type(value)
        if kind in _ATOMS:
            size += 1
            continue
        if kind is list:
            # A tensor's row of numbers (most of a message) is counted in C: ``array``
            # takes only numbers, so a list it takes holds nothing to walk into.
            try:
                array("d", value)  # type: ignore[call-overload]
            except (TypeError, OverflowError):  # not a number; an int past a float's range
                pending.extend(value)  # type: ignore[arg-type]
                size += 1
            else:
                size += 1 + len(value)  # type: ignore[arg-type]
        elif kind is tuple or kind is set or kind is frozenset:
            pending.extend(value)  # type: ignore[arg-type]
            size += 1
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
                    known = _expanded_size(value, sizes, budget - size)
                    sizes[id(value)] = known
                size += known
        else:
            size += 1
        if size > budget:
            return size
    return size


def check_shape(data: bytes) -> None:
    """Refuse a pickle nested deeper than :data:`MAX_DEPTH` or that would expand to more
    than :data:`MAX_EXPANDED` items, reading its opcodes only (nothing is built).

    Every value on the stack is a cell ``[depth, expanded size]``: a container is one
    deeper than its deepest item and as big as all of them. The memo keeps the cells
    themselves, so a container filled after it was memoized is counted at its full size
    each time it is referenced again.
    """
    stack: list[list[int] | None] = []  # cells, and None for a mark
    memo: dict[object, list[int]] = {}

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
                before = opcode.stack_before
                items = pop_to_mark() if pickletools.markobject in before else []
                reads = [b for b in before if b not in _SLICE]
                items += [pop() for _ in reads]
                for _ in opcode.stack_after:
                    stack.append(holding([0, 1], items))
    except pickle.UnpicklingError:
        raise
    except Exception as exc:  # a truncated or garbled message
        raise pickle.UnpicklingError(f"the engine sent a malformed message: {exc}") from exc


Checker = typing.Callable[[object, list[object]], bool]


@functools.cache
def _field_checks(cls: type) -> tuple[frozenset[str], tuple[tuple[str, Checker], ...]]:
    """A message class's field names, and a check per field from its annotation (the
    modules write them as strings: ``from __future__ import annotations``)."""
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    return frozenset(f.name for f in fields), tuple(
        (f.name, _checker(hints[f.name])) for f in fields
    )


def check_fields(message: object) -> None:
    """Refuse a message whose objects hold anything but what their classes' fields say.

    The unpickler builds a message class from whatever the pickle gives it (``REDUCE``
    calls it with any arguments; ``BUILD`` fills its ``__dict__`` with any keys): an
    ``Answer`` whose result holds an ``int`` where a ``TensorInfo`` goes would make the
    window fail far from here, on its GUI thread. So every field must hold what its
    annotation says (``Any``: plain data, the numbers of a tensor), and an object holds
    its fields and nothing else (an extra ``__dict__`` key would shadow a method).
    """
    pending: list[object] = [message]
    seen: set[int] = set()  # message objects checked (all alive: ids are not reused)
    while pending:
        value = pending.pop()
        if type(value) in _ATOMS:
            continue
        if hasattr(type(value), "__dataclass_fields__"):
            if id(value) in seen:
                continue
            seen.add(id(value))
            names, checks = _field_checks(type(value))  # type: ignore[arg-type]
            state = vars(value)
            if state.keys() != names:
                raise pickle.UnpicklingError(
                    f"the engine sent a {type(value).__name__} with other attributes than "
                    "its fields"
                )
            for name, check in checks:
                if not check(state[name], pending):
                    raise pickle.UnpicklingError(
                        f"the engine sent a {type(value).__name__} whose {name} is a "
                        f"{type(state[name]).__name__}"
                    )
        elif isinstance(value, list | tuple | set | frozenset):
            if type(value) is list and _numbers(value):
                continue
            pending.extend(value)
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())


def _numbers(values: list[Any]) -> bool:
    try:
        array("d", values)
    except (TypeError, OverflowError):
        return False
    return True


@functools.cache
def _checker(hint: object) -> Checker:
    """A check for values of type ``hint``, built once per annotation (a long training
    loop's result holds tens of thousands of fields, and a slider tick reads a result).

    Most annotations are a few exact types, message classes among them, alone, in a union
    or as the items of a tuple or dict: those are checked by type lookups that run in C
    (``type(v) in types``, ``set(map(type, items))``), the rest by composed checks."""
    exact = _exact_types(hint)
    if exact is not None:
        plain, messages = exact
        if not messages:
            return lambda value, pending: type(value) in plain

        def one(value: object, pending: list[object]) -> bool:
            kind = type(value)
            if kind in messages:
                pending.append(value)  # its own fields are checked in turn
                return True
            return kind in plain

        return one
    if hint is Any:
        # Plain data (numbers, mostly: a tensor's): the unpickler built nothing else, and
        # check_expanded bounded it.
        return lambda value, pending: True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Union or origin is types.UnionType:
        options = [_checker(arg) for arg in args]
        return lambda value, pending: any(check(value, pending) for check in options)
    if origin is Literal:
        allowed = {(type(arg), arg) for arg in args}
        return lambda value, pending: (
            type(value) in (str, int, bool) and (type(value), value) in allowed
        )
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _items_checker(tuple, args[0])
    if origin is tuple:
        items = [_checker(arg) for arg in args]
        return lambda value, pending: (
            type(value) is tuple
            and len(value) == len(items)
            and all(check(v, pending) for check, v in zip(items, value, strict=True))
        )
    if origin is list:
        return _items_checker(list, args[0])
    if origin is dict:
        keys, values = _items_checker(list, args[0]), _items_checker(list, args[1])

        def mapping(value: Any, pending: list[object]) -> bool:
            return (
                type(value) is dict
                and keys(list(value.keys()), pending)
                and values(list(value.values()), pending)
            )

        return mapping
    return lambda value, pending: False  # an annotation the messages do not use: refuse


def _items_checker(container: type, hint: object) -> Checker:
    """A check for a ``container`` (tuple or list) whose items are all of type ``hint``."""
    exact = _exact_types(hint)
    if exact is not None:
        plain, messages = exact
        allowed = plain | messages

        def typed(value: Any, pending: list[object]) -> bool:
            if type(value) is not container:
                return False
            items: Any = value  # a tuple or a list, which mypy cannot tell from the check
            if not set(map(type, items)) <= allowed:
                return False
            if messages:
                pending.extend(items)  # plain items in there are skipped as atoms
            return True

        return typed
    item = _checker(hint)

    def each(value: Any, pending: list[object]) -> bool:
        if type(value) is not container:
            return False
        items: Any = value
        return all(item(v, pending) for v in items)

    return each


@functools.cache
def _exact_types(hint: object) -> tuple[frozenset[type], frozenset[type]] | None:
    """When a value of type ``hint`` is checked by its exact type alone: the plain types
    and the message classes it may be (``float`` takes an ``int`` or a ``bool`` too, as
    Python does); ``None`` when a type is not enough (containers, literals, ``Any``)."""
    if hint is Any:  # a class since Python 3.11: not one to compare types with
        return None
    if hint is None or hint is type(None):
        return frozenset({type(None)}), frozenset()
    if hint is float:
        return frozenset({float, int, bool}), frozenset()
    if hint is int:
        return frozenset({int, bool}), frozenset()
    if isinstance(hint, type) and hasattr(hint, "__dataclass_fields__"):
        return frozenset(), frozenset({hint})
    if isinstance(hint, type) and not issubclass(hint, tuple | list | dict | set | frozenset):
        return frozenset({hint}), frozenset()
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        parts = [_exact_types(arg) for arg in typing.get_args(hint)]
        if any(part is None for part in parts):
            return None
        return (
            frozenset().union(*(part[0] for part in parts if part is not None)),
            frozenset().union(*(part[1] for part in parts if part is not None)),
        )
    return None


ENGINE_MESSAGES = (result, request)


def loads(data: bytes, modules: tuple[types.ModuleType, ...] = ENGINE_MESSAGES) -> object:
    """One message from another of the app's processes: the dataclasses of ``modules``
    (the engine's: :mod:`gui.model.result` and :mod:`gui.model.request`) and plain data
    only, of a bounded shape, each field holding what its class says (else
    :class:`pickle.UnpicklingError`, whatever went wrong)."""
    try:
        message = _nested_loads(data, depth=0, modules=modules)
        check_fields(message)
        return message
    except pickle.UnpicklingError:
        raise
    except Exception as exc:  # MemoryError, ValueError, UnicodeDecodeError...
        raise pickle.UnpicklingError(f"the engine sent an unreadable message: {exc}") from exc
