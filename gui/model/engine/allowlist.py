"""What a learner's program may reach: tensor math and autograd, by identity.

Session files come from strangers, so the runtime guard (:mod:`.guard`) lets a program reach
an object only if it is on this list. The list holds *objects*, compared with ``is``, never
names or ``__module__`` strings: torch re-exports native classes as ``torch.X`` (for
instance ``torch.PyTorchFileWriter``, which writes any file), so a name says nothing about
what a thing does. Anything not listed is refused, whatever it is called.

Where the list comes from:

- torch's own table of tensor functions (``torch.overrides.get_testing_overrides``: every
  ``torch.*``, ``Tensor.*``, ``torch.nn.functional.*``, ``torch.linalg.*``, ``torch.fft.*``,
  ``torch.special.*`` function that takes tensors), minus the few that reach storage,
  shared memory, hooks, devices or other processes (:data:`TENSOR_FUNCTIONS_REFUSED`);
- a reviewed list of what that table leaves out: tensor constructors, grad-mode switches,
  seeds, dtypes' helpers (:data:`TORCH_REVIEWED`); the ``nn`` layers and losses, which are
  tensor math, with the ``Module`` methods that do not hook into torch's machinery
  (:data:`MODULE_METHODS`); ``torch.nn.init``; ``torch.autograd``'s differentiation
  functions;
- ``math`` whole (pure functions of numbers), numpy's ufuncs and a reviewed list of numpy
  functions and ``ndarray`` methods (no files, no raw memory);
- the methods of Python's plain value types (``str``, ``list``, ``dict``...).

Values that are data rather than code pass by type (:data:`VALUE_TYPES`: numbers, strings,
tensors, arrays, dtypes, shapes, autograd nodes, modules' instances): what a program then
reads from them goes through the guard again. Containers pass when everything in them does.

This module holds the :class:`Allowlist`, its one instance (:func:`allowlist`) and the
table of stand-ins; the families it is built from live beside it: the lists in
:mod:`.reviewed_names`, the objects found from them in :mod:`.listed_objects`, the
stand-ins for what torch's C++ reads in :mod:`.native_inputs`, autograd's nodes and saved
tensors in :mod:`.autograd_nodes`, the other library stand-ins in
:mod:`.library_stand_ins`, and the refusal they all raise in :mod:`.refusal`.
"""

import collections
import copy
import functools
import inspect
import types
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import torch
import torch.autograd.forward_ad
import torch.autograd.function
import torch.autograd.functional
import torch.autograd.graph
import torch.distributions
import torch.func
import torch.nn.functional
import torch.nn.init
import torch.nn.utils
import torch.nn.utils.parametrizations
import torch.nn.utils.rnn
import torch.optim
import torch.optim.lr_scheduler
import torch.utils
import torch.utils.checkpoint
import torch.utils.data
import torch.utils.hooks

from gui.model import safety
from gui.model.engine import checkpoint_stand_in, safe_copy
from gui.model.engine.autograd_nodes import (
    NodeView,
    RawSavedTensor,
    _disable_saved_tensors_hooks,
    _SavedTensorsHooks,
    _SaveOnCpu,
    check_checkpoint_recomputation,
)
from gui.model.engine.capture import PROGRAM_FILENAME
from gui.model.engine.library_stand_ins import (
    _gpu_device_count,
    _gpu_is_available,
    _kl_divergence,
    _once_differentiable,
    _pad_packed_sequence,
    _refuse_worker_processes,
    checked_lstm,
    checked_vector_to_parameters,
    instances_only,
)
from gui.model.engine.listed_objects import (
    _grad_mode_wrapper_codes,
    _named,
    _objects,
    _optimizers_warmed_up,
)
from gui.model.engine.native_inputs import (
    _LEGACY_TYPES,
    NdarrayClass,
    _asarray,
    _check_ctc_targets,
    _constructors_read_tuples,
    _from_numpy,
    _legacy_type,
    _numpy_copies_whole_numbers,
    _segment_reduce,
    _tensor,
)
from gui.model.engine.parametrize_stand_in import (
    check_parametrize_swaps,
    orthogonal,
    register_parametrization,
    remove_parametrizations,
    spectral_norm,
    weight_norm,
)
from gui.model.engine.refusal import PROGRAM_CLASSES, CodeRefusedAtRuntime
from gui.model.engine.reviewed_names import BUILTIN_CLASSES, FORWARD_AD_REVIEWED, MODULES
from gui.model.engine.step_notes import note_steps_without_gradients

# Instances of these are data: a program may hold them; what it reads from them is
# checked again. (Not code: functions and classes are checked by identity.)
VALUE_TYPES: tuple[type, ...] = (
    int, float, complex, bool, str, bytes, type(None), range, slice, type(Ellipsis),
    type(NotImplemented), torch.Tensor, torch.dtype, torch.device, torch.layout,
    torch.memory_format, torch.Size, torch.finfo, torch.iinfo, torch.Generator,
    torch.nn.Module, torch.autograd.graph.Node, np.ndarray, np.generic, np.dtype,
    np.finfo, np.iinfo, np.random.Generator, np.random.RandomState, np.errstate,
    torch.no_grad, torch.enable_grad, torch.set_grad_enabled, torch.inference_mode,
    torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler,
    torch.optim.lr_scheduler.ReduceLROnPlateau, torch.utils.data.Dataset,
    torch.utils.data.DataLoader, torch.utils.data.Sampler, torch.utils.hooks.RemovableHandle,
    BaseException,
    # Only the classes of DISTRIBUTIONS_REVIEWED can be made; what a program reads from
    # one is checked again (`arg_constraints`, `support`: refused by value).
    torch.distributions.Distribution,
    RawSavedTensor,  # `y.grad_fn._raw_saved_self`, holding its node
    NodeView,  # `y.grad_fn`, read through the guard like the node itself
)  # fmt: skip
CONTAINER_TYPES: tuple[type, ...] = (tuple, list, dict, set, frozenset, collections.deque)
# Classes a program's class may build on: layers, Functions, optimizers and schedulers,
# datasets (their subclasses on the list, checked by identity), plus these.
BASE_ROOTS: tuple[type, ...] = (
    torch.nn.Module, torch.autograd.Function, torch.optim.Optimizer,
    torch.optim.lr_scheduler.LRScheduler, torch.utils.data.Dataset, torch.utils.data.Sampler,
)  # fmt: skip


# What a program may read from an autograd node (a tensor's grad_fn): its name and edges.
# A node's own hooks ("Backward Hooks execution" in torch's autograd notes): the program's
# function, guarded like a tensor's hook, on one node of its own graph.
NODE_ATTRIBUTES: frozenset[str] = frozenset(
    {"name", "next_functions", "register_hook", "register_prehook"}
)
# A container larger than this is not searched element by element: it is refused.
MAX_CONTAINER_CHECK = 10_000


# torch's older weight and spectral normalization (forward pre-hooks that rewrite a layer's
# parameters), still in older tutorials (TCN, WaveNet and HiFi-GAN code): not listed; the
# refusal names the `parametrizations` functions that replace them and that programs may use.
_REPLACED: dict[int, tuple[object, str]] = {
    id(old): (old, f"{what}; use `torch.nn.utils.parametrizations.{new}` instead.")
    for old, new, what in (
        (
            torch.nn.utils.weight_norm,
            "weight_norm",
            "it is torch's deprecated weight normalization (it rewrites the layer with a "
            "hook), not on the list here; the new one computes the same weight from "
            "`parametrizations.weight.original0` (g) and `original1` (v)",
        ),
        (
            torch.nn.utils.spectral_norm,
            "spectral_norm",
            "it is torch's older spectral normalization (it rewrites the layer with a "
            "hook), not on the list here; the new one is the same power iteration",
        ),
    )
}


class Allowlist:
    """The identities a program may reach, and the verdict on any value it tries to."""

    def __init__(
        self,
        modules: Iterable[types.ModuleType],
        objects: Iterable[object],
        wrapper_codes: Iterable[types.CodeType] = (),
        later: Callable[[], tuple[list[object], list[types.CodeType]]] | None = None,
    ):
        self._modules = {id(m): m for m in modules}
        self._objects = {id(o): o for o in objects}
        self._wrapper_codes = {id(c): c for c in wrapper_codes}
        # The part of the list that is slow to build (see :func:`complete`), until built.
        self._later = later

    def complete(self) -> None:
        """Build the part of the list left for later (optimizers and schedulers: making
        one imports ``torch._dynamo``, seconds that the engine's start-up should not wait
        for, and that cannot happen behind the operating-system wall: it makes a cache
        folder). The engine's server calls this right after it says it is ready; a program
        refused by the one copy of the process forked before that is handed to a warm copy
        (see :mod:`.fork_server`), so no program's result depends on which process ran it.
        Callers must forget the guard's cached verdicts."""
        later, self._later = self._later, None
        if later is None:
            return
        objects, codes = later()
        self._objects.update((id(o), o) for o in objects)
        self._wrapper_codes.update((id(c), c) for c in codes)

    @property
    def is_complete(self) -> bool:
        return self._later is None

    def trusted_function(self, value: object) -> bool:
        """A function the program wrote, or one of torch's wrappers around a function
        (``@torch.no_grad()``, an optimizer's ``step`` after a scheduler wraps it): the
        wrapper only calls what it wraps, which the program had to hold already."""
        if not isinstance(value, types.FunctionType):
            return False
        code = value.__code__
        return code.co_filename == _program_filename() or self._wrapper_codes.get(id(code)) is code

    def __len__(self) -> int:
        return len(self._objects)

    def grant(self, stand_in: object) -> None:
        """List one of the engine's own stand-ins for a torch function (the recorded
        ``torch.autograd.backward``): programs reach it where they would reach torch's."""
        self._objects[id(stand_in)] = stand_in

    def allows_object(self, value: object) -> bool:
        """Whether ``value`` itself (a function, class or module) is on the list."""
        kept = self._modules.get(id(value)) if isinstance(value, types.ModuleType) else None
        if kept is not None:
            return kept is value
        return self._objects.get(id(value)) is value

    def problem(self, value: object, depth: int = 0) -> str | None:
        """Why ``value`` may not be handed to a program, or ``None`` if it may."""
        if isinstance(value, types.ModuleType):
            if self.allows_object(value):
                return None
            general = f"it is the module {value.__name__}, which programs here cannot use."
            return safety.REFUSED_MODULE_REASONS.get(value.__name__, general)
        if self.allows_object(value):
            return None
        replaced = _REPLACED.get(id(value))
        if replaced is not None and replaced[0] is value:
            return replaced[1]
        if isinstance(value, type):
            if value in PROGRAM_CLASSES:
                return None
            return f"the class {value.__qualname__} is not part of torch's tensor math here."
        if isinstance(value, CONTAINER_TYPES):
            return self._container_problem(value, depth)
        if isinstance(value, VALUE_TYPES):
            return None
        if is_program_code(value) or self.trusted_function(value):
            return None
        if type(value) in PROGRAM_CLASSES:
            return None  # an instance of the program's own class: its reads are guarded
        if isinstance(value, functools.partial):
            return self.problem(value.func, depth + 1) or self._container_problem(
                (*value.args, *value.keywords.values()), depth
            )
        if isinstance(value, types.MethodType) and (
            self.trusted_function(value.__func__) or self.allows_object(value.__func__)
        ):
            return None
        if isinstance(value, types.MethodType | types.BuiltinMethodType):
            owner = getattr(value, "__self__", None)
            name = getattr(value, "__name__", "")
            if owner is not None and self.method_allowed(owner, name):
                return None
        if callable(value):
            what = getattr(value, "__qualname__", None) or type(value).__name__
            return f"{what} is not on the list of tensor math and autograd programs can call."
        return f"it is a {type(value).__qualname__}, which programs here cannot use."

    def method_allowed(self, owner: object, name: str) -> bool:
        """Whether ``owner.name`` (a method bound to ``owner``) may be called."""
        if isinstance(owner, torch.autograd.graph.Node):
            return name in NODE_ATTRIBUTES
        if isinstance(owner, types.ModuleType):
            return False  # judged by the identity of the attribute's value instead
        if isinstance(owner, type):  # a classmethod: the class's own entry decides
            static = inspect.getattr_static(owner, name, None)
            return static is not None and self.allows_object(static)
        unbound = getattr(type(owner), name, None)
        return unbound is not None and self.allows_object(unbound)

    def _container_problem(self, value: Any, depth: int) -> str | None:
        items = list(value.items()) if isinstance(value, dict) else list(value)
        if len(items) > MAX_CONTAINER_CHECK or depth > 20:
            return "it is a large collection the app cannot check item by item."
        for item in items:
            for part in item if isinstance(value, dict) else (item,):
                problem = self.problem(part, depth + 1)
                if problem is not None:
                    return f"it holds something programs cannot use: {problem}"
        return None


def is_program_code(value: object) -> bool:
    """Whether ``value`` is a function, generator or lambda the program itself defined."""
    from gui.model.engine.capture import PROGRAM_FILENAME

    code = None
    if isinstance(value, types.FunctionType):
        code = value.__code__
    elif isinstance(value, types.GeneratorType):
        code = value.gi_code
    return code is not None and code.co_filename == PROGRAM_FILENAME


@functools.cache
def allowlist() -> Allowlist:
    """The allowlist, built once per process (complete unless :func:`defer_the_slow_part`
    was called first)."""
    _refuse_worker_processes()
    _numpy_copies_whole_numbers()
    _constructors_read_tuples()
    _check_ctc_targets()
    check_parametrize_swaps()
    check_checkpoint_recomputation()
    note_steps_without_gradients()  # a note, never a refusal (see step_notes)
    wrapper_codes = _grad_mode_wrapper_codes()
    # The guard's own wrapper around a method read from its class checks `self` first.
    wrapper_codes.append(instances_only(torch.nn.Module, torch.nn.Module.train).__code__)
    stand_ins = [stand_in for _, stand_in in _stand_ins().values()]
    built = Allowlist(MODULES, [*_objects(), *stand_ins], wrapper_codes, later=_the_slow_part)
    if not _slow_part_deferred:
        built.complete()
    return built


def _the_slow_part() -> tuple[list[object], list[types.CodeType]]:
    """The optimizers and schedulers, forward-mode AD, and then everything else once
    more: making an optimizer imports ``torch._dynamo``, which replaces some of torch's
    functions by wrappers (``torch.manual_seed`` among them), and the list holds objects,
    not names."""
    optimizers, codes = _optimizers_warmed_up()
    return [*optimizers, *_forward_ad_warmed_up(), *_objects()], codes


def _forward_ad_warmed_up() -> list[object]:
    """Forward-mode AD's functions, once torch has loaded what their first use loads: the
    decompositions it differentiates some ops by (a quarter of a second; it asks for a
    temporary folder, which the operating-system wall leaves it none of)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.jit.script's deprecation, torch's own use
        torch.autograd.forward_ad._maybe_load_decompositions()
    return _named(torch.autograd.forward_ad, FORWARD_AD_REVIEWED)


_slow_part_deferred = False


def defer_the_slow_part() -> None:
    """Build the allowlist without its slow part until :meth:`Allowlist.complete` is
    called (the engine's server does, see :mod:`.fork_server`); call before first use."""
    global _slow_part_deferred
    _slow_part_deferred = True


def _program_filename() -> str:
    return PROGRAM_FILENAME


def base_class_allowed(base: object) -> bool:
    """Whether a program's ``class`` may name ``base`` among its bases."""
    if not isinstance(base, type):
        return False
    if base in PROGRAM_CLASSES:
        return True
    if base is object or (base in BUILTIN_CLASSES and issubclass(base, Exception)):
        # Not `str`, `int`, `dict`...: a subclass could lie about its value (a `str` whose
        # `__eq__` and `__hash__` pass the guard's name checks, then reads another name).
        return True
    return issubclass(base, BASE_ROOTS) and allowlist().allows_object(base)


def is_own_object(obj: object) -> bool:
    """A class the program defined from nothing but its own classes (and ``object``), or an
    instance of one: everything in it, ``_private`` names too, is the program's."""
    cls = obj if isinstance(obj, type) else type(obj)
    if cls not in PROGRAM_CLASSES:
        return False
    return all(k in PROGRAM_CLASSES or k is object for k in cls.__mro__)


@functools.cache
def _stand_ins() -> dict[int, tuple[object, object]]:
    pairs: list[tuple[object, object]] = [
        (torch.cuda.is_available, _gpu_is_available),
        (torch.cuda.device_count, _gpu_device_count),
        (torch.backends.mps.is_available, _gpu_is_available),
        (torch.accelerator.is_available, _gpu_is_available),
        (torch.accelerator.device_count, _gpu_device_count),
        (functools.wraps, _wraps),
        (torch.distributions.kl_divergence, _kl_divergence),
        (torch.autograd.function.once_differentiable, _once_differentiable),
        (torch.nn.utils.rnn.pad_packed_sequence, _pad_packed_sequence),
        (torch.autograd.graph.saved_tensors_hooks, _SavedTensorsHooks),
        (torch.autograd.graph.save_on_cpu, _SaveOnCpu),
        (torch.autograd.graph.disable_saved_tensors_hooks, _disable_saved_tensors_hooks),
        (np.ndarray, NdarrayClass),
        (torch.from_numpy, _from_numpy),
        (torch.asarray, _asarray),
        (torch.tensor, _tensor),
        (torch.segment_reduce, _segment_reduce),
        (copy.deepcopy, _deepcopy),
        (copy.copy, _copy),
        # Fractions only, torch's checks on (see parametrize_stand_in).
        (torch.nn.utils.parametrize.register_parametrization, register_parametrization),
        (torch.nn.utils.parametrize.remove_parametrizations, remove_parametrizations),
        # torch's own parametrizations, on a layer checked as above (parametrize_stand_in).
        (torch.nn.utils.parametrizations.weight_norm, weight_norm),
        (torch.nn.utils.parametrizations.spectral_norm, spectral_norm),
        (torch.nn.utils.parametrizations.orthogonal, orthogonal),
        # The kernel behind nn.LSTM, reached by hand: its weights checked the same way.
        (torch.lstm, checked_lstm),
        # It points each parameter at the vector's memory: fractions only.
        (torch.nn.utils.vector_to_parameters, checked_vector_to_parameters),
        # Torch's own, telling the graph which nodes it recomputes (never read them).
        (torch.utils.checkpoint.checkpoint, checkpoint_stand_in.checkpoint),
        (torch.utils.checkpoint.checkpoint_sequential, checkpoint_stand_in.checkpoint_sequential),
    ]
    pairs += [(getattr(torch, name), _legacy_type(name)) for name in _LEGACY_TYPES]
    return {id(original): (original, stand_in) for original, stand_in in pairs}


def stand_in_for(value: object) -> object:
    """What the program gets in place of ``value`` (itself, unless the app stands in)."""
    pair = _stand_ins().get(id(value))
    if pair is not None and pair[0] is value:
        return pair[1]
    return value


def _copyable_instance(value: object) -> bool:
    """What :mod:`.safe_copy` may rebuild from its ``__dict__``: a layer class on the list,
    or a class the program defined (its methods are guarded; it cannot define the copy
    protocol's two-underscore methods, see ``safety.SAFE_DUNDER_METHODS``)."""
    kind = type(value)
    if kind in PROGRAM_CLASSES:
        return True
    return isinstance(value, torch.nn.Module) and allowlist().allows_object(kind)


def _deepcopy(x: Any, memo: Any = None) -> Any:
    """``copy.deepcopy`` for programs: tensors, modules and their containers only."""
    return safe_copy.deepcopy(x, memo, _copyable_instance)


def _copy(x: Any) -> Any:
    """``copy.copy`` for programs (see :func:`_deepcopy`)."""
    return safe_copy.copy(x, _copyable_instance)


def _wraps(wrapped: Any, *args: Any, **kwargs: Any) -> Any:
    """``functools.wraps`` for programs: copies the name and the docstring of ``wrapped``
    onto a function the program wrote, nothing else. The real one copies any attributes
    the caller names, with plain ``getattr``/``setattr``, onto any object: a way around
    the guard (a module's namespace into an object, a name onto a torch class)."""
    if args or kwargs:
        raise CodeRefusedAtRuntime(
            "`functools.wraps(f, assigned=..., updated=...)` is not available: write "
            "`@functools.wraps(f)` alone, which copies the name and the docstring."
        )

    def decorate(wrapper: Any) -> Any:
        if not allowlist().trusted_function(wrapper):
            raise CodeRefusedAtRuntime(
                "`functools.wraps(...)` is not available on this object: use it on a "
                "function your program defines."
            )
        for name in ("__name__", "__qualname__", "__doc__"):
            value = getattr(wrapped, name, None)
            if isinstance(value, str) or (name == "__doc__" and value is None):
                setattr(wrapper, name, value)
        wrapper.__wrapped__ = wrapped
        return wrapper

    return decorate
