"""The reviewed lists: which modules, names and types the allowlist is built from.

Plain data, checked by review: the modules a program may hold (:data:`MODULES`), what
torch's table of tensor functions leaves out or must leave out, and the names of each
library's functions, classes and methods that :mod:`.listed_objects` turns into objects
by identity (see :mod:`.allowlist` for where each list comes from and why).
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import copy
import functools
import itertools
import math
import random
import time
import types
import typing

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
import torch.nn.utils.parametrize
import torch.nn.utils.rnn
import torch.optim
import torch.optim.lr_scheduler
import torch.utils
import torch.utils.checkpoint
import torch.utils.data

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
    # Activation checkpointing: only its two functions are listed, as the engine's
    # stand-ins (:mod:`.checkpoint_stand_in`); the rest of the module (debug modes,
    # selective checkpointing's dispatch modes, device states) is refused.
    torch.utils.checkpoint,
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
    itertools,
    collections,
    typing,
    contextlib,  # `nullcontext` alone (CONTEXTLIB_REVIEWED)
    # Round 5 of the widening: each holds, besides what is listed below by identity, only
    # what the guard refuses by value (registries, counters, submodules, other classes).
    torch.autograd.function,  # for `once_differentiable`
    torch.nn.utils.rnn,  # padding and packing sequences for recurrent layers
    # The "Parametrizations" tutorial: only PARAMETRIZE_REVIEWED below; `cached()` (a
    # process-wide cache keyed by the module's id) and the rest are refused by value.
    torch.nn.utils.parametrize,
    # Only the stand-ins for weight_norm, spectral_norm and orthogonal (`parametrize_stand_in`);
    # the rest (its private classes, `Enum`) is refused by value.
    torch.nn.utils.parametrizations,
    torch.distributions,  # the distributions of DISTRIBUTIONS_REVIEWED and kl_divergence
    # Saved-tensor hooks: only the stand-ins for saved_tensors_hooks, save_on_cpu and
    # disable_saved_tensors_hooks (see `_SavedTensorsHooks`), register_multi_grad_hook
    # (listed by identity); the rest is refused by name or by value.
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
    # Backends' entry points below the checks of the functions programs call (red team,
    # round 11): `native_batch_norm` and `batch_norm_update_stats` wrote running statistics
    # of every channel into one-number tensors (heap corruption), the fbgemm kernels read
    # `col_offsets` past its size (SIGSEGV); `torch.batch_norm`, `F.batch_norm` and the
    # layers check those sizes. The rest are sync-BN and GPU helpers, with no CPU kernel.
    "native_batch_norm", "batch_norm_update_stats", "batch_norm_stats", "batch_norm_elemt",
    "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts",
    "batch_norm_backward_reduce", "batch_norm_backward_elemt", "native_norm",
    "fbgemm_linear_fp16_weight", "fbgemm_linear_fp16_weight_fp32_activation",
    "fbgemm_linear_int8_weight", "fbgemm_linear_int8_weight_fp32_activation",
    "fbgemm_linear_quantize_weight", "fbgemm_pack_gemm_matrix_fp16",
    "fbgemm_pack_quantized_matrix",
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
# `torch.nn.utils.parametrize`: registering (the app's stand-in, `parametrize_stand_in`:
# tensors of fractions only) swaps the layer's class for a subclass made from it
# (`ParametrizedLinear`, still a layer, its reads guarded) with a property that runs the
# program's parametrization layer (guarded code) on `parametrizations.weight.original`;
# the tensor name must already be a parameter or buffer of the layer (whose names the
# layer's own rules check); removing puts the class back. No file, process or native
# code is reached, and nothing is kept outside the layer.
PARAMETRIZE_REVIEWED: tuple[str, ...] = (
    "remove_parametrizations", "is_parametrized",
)  # fmt: skip
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
# Round 12 (real code): `Uniform`, `MultivariateNormal` (VAE and Gaussian-process
# tutorials), `Beta` (Thompson sampling, bounded PPO actions) and `Dirichlet`, which a
# `Beta` holds: each keeps only tensors of its parameters, and its methods are tensor math
# (`_standard_gamma`/`_sample_dirichlet` with their backward, `linalg.cholesky`,
# `triangular_solve`), whose sizes torch checks; no registry, cache or class-level state.
DISTRIBUTIONS_REVIEWED: tuple[str, ...] = (
    "Distribution", "Normal", "Categorical", "Bernoulli", "Independent",
    "Uniform", "MultivariateNormal", "Beta", "Dirichlet",
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
# `stack_module_state` ("Model ensembling"): reads each model's named_parameters and
# named_buffers (the program's own code or torch's, guarded) and returns torch.stack of
# them as new leaves; it keeps nothing and reaches no file, process or native code.
FUNC_REVIEWED: tuple[str, ...] = (
    "grad", "grad_and_value", "vmap", "jacrev", "jacfwd", "hessian", "vjp", "jvp",
    "functional_call", "linearize", "stack_module_state",
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
# `itertools` (GAN/VAE code: `optim.Adam(itertools.chain(enc.parameters(),
# dec.parameters()))`; grids of hyperparameters with `product`): iterators over the
# program's own values, calling only the program's (guarded) functions; no file, process,
# native state or hook. Not `tee` (a shared buffer no tutorial needs).
ITERTOOLS_REVIEWED: tuple[str, ...] = (
    "chain", "product", "islice", "cycle", "repeat", "count", "combinations",
    "combinations_with_replacement", "permutations", "accumulate", "zip_longest", "groupby",
    "starmap", "takewhile", "dropwhile", "compress", "pairwise",
)  # fmt: skip
# `contextlib` (nanoGPT: `ctx = nullcontext() if device_type == 'cpu' else autocast(...)`):
# `nullcontext` is a pure-Python class whose `__enter__` returns the value it was given and
# whose `__exit__` does nothing: no file, process, native code or process-wide state. Not
# `redirect_stdout` (writes the process's stdout), `ExitStack` or `contextmanager` (run
# callbacks and generators outside the `with` admission), `chdir` (the working folder).
CONTEXTLIB_REVIEWED: tuple[str, ...] = ("nullcontext",)
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
    # mixup's `lam = np.random.beta(alpha, alpha)`: a sampler like `normal`, same generator.
    "beta",
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
    "choice", "shuffle", "permutation", "standard_normal", "beta",
)  # fmt: skip
NUMPY_GENERATOR_METHODS: tuple[str, ...] = (
    "random", "normal", "uniform", "integers", "choice", "permutation", "shuffle",
    "standard_normal", "beta",
)  # fmt: skip

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
