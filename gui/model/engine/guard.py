"""Runtime half of the safety layer, used only inside the child process that runs code.

:func:`gui.model.safety.check_source` refuses unsafe *names*; what a name turns out to be
is only known at run time (``torch.platform`` is the ``platform`` module, ``torch.cond``
compiles code). :func:`guarded_getattr` sees every attribute read of the user's program
and refuses modules outside :data:`ALLOWED_MODULES` and functions or classes from
dangerous places. :func:`safe_builtins` is the whole builtin namespace the program gets.
Nothing here imports Qt; torch and numpy are imported lazily, on first use.
"""

from __future__ import annotations

import builtins
import functools
import sys
import types
from collections.abc import Callable, Sequence

from gui.model import safety

ALLOWED_MODULES: frozenset[str] = frozenset(
    {
        "torch",
        "torch.nn",
        "torch.nn.functional",
        "torch.autograd",
        "torch.autograd.functional",
        "torch.linalg",
        "torch.special",
        "torch.fft",
        "math",
        "numpy",
        "numpy.linalg",
        "numpy.random",
    }
)
# Functions and classes defined in these modules (or below them) are refused whatever
# name they are reached under: they reach files, processes, native code, compilers or
# process-wide state. "torch._" as a whole is not here: Tensor.backward lives in
# torch._tensor and torch.special functions in torch._C._special.
DENIED_MODULE_PREFIXES: tuple[str, ...] = (
    "os", "posix", "nt", "sys", "subprocess", "_posixsubprocess", "importlib", "io", "_io",
    "pathlib", "shutil", "socket", "_socket", "pickle", "_pickle", "marshal", "ctypes",
    "_ctypes", "inspect", "glob", "platform", "threading", "_thread", "multiprocessing",
    "signal", "tempfile", "runpy", "code", "codeop", "webbrowser", "urllib", "http", "gc",
    "torch.serialization", "torch.hub", "torch.jit", "torch.utils", "torch.ops",
    "torch._ops", "torch.library", "torch._library", "torch.cuda", "torch.distributed",
    "torch.multiprocessing", "torch.package", "torch.onnx", "torch.fx", "torch.export",
    "torch._export", "torch.compiler", "torch._dynamo", "torch._inductor",
    "torch._higher_order_ops", "torch._utils_internal", "torch._utils", "torch.storage",
    "torch.random", "torch.profiler", "torch.autograd.profiler", "torch.testing",
    "torch.backends", "numpy.lib._npyio_impl", "numpy.lib.npyio", "numpy.lib.format",
    "numpy.lib._format_impl", "numpy.lib._datasource", "numpy.ctypeslib",
    "numpy.testing", "numpy.f2py", "numpy._pytesttester", "numpy.distutils",
)  # fmt: skip
_FRAME_TYPES: tuple[type, ...] = (types.FrameType, types.CodeType, types.TracebackType)
_FUNCTION_TYPES: tuple[type, ...] = (
    types.FunctionType,
    types.BuiltinFunctionType,
    type(functools.lru_cache(maxsize=None)(len)),
)
_REAL_IMPORT = builtins.__import__


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


# Decision caches: attribute names already found harmless, instance types whose values
# are always harmless, verdicts per long-lived object (module, class, function) and per
# module name. They keep the common case (a tensor method, a float) to a few lookups.
_OK_NAMES: set[str] = set()
_SAFE_TYPES: set[type] = set()
_VERDICTS: dict[int, tuple[object, str | None]] = {}
_VERDICTS_LIMIT = 50_000
_MODULE_NAME_VERDICTS: dict[str, str | None] = {}
_denied_objects: dict[int, object] = {}
# Exceptions to the module rule: tutorials call these, and the engine resets what they set
# (the seed, print options) at the start of every run, so nothing leaks between runs.
_allowed_objects: dict[int, object] = {}
_storage_classes: tuple[type, ...] = ()


def _load_denied_objects() -> None:
    """Fill the identity denylist: dangerous objects, whatever name reaches them."""
    global _storage_classes
    import io

    import numpy
    import torch

    found: list[object] = [
        getattr(builtins, name)
        for name in (*safety.DENIED_BUILTIN_NAMES, "__import__", "__build_class__")
        if hasattr(builtins, name)
    ]
    found += [io.open, types.FunctionType, types.CodeType]
    for owner, names in (
        (torch, ("load", "save", "from_file", "set_default_tensor_type", "compile")),
        (torch, ("cond", "while_loop", "get_file_path")),
        (numpy, ("load", "save", "savez", "savez_compressed", "savetxt", "loadtxt")),
        (numpy, ("genfromtxt", "fromfile", "fromregex", "memmap")),
    ):
        found += [getattr(owner, name) for name in names if hasattr(owner, name)]
    _denied_objects.update((id(obj), obj) for obj in found)
    allowed = (torch.manual_seed, torch.seed, torch.initial_seed, torch.set_printoptions)
    _allowed_objects.update((id(obj), obj) for obj in allowed)
    _storage_classes = (torch.storage.TypedStorage, torch.UntypedStorage, torch.StorageBase)


def _module_name_problem(module_name: object) -> str | None:
    if not isinstance(module_name, str):
        return None
    if module_name not in _MODULE_NAME_VERDICTS:
        denied = any(
            module_name == prefix or module_name.startswith(prefix + ".")
            for prefix in DENIED_MODULE_PREFIXES
        )
        _MODULE_NAME_VERDICTS[module_name] = (
            f"it comes from {module_name}, which programs here cannot use." if denied else None
        )
    return _MODULE_NAME_VERDICTS[module_name]


def _judge(value: object) -> str | None:
    """Uncached verdict for a module, class, function or any other object."""
    if isinstance(value, types.ModuleType):
        if value.__name__ in ALLOWED_MODULES:
            return None
        return f"it is the module {value.__name__}, which programs here cannot use."
    if not _denied_objects:
        _load_denied_objects()
    if id(value) in _allowed_objects:
        return None
    if id(value) in _denied_objects:
        return "it can reach files, the system or Python's internals."
    if isinstance(value, type):
        if issubclass(value, _storage_classes):
            return "tensor storage cannot be used here."
        return _module_name_problem(value.__module__)
    if isinstance(value, _FUNCTION_TYPES):
        return _module_name_problem(getattr(value, "__module__", None))
    if isinstance(value, _FRAME_TYPES):
        return "it exposes the running program's internals."
    return _judge(type(value))


def _value_problem(value: object) -> str | None:
    """Say why ``value`` may not be handed to user code, or ``None`` when it may."""
    kind = type(value)
    if kind in _SAFE_TYPES:
        return None
    if kind is types.MethodType:
        return _value_problem(value.__func__)  # type: ignore[attr-defined]
    if kind is functools.partial:
        return _value_problem(value.func)  # type: ignore[attr-defined]
    if kind is types.BuiltinFunctionType:
        owner = value.__self__  # type: ignore[attr-defined]
        if owner is not None and not isinstance(owner, types.ModuleType | type):
            return None  # a method bound to an object, e.g. `x.add`: its name was checked
    cached = _VERDICTS.get(id(value))
    if cached is not None and cached[0] is value:
        return cached[1]
    problem = _judge(value)
    if isinstance(value, (types.ModuleType, type, *_FUNCTION_TYPES)):
        if len(_VERDICTS) > _VERDICTS_LIMIT:
            _VERDICTS.clear()
        _VERDICTS[id(value)] = (value, problem)
    elif problem is None:
        _SAFE_TYPES.add(kind)
    return problem


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


def guarded_getattr(obj: object, name: str) -> object:
    """Read ``obj.name`` for user code, refusing anything that is not plainly safe.

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
        value is a module outside :data:`ALLOWED_MODULES`, a function or class from
        :data:`DENIED_MODULE_PREFIXES` or otherwise known to be dangerous, or ``name`` is
        ``format``/``format_map`` on a string whose template looks inside its arguments.
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
    kind = type(value)
    if kind in _SAFE_TYPES:
        return value
    # Inline cache hit for the commonest non-trivial case: a method or a library function.
    key = value.__func__ if isinstance(value, types.MethodType) else value
    cached = _VERDICTS.get(id(key))
    problem = cached[1] if cached is not None and cached[0] is key else _value_problem(value)
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
    """The ``__import__`` user code gets: only the allowed modules, only safe names.

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
        star imports and imported names that the attribute rules refuse.
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
    for item in names:
        problem = _value_problem(getattr(module, item, None))
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
