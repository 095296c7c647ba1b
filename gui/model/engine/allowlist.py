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
"""

from __future__ import annotations

import functools
import inspect
import math
import sys
import types
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch
import torch.autograd.functional
import torch.nn.functional
import torch.nn.init

# Reached through `torch.X`, `torch.nn.X`... as modules a program may hold.
MODULES: tuple[types.ModuleType, ...] = (
    torch,
    torch.nn,
    torch.nn.functional,
    torch.nn.init,
    torch.autograd,
    torch.autograd.functional,
    torch.linalg,
    torch.special,
    torch.fft,
    math,
    np,
    np.linalg,
    np.random,
)

# In torch's table of tensor functions but not tensor math: they reach storage, shared or
# pinned memory, devices, or run the program's code inside torch's machinery.
TENSOR_FUNCTIONS_REFUSED: tuple[str, ...] = (
    "storage", "untyped_storage", "storage_type", "share_memory_", "is_shared", "data_ptr",
    "const_data_ptr", "set_", "register_hook", "register_post_accumulate_grad_hook",
    "apply_", "map_", "map2_", "cuda", "pin_memory", "is_pinned", "module_load", "record_stream",
    "to_dlpack", "__dlpack__", "__dlpack_device__", "__reduce_ex__", "__setstate__",
)  # fmt: skip

# torch functions the table leaves out that learners' programs need; each is tensor math,
# a grad-mode switch or a setting the engine puts back after every run.
TORCH_REVIEWED: tuple[str, ...] = (
    "tensor", "as_tensor", "asarray", "zeros", "ones", "full", "empty", "eye", "arange",
    "linspace", "logspace", "rand", "randn", "randint", "randperm", "rand_like", "randn_like",
    "randint_like", "normal", "scalar_tensor", "tril_indices", "triu_indices", "vander",
    "from_numpy", "zeros_like", "ones_like", "full_like", "empty_like", "no_grad",
    "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
    "is_inference_mode_enabled", "is_tensor", "is_floating_point", "is_complex",
    "get_default_dtype", "manual_seed", "seed", "initial_seed", "set_printoptions", "finfo",
    "iinfo", "promote_types", "result_type", "can_cast", "broadcast_shapes", "Tensor", "Size",
    "Generator", "dtype", "device", "FloatTensor", "DoubleTensor", "HalfTensor",
    "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor",
    "BoolTensor", "bartlett_window", "blackman_window", "hamming_window", "hann_window",
    "kaiser_window", "range", "fill", "empty_strided", "as_strided", "zero_", "autocast",
    "is_anomaly_enabled", "get_default_device", "get_num_threads", "is_autocast_enabled",
    "are_deterministic_algorithms_enabled",
)  # fmt: skip
AUTOGRAD_REVIEWED: tuple[str, ...] = (
    "grad", "backward", "Variable", "no_grad", "enable_grad", "set_grad_enabled",
    "inference_mode",
)  # fmt: skip
# Tensor methods torch's table leaves out that are tensor math all the same.
TENSOR_REVIEWED: tuple[str, ...] = (
    "new_tensor", "new_zeros", "new_ones", "new_full", "new_empty", "stride", "unflatten",
)  # fmt: skip
FUNCTIONAL_REVIEWED: tuple[str, ...] = ("elu_", "hardtanh_", "leaky_relu_")
AUTOGRAD_FUNCTIONAL: tuple[str, ...] = ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")

# nn.Module methods that compute or read a model; not hooks, devices, compilers, shared
# memory or the generic `apply`.
MODULE_METHODS: tuple[str, ...] = (
    "forward", "parameters", "named_parameters", "buffers", "named_buffers", "children",
    "named_children", "modules", "named_modules", "zero_grad", "train", "eval",
    "requires_grad_", "state_dict", "load_state_dict", "float", "double", "half", "bfloat16",
    "extra_repr", "get_parameter", "get_submodule", "get_buffer", "add_module",
    "register_parameter", "register_buffer", "register_module", "cpu", "type",
)  # fmt: skip
# nn classes that are not tensor math in one process (threads, devices, several processes).
NN_REFUSED: tuple[str, ...] = ("DataParallel", "SyncBatchNorm")
NN_REVIEWED: tuple[str, ...] = ("Parameter", "Buffer")

NUMPY_REVIEWED: tuple[str, ...] = (
    "array", "asarray", "zeros", "ones", "full", "empty", "eye", "identity", "arange",
    "linspace", "logspace", "meshgrid", "zeros_like", "ones_like", "full_like", "empty_like",
    "stack", "concatenate", "vstack", "hstack", "dstack", "column_stack", "reshape",
    "transpose", "swapaxes", "squeeze", "expand_dims", "ravel", "flip", "roll", "tile",
    "repeat", "dot", "vdot", "inner", "outer", "matmul", "tensordot", "einsum", "cross",
    "trace", "sum", "prod", "mean", "average", "median", "std", "var", "amax", "amin", "max",
    "min", "argmax", "argmin", "argsort", "sort", "cumsum", "cumprod", "diff", "gradient",
    "clip", "where", "allclose", "isclose", "array_equal", "round", "around", "any", "all",
    "count_nonzero", "nonzero", "diag", "diagonal", "tril", "triu", "polyfit", "polyval",
    "interp", "histogram", "unique", "shape", "ndim", "size", "result_type", "finfo",
    "iinfo", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    "bool_", "complex64", "complex128", "dtype", "ndarray", "errstate", "seterr", "geterr",
    "set_printoptions", "printoptions", "broadcast_to", "broadcast_arrays", "atleast_1d",
    "atleast_2d", "atleast_3d", "copy", "append", "insert", "delete", "split", "array_split",
)  # fmt: skip
NUMPY_RANDOM: tuple[str, ...] = (
    "seed", "rand", "randn", "random", "random_sample", "randint", "normal", "uniform",
    "choice", "shuffle", "permutation", "standard_normal", "default_rng",
)  # fmt: skip
NDARRAY_METHODS: tuple[str, ...] = (
    "sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "argsort", "sort",
    "reshape", "transpose", "swapaxes", "squeeze", "flatten", "ravel", "copy", "astype",
    "tolist", "item", "dot", "round", "clip", "cumsum", "cumprod", "any", "all", "fill",
    "nonzero", "repeat", "take", "trace", "diagonal", "conj", "conjugate",
)  # fmt: skip

GENERATOR_METHODS: tuple[str, ...] = (
    "manual_seed",
    "seed",
    "initial_seed",
    "get_state",
    "set_state",
)
NUMPY_GENERATOR_METHODS: tuple[str, ...] = (
    "random", "normal", "uniform", "integers", "choice", "permutation", "shuffle",
    "standard_normal",
)  # fmt: skip

# Instances of these are data: a program may hold them; what it reads from them is
# checked again. (Not code: functions and classes are checked by identity.)
VALUE_TYPES: tuple[type, ...] = (
    int, float, complex, bool, str, bytes, type(None), range, slice, type(Ellipsis),
    type(NotImplemented), torch.Tensor, torch.dtype, torch.device, torch.layout,
    torch.memory_format, torch.Size, torch.finfo, torch.iinfo, torch.Generator,
    torch.nn.Module, torch.autograd.graph.Node, np.ndarray, np.generic, np.dtype,
    np.finfo, np.iinfo, np.random.Generator, np.random.RandomState, np.errstate,
    torch.no_grad, torch.enable_grad, torch.set_grad_enabled, torch.inference_mode,
)  # fmt: skip
CONTAINER_TYPES: tuple[type, ...] = (tuple, list, dict, set, frozenset)
PLAIN_TYPES_WITH_METHODS: tuple[type, ...] = (
    str, bytes, list, dict, tuple, set, frozenset, int, float, complex, bool, range, slice,
)  # fmt: skip
# What a program may read from an autograd node (a tensor's grad_fn): its name and edges.
NODE_ATTRIBUTES: frozenset[str] = frozenset({"name", "next_functions", "metadata"})
# A container larger than this is not searched element by element: it is refused.
MAX_CONTAINER_CHECK = 10_000


class Allowlist:
    """The identities a program may reach, and the verdict on any value it tries to."""

    def __init__(self, modules: Iterable[types.ModuleType], objects: Iterable[object]):
        self._modules = {id(m): m for m in modules}
        self._objects = {id(o): o for o in objects}

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
            return f"it is the module {value.__name__}, which programs here cannot use."
        if self.allows_object(value):
            return None
        if isinstance(value, type):
            return f"the class {value.__qualname__} is not part of torch's tensor math here."
        if isinstance(value, CONTAINER_TYPES):
            return self._container_problem(value, depth)
        if isinstance(value, VALUE_TYPES):
            return None
        if is_program_code(value):
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
    """The allowlist, built once per process (a few milliseconds)."""
    return Allowlist(MODULES, _objects())


def _objects() -> list[object]:
    objects: list[object] = []
    refused = {id(getattr(torch.Tensor, n, None)) for n in TENSOR_FUNCTIONS_REFUSED}
    refused |= {id(v) for v in _namespace("torch.distributed.distributed_c10d")}
    table = [f for f in torch.overrides.get_testing_overrides() if id(f) not in refused]
    objects += table
    # The table holds some functions as fresh bound copies (`_VariableFunctionsClass.mm`)
    # equal to, but not the very object in, the namespace (`torch.mm`): add those objects.
    # Equal builtins share their owner and their C function, so they do the same thing.
    equal_to_table = set(table)
    for module in (torch, torch.nn.functional, torch.linalg, torch.special, torch.fft):
        objects += [v for n, v in vars(module).items() if _in(v, equal_to_table)]
    in_table = {id(f) for f in objects}
    # In-place twins of listed functions (`torch.sin_` beside `torch.sin`): the same math.
    objects += [
        v
        for n, v in vars(torch).items()
        if n.endswith("_")
        and not n.startswith("_")
        and id(getattr(torch, n[:-1], None)) in in_table
    ]
    objects += _named(torch, TORCH_REVIEWED)
    objects += _named(torch.autograd, AUTOGRAD_REVIEWED)
    objects += _named(torch.Tensor, TENSOR_REVIEWED)
    objects += _named(torch.nn.functional, FUNCTIONAL_REVIEWED)
    objects += _named(torch.autograd.functional, AUTOGRAD_FUNCTIONAL)
    for module in (torch.nn.functional, torch.nn.init, torch.linalg, torch.special, torch.fft):
        objects += _own_callables(module, in_table)
    objects += _nn_classes_and_methods()
    objects += _own_callables(math, in_table)
    objects += [v for v in vars(np).values() if isinstance(v, np.ufunc)]
    objects += _named(np, NUMPY_REVIEWED)
    objects += _own_callables(np.linalg, in_table)
    objects += _named(np.random, NUMPY_RANDOM)
    objects += _named(np.ndarray, NDARRAY_METHODS)
    objects += _named(np.generic, NDARRAY_METHODS)
    objects += _named(torch.Generator, GENERATOR_METHODS)
    objects += _named(np.random.Generator, NUMPY_GENERATOR_METHODS)
    for plain in PLAIN_TYPES_WITH_METHODS:
        objects += [v for n, v in vars(plain).items() if not n.startswith("_") and callable(v)]
    # `format` on a str is listed with the other str methods; the guard checks its template.
    return objects


def _nn_classes_and_methods() -> list[object]:
    nn = torch.nn
    found: list[object] = [getattr(nn.Module, name) for name in MODULE_METHODS]
    found += _named(nn, NN_REVIEWED)
    refused = {getattr(nn, name, None) for name in NN_REFUSED}
    for name, cls in vars(nn).items():
        if name.startswith("_") or not isinstance(cls, type) or cls in refused:
            continue
        if not issubclass(cls, nn.Module):
            continue
        found.append(cls)
        # Methods the layer defines itself (forward, extra_repr...): tensor math like the
        # layer. Inherited ones come from Module and are listed above, one by one.
        for klass in cls.__mro__:
            if klass is nn.Module or not issubclass(klass, nn.Module):
                break
            found += [v for n, v in vars(klass).items() if not n.startswith("_") and callable(v)]
    return found


def _in(value: object, table: set[Any]) -> bool:
    try:
        return value in table
    except TypeError:  # unhashable
        return False


def _named(owner: object, names: Iterable[str]) -> list[object]:
    return [getattr(owner, name) for name in names if hasattr(owner, name)]


def _own_callables(module: types.ModuleType, in_table: set[int]) -> list[object]:
    """The public functions a math module defines (or torch's table lists), leaving out
    what it merely imported (typing helpers, torch's dispatch plumbing)."""
    return [
        v
        for n, v in vars(module).items()
        if not n.startswith("_")
        and callable(v)
        and not isinstance(v, types.ModuleType)
        and (id(v) in in_table or getattr(v, "__module__", None) == module.__name__)
    ]


def _namespace(module_name: str) -> list[object]:
    module = sys.modules.get(module_name)
    return list(vars(module).values()) if module is not None else []
