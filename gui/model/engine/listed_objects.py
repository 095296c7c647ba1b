"""The objects the allowlist holds, found by identity from the reviewed lists.

torch's table of tensor functions (minus what it must leave out), the reviewed names of
:mod:`.reviewed_names` looked up on their modules and classes, the ``nn`` layers with their
own methods, the distributions, and the optimizers and schedulers once warmed up (their
methods are wrapped the first time one is made, and the list holds the wrapped objects).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import math
import random
import sys
import time
import types
import typing
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch
import torch._functorch.autograd_function
import torch.autograd.forward_ad
import torch.autograd.function
import torch.autograd.functional
import torch.autograd.graph
import torch.distributions
import torch.func
import torch.nn.functional
import torch.nn.init
import torch.nn.utils
import torch.nn.utils.parametrize
import torch.nn.utils.rnn
import torch.optim
import torch.optim.lr_scheduler
import torch.utils
import torch.utils.data
import torch.utils.hooks

from gui.model.engine.autograd_nodes import RawSavedTensor
from gui.model.engine.fused_layers import let_layers_take_fused_kernels
from gui.model.engine.library_stand_ins import check_lstm_kernels, refuse_fused_optimizers
from gui.model.engine.native_inputs import (
    _as_tensor,
    _checked_ctc_loss,
    _new_tensor,
    _tensor_numpy,
)
from gui.model.engine.reviewed_names import (
    AUTOGRAD_FUNCTIONAL,
    AUTOGRAD_REVIEWED,
    BUILTIN_CLASSES,
    COLLECTIONS_REVIEWED,
    CONTEXTLIB_REVIEWED,
    CTX_METHODS,
    DATA_REVIEWED,
    DISTRIBUTION_METHODS,
    DISTRIBUTIONS_REVIEWED,
    FUNC_REVIEWED,
    FUNCTIONAL_REVIEWED,
    FUNCTOOLS_REVIEWED,
    GENERATOR_METHODS,
    ITERTOOLS_REVIEWED,
    MODULE_METHODS,
    NDARRAY_METHODS,
    NN_REFUSED,
    NN_REVIEWED,
    NN_UTILS,
    NUMPY_GENERATOR_METHODS,
    NUMPY_RANDOM,
    NUMPY_REVIEWED,
    PACKED_SEQUENCE_METHODS,
    PARAMETRIZE_REVIEWED,
    PLAIN_TYPES_WITH_METHODS,
    RANDOM_REVIEWED,
    RANDOM_STATE_METHODS,
    RNN_UTILS,
    TENSOR_FUNCTIONS_REFUSED,
    TENSOR_HOOKS,
    TENSOR_REVIEWED,
    TIME_REVIEWED,
    TORCH_REVIEWED,
    TYPING_REVIEWED,
)
from gui.model.engine.weight_norm_kernel import check_weight_norm_kernel


def _gen() -> Iterable[None]:
    yield None


def _optimizers_warmed_up() -> tuple[list[object], list[types.CodeType]]:
    """Every optimizer and scheduler class with its methods, and torch's wrapper codes.

    An optimizer class's ``step`` is replaced by a profiling wrapper the first time one is
    made, and a scheduler wraps its optimizer's ``step`` again: make one of each here, so
    the objects listed are the ones programs will meet (and the imports they trigger
    happen before the operating-system wall).
    """
    refuse_fused_optimizers()
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
    check_lstm_kernels()  # before any program can reach nn.LSTM
    check_weight_norm_kernel()  # and parametrizations.weight_norm
    let_layers_take_fused_kernels()  # and attention layers (see fused_layers)
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
    # The frequency bins of a DFT (`torch.fft.rfftfreq(n, d=1 / rate)`, signal-processing
    # notebooks): factories like `torch.arange` (a new tensor from two numbers and the
    # usual dtype/device keywords), by identity; no file, process, native state or hook.
    objects += [torch.fft.fftfreq, torch.fft.rfftfreq]
    objects += _nn_classes_and_methods()
    # `nn.Embedding.from_pretrained(vectors, freeze=False)` (GloVe/word2vec tutorials): a
    # classmethod building the listed layer around the given tensor, as `nn.Embedding(n, d,
    # _weight=vectors)` does (a Parameter of it; whole numbers stay one version counter, as
    # for `nn.Parameter`); listed by its function. No file, process, native state or hook.
    objects += [
        vars(torch.nn.Embedding)["from_pretrained"].__func__,
        vars(torch.nn.EmbeddingBag)["from_pretrained"].__func__,
    ]
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
    # The ctx torch.func hands a custom Function's setup_context under grad/vmap
    # ("Extending torch.func with autograd.Function"): its save_for_backward and
    # save_for_forward only unwrap the batched tensors given and call the real ctx's
    # (listed above); tensors in, kept on the ctx, no file, process or native code reached.
    wrapped_ctx: Any = torch._functorch.autograd_function.CtxCustomSave
    objects += [vars(wrapped_ctx)["save_for_backward"], vars(wrapped_ctx)["save_for_forward"]]
    objects += _named(torch.Tensor, TENSOR_HOOKS)
    objects.append(torch.utils.hooks.RemovableHandle.remove)
    # `register_multi_grad_hook(tensors, fn)`: Python that calls `t.register_hook` (listed)
    # on each of the program's tensors with a closure that counts calls and then calls the
    # program's `fn` (guarded); its handle's `remove` removes those tensor hooks. Nothing
    # process-wide, no native code beyond reading which nodes this backward runs.
    objects.append(torch.autograd.graph.register_multi_grad_hook)
    objects.append(torch.autograd.graph._MultiHandle.remove)
    objects.append(RawSavedTensor.register_hooks)
    objects += [_tensor_numpy, _checked_ctc_loss, _as_tensor, _new_tensor]
    objects += _named(torch.nn.utils, NN_UTILS)
    objects += _named(torch.nn.utils.rnn, RNN_UTILS)
    objects += _named(torch.nn.utils.parametrize, PARAMETRIZE_REVIEWED)
    objects += _named(torch.nn.utils.rnn.PackedSequence, PACKED_SEQUENCE_METHODS)
    objects += _distributions()
    objects += _named(torch.utils.data, DATA_REVIEWED)
    objects += _named(torch.func, FUNC_REVIEWED)
    objects += _named(random, RANDOM_REVIEWED)
    objects += _named(time, TIME_REVIEWED)
    objects += _named(functools, FUNCTOOLS_REVIEWED)
    objects += _named(itertools, ITERTOOLS_REVIEWED)
    objects.append(vars(itertools.chain)["from_iterable"])  # chain.from_iterable(lists)
    objects += _named(contextlib, CONTEXTLIB_REVIEWED)
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
            # A static method is found as its function (`model.generate_square_subsequent_mask`
            # reads the function, not the staticmethod object that holds it).
            found += [
                v.__func__ if isinstance(v, staticmethod) else v
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
