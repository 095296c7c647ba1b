"""Attention and transformer-encoder layers take torch's fused kernels, as in plain torch.

In ``eval()`` with no graph to build, ``nn.MultiheadAttention``, ``nn.TransformerEncoderLayer``
and ``nn.TransformerEncoder`` run fused native kernels (``_native_multi_head_attention``,
``_transformer_encoder_layer_fwd``; an encoder given a padding mask runs on nested tensors and
gives exact zeros at the padded places). They take that path only when
``torch.overrides.has_torch_function`` is false, and the engine's forward recorder (a torch
function mode) makes it true: the step-by-step path ran instead, whose numbers differ in the
last bits, and whose padded places are not zeros. A learner comparing with a notebook saw
other numbers.

The recorder has nothing to record there (no graph is built), so such a forward runs with
torch functions off (:class:`torch._C.DisableTorchFunction`), exactly as in plain torch, but
only when nothing but torch runs inside and the kernels get what they trust:

- every module inside is one of torch's own layer classes (by identity; a program's subclass
  only if it defines nothing but its ``__init__``), with no hook inside (nor a global one; the
  layer's own hooks run around its ``forward``, outside), no ``forward`` of its own, and plain
  attributes of built-in types, so no program code runs while the recorder is off;
- every weight is a plain parameter, one dense block on the CPU, of the input's dtype, and of
  the exact shape the layer's sizes give: the fused kernels read weights by raw pointer with
  sizes derived from the input and ``embed_dim`` (as the LSTM kernel does, see
  :mod:`.library_stand_ins`);
- the input and the masks are plain tensors on the CPU, of the shapes torch documents (any
  strides: the kernels read them through torch's own ops, which read strides).

Anything else runs the way it always did, under the recorder (the step-by-step path, whose
every op checks its arguments).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any, TypeGuard

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules import module as module_internals

from gui.model.engine.refusal import PROGRAM_CLASSES

_LAYER_CLASSES = frozenset(
    {
        nn.MultiheadAttention,
        nn.modules.linear.NonDynamicallyQuantizableLinear,
        nn.Linear,
        nn.LayerNorm,
        nn.Dropout,
        nn.ReLU,
        nn.GELU,
        nn.ModuleList,
        nn.TransformerEncoderLayer,
        nn.TransformerEncoder,
    }
)
# The activations a TransformerEncoderLayer keeps as a plain function (`activation=F.gelu`).
_ACTIVATION_FUNCTIONS = (F.relu, F.gelu)
_PLAIN_TYPES = (bool, int, float, str, type(None))
# The dtypes the fused kernels take on the CPU (plain torch fuses half precisions too).
_FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
# A module's own containers: checked one by one below; every other container must be empty.
_CONTAINERS = ("_parameters", "_buffers", "_modules", "_non_persistent_buffers_set")


def _plain_value(value: object) -> bool:
    if type(value) in _PLAIN_TYPES:
        return True
    if type(value) is tuple:  # LayerNorm's normalized_shape
        return all(type(v) is int for v in value)
    return any(value is f for f in _ACTIVATION_FUNCTIONS)


# What a program's subclass of a layer class may define and still run torch's code alone:
# its own `__init__` (which ran when the layer was made, under the recorder) and what Python
# writes into every class.
_SUBCLASS_ENTRIES = frozenset(
    {
        "__init__",
        "__module__",
        "__qualname__",
        "__doc__",
        "__annotations__",
        "__firstlineno__",
        "__static_attributes__",
    }
)
# The hooks a module's own call runs around its `forward` (`Module.__call__`), outside the
# part run with torch functions off: a submodule's run inside, the layer's own do not.
_CALL_HOOKS = frozenset(
    {
        "_forward_hooks",
        "_forward_hooks_with_kwargs",
        "_forward_hooks_always_called",
        "_forward_pre_hooks",
        "_forward_pre_hooks_with_kwargs",
        "_backward_hooks",
        "_backward_pre_hooks",
    }
)


def torch_class(cls: type) -> type | None:
    """The torch layer class whose code alone runs for an instance of ``cls``: ``cls`` if it
    is one of them, or the one a program's subclass builds on when it defines nothing but
    ``__init__`` (``class Encoder(nn.TransformerEncoder)`` passing its sizes on); ``None``
    for anything else (a method, property or descriptor of the program's anywhere in the
    class's lookup order would run the program's code inside)."""
    mro = cls.__mro__
    for index, klass in enumerate(mro):
        if klass in _LAYER_CLASSES:
            return klass if mro[index:] == klass.__mro__ else None
        if (
            klass not in PROGRAM_CLASSES
            or type(klass) is not type
            or not set(vars(klass)) <= _SUBCLASS_ENTRIES
        ):
            return None
    return None


def _only_torch_inside(layer: nn.Module) -> bool:
    """Whether calling ``layer`` can run nothing but torch's own code."""
    if any(getattr(module_internals, name) for name in _GLOBAL_HOOKS):
        return False
    for module in layer.modules():
        if torch_class(type(module)) is None:
            return False
        state = vars(module)
        if "forward" in state:
            return False
        for name, value in state.items():
            if name in _CONTAINERS or (module is layer and name in _CALL_HOOKS):
                continue
            if isinstance(value, dict | set):
                if value:  # a hook of any kind
                    return False
            elif not _plain_value(value):
                return False
        parameters = state["_parameters"].values()
        if any(p is not None and type(p) is not nn.Parameter for p in parameters):
            return False
        if state["_buffers"] or any(type(name) is not str for name in state["_modules"]):
            return False
    return True


# The global hooks a module's call runs (not the registration hooks: the engine's own, which
# run when a layer is added, never during a forward).
_GLOBAL_HOOKS = tuple(
    name
    for name, value in vars(module_internals).items()
    if name.startswith("_global_") and isinstance(value, dict) and "registration" not in name
)


def _strided(tensor: object) -> TypeGuard[torch.Tensor]:
    """A plain tensor of numbers laid out by strides, on the CPU."""
    return (
        type(tensor) in (torch.Tensor, nn.Parameter)
        and isinstance(tensor, torch.Tensor)
        and tensor.layout is torch.strided
        and tensor.device.type == "cpu"
    )


def _dense(tensor: object, dtype: torch.dtype | None = None) -> TypeGuard[torch.Tensor]:
    """A plain tensor that is one dense block of memory on the CPU (of ``dtype``): what a
    kernel reading it by raw pointer trusts."""
    return _strided(tensor) and tensor.is_contiguous() and (dtype is None or tensor.dtype == dtype)


def _weights_fit(pairs: Iterable[tuple[object, tuple[int, ...]]], dtype: torch.dtype) -> bool:
    return all(_dense(weight, dtype) and tuple(weight.shape) == shape for weight, shape in pairs)


def _attention_fits(attention: nn.MultiheadAttention, dtype: torch.dtype) -> bool:
    size, heads = attention.embed_dim, attention.num_heads
    if type(size) is not int or type(heads) is not int or heads <= 0 or size % heads:
        return False
    # A program may put another of the layer classes in a slot (`encoder.norm = nn.ReLU()`):
    # its `.weight` is not there, and such a call takes the step-by-step path (plain
    # torch's numbers or its own error).
    if not isinstance(attention.out_proj, nn.Linear):
        return False
    return _weights_fit(
        [
            (attention.in_proj_weight, (3 * size, size)),
            (attention.in_proj_bias, (3 * size,)),
            (attention.out_proj.weight, (size, size)),
            (attention.out_proj.bias, (size,)),
        ],
        dtype,
    )


def _encoder_layer_fits(layer: nn.TransformerEncoderLayer, dtype: torch.dtype) -> bool:
    attention = layer.self_attn
    if torch_class(type(attention)) is not nn.MultiheadAttention:
        return False
    if not _attention_fits(attention, dtype):
        return False
    if not all(isinstance(norm, nn.LayerNorm) for norm in (layer.norm1, layer.norm2)):
        return False
    if not (isinstance(layer.linear1, nn.Linear) and isinstance(layer.linear2, nn.Linear)):
        return False
    size = attention.embed_dim
    hidden = layer.linear1.weight.shape[0]
    norms_fit = all(tuple(norm.normalized_shape) == (size,) for norm in (layer.norm1, layer.norm2))
    return norms_fit and _weights_fit(
        [
            (layer.norm1.weight, (size,)),
            (layer.norm1.bias, (size,)),
            (layer.norm2.weight, (size,)),
            (layer.norm2.bias, (size,)),
            (layer.linear1.weight, (hidden, size)),
            (layer.linear1.bias, (hidden,)),
            (layer.linear2.weight, (size, hidden)),
            (layer.linear2.bias, (size,)),
        ],
        dtype,
    )


def _masks_fit(
    data: torch.Tensor,
    batch_first: bool,
    heads: int,
    padding: object,
    attention: object,
) -> bool:
    """Masks of the shapes torch documents, booleans or the input's dtype."""
    batch, length = (data.shape[0], data.shape[1]) if batch_first else data.shape[1::-1]
    masks: list[tuple[object, list[tuple[int, ...]]]] = [
        (padding, [(batch, length)]),
        (attention, [(length, length), (batch * heads, length, length)]),
    ]
    for mask, shapes in masks:
        if mask is None:
            continue
        # Any strides: the kernels make a mask contiguous (merge_masks expands one itself).
        if not _strided(mask) or mask.dtype not in (torch.bool, data.dtype):
            return False
        if tuple(mask.shape) not in shapes:
            return False
    return True


def _arguments(
    signature: inspect.Signature, layer: nn.Module, args: Any, kwargs: Any
) -> dict[str, Any] | None:
    """The call's arguments by name, or None when they are not plain (a program's object
    could run its own code while the recorder is off: ``__bool__``, ``__index__``...)."""
    try:
        bound = signature.bind(layer, *args, **kwargs)
    except TypeError:
        return None  # torch's own call raises the error the program should see
    values = dict(bound.arguments)
    del values["self"]
    if any(type(v) not in (bool, type(None), torch.Tensor, nn.Parameter) for v in values.values()):
        return None
    return values


def _data_fits(data: object, size: int) -> TypeGuard[torch.Tensor]:
    """The layer's input: any strides (the kernels multiply it through torch's own
    ``matmul``, which reads strides), the weights' size in its last dimension."""
    return (
        _strided(data)
        and data.dtype in _FLOAT_DTYPES
        and data.dim() == 3
        and data.shape[-1] == size
    )


def _attention_call_fits(layer: nn.MultiheadAttention, values: dict[str, Any]) -> bool:
    query = values["query"]
    if query is not values.get("key") or query is not values.get("value"):
        return False  # not self-attention: no fused kernel in plain torch either
    if not _data_fits(query, layer.embed_dim):
        return False
    return _attention_fits(layer, query.dtype) and _masks_fit(
        query,
        bool(layer.batch_first),
        layer.num_heads,
        values.get("key_padding_mask"),
        values.get("attn_mask"),
    )


def _encoder_layer_call_fits(layer: nn.TransformerEncoderLayer, values: dict[str, Any]) -> bool:
    src = values["src"]
    attention = layer.self_attn
    if not _data_fits(src, attention.embed_dim) or not _encoder_layer_fits(layer, src.dtype):
        return False
    return _masks_fit(
        src,
        bool(attention.batch_first),
        attention.num_heads,
        values.get("src_key_padding_mask"),
        values.get("src_mask"),
    )


def _encoder_call_fits(encoder: nn.TransformerEncoder, values: dict[str, Any]) -> bool:
    src = values["src"]
    layers = list(encoder.layers)
    if not layers or any(
        torch_class(type(layer)) is not nn.TransformerEncoderLayer for layer in layers
    ):
        return False
    first = layers[0].self_attn
    if not _data_fits(src, first.embed_dim):
        return False
    if not all(_encoder_layer_fits(layer, src.dtype) for layer in layers):
        return False
    if any(layer.self_attn.embed_dim != first.embed_dim for layer in layers):
        return False
    if encoder.norm is not None and not (
        isinstance(encoder.norm, nn.LayerNorm)
        and _weights_fit(
            [(encoder.norm.weight, (first.embed_dim,)), (encoder.norm.bias, (first.embed_dim,))],
            src.dtype,
        )
    ):
        return False
    return _masks_fit(
        src,
        bool(first.batch_first),
        first.num_heads,
        values.get("src_key_padding_mask"),
        values.get("mask"),
    )


_CALL_CHECKS: dict[type, Callable[[Any, dict[str, Any]], bool]] = {
    nn.MultiheadAttention: _attention_call_fits,
    nn.TransformerEncoderLayer: _encoder_layer_call_fits,
    nn.TransformerEncoder: _encoder_call_fits,
}


def _builds_no_graph(layer: nn.Module, values: dict[str, Any]) -> bool:
    if not torch.is_grad_enabled():
        return True
    tensors = [v for v in values.values() if isinstance(v, torch.Tensor)]
    return not any(t.requires_grad for t in [*tensors, *layer.parameters()])


def runs_as_plain_torch(
    layer: nn.Module, signature: inspect.Signature, args: Any, kwargs: Any
) -> bool:
    """Whether ``layer``'s call may run with torch functions off (see the module's text)."""
    check = _CALL_CHECKS.get(torch_class(type(layer)))  # type: ignore[arg-type]
    if check is None or layer.training:
        return False  # in training no fused kernel runs; not one of these layers
    values = _arguments(signature, layer, args, kwargs)
    return (
        values is not None
        and _builds_no_graph(layer, values)
        and _only_torch_inside(layer)
        and check(layer, values)
    )


def _unrecorded_when_fused(forward: Callable[..., Any]) -> Callable[..., Any]:
    signature = inspect.signature(forward)

    @functools.wraps(forward)
    def fused_forward(self: nn.Module, *args: Any, **kwargs: Any) -> Any:
        if torch._C._is_torch_function_mode_enabled() and runs_as_plain_torch(
            self, signature, args, kwargs
        ):
            with torch._C.DisableTorchFunction():
                return forward(self, *args, **kwargs)
        return forward(self, *args, **kwargs)

    fused_forward.__wrapped_forward__ = forward  # type: ignore[attr-defined]
    return fused_forward


def let_layers_take_fused_kernels() -> None:
    """Put :func:`_unrecorded_when_fused` around the three layers' ``forward``; once, in
    the engine, before any program can reach them."""
    for cls in _CALL_CHECKS:
        forward = vars(cls)["forward"]
        if not hasattr(forward, "__wrapped_forward__"):
            setattr(cls, "forward", _unrecorded_when_fused(forward))  # noqa: B010
