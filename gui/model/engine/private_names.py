"""Which ``_private`` names are a program's own on a class that builds on a library class.

A program's plain classes own every ``_name`` in them (:func:`.allowlist.is_own_object`).
A layer the program writes builds on ``nn.Module``, whose ``_parameters``, ``_modules`` and
hook dicts are torch's internals: so ``self._embedding_dim`` (the VQ-VAE's, a common way to
keep a layer's settings) was refused with them. Here a ``_name`` on an instance of a
program's class (or on the class) is the program's when no library class it builds on
holds or uses that name: not in any of their class dicts, nor read, written or spelled out
in their methods' code (``self._backward_hooks``, ``super().__setattr__("_parameters",
{})``). What library code touches is harvested from the code itself, once per library
class; a library class written in C (its attributes are slots no code names) keeps every
``_name`` refused, as does the engine's own ``_ae`` prefix. A value read back is still
judged by the allowlist like any other (see :func:`.guard.guarded_getattr`).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterator

from gui.model import safety
from gui.model.engine.parametrize_stand_in import MADE_BY_REGISTERING
from gui.model.engine.refusal import PROGRAM_CLASSES

# Markers the engine sets on library classes and objects (``_ae_guarded``...).
ENGINE_PREFIX = "_ae"


def program_private_name(obj: object, name: str) -> bool:
    """Whether ``obj._name`` is the program's own (see the module docstring)."""
    if not safety.is_private_name(name) or name.startswith(ENGINE_PREFIX):
        return False
    cls = obj if isinstance(obj, type) else type(obj)
    if cls not in PROGRAM_CLASSES and not made_for_program_class(cls):
        return False
    for klass in cls.__mro__:
        if klass in PROGRAM_CLASSES or klass is object:
            continue
        # (torch's made class gains a property with each registration: never kept)
        used = _harvest(klass) if klass in MADE_BY_REGISTERING else _names_used_by(klass)
        if used is None or name in used:
            return False
    return True


def made_for_program_class(cls: type) -> bool:
    """``cls`` is the class torch's ``register_parametrization`` made for a program's layer
    (``ParametrizedNet`` over the program's ``Net``): the layer keeps its program's
    ``_names``, except those torch's made class holds or uses (its properties for the
    parametrized tensors), judged with the library classes below."""
    return cls in MADE_BY_REGISTERING and cls.__bases__[0] in PROGRAM_CLASSES


def names_used_by(klass: type) -> frozenset[str] | None:
    """Every ``_name`` library class ``klass`` holds or its code names (``None``: unknown,
    written in C); what a program's class body may not bind either (see the guard's
    ``_check_library_internals_kept``)."""
    return _names_used_by(klass)


def _harvest(klass: type) -> frozenset[str] | None:
    """Every ``_name`` library class ``klass`` holds or its code names (``None``: written
    in C, its names unknown)."""
    if not klass.__flags__ & _HEAP_TYPE:
        return None
    names: set[str] = set(vars(klass)) | set(vars(klass).get("__annotations__", {}))
    for value in vars(klass).values():
        for code in _codes_of(value):
            names.update(code.co_names)
            names.update(c for c in code.co_consts if type(c) is str)
    return frozenset(n for n in names if n.startswith("_"))


# Library classes live as long as the process and keep their entries: harvested once.
_names_used_by = functools.lru_cache(maxsize=512)(_harvest)

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, not in C


def _codes_of(value: object) -> Iterator[types.CodeType]:
    """The code objects of a class entry: a function's (and those it wraps or nests), a
    property's getter, setter and deleter, a class or static method's function, a
    partial's. All of them, however deep: library code is finite, and a name missed would
    be a name allowed."""
    pending: list[object] = [value]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, types.CodeType):
            yield item
            pending.extend(c for c in item.co_consts if isinstance(c, types.CodeType))
        elif isinstance(item, types.FunctionType):
            pending.append(item.__code__)
            wrapped = item.__dict__.get("__wrapped__")
            if wrapped is not None:
                pending.append(wrapped)
        elif isinstance(item, property):
            pending.extend(f for f in (item.fget, item.fset, item.fdel) if f)
        elif isinstance(item, classmethod | staticmethod):
            pending.append(item.__func__)
        elif isinstance(item, functools.partial | functools.partialmethod):
            pending.append(item.func)
