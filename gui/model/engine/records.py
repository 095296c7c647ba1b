"""Making the result's frozen records quickly, for the tens of thousands a big graph needs.

A frozen dataclass's ``__init__`` sets each field with ``object.__setattr__``, one Python
call per field: a :class:`~gui.model.result.GraphNode` of ten fields costs about 2 µs, and
a 5,000-function graph makes some 100,000 records (nodes, edges, saved values, flows,
tensor data). :func:`quick_maker` makes the same instance by giving it its whole
``__dict__`` at once, written out as one dict display in a function made for the class
(as :mod:`dataclasses` makes ``__init__``): a fifth of the cost.

The instance is the one ``__init__`` would make: every field set, in the class's field
order, defaults where not given; equal to and pickled like one made by ``__init__``. The
maker takes the same arguments, positional or by name, and refuses the same mistakes
(a missing field, an unknown one) with ``TypeError``. Only classes where that holds are
accepted: no ``__post_init__`` (it would be skipped), no ``default_factory`` (a shared
default would be one mutable object for all) and no keyword-only fields.
"""

from __future__ import annotations

import dataclasses
import keyword
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# The names the made function uses besides its fields (a field must not shadow them).
_HELPERS = frozenset({"_new", "_set", "_cls", "_made"})


def quick_maker(cls: type[T]) -> Callable[..., T]:
    """A function ``make(*fields, **fields)`` that returns ``cls(...)`` without its
    ``__init__``.

    Raises ``TypeError`` (when the maker is made, at import) for a class it cannot make
    exactly, and (when called) for a call that leaves a field without a value or names
    one the class does not have, as ``__init__`` would.
    """
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: only a dataclass without __post_init__")
    parameters: list[str] = []
    defaults: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: a default_factory field")
        if f.kw_only or not f.name.isidentifier() or keyword.iskeyword(f.name):
            raise TypeError(f"{cls.__name__}.{f.name}: not a plain positional field")
        if f.name in _HELPERS or f.name.startswith("_default_"):
            raise TypeError(f"{cls.__name__}.{f.name}: a name the maker uses itself")
        if f.default is dataclasses.MISSING:
            parameters.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            parameters.append(f"{f.name}=_default_{f.name}")
    names = [f.name for f in dataclasses.fields(cls)]
    state = ", ".join(f"{name!r}: {name}" for name in names)
    # Made inside a factory: what ``make`` uses is read from its closure's cells, faster
    # than from a module's globals (a tenth of its cost).
    helpers = ", ".join(["_new", "_set", "_cls", *defaults])
    source = (
        f"def factory({helpers}):\n"
        f"    def make({', '.join(parameters)}):\n"
        "        _made = _new(_cls)\n"
        f"        _set(_made, '__dict__', {{{state}}})\n"
        "        return _made\n"
        "    return make\n"
    )
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # our own source, made of the class's field names only
    make: Callable[..., T] = namespace["factory"](
        object.__new__, object.__setattr__, cls, *defaults.values()
    )
    make.__name__ = make.__qualname__ = f"make_{cls.__name__}"
    return make
