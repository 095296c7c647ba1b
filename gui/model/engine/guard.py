"""Runtime half of the Python wall, used only inside the child process that runs code.

:func:`gui.model.safety.check_source` refuses unsafe *constructs and names* before anything
runs; what a name turns out to be is only known at run time (``torch.PyTorchFileWriter``
writes files although torch calls it ``torch.X``). So every attribute read of the program
goes through :func:`guarded_getattr`, every import through :func:`safe_import`, and what
they would hand the program must be on the identity allowlist (:mod:`.allowlist`): tensor
math and autograd, nothing else. :func:`safe_builtins` is the whole builtin namespace the
program gets. Below this wall the operating system has a second one (:mod:`gui.model.os_wall`).
"""

from __future__ import annotations

import builtins
import collections
import dis
import inspect
import sys
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import torch

from gui.model import safety
from gui.model.engine import program_code
from gui.model.engine.allowlist import (
    VALUE_TYPES,
    allowlist,
    base_class_allowed,
    is_own_object,
    is_program_code,
    stand_in_for,
)
from gui.model.engine.autograd_nodes import (
    UNMAKEABLE_NODE_CLASSES,
    NodeView,
    RawSavedTensor,
    is_allowed_context,
    is_allowed_context_type,
    is_saved_attribute,
    node_view,
)
from gui.model.engine.library_stand_ins import instances_only
from gui.model.engine.private_names import (
    made_for_program_class,
    names_used_by,
    program_private_name,
)
from gui.model.engine.refusal import PROGRAM_CLASSES, CodeRefusedAtRuntime

_REAL_IMPORT = builtins.__import__
_BOUND_METHOD_TYPES = (types.MethodType, types.BuiltinMethodType)
# Verdicts on these are kept by identity: modules, classes and functions.
_LONG_LIVED = (types.ModuleType, type, types.FunctionType)


# Decision caches. The common reads (a tensor's method, a float, a torch function) must
# cost a dictionary lookup: a training loop reads attributes millions of times.
#
# The caches hold what they judged *weakly*, never alive: a program's classes and
# functions are judged too, and holding one would hold its module's globals, that is the
# program's whole namespace, past the end of its run. Its suspended generators would then
# never be closed (one inside `with torch.inference_mode():` keeps the next run of the
# program in inference mode) and its finalisers would run in a later run. A weak
# reference also keeps the id check sound: once the object is gone, the entry no longer
# matches whatever reuses its id.
_OK_NAMES: set[str] = set()  # names the static rules allow
# Exact types whose every instance is plain data: only library types that live as long as
# the process (on the list, or one of VALUE_TYPES themselves), never a program's class.
_SAFE_TYPES: set[type] = set()
_METHOD_VERDICTS: dict[tuple[int, str], tuple[weakref.ref[type], str | None]] = {}
_VALUE_VERDICTS: dict[int, tuple[weakref.ref[object], str | None]] = {}
_VERDICTS_LIMIT = 50_000
# What reading a module's attribute handed out, by (id(module), name): (the module, the
# object it held under that name, what the program got). Modules live as long as the
# process and programs cannot write to them, so the same object under the same name is
# judged the same: a loop's `torch.sin` is judged once (4 us a read, a tenth of a
# 5,000-function drag tick), not once per iteration. Never for names whose read has
# effects of its own (:data:`_UNCACHED_NAMES`).
_MODULE_READS: dict[tuple[int, str], tuple[types.ModuleType, object, object]] = {}


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


def forget_verdicts() -> None:
    """Drop the cached verdicts on functions, classes and methods: after the allowlist
    grew (:meth:`.allowlist.Allowlist.complete`), a refusal cached before may be wrong."""
    _METHOD_VERDICTS.clear()
    _VALUE_VERDICTS.clear()
    _MODULE_READS.clear()


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
            problem = _method_problem(owner, getattr(value, "__name__", ""))
            if problem is not None and kind is types.MethodType:
                # What runs is the method's function: the program's own, one of torch's
                # wrappers around it, or a listed one reached through `super()`.
                func = getattr(value, "__func__", None)
                if is_program_function(func) or allowlist().allows_object(func):
                    return None
            return problem
    cached = _VALUE_VERDICTS.get(id(value))
    if cached is not None and cached[0]() is value:
        return cached[1]
    problem = allowlist().problem(value)
    if isinstance(value, _LONG_LIVED):
        if len(_VALUE_VERDICTS) > _VERDICTS_LIMIT:
            _VALUE_VERDICTS.clear()
        _VALUE_VERDICTS[id(value)] = (weakref.ref(value), problem)
    elif (
        problem is None
        and isinstance(value, VALUE_TYPES)
        and not isinstance(value, type)
        and (kind in VALUE_TYPES or allowlist().allows_object(kind))
    ):
        _SAFE_TYPES.add(kind)  # data of this exact type: never code, never a container
    return problem


def _method_problem(owner: object, name: str) -> str | None:
    cls = owner if isinstance(owner, type) else type(owner)
    key = (id(cls), name)
    cached = _METHOD_VERDICTS.get(key)
    if cached is not None and cached[0]() is cls:
        return cached[1]
    allowed = allowlist().method_allowed(owner, name)
    verdict = None if allowed else f"{name} is not one of the methods programs can call."
    if len(_METHOD_VERDICTS) > _VERDICTS_LIMIT:
        _METHOD_VERDICTS.clear()
    _METHOD_VERDICTS[key] = (weakref.ref(cls), verdict)
    return verdict


def guarded_getattr(obj: object, name: str) -> object:
    """Read ``obj.name`` for user code, refusing anything that is not on the allowlist.

    A module's attribute read before is handed out as it was when the module still holds
    the same object under that name (see :data:`_MODULE_READS`); anything else is judged
    by :func:`_judged_getattr`.

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
    if type(obj) is types.ModuleType and type(name) is str:
        read = _MODULE_READS.get((id(obj), name))
        if read is not None and read[0] is obj and getattr(obj, name) is read[1]:
            return read[2]
        handed = _judged_getattr(obj, name)
        if name not in _UNCACHED_NAMES:
            if len(_MODULE_READS) > _VERDICTS_LIMIT:
                _MODULE_READS.clear()
            _MODULE_READS[(id(obj), name)] = (obj, getattr(obj, name), handed)
        return handed
    return _judged_getattr(obj, name)


def _judged_getattr(obj: object, name: str) -> object:
    """:func:`guarded_getattr`'s judgement of one read, every rule applied."""
    if type(name) is not str:
        raise TypeError("attribute name must be string")
    if name == safety.READABLE_CLASS_ATTRIBUTE:
        return _guarded_type(obj)  # `x.__class__` is `type(x)`, with its checks
    if name == safety.READABLE_VERSION_ATTRIBUTE:
        return _version_string(obj)
    bound = getattr(obj, "__self__", None) if type(obj) is super else None
    if isinstance(bound, torch.Tensor):
        # No program class builds on a tensor, so `super(torch.Tensor, t).name` only ever
        # skips torch.Tensor's own entries, where the app's stand-ins sit (`numpy` copying
        # whole numbers, `new_tensor` reading tuples...): inside a backward's hook, where no
        # torch function mode looks the name up on torch.Tensor again, it was torch's
        # native method, and `numpy()` shared saved indices' memory (round 12). It is `t.name`.
        return guarded_getattr(bound, name)
    if type(obj) is NodeView:  # the node's own attribute, read as the node's, then viewed
        return node_view(guarded_getattr(obj._node, name))
    if name not in _OK_NAMES:
        if name in safety.FORMAT_METHODS:
            _check_format(obj, name)
        elif safety.is_private_name(name) or name == "__init__":
            _check_private_read(obj, name)
        elif name == safety.READABLE_DUNDER_ATTRIBUTE:
            pass  # a name, read only: the value is checked below like any other
        else:
            reason = safety.attribute_refusal_reason(name)
            if reason is None:
                _OK_NAMES.add(name)
            elif not _program_hook_name(obj, name):  # allowed on this object only: not cached
                if name in _GPU_NAMES:
                    reason = _NO_GPU
                raise CodeRefusedAtRuntime(f"`{_describe(obj, name)}` is not available: {reason}")
    if name.startswith("_raw_saved_") and is_saved_attribute(obj, name):
        return RawSavedTensor(obj, name)  # never torch's bare reference (see autograd_nodes)
    if name == "metadata" and isinstance(obj, torch.autograd.graph.Node):
        raise CodeRefusedAtRuntime(f"`{_describe(obj, name)}` is not available: {_NODE_METADATA}")
    subject = _tensor_subject(obj)
    if name == "data" and isinstance(subject, torch.Tensor) and not _has_fractions(subject):
        # torch's `.data` is the same memory with a version counter of its own: changed in
        # place (`idx.data.fill_(10**7)`), the indices a backward saved (max pooling's,
        # an embedding's input) changed without torch knowing, and its kernels wrote where
        # they pointed. `detach()` is the same memory with the same counter: torch then
        # refuses the backward ("modified by an inplace operation"). Fractions index nothing.
        return subject.detach()
    value = getattr(obj, name)
    if type(value) in _SAFE_TYPES:
        return value
    value = stand_in_for(value)
    problem = _init_problem(obj, value) if name == "__init__" else value_problem(value)
    if problem is None and isinstance(value, _COLLECTIONS):
        problem = _shared_collection_problem(obj, name, value)
    if problem is not None:
        if name in _GPU_NAMES:
            problem = _NO_GPU
        raise CodeRefusedAtRuntime(f"`{_describe(obj, name)}` is not available: {problem}")
    if name in _NODE_NAMES:
        return node_view(value)  # read, never called (see autograd_nodes.NodeView)
    if name == "view" and subject is not None:
        return _checked_view(subject if isinstance(subject, torch.Tensor) else None)
    if name in safety.ALLOWED_HOOK_NAMES or name == "apply":
        program_code.note_in_autograd()
    if (
        isinstance(obj, type)
        and type(value) is types.FunctionType
        and not is_program_function(value)
        and type(inspect.getattr_static(obj, name, None)) is types.FunctionType
    ):
        # A library's function read from a class, its own or a program's subclass of it
        # (`M.train(F, False)` with `class M(nn.Module)`): its `self` must be an instance
        # of the library class that defines it.
        owner = _defining_class(obj, name)
        if owner is not None and owner not in PROGRAM_CLASSES:
            return instances_only(owner, value)
    if type(obj) is super and type(value) is types.FunctionType and not is_program_function(value):
        # `super(M, M).train` (a class as the second argument) is the library's function
        # itself, unbound: its `self` is checked the same way as a read from the class.
        owner = _found_through_super(obj, name)
        if owner is not None and owner not in PROGRAM_CLASSES:
            return instances_only(owner, value)
    return value


def _tensor_subject(obj: object) -> torch.Tensor | type[torch.Tensor] | None:
    """The tensor a read from ``obj`` is a read of (``torch.Tensor`` itself for a read of
    an unbound method), or ``None``. The rules for a tensor's ``.data`` and ``.view`` hold
    however the program reaches torch's own: ``super(torch.Tensor, i).data`` and
    ``super(torch.Tensor, i).view(torch.float64)`` (``x.__class__`` is ``torch.Tensor``)
    are ``i``'s, and ``torch.nn.Parameter.view`` is ``torch.Tensor.view`` (round 12: the
    bare ``.data`` of whole numbers, then a backward wrote where they pointed)."""
    if type(obj) is super:
        obj = getattr(obj, "__self__", None)
    if isinstance(obj, torch.Tensor):
        return obj
    if isinstance(obj, type) and issubclass(obj, torch.Tensor):
        return torch.Tensor
    return None


def _found_through_super(view: object, name: str) -> type | None:
    """The class whose own namespace ``view.name`` comes from (``super()`` searches the
    classes after ``__thisclass__`` in the MRO of ``__self_class__``, never an instance)."""
    found: Any = view
    after = found.__thisclass__
    mro = getattr(found.__self_class__, "__mro__", ())
    if after not in mro:
        return None
    for klass in mro[mro.index(after) + 1 :]:
        if name in vars(klass):
            return klass
    return None


# Collections a program could change in place (item assignment, `append`): nothing
# guards those writes, so a collection the whole process shares must not be handed out.
_MUTABLE_COLLECTIONS = (list, dict, set, collections.deque, bytearray)
_COLLECTIONS = (*_MUTABLE_COLLECTIONS, tuple, frozenset)
_SHARED_COLLECTION = (
    "it is a collection that this library shares with every program the process runs; a "
    "change to it would reach later runs. Keep your own values in a variable instead."
)


def _shared_collection_problem(owner: object, name: str, value: object) -> str | None:
    """Why ``owner.name`` (a collection) may not be handed out: it is (or holds) a mutable
    collection kept by a module or a library class, which lives as long as the process
    (``F.reproducibility_notes``, ``typing.EXCLUDED_ATTRIBUTES``, ``np.typecodes``). A
    run that writes there (a count, a suspended generator) leaves it for the next run.
    The program's own objects and those it made (a layer's, an optimizer's) are its own."""
    if not _holds_mutable(value):
        return None
    if isinstance(owner, types.ModuleType):
        return _SHARED_COLLECTION
    if type(owner) is super:  # found in a class's namespace, never an instance's
        defining = _found_through_super(owner, name)
        return None if defining is None or defining in PROGRAM_CLASSES else _SHARED_COLLECTION
    cls = owner if isinstance(owner, type) else type(owner)
    if not isinstance(owner, type) and inspect.getattr_static(cls, name, None) is not value:
        return None  # the instance's own attribute (`opt.param_groups`)
    defining = _defining_class(cls, name)
    if defining is not None and defining not in PROGRAM_CLASSES:
        return _SHARED_COLLECTION  # kept by a library class, read through it or an instance
    return None


def _holds_mutable(value: object, depth: int = 0) -> bool:
    if isinstance(value, _MUTABLE_COLLECTIONS):
        return True
    if isinstance(value, tuple | frozenset) and depth < 20:
        return any(_holds_mutable(item, depth + 1) for item in value)
    return False


def _defining_class(cls: type, name: str) -> type | None:
    """The class in ``cls``'s MRO whose own namespace holds ``name``."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass
    return None


# A node's `metadata` is the dict where anomaly mode keeps the forward's traceback and the
# node's "parent_"; when a backward fails in anomaly mode, torch's C++ walks the "parent_"
# chain with borrowed references (`parent_.metadata`, `parent_.name()`), so a program's
# object there (a property handing out a fresh dict each time) had torch read objects it
# had just freed.
_NODE_METADATA = (
    "an autograd node's metadata is where anomaly mode keeps what torch reads when a "
    "backward fails; keep your own values in a variable instead."
)
# Where a program finds autograd nodes: a tensor's, and a node's (a custom Function's
# `ctx` too) edges to the next ones.
_NODE_NAMES = frozenset({"grad_fn", "next_functions"})
# Reads that do more than hand out a value (a node's view, the hook note, a tensor's
# checked `.view`/`.data`, the version string copy): judged every time, even on a module.
_UNCACHED_NAMES = (
    _NODE_NAMES
    | safety.ALLOWED_HOOK_NAMES
    | {"apply", "view", "data", "metadata", "__init__"}
    | {safety.READABLE_CLASS_ATTRIBUTE, safety.READABLE_VERSION_ATTRIBUTE}
)
_GPU_NAMES = frozenset({"cuda", "mps", "xpu"})
_NO_GPU = (
    "this app computes on the CPU only, there is no GPU here; leave `.cuda()` out, or use "
    "`.to(device)` with `device = 'cuda' if torch.cuda.is_available() else 'cpu'` (the "
    "numbers are the same on the CPU)."
)


def reset_run_state() -> None:
    """Forget what the previous run of this process did (call before each run)."""
    program_code.reset()


def _version_string(obj: object) -> str:
    """``torch.__version__``, ``np.__version__``: a module's version as a plain string copy
    (torch's is a ``str`` subclass comparing as a version; printed, it is the same text).
    Only of a module the program may hold (listed by identity), never of another object."""
    value = getattr(obj, "__version__", None) if isinstance(obj, types.ModuleType) else None
    if value_problem(obj) is not None or not isinstance(value, str):
        raise CodeRefusedAtRuntime(
            f"`{_describe(obj, '__version__')}` is not available: only the version string of "
            "a module a program can use (`torch.__version__`) can be read."
        )
    return str.__str__(value)


def _check_private_read(obj: object, name: str) -> None:
    """``v._prev`` only on the program's own objects; ``__init__`` only as a method."""
    if name == "__init__":
        return  # judged by what it finds (:func:`_init_problem`)
    if is_saved_attribute(obj, name):
        return  # what a C++ autograd node saved for backward, judged by value
    if _program_method(obj, name):
        return  # `self._init_weights` (nanoGPT): a function the program's own class defines
    if program_private_name(obj, name):
        return  # `self._embedding_dim` on the program's layer: no library class uses it
    if not is_own_object(obj):
        raise CodeRefusedAtRuntime(
            f"`{_describe(obj, name)}` is not available: names that start with an underscore "
            "are torch's or Python's internals (the program's own classes may use those that "
            "torch's classes they build on do not, like `self._dim` on a layer, and an "
            "autograd node its `_saved_*` values)."
        )


def _program_method(obj: object, name: str) -> bool:
    """``name`` is first found on a class the program defined (a layer's subclass too), as a
    plain function the program wrote, and the instance holds no such entry of its own: the
    read gives the program's own code back, never a torch internal (torch's `_private`
    names sit on torch's classes, later in the MRO, or in the instance's dict)."""
    if not isinstance(obj, type):
        try:
            entries = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            entries = {}
        if name in entries:
            return False
    for klass in (obj if isinstance(obj, type) else type(obj)).__mro__:
        if name in klass.__dict__:
            return klass in PROGRAM_CLASSES and is_program_code(klass.__dict__[name])
    return False


def _init_problem(obj: object, value: object) -> str | None:
    """``super().__init__`` / ``nn.Module.__init__``: a constructor of an allowed class."""
    func = getattr(value, "__func__", value)
    if allowlist().allows_object(func) or is_program_function(func):
        return None
    if type(value) is _METHOD_WRAPPER and type(getattr(value, "__self__", None)) in PROGRAM_CLASSES:
        return None  # object.__init__ or an exception's, reached by super() in a class
    return "only the constructors of the program's classes and of torch's layers can be called."


_METHOD_WRAPPER = type(object().__str__)


def is_program_function(value: object) -> bool:
    """A function the program wrote, or torch's decorator wrapping one (``@torch.no_grad()``)."""
    return allowlist().trusted_function(value)


# Settings torch keeps for a GPU; writing them on the CPU changes nothing.
_GPU_SETTINGS = frozenset({"deterministic", "benchmark", "enabled"})


def guarded_setattr(obj: object, name: str, value: object) -> None:
    """``obj.name = value`` for user code: only on objects the program may shape.

    The program's own objects and classes, layers (``nn.Module``), a custom Function's
    ``ctx``, and a tensor's ``.grad``, ``.data`` and ``.requires_grad``. Never a module, a
    function or one of torch's classes: those are shared by the whole process.
    """
    if type(name) is not str:
        raise TypeError("attribute name must be string")
    if name in _GPU_SETTINGS and obj is getattr(torch.backends, "cudnn", None):
        return  # no cuDNN on the CPU: the setting has nothing to change
    reason = _write_refusal(obj, name)
    if reason is None and isinstance(obj, torch.Tensor):
        if name not in safety.WRITABLE_ATTRIBUTES and not _tensor_note(obj, name, value):
            reason = (
                "only `.grad`, `.data` and `.requires_grad` of a tensor can be set, and a "
                "new name of the program's own holding a tensor (`inp.g = out.g @ w.t()`)."
            )
        elif (
            name == "data"
            and isinstance(value, torch.Tensor)
            and not (_has_fractions(obj) and _has_fractions(value))
        ):
            reason = _WHOLE_NUMBER_DATA
        elif name == "data" and isinstance(value, torch.Tensor) and _other_form(obj, value):
            reason = _OTHER_FORM_DATA
    if reason is not None:
        raise CodeRefusedAtRuntime(f"`{_describe(obj, name)}` cannot be changed: {reason}")
    setattr(obj, name, value)


def _tensor_note(obj: torch.Tensor, name: str, value: object) -> bool:
    """``inp.g = out.g @ w.t()`` (fast.ai's "from the foundations" notebooks keep each
    hand-computed gradient on its tensor): a public name that no class of the tensor
    defines (so it shadows nothing torch or the app reads: not `grad_fn`, `shape`,
    `names`...), on a plain tensor or Parameter, holding a tensor or ``None``. It lands in
    the tensor's own ``__dict__``, which torch copies only in ``__deepcopy__`` (tensors
    copy as tensors) and never reads otherwise; no file, process, native code or hook."""
    return (
        type(obj) in (torch.Tensor, torch.nn.Parameter)
        and name.isidentifier()
        and not name.startswith("_")
        and not any(name in vars(klass) for klass in type(obj).__mro__)
        and (value is None or type(value) in (torch.Tensor, torch.nn.Parameter))
    )


def guarded_delattr(obj: object, name: str) -> None:
    """``del obj.name`` for user code: where the program may set an attribute, it may
    delete one (``del ctx.result`` in a custom Function's ``jvp``, ``del model.weight``
    before a parametrization); of a tensor, only ``.grad``."""
    reason = _write_refusal(obj, name)
    if reason is None and isinstance(obj, torch.Tensor):
        if name != "grad":  # torch's deleter of `.grad` expects no value
            reason = "only `.grad` of a tensor can be deleted here."
    elif reason is None and _native_slot(obj, name):
        reason = "it is a slot of the object's native code, which is never deleted."
    if reason is not None:
        raise CodeRefusedAtRuntime(f"`{_describe(obj, name)}` cannot be deleted: {reason}")
    delattr(obj, name)


def _native_slot(obj: object, name: str) -> bool:
    """``name`` is a slot the class of ``obj`` keeps in C (a getset or member descriptor):
    its deleter is the setter called with no value, which some do not expect (``del
    ctx.materialize_grads`` crashed the process: torch's setter read the missing value's
    type). Read from the classes' own dicts: no lookup runs the program's code."""
    for klass in type(obj).__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            return isinstance(found, (types.GetSetDescriptorType, types.MemberDescriptorType))
    return False


def _program_hook_name(obj: object, name: str) -> bool:
    """``obj.name`` is refused only for holding "hook" and is the program's own: ``obj`` is
    a class the program wrote or an instance of one, and the first class that holds the
    name is one of the program's (none holding it: an attribute of the instance, which only
    the program's code sets). A library base's hook attribute stays out of reach, found
    through a program's subclass or not. Read from the classes' own dicts: no lookup runs
    the program's code."""
    if not safety.refused_only_as_hook_name(name):
        return False
    owner = obj if isinstance(obj, type) else type(obj)
    if owner not in PROGRAM_CLASSES and not made_for_program_class(owner):
        return False  # (torch's class over a parametrized layer of the program's: its own)
    defining = _defining_class(owner, name)
    return defining is None or defining in PROGRAM_CLASSES


def _write_refusal(obj: object, name: str) -> str | None:
    """Why the program may not set or delete ``obj.name`` (``None``: it may; a tensor's
    own rules are the caller's): only on the program's own objects and classes, layers,
    a custom Function's ``ctx``, an optimizer, and tensors."""
    own = is_own_object(obj)
    reason = safety.attribute_refusal_reason(name, own_object=own)
    if reason is not None and (_program_hook_name(obj, name) or program_private_name(obj, name)):
        reason = None  # `self.activations_hook = ...`, `self._dim = ...` on the program's class
    if reason is not None or isinstance(obj, torch.Tensor):
        return reason
    if isinstance(obj, types.ModuleType):
        return "modules are shared by every program; keep the value in a variable."
    program_class = isinstance(obj, type) and obj in PROGRAM_CLASSES  # (never hashes obj)
    if not (own or type(obj) in PROGRAM_CLASSES or program_class) and not (
        isinstance(obj, _WRITABLE_TYPES) and not isinstance(obj, type)
    ):
        return (
            "only the program's own objects, layers (nn.Module) and a custom Function's "
            "ctx can have attributes set or deleted here; keep the value in a variable."
        )
    return None


def _checked_view(bound: torch.Tensor | None) -> Callable[..., torch.Tensor]:
    """``t.view`` (``torch.Tensor.view`` when ``bound`` is None), refusing a view that
    reads fractions as whole numbers or the other way round (``t.view(torch.int64)``): the
    same memory under two counters' watch, so a write through the fractions' ``.data``
    (or numpy) changed the whole numbers a backward saved without torch knowing."""

    def view(*args: Any, **kwargs: Any) -> torch.Tensor:
        tensor, rest = (bound, args) if bound is not None else (args[0], args[1:])
        result: torch.Tensor = torch.Tensor.view(tensor, *rest, **kwargs)
        if _has_fractions(result) != _has_fractions(tensor):
            raise CodeRefusedAtRuntime(
                f"`view({result.dtype})` is not available on a {tensor.dtype} tensor: it "
                "reads fractions as whole numbers (or the other way round) in the same "
                "memory; convert with `.to(dtype)` instead."
            )
        return result

    return view


def _has_fractions(tensor: torch.Tensor) -> bool:
    """Floating-point or complex: numbers no kernel uses to index memory."""
    return tensor.is_floating_point() or tensor.is_complex()


# `x.data = i` makes `x` the memory of `i` with a version counter of its own (and `i.data =
# j` changes what a backward saved as `i`): whole numbers are indices to torch's kernels.
_WHOLE_NUMBER_DATA = (
    "`.data` of a tensor of whole numbers or booleans (indices, masks) cannot be swapped: "
    "torch's backward trusts the indices it saved; make a new tensor instead (`i = j.clone()`)."
)


# `x.data = bigger` gives `x` other sizes (or another dtype) with no version change, and a
# node that saved `x` for backward hands its kernel the new tensor with what it saved
# alongside (`F.layer_norm`'s mean and rstd, weight norm's norms): the kernel takes its
# sizes from one and reads the others by pointer, past their end (red team, round 14:
# SIGSEGV; plain torch too). The numbers may change, never the form.
_OTHER_FORM_DATA = (
    "`.data` of a tensor can only take numbers of the same shape and dtype: a backward "
    "trusts the sizes of what it saved; make a new tensor (or `nn.Parameter`) instead."
)


def _other_form(tensor: torch.Tensor, value: torch.Tensor) -> bool:
    """``value`` differs from ``tensor`` in shape, dtype, layout or device."""
    return (
        tensor.shape != value.shape
        or tensor.dtype != value.dtype
        or tensor.layout != value.layout
        or tensor.device != value.device
    )


_WRITABLE_TYPES: tuple[type, ...] = (
    torch.nn.Module,
    torch.autograd.function.FunctionCtx,
    torch.optim.Optimizer,
)


class AttributeSetter:
    """What ``obj.name = value`` becomes (``__ae_setter__(obj)['name'] = value``): a store
    target that works wherever Python allows one (``a.x, a.y = ...``, ``for a.i in ...``,
    ``a.n += 1``), every part guarded."""

    __slots__ = ("_obj",)

    def __init__(self, obj: object) -> None:
        self._obj = obj

    def __getitem__(self, name: str) -> object:
        return guarded_getattr(self._obj, name)

    def __setitem__(self, name: str, value: object) -> None:
        guarded_setattr(self._obj, name, value)

    def __delitem__(self, name: str) -> None:
        guarded_delattr(self._obj, name)


def _guarded_getattr_builtin(obj: object, name: str, *default: object) -> object:
    if len(default) > 1:
        raise TypeError(f"getattr expected at most 3 arguments, got {2 + len(default)}")
    if type(name) is not str:
        raise TypeError("attribute name must be string")
    try:
        return guarded_getattr(obj, name)
    except AttributeError:
        if default:
            return default[0]
        raise


def _guarded_hasattr(obj: object, name: str) -> bool:
    if type(name) is not str:
        raise TypeError("attribute name must be string")
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def _guarded_type(*args: object) -> type:
    if len(args) != 1:
        raise CodeRefusedAtRuntime(
            "`type(name, bases, namespace)` is not available: write a `class` statement instead."
        )
    kind = type(args[0]._node) if type(args[0]) is NodeView else type(args[0])
    # A node's class (`type(y.grad_fn)`) only if it can neither make nor be a base for a
    # node (see autograd_nodes.UNMAKEABLE_NODE_CLASSES).
    admitted = kind in PROGRAM_CLASSES or kind in UNMAKEABLE_NODE_CLASSES
    problem = None if admitted else value_problem(stand_in_for(kind))
    if problem is not None and type(args[0]) is NodeView:
        problem = (
            f"{kind.__name__} makes new autograd nodes when called, which could hand a "
            "tensor any gradient; print the node itself or its `.name()` instead."
        )
    if problem is not None:
        raise CodeRefusedAtRuntime(f"`type(...)` of this value is not available: {problem}")
    # The app's stand-in where it has one: `type(array)` is numpy's class, whose
    # `(shape, object, buffer=...)` reads raw memory as objects (see native_inputs.NdarrayClass).
    chosen: Any = stand_in_for(kind)
    return chosen


def _build_class(func: object, name: str, *bases: object, **keywords: object) -> type:
    """What a ``class`` statement calls: only the ordinary way, only allowed bases."""
    if keywords:
        raise CodeRefusedAtRuntime(
            f"`class {name}(..., {next(iter(keywords))}=...)` is not available: list the base "
            "classes only, without `metaclass=` or other keywords."
        )
    if not allowlist().trusted_function(func):
        raise CodeRefusedAtRuntime(f"`class {name}` is not available: write it out.")
    for base in bases:
        if not base_class_allowed(base):
            shown = getattr(base, "__qualname__", type(base).__name__)
            raise CodeRefusedAtRuntime(
                f"`class {name}({shown})` is not available: a class here can build on "
                "nn.Module and its layers, torch.autograd.Function, optimizers, schedulers, "
                "datasets, object, exceptions and the program's own classes."
            )
        if isinstance(base, type) and issubclass(base, torch.autograd.Function):
            program_code.note_in_autograd()
    _check_library_internals_kept(func, name, bases)
    build: Any = builtins.__build_class__
    cls: type = build(func, name, *bases)
    PROGRAM_CLASSES.add(cls)
    return cls


def _check_library_internals_kept(func: Any, name: str, bases: tuple[object, ...]) -> None:
    """A class body may not replace a library base's ``_private`` attribute.

    torch's own code calls its internal helpers on ``self`` and trusts what they return:
    ``ParameterList.__setitem__`` does ``setattr(self, self._get_abs_string_index(i), v)``,
    ``ParameterDict`` the same with ``_key_to_attr``. A subclass that redefines such a
    helper picks the attribute name (``'__class__'``, ``'__reduce_ex__'``...), and the
    write or read happens in torch's code, where no guard is. Nor a name torch's code uses
    on ``self`` without its class holding it (:func:`.private_names.names_used_by`): a class
    attribute stands in for the instance's own where none is set, so a body's
    ``_backward_hooks = {0: f}`` and ``_is_full_backward_hook = False`` (with an
    ``__init__`` that skips ``nn.Module``'s) ran torch's refused old-style backward hooks.
    Names the body binds are its ``STORE_NAME``s (no metaclass, no ``locals()`` here); the
    program's own classes keep their ``_private`` names to themselves."""
    bound = {
        instruction.argval
        for instruction in dis.get_instructions(func.__code__)
        if instruction.opname == "STORE_NAME" and safety.is_private_name(instruction.argval)
    }
    if not bound:
        return
    for base in bases:
        for klass in getattr(base, "__mro__", ()):
            if klass in PROGRAM_CLASSES:
                continue
            clash = sorted(bound & (vars(klass).keys() | (names_used_by(klass) or set())))
            if clash:
                raise CodeRefusedAtRuntime(
                    f"`class {name}` cannot define `{clash[0]}`: {klass.__qualname__} uses "
                    "that name itself, and torch's own code trusts what it finds there; give "
                    "yours another name."
                )


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
        return module
    # `from a import b`: Python reads `b` from what this returns, so return a stand-in
    # module holding exactly the checked values (and the app's stand-ins, like `wraps`).
    chosen = types.ModuleType(module.__name__)
    for item in names:
        value = stand_in_for(getattr(module, item, None))
        problem = value_problem(value)
        if problem is None and isinstance(value, _COLLECTIONS):
            problem = _shared_collection_problem(module, item, value)
        if problem is not None:
            raise CodeRefusedAtRuntime(f"`from {name} import {item}` is not available: {problem}")
        setattr(chosen, item, value)
    return chosen


def guarded_context(value: object) -> object:
    """What a ``with`` statement enters (``with x:`` is ``with __ae_context__(x):``): only
    the contexts :func:`~.autograd_nodes.is_allowed_context` lists, whatever name holds them."""
    if is_allowed_context(value):
        return value
    if isinstance(value, type) and is_allowed_context_type(value):
        # `with torch.no_grad:` (the class, not an instance): what Python itself raises.
        kind = type(value).__name__
        raise TypeError(f"'{kind}' object does not support the context manager protocol")
    raise CodeRefusedAtRuntime(
        f"`with` is not available on a {type(value).__name__}: a `with` block here enters "
        "torch.no_grad(), torch.enable_grad(), torch.set_grad_enabled(...), "
        "torch.inference_mode(), torch.autograd.detect_anomaly() or set_detect_anomaly(...), "
        "the saved-tensor hooks of "
        "torch.autograd.graph, contextlib's nullcontext(), or an object of a class the "
        "program defines."
    )


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
    table["__build_class__"] = _build_class
    table["type"] = _guarded_type
    table["getattr"] = _guarded_getattr_builtin
    table["hasattr"] = _guarded_hasattr
    table["setattr"] = guarded_setattr
    table[safety.GETATTR_NAME] = guarded_getattr
    table[safety.SETTER_NAME] = AttributeSetter
    table[safety.CONTEXT_NAME] = guarded_context
    return table


def _guard_parameter_dict() -> None:
    """``nn.ParameterDict`` keeps each entry as an attribute of the layer named by its key:
    ``pd[key]`` is ``getattr(pd, key)`` and ``pd[key] = v`` is ``setattr(pd, key, v)``,
    and a subscript never passes the guard. Unchecked, ``pd['__reduce_ex__']``,
    ``pd['compile']`` or ``pd['__class__'] = C`` reach what the guard refuses by name or
    by value. So a key must be a name the guard accepts on a layer, and what a key reads is
    judged like ``pd.key`` (an entry is a parameter or a value the program stored)."""
    cls: Any = torch.nn.ParameterDict
    if getattr(cls, "_ae_guarded", False):
        return
    key_to_attr = cls._key_to_attr

    def checked_key(self: object, key: object) -> str:
        attr = key_to_attr(self, key)
        reason = (
            "a key must be a plain string."
            if type(attr) is not str
            else safety.attribute_refusal_reason(attr)
        )
        if reason is not None:
            raise CodeRefusedAtRuntime(
                f"`ParameterDict[{attr!r}]` is not available: a ParameterDict keeps its "
                f"entries as attributes of the layer, so its keys follow the rules of "
                f"attribute names: {reason}"
            )
        return attr

    def getitem(self: object, key: object) -> object:
        return guarded_getattr(self, checked_key(self, key))

    cls._key_to_attr = checked_key
    cls.__getitem__ = getitem
    cls._ae_guarded = True


_guard_parameter_dict()


def _guard_layer_names() -> None:
    """A layer's entries (``add_module``, ``register_buffer``, ``register_parameter``,
    ``ModuleDict`` and ``Sequential`` keys) are read back by ``Module.__getattr__``, also
    when library code asks the layer for a protocol's two-underscore name: Python's
    ``copy.deepcopy`` (inside ``nn.TransformerEncoder``) called a submodule named
    ``__deepcopy__``, and numpy builds an array from whatever ``__array_interface__``
    names, over any address (objects made from numbers). torch registers no such name, so
    none is accepted, and none is read back from a layer's entries."""
    module_class: Any = torch.nn.Module
    if getattr(module_class, "_ae_names_guarded", False):
        return
    layers = torch.nn.modules.module

    def refuse_protocol_name(module: object, name: object, value: object) -> None:
        if type(name) is not str or name.startswith("__"):
            raise CodeRefusedAtRuntime(
                f"A layer entry named {name!r} is not available: names that start with "
                "two underscores are Python's protocols, which library code looks up on the "
                "layer; name it without them."
            )

    layers.register_module_module_registration_hook(refuse_protocol_name)
    layers.register_module_buffer_registration_hook(refuse_protocol_name)
    layers.register_module_parameter_registration_hook(refuse_protocol_name)
    entries = module_class.__getattr__

    def getattr_entries(self: object, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return entries(self, name)

    module_class.__getattr__ = getattr_entries
    module_class._ae_names_guarded = True


_guard_layer_names()
