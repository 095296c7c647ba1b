"""Runtime half of the Python wall, used only inside the child process that runs code.

:func:`gui.model.safety.check_source` refuses unsafe *constructs and names* before anything
runs; what a name turns out to be is only known at run time (``torch.PyTorchFileWriter``
writes files although torch calls it ``torch.X``). So every attribute read of the program
goes through :func:`guarded_getattr`, every import through :func:`safe_import`, and what
they would hand the program must be on the identity allowlist (:mod:`.allowlist`): tensor
math and autograd, nothing else. :func:`safe_builtins` is the whole builtin namespace the
program gets. Below this wall the operating system has a second one (:mod:`.os_wall`).
"""

from __future__ import annotations

import builtins
import sys
import types
from collections.abc import Callable, Sequence

from gui.model import safety
from gui.model.engine.allowlist import VALUE_TYPES, allowlist

_REAL_IMPORT = builtins.__import__
_BOUND_METHOD_TYPES = (types.MethodType, types.BuiltinMethodType)
# Verdicts on these are kept by identity: modules, classes and library functions live as
# long as the process (the cache keeps them alive, so an id is never reused).
_LONG_LIVED = (types.ModuleType, type, types.FunctionType)


class CodeRefusedAtRuntime(Exception):
    """Raised inside the child when running code reaches something it may not use.

    Parameters
    ----------
    message : str
        Plain-language explanation naming the construct; also ``str(error)``.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


# Decision caches. The common reads (a tensor's method, a float, a torch function) must
# cost a dictionary lookup: a training loop reads attributes millions of times.
_OK_NAMES: set[str] = set()  # names the static rules allow
_SAFE_TYPES: set[type] = set()  # exact types whose every instance is plain data
_METHOD_VERDICTS: dict[tuple[type, str], str | None] = {}  # bound methods, by owner type
_VALUE_VERDICTS: dict[int, tuple[object, str | None]] = {}  # functions, classes, modules
_VERDICTS_LIMIT = 50_000


def _describe(obj: object, name: str) -> str:
    if isinstance(obj, types.ModuleType | type):
        return f"{obj.__name__}.{name}"
    return f"{type(obj).__name__}.{name}"


def _check_format(obj: object, name: str) -> None:
    """``str.format`` reads attributes named in its template (``"{0.__class__}"``)."""
    if isinstance(obj, str):
        if not safety.format_string_is_safe(obj):
            raise CodeRefusedAtRuntime(
                f"`{name}` is not available on this string: replacement fields with `.` or "
                '`[` look inside objects; use an f-string such as f"{x.grad}" instead.'
            )
    elif isinstance(obj, type) and issubclass(obj, str):
        raise CodeRefusedAtRuntime(
            f"`{_describe(obj, name)}` is not available: call `{name}` directly on a "
            'written-out string like "{} {}".format(a, b).'
        )


def value_problem(value: object) -> str | None:
    """Why ``value`` may not be handed to the program, or ``None`` when it may."""
    kind = type(value)
    if kind in _SAFE_TYPES:
        return None
    if kind in _BOUND_METHOD_TYPES:
        owner = getattr(value, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            if allowlist().allows_object(value):  # e.g. np.random.rand, held by numpy
                return None
            return _method_problem(owner, getattr(value, "__name__", ""))
    cached = _VALUE_VERDICTS.get(id(value))
    if cached is not None and cached[0] is value:
        return cached[1]
    problem = allowlist().problem(value)
    if isinstance(value, _LONG_LIVED):
        if len(_VALUE_VERDICTS) > _VERDICTS_LIMIT:
            _VALUE_VERDICTS.clear()
        _VALUE_VERDICTS[id(value)] = (value, problem)
    elif problem is None and isinstance(value, VALUE_TYPES) and not isinstance(value, type):
        _SAFE_TYPES.add(kind)  # data of this exact type: never code, never a container
    return problem


def _method_problem(owner: object, name: str) -> str | None:
    key = (owner if isinstance(owner, type) else type(owner), name)
    verdict = _METHOD_VERDICTS.get(key, "?")
    if verdict == "?":
        allowed = allowlist().method_allowed(owner, name)
        verdict = None if allowed else f"{name} is not one of the methods programs can call."
        _METHOD_VERDICTS[key] = verdict
    return verdict


def guarded_getattr(obj: object, name: str) -> object:
    """Read ``obj.name`` for user code, refusing anything that is not on the allowlist.

    Parameters
    ----------
    obj : object
        The object whose attribute the program reads.
    name : str
        The attribute name, as written in the program.

    Returns
    -------
    object
        ``getattr(obj, name)``; an ``AttributeError`` propagates unchanged.

    Raises
    ------
    CodeRefusedAtRuntime
        When the name is refused by :func:`gui.model.safety.attribute_refusal_reason`, the
        value is not allowed by :mod:`.allowlist` (a module, function, class or object that
        is not tensor math or autograd), or ``name`` is ``format``/``format_map`` on a
        string whose template looks inside its arguments.
    """
    if name not in _OK_NAMES:
        if name in safety.FORMAT_METHODS:
            _check_format(obj, name)
        else:
            reason = safety.attribute_refusal_reason(name)
            if reason is not None:
                raise CodeRefusedAtRuntime(f"`{_describe(obj, name)}` is not available: {reason}")
            _OK_NAMES.add(name)
    value = getattr(obj, name)
    if type(value) in _SAFE_TYPES:
        return value
    problem = value_problem(value)
    if problem is not None:
        raise CodeRefusedAtRuntime(f"`{_describe(obj, name)}` is not available: {problem}")
    return value


def _library_import(name: str) -> bool:
    return name in sys.modules or name.partition(".")[0] in ("torch", "numpy")


def safe_import(
    name: str,
    globals: dict[str, object] | None = None,
    locals: dict[str, object] | None = None,
    fromlist: Sequence[str] | None = (),
    level: int = 0,
) -> types.ModuleType:
    """The ``__import__`` user code gets: only the allowed modules, only allowed names.

    Parameters
    ----------
    name, globals, locals, fromlist, level
        As for :func:`builtins.__import__`; ``globals`` and ``locals`` are ignored.

    Returns
    -------
    types.ModuleType
        What the real ``__import__`` returns: the top package for ``import a.b``, the
        module itself for ``from a.b import c``.

    Raises
    ------
    CodeRefusedAtRuntime
        For relative imports, modules outside :data:`gui.model.safety.ALLOWED_IMPORTS`,
        star imports and imported names whose values the allowlist refuses.
    """
    if type(fromlist) is list and not fromlist and level == 0 and _library_import(name):
        # Only C code calls __import__ like this (PyImport_Import: an empty list, result
        # discarded, the module then read from sys.modules), e.g. torch loading
        # torch.storage on the first tensor while a user frame runs. Import statements
        # pass None or a tuple and user code cannot call __import__ itself, so the module
        # never reaches the program.
        return _REAL_IMPORT(name, None, None, (), 0)
    names = tuple(fromlist or ())
    if level != 0 or name not in safety.ALLOWED_IMPORTS:
        shown = "." * level + name
        raise CodeRefusedAtRuntime(f"`import {shown}` is not available: {safety.IMPORT_HELP}")
    if name == "__future__":
        return _REAL_IMPORT(name, None, None, names, 0)
    for item in names:
        reason = (
            "import the names you need one by one."
            if item == "*"
            else safety.attribute_refusal_reason(item)
        )
        if reason is not None:
            raise CodeRefusedAtRuntime(f"`from {name} import {item}` is not available: {reason}")
    module = _REAL_IMPORT(name, None, None, names, 0)
    if not names:  # `import a.b`: the program reaches a.b by name
        problem = value_problem(sys.modules[name])
        if problem is not None:
            raise CodeRefusedAtRuntime(f"`import {name}` is not available: {problem}")
    for item in names:
        problem = value_problem(getattr(module, item, None))
        if problem is not None:
            raise CodeRefusedAtRuntime(f"`from {name} import {item}` is not available: {problem}")
    return module


def safe_builtins(print_function: Callable[..., object]) -> dict[str, object]:
    """Build the ``__builtins__`` dict a user program runs with.

    Parameters
    ----------
    print_function : callable
        Receives the program's ``print(...)`` calls (same arguments as :func:`print`).

    Returns
    -------
    dict
        :data:`gui.model.safety.SAFE_BUILTIN_NAMES` mapped to the real builtins, ``print``
        mapped to a plain wrapper around ``print_function`` (so user code cannot reach the
        engine through attributes of whatever object it is), ``__import__`` mapped to
        :func:`safe_import` and ``__ae_getattr__`` to :func:`guarded_getattr`.
    """

    def print_(*args: object, **kwargs: object) -> None:
        print_function(*args, **kwargs)

    print_.__name__ = print_.__qualname__ = "print"
    table: dict[str, object] = {
        name: getattr(builtins, name) for name in sorted(safety.SAFE_BUILTIN_NAMES)
    }
    table["print"] = print_
    table["__import__"] = safe_import
    table[safety.GETATTR_NAME] = guarded_getattr
    return table
