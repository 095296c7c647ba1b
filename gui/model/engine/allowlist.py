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

import builtins
import collections
import contextlib
import copy
import functools
import inspect
import math
import operator
import random
import sys
import time
import types
import typing
import warnings
import weakref
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
import torch.nn.utils.rnn
import torch.optim
import torch.optim.lr_scheduler
import torch.utils
import torch.utils.data
import torch.utils.data.dataloader
import torch.utils.hooks

from gui.model.engine import pristine, program_code, safe_copy
from gui.model.engine.capture import PROGRAM_FILENAME

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
    torch.optim,
    torch.optim.lr_scheduler,
    torch.nn.utils,
    torch.utils,
    torch.utils.data,
    torch.func,
    torch.cuda,
    torch.backends,
    torch.backends.mps,
    torch.backends.cudnn,
    torch.accelerator,
    random,
    time,
    functools,
    collections,
    typing,
    # Round 5 of the widening: each holds, besides what is listed below by identity, only
    # what the guard refuses by value (registries, counters, submodules, other classes).
    torch.autograd.function,  # for `once_differentiable`
    torch.nn.utils.rnn,  # padding and packing sequences for recurrent layers
    torch.distributions,  # the distributions of DISTRIBUTIONS_REVIEWED and kl_divergence
    # Saved-tensor hooks: only the stand-ins for saved_tensors_hooks, save_on_cpu and
    # disable_saved_tensors_hooks (see `_SavedTensorsHooks`); register_multi_grad_hook and
    # the rest are refused by name or by value.
    torch.autograd.graph,
    # Forward-mode AD (the "Forward-mode Automatic Differentiation" tutorial): a dual level
    # (its `with` block), dual tensors made and read; the level is put back after every
    # run (see `pristine`), and entering or leaving one by hand stays refused.
    torch.autograd.forward_ad,
    # `best = copy.deepcopy(model.state_dict())`: only the app's stand-ins for deepcopy and
    # copy (see `_deepcopy`); the rest of the module is refused by value.
    copy,
)

# In torch's table of tensor functions but not tensor math: they reach storage, shared or
# pinned memory, devices, or run the program's code inside torch's machinery.
TENSOR_FUNCTIONS_REFUSED: tuple[str, ...] = (
    "storage", "untyped_storage", "storage_type", "share_memory_", "is_shared", "data_ptr",
    "const_data_ptr", "set_", "apply_", "map_", "map2_", "cuda", "pin_memory", "is_pinned",
    "module_load", "record_stream",
    "to_dlpack", "__dlpack__", "__dlpack_device__", "__reduce_ex__", "__setstate__",
    # A sparse tensor's index tensors, handed out as aliases (`s.indices().add_(10**9)`):
    # torch trusts them, so `s.to_dense()` then wrote past its buffer and the process
    # crashed; and the setters of a sparse tensor's sizes, which keep its indices as they are.
    "indices", "crow_indices", "col_indices", "ccol_indices", "row_indices",
    "sparse_resize_", "sparse_resize_and_clear_", "resize_as_sparse_",
    # Pieces torch's version counter does not watch (that is what "unsafe" means here):
    # written in place, they changed the indices a backward saved without torch knowing.
    "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes",
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
    "are_deterministic_algorithms_enabled", "set_default_dtype",
)  # fmt: skip
AUTOGRAD_REVIEWED: tuple[str, ...] = (
    "grad", "backward", "Variable", "no_grad", "enable_grad", "set_grad_enabled",
    "inference_mode", "Function",
    # Compare the program's own backward with finite differences ("Extending PyTorch",
    # "Double Backward with Custom Functions"): they call the given function (the
    # program's, still guarded) on perturbed copies and torch.autograd.grad; tensor math
    # only, nothing kept after they return, no files, threads or global hooks.
    "gradcheck", "gradgradcheck",
    # Anomaly mode, the usual advice for "modified by an inplace operation": a
    # process-wide switch (records each node's forward traceback, checks backward for
    # NaN) that `pristine.restore` puts back between runs; `set_detect_anomaly(b)` sets
    # it, `detect_anomaly()` warns once made and sets it only in a `with` block.
    "set_detect_anomaly", "detect_anomaly",
)  # fmt: skip
# Tensor methods torch's table leaves out that are tensor math all the same.
TENSOR_REVIEWED: tuple[str, ...] = (
    "new_tensor", "new_zeros", "new_ones", "new_full", "new_empty", "stride", "unflatten",
)  # fmt: skip
FUNCTIONAL_REVIEWED: tuple[str, ...] = ("elu_", "hardtanh_", "leaky_relu_")
AUTOGRAD_FUNCTIONAL: tuple[str, ...] = ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")
FORWARD_AD_REVIEWED: tuple[str, ...] = ("dual_level", "make_dual", "unpack_dual")

# nn.Module methods that compute or read a model; not hooks, devices, compilers, shared
# memory or the generic `apply`.
MODULE_METHODS: tuple[str, ...] = (
    "forward", "parameters", "named_parameters", "buffers", "named_buffers", "children",
    "named_children", "modules", "named_modules", "zero_grad", "train", "eval",
    "requires_grad_", "state_dict", "load_state_dict", "float", "double", "half", "bfloat16",
    "extra_repr", "get_parameter", "get_submodule", "get_buffer", "add_module",
    "register_parameter", "register_buffer", "register_module", "cpu", "type", "to",
    "apply", "__init__", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_full_backward_pre_hook", "__call__",
)  # fmt: skip
# A custom Function's ctx: what tutorials call on it in forward and backward.
CTX_METHODS: tuple[str, ...] = (
    "save_for_backward", "save_for_forward", "mark_dirty", "mark_non_differentiable",
    "set_materialize_grads",
)  # fmt: skip
# Tensor hooks: they run the program's own (guarded) code when torch reaches the tensor.
TENSOR_HOOKS: tuple[str, ...] = ("register_hook", "register_post_accumulate_grad_hook")
NN_UTILS: tuple[str, ...] = (
    "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters",
    "get_total_norm", "clip_grads_with_norm_",
)  # fmt: skip
# `torch.nn.utils.rnn`: padding and packing variable-length sequences for recurrent layers
# (tensor math in torch's C++: `_VF._pack_padded_sequence`, `_nn.pad_sequence`, which
# check their arguments); nothing kept between calls. `pad_packed_sequence` is the app's
# stand-in (`_pad_packed_sequence`: torch's trusts the batch sizes). A PackedSequence is
# a named tuple of tensors (passes as a container of tensors); its listed methods convert
# those tensors (`.to`, `.float`...), not `pin_memory`/`cuda`/`is_pinned`.
RNN_UTILS: tuple[str, ...] = (
    "pad_sequence", "pack_padded_sequence", "pack_sequence", "PackedSequence",
)  # fmt: skip
PACKED_SEQUENCE_METHODS: tuple[str, ...] = (
    "to", "cpu", "double", "float", "half", "long", "int", "short", "char", "byte",
)  # fmt: skip
# `torch.distributions`, as VAE and policy-gradient code uses it: these classes only. Their
# methods below are tensor math on the instance's own parameters (and the global
# generator, seeded before each run). Not listed, so refused: `Distribution.
# set_default_validate_args` (a class-level default for every later distribution),
# `register_kl` (a process-wide registry), `biject_to`/`transform_to` (registries), the
# `constraints`/`transforms`/`kl` submodules, transforms (they cache their last input) and
# the other classes; `kl_divergence` is the app's stand-in (`_kl_divergence`). A program
# cannot subclass them (not in BASE_ROOTS) or write their attributes (the guard).
DISTRIBUTIONS_REVIEWED: tuple[str, ...] = (
    "Distribution", "Normal", "Categorical", "Bernoulli", "Independent",
)  # fmt: skip
# Not `expand`: its `_instance` argument (also the second positional one) is any object
# the program names, on which it sets `loc`, `scale`, `probs`... with plain `setattr`
# (`d.expand(shape, torch.nn.functional)` wrote attributes onto a shared module).
DISTRIBUTION_METHODS: tuple[str, ...] = (
    "__init__", "sample", "rsample", "sample_n", "log_prob", "cdf", "icdf", "entropy",
    "perplexity", "enumerate_support",
)  # fmt: skip
DATA_REVIEWED: tuple[str, ...] = (
    "Dataset", "TensorDataset", "DataLoader", "Subset", "ConcatDataset", "random_split",
    "IterableDataset", "StackDataset", "Sampler", "RandomSampler", "SequentialSampler",
    "BatchSampler", "SubsetRandomSampler", "WeightedRandomSampler", "default_collate",
)  # fmt: skip
FUNC_REVIEWED: tuple[str, ...] = (
    "grad", "grad_and_value", "vmap", "jacrev", "jacfwd", "hessian", "vjp", "jvp",
    "functional_call", "linearize",
)  # fmt: skip
RANDOM_REVIEWED: tuple[str, ...] = (
    "seed", "random", "randint", "randrange", "uniform", "gauss", "normalvariate", "choice",
    "choices", "shuffle", "sample", "getrandbits", "betavariate", "expovariate",
)  # fmt: skip
TIME_REVIEWED: tuple[str, ...] = (
    "time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns",
    "monotonic_ns", "sleep",
)  # fmt: skip
FUNCTOOLS_REVIEWED: tuple[str, ...] = (
    "wraps", "partial", "reduce", "lru_cache", "cache", "cmp_to_key",
)  # fmt: skip
COLLECTIONS_REVIEWED: tuple[str, ...] = (
    "OrderedDict", "defaultdict", "Counter", "deque", "namedtuple",
)  # fmt: skip
TYPING_REVIEWED: tuple[str, ...] = (
    "Any", "List", "Dict", "Tuple", "Set", "Optional", "Union", "Callable", "Iterable",
    "Iterator", "Sequence", "Generator", "Mapping", "Type", "NamedTuple",
)  # fmt: skip
# nn classes that are not tensor math in one process (threads, devices, several processes).
NN_REFUSED: tuple[str, ...] = ("DataParallel", "SyncBatchNorm", "DistributedDataParallel")
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
    "bool_", "complex64", "complex128", "dtype", "errstate", "seterr", "geterr",
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
RANDOM_STATE_METHODS: tuple[str, ...] = (
    "seed", "rand", "randn", "random", "random_sample", "randint", "normal", "uniform",
    "choice", "shuffle", "permutation", "standard_normal",
)  # fmt: skip
NUMPY_GENERATOR_METHODS: tuple[str, ...] = (
    "random", "normal", "uniform", "integers", "choice", "permutation", "shuffle",
    "standard_normal",
)  # fmt: skip


class RawSavedTensor:
    """What a program gets for ``y.grad_fn._raw_saved_self``: the node and the name, and
    ``register_hooks`` (torch's, with the checked hooks of :func:`_checked_hooks`).

    Not torch's ``SavedTensor`` itself: torch hands that out as a bare reference into the
    node's C++ memory, which does not keep the node alive, so once the node is gone
    (``(x * 2).grad_fn._raw_saved_self``, the product dropped at once) its ``data`` read
    freed memory and its ``register_hooks`` wrote there (pybind's ``reference`` policy, no
    keep-alive). This one holds the node, and reads torch's object only for the moment of
    the call. A list of saved tensors (``_raw_saved_tensors``) is not offered."""

    __slots__ = ("_name", "_node")

    def __init__(self, node: object, name: str) -> None:
        self._node = node
        self._name = name

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        saved: Any = getattr(self._node, self._name)
        if type(saved) is not torch._C._autograd.SavedTensor:
            raise CodeRefusedAtRuntime(
                f"`{self._name}.register_hooks` is not available: this node saved a list of "
                "tensors; use torch.autograd.graph.saved_tensors_hooks(pack, unpack) instead."
            )
        # torch calls the pack hook in the middle of its own `register_hooks`, with the
        # hooks already stored on the node: a pack of the program's that ran backward
        # through this node (`s.backward()`) freed them there, and torch then wrote the
        # packed value into the freed hooks object (and unpacked a null pointer). So
        # torch's call runs only the app's code, and the program's pack runs after it.
        deferred: list[tuple[_Packed, torch.Tensor]] = []
        checked = _checked_hooks(pack_hook, unpack_hook, deferred=deferred)
        saved.register_hooks(*checked)  # type: ignore[attr-defined]
        for packed, tensor in deferred:
            version = tensor._version
            with torch.no_grad():
                packed.value = pack_hook(tensor)
            if tensor._version != version:
                raise RuntimeError(
                    "A saved tensor pack hook is modifying its input in place. Tensors "
                    "provided as input to pack hook can not be modified by in-place "
                    "operations as this can lead to unexpected side-effects. Please "
                    "consider making a copy of the tensor before modifying it in place."
                )
            packed.ready = True

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {id(self):#x}>"


class NodeView:
    """What a program gets for one of torch's C++ autograd nodes (``y.grad_fn``, an entry
    of ``next_functions``): the node to read, not to call. torch's node is callable
    (``y.grad_fn(g)`` runs its backward function on ``g`` alone), and a call is no
    attribute read: the guard never saw it, and torch checks the gradients it hands a node
    (shape, dtype) in its engine, not in the node (``F.pdist(a).grad_fn(torch.ones(1))``
    read past the one number given; AccumulateGrad took an int64 gradient for a float
    leaf). Every read of a view is the guard's read of its node; it prints, compares and
    hashes as the node, and one node has one view while the program holds it."""

    __slots__ = ("__weakref__", "_node")

    def __init__(self, node: object) -> None:
        self._node = node

    def __repr__(self) -> str:
        return repr(self._node)

    def __eq__(self, other: object) -> bool:
        return type(other) is NodeView and other._node is self._node

    def __hash__(self) -> int:
        return hash(self._node)

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise CodeRefusedAtRuntime(
            f"Calling `{type(self._node).__name__}` is not available: an autograd node runs "
            "inside backward, where torch checks the gradients it hands it; call "
            "`y.backward(g)` or `torch.autograd.grad(y, x, g)` instead."
        )


_NODE_VIEWS: weakref.WeakValueDictionary[int, NodeView] = weakref.WeakValueDictionary()


def node_view(value: object) -> object:
    """``value`` as a program may hold it: a C++ autograd node as its :class:`NodeView`
    (also inside ``next_functions``' pairs), anything else as it is."""
    if type(value) is tuple:
        return tuple(node_view(item) for item in value)
    if _NODE_CLASSES.get(id(type(value))) is not type(value):
        return value
    view = _NODE_VIEWS.get(id(value))
    if view is None or view._node is not value:
        view = NodeView(value)
        _NODE_VIEWS[id(value)] = view
    return view


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
PLAIN_TYPES_WITH_METHODS: tuple[type, ...] = (
    str, bytes, list, dict, tuple, set, frozenset, int, float, complex, bool, range, slice,
    collections.OrderedDict, collections.defaultdict, collections.Counter, collections.deque,
)  # fmt: skip
# Builtin classes a program may hold (``type(1)``, ``class E(Exception)``, ``object``).
BUILTIN_CLASSES: tuple[type, ...] = (
    *(v for v in vars(builtins).values() if isinstance(v, type) and issubclass(v, Exception)),
    int, float, complex, bool, str, bytes, list, dict, tuple, set, frozenset, range, slice,
    object, type(None), staticmethod, classmethod, property, super,
)  # fmt: skip
# Classes a program's class may build on: layers, Functions, optimizers and schedulers,
# datasets (their subclasses on the list, checked by identity), plus these.
BASE_ROOTS: tuple[type, ...] = (
    torch.nn.Module, torch.autograd.Function, torch.optim.Optimizer,
    torch.optim.lr_scheduler.LRScheduler, torch.utils.data.Dataset, torch.utils.data.Sampler,
)  # fmt: skip


class CodeRefusedAtRuntime(BaseException):
    """Raised inside the child when running code reaches something it may not use.

    A ``BaseException``, not an ``Exception``: a program's ``try``/``except Exception`` (and
    a bare ``except:``, which the engine turns into ``except Exception:``) cannot swallow a
    refusal and go on as if the refused thing had worked.

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


# Classes the running program defined (``class`` statements, see the guard's
# ``__build_class__``): held weakly, compared by identity.
PROGRAM_CLASSES: weakref.WeakSet[type] = weakref.WeakSet()
# What a program may read from an autograd node (a tensor's grad_fn): its name and edges.
# A node's own hooks ("Backward Hooks execution" in torch's autograd notes): the program's
# function, guarded like a tensor's hook, on one node of its own graph.
NODE_ATTRIBUTES: frozenset[str] = frozenset(
    {"name", "next_functions", "register_hook", "register_prehook"}
)
# A container larger than this is not searched element by element: it is refused.
MAX_CONTAINER_CHECK = 10_000


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
            return f"it is the module {value.__name__}, which programs here cannot use."
        if self.allows_object(value):
            return None
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


CPU_ONLY_NOTE = (
    "torch.cuda.is_available() answers False here: Autograd Explorer computes on the CPU "
    "only (the same numbers, no GPU needed)."
)


def _gpu_is_available() -> bool:
    """``torch.cuda.is_available()`` here: the app computes on the CPU, and says so once."""
    warnings.warn(CPU_ONLY_NOTE, UserWarning, stacklevel=2)
    return False


def _gpu_device_count() -> int:
    warnings.warn(CPU_ONLY_NOTE, UserWarning, stacklevel=2)
    return 0


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
    ]
    pairs += [(getattr(torch, name), _legacy_type(name)) for name in _LEGACY_TYPES]
    return {id(original): (original, stand_in) for original, stand_in in pairs}


def stand_in_for(value: object) -> object:
    """What the program gets in place of ``value`` (itself, unless the app stands in)."""
    pair = _stand_ins().get(id(value))
    if pair is not None and pair[0] is value:
        return pair[1]
    return value


class _CheckedNdarrayType(type):
    """The class of :class:`NdarrayClass`: ``isinstance``/``issubclass`` answer for numpy's
    ``ndarray``, class attributes are numpy's (read through the guard), and a call makes
    an array only when no raw memory would be read as Python objects."""

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, np.ndarray)

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or (isinstance(sub, type) and issubclass(sub, np.ndarray))

    def __getattr__(cls, name: str) -> Any:
        return getattr(np.ndarray, name)

    def __call__(
        cls,
        shape: Any,
        dtype: Any = float,
        buffer: Any = None,
        offset: Any = 0,
        strides: Any = None,
        order: Any = None,
    ) -> Any:
        chosen = np.dtype(dtype)  # once: the program's object is not asked again
        if buffer is not None and (chosen.hasobject or not _plain_buffer(buffer)):
            raise CodeRefusedAtRuntime(
                "`np.ndarray(shape, dtype, buffer=...)` is not available with this buffer: "
                "an array over a buffer takes a writable numpy array of numbers (over other "
                "memory, dtype=object reads raw bytes as Python objects, and bytes or numpy "
                "scalars are shared by the whole process); use np.array(...) or "
                "np.zeros(...) instead."
            )
        return np.ndarray(shape, chosen, buffer, offset, strides, order)


def _plain_buffer(buffer: object) -> bool:
    """A writable array of numbers: memory that holds no object pointers, and memory the
    program may change anyway. Not ``bytes`` nor a numpy scalar, which are immutable and
    may be shared by the whole process (``np.True_``, the one-byte ``bytes``): an array
    over one, handed to ``torch.from_numpy``, wrote into it (``b'A'`` became ``b'B'``)."""
    return (
        isinstance(buffer, np.ndarray)
        and not buffer.dtype.hasobject
        and bool(buffer.flags.writeable)
    )


class NdarrayClass(metaclass=_CheckedNdarrayType):
    """What a program gets for ``np.ndarray`` (also from ``type(array)``): numpy's own
    ``ndarray(shape, dtype, buffer=...)`` takes any memory as the array's, and with
    ``dtype=object`` each 8 bytes there become a pointer to a Python object
    (``np.ndarray((1,), object, buffer=np.array([id(x) or any number]))``): any address
    made an object, past the guard and into native memory. This one makes arrays of
    numbers over a buffer, and of objects without one; ``isinstance(x, np.ndarray)`` and
    ``type(a) is np.ndarray`` still hold."""


NdarrayClass.__module__ = "numpy"
NdarrayClass.__name__ = NdarrayClass.__qualname__ = "ndarray"


# Whole numbers and booleans are what torch's kernels index memory with, and a backward
# trusts the ones it saved (max pooling's indices, an embedding's input, a mask) to be the
# values it saved: torch's version counter tells when a tensor was changed in place, but a
# tensor sharing the memory of a numpy array (or the array of a tensor's `.numpy()`) is
# changed through numpy without it (`arr[...] = 10**7`), and the kernel wrote where the
# numbers pointed (the process crashed). So such memory is never shared both ways here:
# numpy arrays of whole numbers are copied into tensors, and tensors of whole numbers into
# arrays. Fractions index nothing: they are shared as in torch.


# torch's C++ reads a list of numbers (`torch.tensor(rows)`, `torch.Tensor(rows)`, a legacy
# type, `new_tensor`) with a pointer to the list's items taken once, and calls Python for
# each item it cannot read itself: a program's `__len__`/`__getitem__` (an item that is a
# sequence of its own) or `__bool__`. That code emptied the list while torch went on
# reading the freed items (the process crashed, and memory the program then filled was
# read as objects). So what a program hands these constructors is first made of tuples,
# which no code can change, and a sequence of the program's own class is read into one
# here, by Python (torch would read whatever lists it returned the same way).
_PLAIN_NUMBERS = frozenset({int, float, bool, complex})
_SEQUENCES = (list, tuple, collections.deque)
MAX_DATA_NESTING = 64


def _frozen(data: object, depth: int = 0) -> object:
    """``data`` with every list, tuple and deque in it (and each sequence of the
    program's own classes) made a plain tuple; anything else as it is."""
    kind = type(data)
    if kind in PROGRAM_CLASSES:
        try:
            data = tuple(data)  # type: ignore[arg-type]  # the program's code, guarded
        except TypeError:
            return data  # not a sequence: torch reads it as a number (or refuses it)
        kind = tuple
    elif not isinstance(data, _SEQUENCES):  # a deque, a named tuple: read the same way
        return data
    if depth >= MAX_DATA_NESTING:
        raise ValueError(f"the data is nested more than {MAX_DATA_NESTING} levels deep")
    items: Any = data
    if set(map(type, items)) <= _PLAIN_NUMBERS:
        return items if kind is tuple else tuple(items)
    return tuple(_frozen(item, depth + 1) for item in items)


_NATIVE_TENSOR: Any = torch.tensor


def _tensor(data: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.tensor``; its data read from tuples (see :func:`_frozen`)."""
    return _NATIVE_TENSOR(_frozen(data), *args, **kwargs)


_NATIVE_NEW_TENSOR: Any = torch._C.TensorBase.new_tensor
_NATIVE_TENSOR_NEW: Any = torch._C.TensorBase.__new__


def _new_tensor(self: torch.Tensor, data: Any, *args: Any, **kwargs: Any) -> Any:
    """``Tensor.new_tensor``; its data read from tuples (see :func:`_frozen`)."""
    return _NATIVE_NEW_TENSOR(self, _frozen(data), *args, **kwargs)


def _tensor_new(*args: Any, **kwargs: Any) -> Any:
    """``torch.Tensor(...)`` (torch's legacy constructor); its data read from tuples. Its
    signature is ``(*args, **kwargs)``: ``torch._dynamo`` (imported by optimizers and
    ``torch.func``) checks that a ``torch.Tensor.__new__`` it finds has torch's signature
    or this one."""
    cls, *data = args
    return _NATIVE_TENSOR_NEW(cls, *map(_frozen, data), **kwargs)


# An index (`t[rows]`, `t[rows] = v`) is read the same way as data when it holds lists.
_NATIVE_GETITEM: Any = torch._C.TensorBase.__getitem__
_NATIVE_SETITEM: Any = torch._C.TensorBase.__setitem__
_INDEX_ATOMS = frozenset(
    {int, bool, slice, type(None), type(Ellipsis), torch.Tensor, torch.nn.Parameter}
)


def _plain_index(index: Any) -> Any:
    """``index`` read as :func:`_frozen` reads data, keeping whether it is a list (an index
    of many) or a tuple (one index per dimension)."""
    kind = type(index)
    if kind is tuple:
        return index if set(map(type, index)) <= _INDEX_ATOMS else _frozen(index)
    if kind is list:
        return list(map(_frozen, index))
    if isinstance(index, tuple):
        return _frozen(index)
    if isinstance(index, collections.deque) or kind in PROGRAM_CLASSES:
        frozen = _frozen(index)
        return list(frozen) if type(frozen) is tuple else frozen
    return index


def _getitem(*args: Any) -> Any:
    """``tensor[index]`` (see :func:`_plain_index`)."""
    tensor, index = args
    return _NATIVE_GETITEM(tensor, _plain_index(index))


def _setitem(*args: Any) -> None:
    """``tensor[index] = value`` (see :func:`_plain_index`)."""
    tensor, index, value = args
    _NATIVE_SETITEM(tensor, _plain_index(index), _frozen(value))


def _constructors_read_tuples() -> None:
    """Put :func:`_new_tensor`, :func:`_tensor_new`, :func:`_getitem` and
    :func:`_setitem` on ``torch.Tensor``."""
    tensor: Any = torch.Tensor
    if getattr(tensor, "_ae_reads_tuples", False):
        return
    _new_tensor.__doc__ = _NATIVE_NEW_TENSOR.__doc__
    tensor.new_tensor = _new_tensor
    tensor.__new__ = staticmethod(_tensor_new)
    tensor.__getitem__ = _getitem
    tensor.__setitem__ = _setitem
    tensor._ae_reads_tuples = True


def _own_whole_numbers(value: object) -> object:
    if isinstance(value, np.ndarray) and value.dtype.kind not in "fc":
        return value.copy()
    return value


def _from_numpy(array: Any) -> Any:
    """``torch.from_numpy``; a copy of an array of whole numbers (see above)."""
    return torch.from_numpy(_own_whole_numbers(array))


_NATIVE_AS_TENSOR: Any = torch.as_tensor


def _as_tensor(data: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.as_tensor``; a copy of an array of whole numbers (see above). Put in
    torch's namespace, where a DataLoader without batches (``default_convert``) calls it
    on what the program's dataset returns."""
    return _NATIVE_AS_TENSOR(_frozen(_own_whole_numbers(data)), *args, **kwargs)


def _asarray(obj: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.asarray``; a copy of an array of whole numbers (see above), and of any other
    memory a tensor must not share: ``torch.asarray`` takes any object with a buffer as
    the tensor's memory, also ``bytes``, which are immutable and shared by the whole
    process (``torch.asarray(b'A', dtype=torch.uint8)[0] = 66`` made every ``b'A'`` of
    the process ``b'B'``), and read-only arrays."""
    obj = _own_whole_numbers(obj)
    if not isinstance(obj, torch.Tensor) and not _plain_buffer(obj) and _has_buffer(obj):
        if kwargs.get("copy") is False:
            raise CodeRefusedAtRuntime(
                "`torch.asarray(..., copy=False)` is not available on this object: its "
                "memory is read-only or shared by the whole process; leave copy out to get "
                "a tensor of its numbers."
            )
        kwargs["copy"] = True
    return torch.asarray(_frozen(obj), *args, **kwargs)


def _has_buffer(obj: object) -> bool:
    """Whether ``obj`` hands out its memory (Python's buffer protocol, a C-level slot: no
    code of the program's runs)."""
    try:
        memoryview(obj).release()  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


_NATIVE_NUMPY: Any = torch._C.TensorBase.numpy


def _tensor_numpy(self: torch.Tensor, *, force: bool = False) -> Any:
    """``Tensor.numpy`` (also behind ``np.asarray(t)``); a copy for whole numbers."""
    array = _NATIVE_NUMPY(self, force=force)
    return array if self.is_floating_point() or self.is_complex() else array.copy()


def _numpy_copies_whole_numbers() -> None:
    """Put :func:`_tensor_numpy` on ``torch.Tensor``, where ``np.asarray`` finds it too."""
    tensor: Any = torch.Tensor
    if getattr(tensor, "_ae_numpy_copies", False):
        return
    _tensor_numpy.__doc__ = _NATIVE_NUMPY.__doc__
    tensor.numpy = _tensor_numpy
    tensor._ae_numpy_copies = True
    setattr(torch, "as_tensor", _as_tensor)  # noqa: B010 (a module's function)


# torch's legacy typed constructors share a numpy array's memory too
# (`torch.LongTensor(array)`); those of whole numbers get stand-ins that copy it.
_WHOLE_NUMBER_TYPES = (
    "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
)  # fmt: skip
# All of them read a list's items as `torch.tensor` does (see `_frozen`).
_LEGACY_TYPES = (
    *_WHOLE_NUMBER_TYPES, "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor",
)  # fmt: skip


class _CheckedTensorType(type):
    """The class of a legacy type's stand-in: ``isinstance``, ``repr`` and class
    attributes are torch's type's; a call copies a numpy array of whole numbers first.
    torch's C code reads a type argument by its name (``x.type(torch.LongTensor)``), so
    the stand-in is named like torch's (``torch.LongTensor``)."""

    _real: Any  # private: the guard never hands a program torch's own type through it

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or (isinstance(sub, type) and issubclass(sub, cls._real))

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls._real, name)

    def __repr__(cls) -> str:
        return repr(cls._real)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real(*(_frozen(_own_whole_numbers(arg)) for arg in args), **kwargs)


def _legacy_type(name: str) -> type:
    real = getattr(torch, name)
    stand_in = _CheckedTensorType(f"torch.{name}", (), {"_real": real, "__doc__": real.__doc__})
    stand_in.__module__ = "torch"
    return stand_in


def _segment_reduce(*args: Any, **kwargs: Any) -> Any:
    """``torch.segment_reduce`` without ``unsafe=True``: it skips the check that the lengths
    add up to the data, and then read past the data and wrote past it in backward."""
    if kwargs.get("unsafe", False) is not False:
        raise CodeRefusedAtRuntime(
            "`segment_reduce(..., unsafe=True)` is not available: it skips the check that "
            "the segments fit the data, and torch then reads and writes past it; leave "
            "unsafe out."
        )
    return torch.segment_reduce(*args, **kwargs)


def instances_only(cls: type, method: Callable[..., Any]) -> Callable[..., Any]:
    """``SomeClass.method`` read from the class: its ``self`` must be a ``SomeClass``
    (``nn.Module.__init__(self)`` in a program's layer), never a module or another
    object the method would write into with plain ``setattr``
    (``StepLR.__init__(torch.nn.functional, opt, 7)``)."""

    def unbound(*args: Any, **kwargs: Any) -> Any:
        if not args or not isinstance(args[0], cls):
            raise CodeRefusedAtRuntime(
                f"`{cls.__qualname__}.{method.__name__}(...)` is not available on this "
                f"object: its first argument must be a {cls.__qualname__}."
            )
        return method(*args, **kwargs)

    return unbound


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


def _once_differentiable(fn: Any) -> Any:
    """``@once_differentiable`` for programs: torch's own, around ``fn`` whose outputs must
    be tensors (or ``None``). torch's wrapper runs ``fn`` (which the program held already)
    under ``no_grad``, then ties the outputs to a node that refuses a second backward; to
    do so it calls ``out.detach()`` and sets ``.requires_grad = True`` on what that
    returns, with plain ``setattr``: on a program's object, whose ``detach`` can return a
    module or one of torch's classes, that wrote an attribute onto it for later runs.
    Nothing registered, nothing kept; the wrapper is not on the list (a program calls it
    through its Function, never reads it)."""

    def tensors_only(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        outputs = fn(ctx, *args, **kwargs)
        for output in outputs if isinstance(outputs, tuple) else (outputs,):
            if output is not None and not isinstance(output, torch.Tensor):
                raise CodeRefusedAtRuntime(
                    "`@once_differentiable` is not available on this function: what it "
                    "returns must be tensors (or None), as a backward returns."
                )
        return outputs

    return torch.autograd.function.once_differentiable(tensors_only)


def _pad_packed_sequence(
    sequence: Any,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> Any:
    """``torch.nn.utils.rnn.pad_packed_sequence`` for programs: torch's, on a checked copy
    of ``sequence``. Its C++ trusts ``batch_sizes`` to be what packing makes (positive
    counts that never grow), and a packed sequence's tensors can be changed in place
    after packing (``packed.batch_sizes[1] = 0``): with such a one it wrote past the end
    of its own buffer and the process crashed (``[2, 0, 1]``). The recurrent layers check
    what they read; this is the one reader that does not."""
    rnn: Any = torch.nn.utils.rnn
    if type(sequence) is not rnn.PackedSequence:
        raise CodeRefusedAtRuntime(
            "`pad_packed_sequence(...)` is not available on this object: give it the "
            "PackedSequence that pack_padded_sequence, pack_sequence or a recurrent layer made."
        )
    data, batch_sizes, sorted_indices, unsorted_indices = tuple.__iter__(sequence)
    sizes = batch_sizes.clone() if isinstance(batch_sizes, torch.Tensor) else None
    if (
        not isinstance(data, torch.Tensor)
        or sizes is None
        or sizes.dtype != torch.int64
        or sizes.dim() != 1
        or sizes.numel() == 0
        or bool((sizes <= 0).any())
        or bool((sizes[1:] > sizes[:-1]).any())
        or data.dim() == 0
        or int(sizes.sum()) != data.size(0)
        or not (total_length is None or type(total_length) is int)
    ):
        raise CodeRefusedAtRuntime(
            "`pad_packed_sequence(...)` is not available on this packed sequence: its "
            "batch_sizes no longer describe its data (they were changed after packing; "
            "pack the sequences again with pack_padded_sequence), or total_length is not "
            "a whole number."
        )
    checked = rnn.PackedSequence(data, sizes, sorted_indices, unsorted_indices)
    return rnn.pad_packed_sequence(checked, batch_first, padding_value, total_length)


def _kl_divergence(p: Any, q: Any) -> Any:
    """``torch.distributions.kl_divergence`` for programs: between the listed distributions
    only. torch memoises each pair of classes it is asked about in a dict it keeps for the
    whole process (``kl._KL_MEMOIZE``): a class of the program's passed in (or hidden in an
    ``Independent``) would stay there, alive with its functions' globals, for later runs.
    The program's code can still run during the call (a Categorical's ``probs`` may be its
    object) and make an ``Independent`` hold something else before torch looks inside:
    so afterwards every pair that is not of listed classes leaves the memo again."""
    if not (_listed_distribution(p) and _listed_distribution(q)):
        raise CodeRefusedAtRuntime(
            "`kl_divergence(p, q)` is not available on these objects: p and q must be "
            "distributions made with torch.distributions (Normal, Categorical, Bernoulli, "
            "Independent)."
        )
    try:
        return torch.distributions.kl_divergence(p, q)
    finally:
        memo: dict[tuple[type, type], Any] = torch.distributions.kl._KL_MEMOIZE
        listed = set(_distribution_classes())
        for pair in [pair for pair in memo if not set(pair) <= listed]:
            memo.pop(pair, None)


def _distribution_classes() -> list[type]:
    return [getattr(torch.distributions, name) for name in DISTRIBUTIONS_REVIEWED]


def _listed_distribution(value: object, depth: int = 0) -> bool:
    """An instance of a class of DISTRIBUTIONS_REVIEWED, all the way down, an
    ``Independent``'s count a plain ``int`` (no code of the program runs when torch
    compares two, before it looks inside)."""
    if not any(type(value) is cls for cls in _distribution_classes()) or depth > 20:
        return False
    if type(value) is torch.distributions.Independent:
        # Instance attributes (the class cannot be subclassed or written to here).
        own = vars(value)
        if type(own.get("reinterpreted_batch_ndims")) is not int:
            return False
        return _listed_distribution(own.get("base_dist"), depth + 1)
    return True


def _refuse_worker_processes() -> None:
    """``DataLoader(num_workers=2)`` would start processes: say so in one sentence."""
    iterator: Any = torch.utils.data.dataloader._MultiProcessingDataLoaderIter
    if getattr(iterator, "_ae_refused", False):
        return

    def refuse(self: Any, loader: object) -> None:
        self._shutdown = True  # nothing started: nothing for __del__ to stop

        raise CodeRefusedAtRuntime(
            "`DataLoader(num_workers=...)` is not available: worker processes cannot start "
            "here; leave num_workers out (0), which loads the same batches in this process."
        )

    iterator.__init__ = refuse
    iterator._ae_refused = True


_NATIVE_CTC_LOSS: Any = torch.ctc_loss


def _checked_ctc_loss(
    log_probs: Any,
    targets: Any,
    input_lengths: Any,
    target_lengths: Any,
    blank: Any = 0,
    reduction: Any = 1,
    zero_infinity: Any = False,
) -> Any:
    """``torch.ctc_loss`` (also behind ``F.ctc_loss`` and ``nn.CTCLoss``) with its targets
    checked: torch checks the lengths and the blank, not that each target is a class of
    ``log_probs`` (``targets=[[10**6, 1]]`` read past it, and backward wrote past it).
    The other arguments are made plain first, so no code of the program's (an
    ``__index__``) runs between the check and torch's call."""
    lengths = [
        value if isinstance(value, torch.Tensor) else torch.as_tensor(value, dtype=torch.long)
        for value in (input_lengths, target_lengths)
    ]
    blank, reduction = operator.index(blank), operator.index(reduction)
    zero_infinity = bool(zero_infinity)
    if isinstance(log_probs, torch.Tensor) and isinstance(targets, torch.Tensor):
        classes = log_probs.size(-1) if log_probs.dim() else 0
        whole = not (targets.is_floating_point() or targets.is_complex())
        if (
            whole
            and targets.numel()
            and (bool((targets < 0).any()) or bool((targets >= classes).any()))
        ):
            raise CodeRefusedAtRuntime(
                "`ctc_loss(...)` is not available with these targets: each must be a "
                f"class of log_probs, from 0 to {classes - 1} (its last dimension)."
            )
    return _NATIVE_CTC_LOSS(log_probs, targets, *lengths, blank, reduction, zero_infinity)


def _check_ctc_targets() -> None:
    """Put :func:`_checked_ctc_loss` where ``F.ctc_loss`` (and so ``nn.CTCLoss``) calls it."""
    if vars(torch).get("ctc_loss") is _checked_ctc_loss:
        return
    setattr(torch, "ctc_loss", _checked_ctc_loss)  # noqa: B010 (a module's function)


def _gen() -> Iterable[None]:
    yield None


def _optimizers_warmed_up() -> tuple[list[object], list[types.CodeType]]:
    """Every optimizer and scheduler class with its methods, and torch's wrapper codes.

    An optimizer class's ``step`` is replaced by a profiling wrapper the first time one is
    made, and a scheduler wraps its optimizer's ``step`` again: make one of each here, so
    the objects listed are the ones programs will meet (and the imports they trigger
    happen before the operating-system wall).
    """
    schedulers = torch.optim.lr_scheduler
    found: list[object] = [torch.optim.Optimizer, schedulers.LRScheduler]
    codes: list[types.CodeType] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls in vars(torch.optim).values():
            if not isinstance(cls, type) or not issubclass(cls, torch.optim.Optimizer):
                continue
            found.append(cls)
            optimizer_class: Any = cls
            try:
                p = torch.nn.Parameter(torch.ones(2, 2))
                opt = optimizer_class([p])
                p.grad = torch.ones(2, 2)
                opt.step(lambda: torch.ones(()))
                opt.zero_grad()
            except Exception:  # an optimizer that needs more arguments: listed all the same
                pass
            found += _public_methods(cls, torch.optim.Optimizer)
        sgd = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
        for cls in vars(schedulers).values():
            if not isinstance(cls, type):
                continue
            if not issubclass(cls, schedulers.LRScheduler | schedulers.ReduceLROnPlateau):
                continue
            found.append(cls)
            # Not state_dict/load_state_dict: they copy and update `__dict__`s (the
            # scheduler's, and each lr_lambda's, which a program may replace by a module or
            # a class) with no guard between; checkpoints are files, refused anyway.
            found += [
                m
                for m in _public_methods(cls, object)
                if getattr(m, "__name__", "") not in ("state_dict", "load_state_dict")
            ]
        schedulers.StepLR(sgd, step_size=1)
        for step in (vars(sgd).get("step"), vars(torch.optim.SGD).get("step")):
            if isinstance(step, types.FunctionType):
                codes.append(step.__code__)
    return found, codes


def _grad_mode_wrapper_codes() -> list[types.CodeType]:
    """The code of the wrappers ``@torch.no_grad()`` and its kin put around a function or a
    generator: they only switch grad mode and call what they wrap."""
    codes: list[types.CodeType] = []
    for decorator in (torch.no_grad(), torch.enable_grad(), torch.inference_mode()):
        codes.append(decorator(lambda: None).__code__)
        codes.append(decorator(_gen).__code__)
    return codes


def _public_methods(cls: type, stop: type) -> list[object]:
    found: list[object] = []
    for klass in cls.__mro__:
        if klass is object:
            break
        found += [
            v
            for n, v in vars(klass).items()
            if (not n.startswith("_") or n == "__init__")
            and "hook" not in n
            and callable(v)
            and not isinstance(v, type)
        ]
        if klass is stop:
            break
    return found


def _objects() -> list[object]:
    objects: list[object] = []
    refused = {id(getattr(torch.Tensor, n, None)) for n in TENSOR_FUNCTIONS_REFUSED}
    refused |= {id(getattr(torch, n)) for n in TENSOR_FUNCTIONS_REFUSED if hasattr(torch, n)}
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
    function: Any = torch.autograd.Function
    objects += [vars(function)["apply"], function.apply.__func__, function.__init__]
    objects += _named(torch.autograd.function.FunctionCtx, CTX_METHODS)
    objects += _named(torch.Tensor, TENSOR_HOOKS)
    objects.append(torch.utils.hooks.RemovableHandle.remove)
    objects.append(RawSavedTensor.register_hooks)
    objects += [_tensor_numpy, _checked_ctc_loss, _as_tensor, _new_tensor]
    objects += _named(torch.nn.utils, NN_UTILS)
    objects += _named(torch.nn.utils.rnn, RNN_UTILS)
    objects += _named(torch.nn.utils.rnn.PackedSequence, PACKED_SEQUENCE_METHODS)
    objects += _distributions()
    objects += _named(torch.utils.data, DATA_REVIEWED)
    objects += _named(torch.func, FUNC_REVIEWED)
    objects += _named(random, RANDOM_REVIEWED)
    objects += _named(time, TIME_REVIEWED)
    objects += _named(functools, FUNCTOOLS_REVIEWED)
    objects += _named(collections, COLLECTIONS_REVIEWED)
    objects += _named(typing, TYPING_REVIEWED)
    objects += list(BUILTIN_CLASSES)
    objects += [torch.cuda.manual_seed, torch.cuda.manual_seed_all]
    for name in ("Dataset", "TensorDataset", "Subset", "ConcatDataset", "DataLoader"):
        cls = getattr(torch.utils.data, name)
        objects += _public_methods(cls, torch.utils.data.Dataset if name != "DataLoader" else cls)
    objects += _named(np.random.Generator, NUMPY_GENERATOR_METHODS)
    # `np.random.RandomState(0).randn(...)`, as older tutorials seed their data: its own
    # state, nothing process-wide.
    objects.append(np.random.RandomState)
    objects += _named(np.random.RandomState, RANDOM_STATE_METHODS)
    for plain in PLAIN_TYPES_WITH_METHODS:
        objects += [v for n, v in vars(plain).items() if not n.startswith("_") and callable(v)]
    # `format` on a str is listed with the other str methods; the guard checks its template.
    return objects


def _distributions() -> list[object]:
    """The classes of DISTRIBUTIONS_REVIEWED and the DISTRIBUTION_METHODS each defines or
    inherits, by identity (never `set_default_validate_args`, never `support`)."""
    found: list[object] = []
    for name in DISTRIBUTIONS_REVIEWED:
        cls = getattr(torch.distributions, name)
        found.append(cls)
        for klass in cls.__mro__:
            found += [v for n, v in vars(klass).items() if n in DISTRIBUTION_METHODS]
            if klass is torch.distributions.Distribution:
                break
    return found


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
            found += [
                v
                for n, v in vars(klass).items()
                if (not n.startswith("_") or n == "__init__") and callable(v)
            ]
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


# Saved-tensor hooks ("Hooks for autograd saved tensors"). torch calls the program's pack
# function on every tensor its forward saves and the unpack function whenever backward (or
# `y.grad_fn._saved_self`) needs it back. Both are the program's own code, still guarded;
# what the stand-ins below add:
#
# - What unpack returns replaces the saved tensor, and torch then checks only that it is a
#   tensor (no version counter, no shape): a backward kernel indexes memory with saved
#   integer tensors (max pooling's indices) and sizes its loops by saved shapes. So the
#   unpacked tensor must have the shape, dtype, layout and device of the one packed, and a
#   saved tensor of integers or booleans its very values (a copy is kept, taken before the
#   program's pack could change the tensor in place); and backward gets a tensor the
#   program holds no reference to, so a later unpack cannot change it after the check.
# - The stack of default hooks is the thread's, not the program's: a pair left on it (a
#   generator suspended inside the `with`) is emptied by `pristine.restore`, and a `with`
#   block of an earlier run, closed later by the garbage collector, pops nothing.
# - The engine reads every node's `_saved_*` to draw the graph (`graph_walk._read_saved`):
#   the program's unpack does not run for that (it runs as often as in plain torch), the
#   value is shown as unavailable instead.
# - While a program has such hooks the engine computes no Jacobian (like tensor hooks).


class _Packed:
    """What the stand-in's pack hook stores: the program's packed value and what the
    tensor was like before the program saw it."""

    __slots__ = ("device", "dtype", "kept", "layout", "ready", "shape", "value")

    def __init__(self, tensor: torch.Tensor, value: object, kept: torch.Tensor | None) -> None:
        self.ready = False  # the program's pack has returned `value`
        self.shape = tuple(tensor.shape)
        self.dtype = tensor.dtype
        self.layout = tensor.layout
        self.device = tensor.device
        self.kept = kept
        self.value = value

    def problem(self, tensor: object) -> str | None:
        if not isinstance(tensor, torch.Tensor):
            return None  # torch refuses it itself, with its own TypeError
        if (
            tuple(tensor.shape) != self.shape
            or tensor.dtype != self.dtype
            or tensor.layout != self.layout
            or tensor.device != self.device
        ):
            return (
                f"it returned a tensor of shape {tuple(tensor.shape)} and dtype "
                f"{tensor.dtype} for one of shape {self.shape} and dtype {self.dtype}"
            )
        if self.kept is not None and not torch.equal(tensor.detach(), self.kept):
            return "it returned other values for a saved tensor of whole numbers (indices)"
        return None


def _reads_for_the_graph(frame: types.FrameType | None) -> bool:
    """Whether the engine's graph drawing is reading saved tensors (``frame`` is the
    caller of the node's ``_saved_*`` getter)."""
    from gui.model.engine import graph_walk

    return frame is not None and frame.f_code is graph_walk._read_saved.__code__


def _checked_hooks(
    pack: Any, unpack: Any, deferred: list[tuple[_Packed, torch.Tensor]] | None = None
) -> tuple[Any, Any]:
    """The program's pack/unpack functions, wrapped as described above. With ``deferred``,
    the pack hook only records the tensor there, and the caller runs the program's pack
    later (see :meth:`RawSavedTensor.register_hooks`)."""
    program_code.note_in_autograd()

    def pack_hook(tensor: torch.Tensor) -> _Packed:
        kept = None
        if not (tensor.is_floating_point() or tensor.is_complex()):
            with torch.no_grad():
                kept = tensor.detach().clone()
        shape = _Packed(tensor, None, kept)  # before the program's pack sees the tensor
        if deferred is not None:
            deferred.append((shape, tensor))
            return shape
        shape.value = pack(tensor)
        shape.ready = True
        return shape

    def unpack_hook(packed: _Packed) -> object:
        if _reads_for_the_graph(sys._getframe(1)):
            raise RuntimeError("saved by the program's own pack hook: not read for the graph")
        if not packed.ready:
            raise CodeRefusedAtRuntime(
                "This saved tensor is not available: its `pack_hook` had not returned (or "
                "had failed) when it was needed; a pack hook cannot run backward through "
                "the node that saved the tensor it packs."
            )
        tensor = unpack(packed.value)
        problem = packed.problem(tensor)
        if problem is not None:
            raise CodeRefusedAtRuntime(
                "This `unpack_hook` is not available: what it returns stands for the tensor "
                f"that was packed, and {problem}; return a tensor like the packed one."
            )
        if not isinstance(tensor, torch.Tensor):
            return tensor  # torch's own TypeError follows
        # Backward uses the tensor after the node's other saved tensors are unpacked, which
        # runs the program's unpack again: it could change a tensor it kept, in place
        # (`idx.add_(n)`, `t.resize_(1)`), after the check. So backward gets a tensor no
        # one else holds: whole numbers a copy of the values checked, other tensors a
        # view of their own (the same storage, never smaller; sizes nobody else can change).
        if packed.kept is not None:
            return packed.kept.clone()
        return tensor.detach()

    return pack_hook, unpack_hook


class _SavedTensorsHooks(torch.autograd.graph.saved_tensors_hooks):
    """``torch.autograd.graph.saved_tensors_hooks`` for programs: torch's, with the checked
    hooks of :func:`_checked_hooks`, and an exit that pops only in the run that entered."""

    def __init__(self, pack_hook: Any, unpack_hook: Any) -> None:
        super().__init__(*_checked_hooks(pack_hook, unpack_hook))
        self._entered: list[int] = []

    def __enter__(self) -> None:
        self._entered.append(pristine.generation())
        super().__enter__()

    def __exit__(self, *args: object) -> None:
        entered = self._entered.pop() if self._entered else None
        if entered == pristine.generation():
            super().__exit__(*args)


class _SaveOnCpu(_SavedTensorsHooks):
    """``torch.autograd.graph.save_on_cpu`` for programs: torch's pack and unpack functions
    (copies to the CPU and back: here, where everything is on the CPU, a copy), checked like
    the program's. torch's reads ``getattr(torch, device_type)``: any name, so only a device
    type, and a plain bool for ``pin_memory``."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        if type(pin_memory) is not bool or not (
            type(device_type) is str and device_type in ("cuda", "cpu")
        ):
            raise CodeRefusedAtRuntime(
                "`save_on_cpu(...)` is not available with these arguments: pin_memory must be "
                "True or False and device_type 'cuda' or 'cpu'."
            )
        torchs = torch.autograd.graph.save_on_cpu(pin_memory, device_type)
        super().__init__(torchs.pack_hook, torchs.unpack_hook)


@contextlib.contextmanager
def _disable_saved_tensors_hooks(error_message: str) -> Any:
    """``torch.autograd.graph.disable_saved_tensors_hooks`` for programs: torch's, except
    that a block left open past its run (a suspended generator, closed later) puts back
    nothing in a later run (``pristine.restore`` has put the switch back already)."""
    autograd: Any = torch._C._autograd
    entered = pristine.generation()
    previous = autograd._saved_tensors_hooks_get_disabled_error_message()
    autograd._saved_tensors_hooks_disable(error_message)
    try:
        yield
    finally:
        if entered == pristine.generation():
            if previous is None:
                autograd._saved_tensors_hooks_enable()
            else:
                autograd._saved_tensors_hooks_disable(previous)


# The classes of torch's C++ autograd nodes (`PowBackward0`, `AccumulateGrad`...), which
# torch registers in `torch._C._functions`, by identity.
_NODE_CLASSES: dict[int, type] = {
    id(v): v for v in vars(torch._C._functions).values() if isinstance(v, type)
}


def is_saved_attribute(obj: object, name: str) -> bool:
    """``y.grad_fn._saved_self``, ``_saved_exponent``, ``_raw_saved_self``: a read-only
    attribute that one of torch's C++ autograd node classes defines itself (a getter over
    what the node saved for backward), on an instance of exactly that class."""
    if not name.startswith(("_saved_", "_raw_saved_")):
        return False
    cls = type(obj)
    if _NODE_CLASSES.get(id(cls)) is not cls:
        return False
    return type(vars(cls).get(name)) is types.GetSetDescriptorType


def is_allowed_context(value: object) -> bool:
    """Whether ``with value:`` may enter ``value``: torch's grad-mode and anomaly switches,
    the saved-tensor hooks' stand-ins, or an instance of the program's own class (its
    ``__enter__`` is the program's code, guarded). Nothing else: a ``torch.device`` (a
    function mode pushed for the block), a library's context manager."""
    kind = type(value)
    if kind in _CONTEXT_TYPES or kind in PROGRAM_CLASSES:
        return True
    if kind is contextlib._GeneratorContextManager:
        return getattr(value, "func", None) is _disable_saved_tensors_hooks.__wrapped__  # type: ignore[attr-defined]
    return False


_CONTEXT_TYPES: frozenset[type] = frozenset(
    {
        torch.no_grad,
        torch.enable_grad,
        torch.set_grad_enabled,
        torch.inference_mode,
        torch.autograd.detect_anomaly,
        torch.autograd.forward_ad.dual_level,
        _SavedTensorsHooks,
        _SaveOnCpu,
    }
)
