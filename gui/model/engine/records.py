"""Making the result's frozen records quickly, for the tens of thousands a big graph needs.

A frozen dataclass's ``__init__`` sets each field with ``object.__setattr__``, one Python
call per field: a :class:`~gui.model.result.GraphNode` of ten fields costs about 2 µs, and
a 5,000-function graph makes some 100,000 records (nodes, edges, saved values, flows,
tensor data). :func:`quick_maker` makes the same instance by filling its ``__dict__`` at
once, a third to a quarter of the cost.

The instance is the one ``__init__`` would make: every field set, in the class's field
order, defaults where not given; equal to and pickled like one made by ``__init__``. Only
classes where that holds are accepted: no ``__post_init__`` (it would be skipped) and no
``default_factory`` (a shared default would be one mutable object for all).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_set = object.__setattr__
_new = object.__new__
_MISSING: Any = object()  # marks a field without a default in a maker's template


def quick_maker(cls: type[T]) -> Callable[..., T]:
    """A function ``make(**fields)`` that returns ``cls(**fields)`` without its ``__init__``.

    Raises ``TypeError`` (when the maker is made, at import) for a class it cannot make
    exactly, and (when called) for a call that leaves a field without a value or names
    one the class does not have, as ``__init__`` would.
    """
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: only a dataclass without __post_init__")
    template: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: a default_factory field")
        template[f.name] = _MISSING if f.default is dataclasses.MISSING else f.default
    size = len(template)
    required = frozenset(name for name, value in template.items() if value is _MISSING)

    def make(**fields: Any) -> T:
        state = template.copy()
        state.update(fields)
        if len(state) != size or not fields.keys() >= required:
            raise TypeError(f"{cls.__name__}: fields {sorted(fields)} do not match the class")
        made = _new(cls)
        _set(made, "__dict__", state)
        return made

    make.__name__ = f"make_{cls.__name__}"
    return make
