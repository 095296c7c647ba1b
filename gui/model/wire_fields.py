"""Checking that every object of a message holds in its fields what their annotations say.

Part of the window's careful reader (:mod:`gui.model.wire`): the unpickler builds the
engine's message classes from whatever the pickle gives it, so after it has built a
message, every field of every object in it is checked against its annotation. A big
graph's result holds tens of thousands of objects: they are checked class by class, each
field of all the objects of a class at once, by type lookups that run in C
(``set(map(type, values))``), and one object at a time only for annotations that need it.

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import pickle
import types
import typing
from array import array
from collections.abc import Collection
from typing import Any, Literal, Union

from gui.model.result import (
    MAX_TEXT_CHARS,
    Explanation,
    GraphEdge,
    GraphNode,
    PrintedLine,
    TensorData,
)
from gui.model.wire_tensors import (
    check_input_indices,
    check_output_counts,
    check_tensor_values,
)

# Leaves of a message: nothing inside them to walk.
ATOMS = frozenset({float, int, str, bool, type(None), bytes, complex})

# A check of one value; it puts the message objects it holds on the list (to be checked).
Checker = typing.Callable[[object, list[object]], bool]
# A check of many values at once (the same field of many objects), likewise.
BulkChecker = typing.Callable[[list[object], list[object]], bool]


@dataclasses.dataclass(frozen=True)
class _Plan:
    """How a message class's objects are checked: its field names and, per field, the
    check of one value and of many."""

    names: frozenset[str]
    fields: tuple[tuple[str, Checker, BulkChecker], ...]


@functools.cache
def _plan(cls: type) -> _Plan:
    """A message class's plan, from its annotations (the modules write them as strings:
    ``from __future__ import annotations``)."""
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    return _Plan(
        frozenset(f.name for f in fields),
        tuple((f.name, _checker(hints[f.name]), _bulk_checker(hints[f.name])) for f in fields),
    )


def check_fields(message: object, checked: Collection[int] = ()) -> None:
    """Refuse a message whose objects hold anything but what their classes' fields say.

    The unpickler builds a message class from whatever the pickle gives it (``REDUCE``
    calls it with any arguments; ``BUILD`` fills its ``__dict__`` with any keys): an
    ``Answer`` whose result holds an ``int`` where a ``TensorInfo`` goes would make the
    window fail far from here, on its GUI thread. So every field must hold what its
    annotation says (``Any``: plain data, the numbers of a tensor), and an object holds
    its fields and nothing else (an extra ``__dict__`` key would shadow a method).

    Level by level: the message objects reached are gathered by class, and each class's
    objects are checked together (:func:`_check_objects`), which gathers the next level.
    """
    pending: list[object] = [message]
    # Message objects checked (all alive: ids are not reused); ``checked``: the ids of
    # objects checked as they were read, which the caller keeps alive.
    seen: set[int] = set(checked)
    while pending:
        reached, pending = pending, []
        by_class: dict[type, list[object]] = {}
        for value in reached:
            kind = type(value)
            if kind in ATOMS:
                continue
            if hasattr(kind, "__dataclass_fields__"):
                if id(value) not in seen:
                    seen.add(id(value))
                    by_class.setdefault(kind, []).append(value)
            elif isinstance(value, list | tuple | set | frozenset):
                if kind is list and holds_only_numbers(value):  # type: ignore[arg-type]
                    continue
                pending.extend(value)
            elif isinstance(value, dict):
                pending.extend(value.keys())
                pending.extend(value.values())
        for kind, objects in by_class.items():
            _check_objects(kind, objects, pending)


def _check_objects(kind: type, objects: list[object], pending: list[object]) -> None:
    """Check ``objects`` (all of class ``kind``) field by field; the message objects
    their fields hold go on ``pending``."""
    plan = _plan(kind)
    states: list[dict[str, object]] = list(map(vars, objects))
    if not all(map(operator.eq, map(dict.keys, states), itertools.repeat(plan.names))):
        raise pickle.UnpicklingError(
            f"the engine sent a {kind.__name__} with other attributes than its fields"
        )
    for name, check, bulk in plan.fields:
        if not bulk(list(map(operator.itemgetter(name), states)), pending):
            # Say which value, as the one-by-one check finds it.
            for state in states:
                if not check(state[name], []):
                    raise pickle.UnpicklingError(
                        f"the engine sent a {kind.__name__} whose {name} is a "
                        f"{type(state[name]).__name__}"
                    )
            raise pickle.UnpicklingError(f"the engine sent a {kind.__name__} with a wrong {name}")
    consistent = _consistency().get(kind)
    if consistent is not None:
        consistent(states)


def _tensors_consistent(states: list[dict[str, Any]]) -> None:
    check_tensor_values([s["shape"] for s in states], [s["values"] for s in states])


def _outputs_bounded(states: list[dict[str, Any]]) -> None:
    check_output_counts([s["output_count"] for s in states])


def _inputs_bounded(states: list[dict[str, Any]]) -> None:
    check_input_indices([s["input_index"] for s in states])


def _explained_briefly(states: list[dict[str, Any]]) -> None:
    _texts_within([s[name] for s in states for name in ("message", "explanation", "fix")])


def _printed_briefly(states: list[dict[str, Any]]) -> None:
    _texts_within([s["text"] for s in states])


def _texts_within(texts: list[str]) -> None:
    """Every explanation and printed chunk is cut to MAX_TEXT_CHARS where it is made (an
    explanation's fields when it is made, a ``print``'s text as it is captured); unpickling
    makes no second cut, so a longer one is not the engine's: 300,000 characters in one
    line kept the explanation's layout busy for 25 s (round 11)."""
    if texts and max(map(len, texts)) > MAX_TEXT_CHARS:
        raise pickle.UnpicklingError("the engine sent a text longer than it ever sends")


# Past their fields' types: what a record's fields must agree on (see wire_tensors).
_CONSISTENT: dict[type, typing.Callable[[list[dict[str, Any]]], None]] = {
    TensorData: _tensors_consistent,
    GraphNode: _outputs_bounded,
    GraphEdge: _inputs_bounded,
    Explanation: _explained_briefly,
    PrintedLine: _printed_briefly,
}


@functools.cache
def _consistency() -> dict[type, typing.Callable[[list[dict[str, Any]]], None]]:
    """:data:`_CONSISTENT`, and the layout worker's places (:mod:`.wire_places`); imported
    at the first read, not with this module, which the engine's processes load too."""
    from gui.model.drawing.layout import GraphLayout, NodeBox
    from gui.model.wire_places import check_boxes, check_layouts

    return {**_CONSISTENT, NodeBox: check_boxes, GraphLayout: check_layouts}


def holds_only_numbers(values: list[Any]) -> bool:
    """Whether ``values`` holds only numbers (checked in C: ``array`` takes nothing else)."""
    try:
        array("d", values)
    except (TypeError, OverflowError):
        return False
    return True


@functools.cache
def _bulk_checker(hint: object) -> BulkChecker:
    """A check for many values of type ``hint`` at once: by their set of types (in C)
    for the annotations most fields have, else each value by :func:`_checker`."""
    if hint is Any or _holds_any(hint):
        return lambda values, pending: True  # see _checker
    exact = _exact_types(hint)
    if exact is not None:
        plain, messages = exact
        allowed = plain | messages

        def typed(values: list[object], pending: list[object]) -> bool:
            if not set(map(type, values)) <= allowed:
                return False
            if messages:
                pending.extend(values)  # plain values in there are skipped as atoms
            return True

        return typed
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        items = _bulk_checker(args[0])

        def rows(values: list[Any], pending: list[object]) -> bool:
            return set(map(type, values)) <= {tuple} and items(
                list(itertools.chain.from_iterable(values)), pending
            )

        return rows
    if origin is tuple and args and args[-1] is not Ellipsis:
        fixed = _fixed_tuples(args)
        if fixed is not None:
            return fixed
    if origin is dict:
        keys, items = _bulk_checker(args[0]), _bulk_checker(args[1])

        def mappings(values: list[Any], pending: list[object]) -> bool:
            return (
                set(map(type, values)) <= {dict}
                and keys(list(itertools.chain.from_iterable(map(dict.keys, values))), pending)
                and items(list(itertools.chain.from_iterable(map(dict.values, values))), pending)
            )

        return mappings
    if origin is Literal:
        literals = {(type(arg), arg) for arg in args}

        def chosen(values: list[object], pending: list[object]) -> bool:
            return (
                set(map(type, values)) <= {str, int, bool}
                and set(zip(map(type, values), values, strict=True)) <= literals
            )

        return chosen
    one = _checker(hint)
    return lambda values, pending: all(map(one, values, itertools.repeat(pending)))


def _fixed_tuples(args: tuple[object, ...]) -> BulkChecker | None:
    """A check for many tuples of ``len(args)`` items, item ``i`` of type ``args[i]``
    (a layout's points, ``tuple[float, float]``), a column of items at a time in C; ``None``
    when an item's type is not one :func:`_exact_types` knows."""
    columns = [_exact_types(arg) for arg in args]
    if any(column is None for column in columns):
        return None
    size = len(args)

    def fixed(values: list[Any], pending: list[object]) -> bool:
        if not set(map(type, values)) <= {tuple} or not set(map(len, values)) <= {size}:
            return False
        for i, column in enumerate(columns):
            assert column is not None  # checked above
            plain, messages = column
            items = list(map(operator.itemgetter(i), values))
            if not set(map(type, items)) <= plain | messages:
                return False
            if messages:
                pending.extend(items)  # plain items in there are skipped as atoms
        return True

    return fixed


def _holds_any(hint: object) -> bool:
    """Whether ``hint`` is a union with ``Any`` in it (which takes any value)."""
    origin = typing.get_origin(hint)
    return (origin is Union or origin is types.UnionType) and any(
        arg is Any for arg in typing.get_args(hint)
    )


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
