"""``torch.nn.utils.parametrize``'s ``register_parametrization`` and
``remove_parametrizations`` for programs (the "Parametrizations" tutorial): torch's, on
tensors of fractions only, with torch's checks on.

Registering keeps the layer's tensor as ``parametrizations.<name>.original`` and, with
torch's ``set_``, points it at what the parametrization's ``right_inverse`` returned (and
later at whatever ``layer.<name> = value`` is given): from then on the program may hold a
tensor sharing that memory under a version counter of its own. For a tensor of whole
numbers (an index buffer) that is the door the guard shuts on ``.data`` of whole numbers:
torch's backward trusts the indices it saved, and changing them unseen made its kernels
write out of bounds. Fractions index nothing, so the stand-in admits only floating-point and
complex tensors; ``unsafe=True`` (torch's shape and dtype checks skipped) stays refused.

Checking the layer's tensor at registration is not enough (red team, round 11): a
``right_inverse`` returning a sequence makes ``original0``, ``original1``... of whatever
dtype it returns, and ``layer.parametrizations.w.original = long_tensor`` replaces a
buffer; the next ``layer.w = value`` then pointed that whole-number original at the
tensor ``right_inverse`` returned (max pooling's saved indices), and an in-place change
of the original changed the indices unseen (the backward wrote past its buffer). So every
swap torch makes (its ``_maybe_set``: registering, assigning, removing) is checked too.

Removing deletes the property torch put on the layer's class (``delattr(module.__class__,
name)``) whenever ``module.parametrizations`` holds the name, and a program can set that
entry on any layer: ``lin.parametrizations = nn.ModuleDict({'reset_parameters': fake})``
deleted ``nn.Linear.reset_parameters`` for the whole process (the next run of the program
failed). Registering such a layer put torch's property on ``nn.Linear`` itself, also when
the entry was set by the parametrization's own ``right_inverse``, after any check before
the call. So torch's two steps that edit a class are checked where they happen: the class
torch makes for a layer is recorded (``_inject_new_class``), and a property goes only on
such a class (``_inject_property``); removing takes only such a layer and torch's own
list of parametrizations.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch
import torch.nn.utils.parametrizations
import torch.nn.utils.parametrize

from gui.model.engine.refusal import CodeRefusedAtRuntime

_PARAMETRIZE: Any = torch.nn.utils.parametrize
_NATIVE_MAYBE_SET: Any = _PARAMETRIZE._maybe_set

WHOLE_NUMBERS_REFUSED = (
    "A parametrization's original tensors cannot be whole numbers or booleans here: torch "
    "swaps their memory for what right_inverse returns, and a backward trusts the indices "
    "it saved; parametrize tensors of fractions."
)


def _fractions(tensor: object) -> bool:
    """Not a tensor of whole numbers or booleans (what torch's kernels index memory with)."""
    return not isinstance(tensor, torch.Tensor) or tensor.is_floating_point() or tensor.is_complex()


def _checked_maybe_set(dest: Any, src: Any) -> None:
    """torch's ``_maybe_set`` (``dest.set_(src)``: ``dest`` shares ``src``'s memory under a
    version counter of its own) for tensors of fractions only (see the module docstring)."""
    if not (_fractions(dest) and _fractions(src)):
        raise CodeRefusedAtRuntime(WHOLE_NUMBERS_REFUSED)
    _NATIVE_MAYBE_SET(dest, src)


# The classes torch made for registered layers (``ParametrizedLinear``...): removing edits
# them, never a library class.
MADE_BY_REGISTERING: weakref.WeakSet[type] = weakref.WeakSet()
NOT_REGISTERED = (
    "`remove_parametrizations(...)` is not available on this: it removes what "
    "`register_parametrization` registered on this layer, and nothing else."
)
FORGED_PARAMETRIZATIONS = (
    "`register_parametrization(...)` is not available on this layer: its `parametrizations` "
    "were not made by registering; register on a layer without them."
)


def remove_parametrizations(module: Any, tensor_name: Any, leave_parametrized: Any = True) -> Any:
    """torch's ``remove_parametrizations`` on what torch's registration made (see the module
    docstring); torch's own errors otherwise as torch raises them."""
    registered = (
        isinstance(module, torch.nn.Module)
        and type(tensor_name) is str
        and type(module) in MADE_BY_REGISTERING
        and isinstance(
            vars(module).get("_modules", {}).get("parametrizations"), torch.nn.ModuleDict
        )
    )
    if registered:
        kept = module.parametrizations._modules.get(tensor_name)
        registered = kept is None or type(kept) is _PARAMETRIZE.ParametrizationList
    if not registered:
        raise CodeRefusedAtRuntime(NOT_REGISTERED)
    return _PARAMETRIZE.remove_parametrizations(module, tensor_name, leave_parametrized)


_NATIVE_INJECT_NEW_CLASS: Any = _PARAMETRIZE._inject_new_class
_NATIVE_INJECT_PROPERTY: Any = _PARAMETRIZE._inject_property


def _recorded_inject_new_class(module: Any) -> None:
    """torch's ``_inject_new_class`` (the layer's class becomes a new subclass of it),
    recording the class it made."""
    _NATIVE_INJECT_NEW_CLASS(module)
    MADE_BY_REGISTERING.add(type(module))


def _checked_inject_property(module: Any, tensor_name: Any) -> None:
    """torch's ``_inject_property`` (a property on the layer's class) on a class torch made
    for the layer only, never a library class or a program's (see the module docstring)."""
    if type(module) not in MADE_BY_REGISTERING:
        raise CodeRefusedAtRuntime(FORGED_PARAMETRIZATIONS)
    _NATIVE_INJECT_PROPERTY(module, tensor_name)


_CHECKED = {
    "_maybe_set": _checked_maybe_set,
    "_inject_new_class": _recorded_inject_new_class,
    "_inject_property": _checked_inject_property,
}


def check_parametrize_swaps() -> None:
    """Put the checked ``_maybe_set``, ``_inject_new_class`` and ``_inject_property`` where
    torch's parametrizations find them."""
    for name, checked in _CHECKED.items():
        if getattr(_PARAMETRIZE, name) is not checked:
            setattr(_PARAMETRIZE, name, checked)


def _originals(module: torch.nn.Module, tensor_name: str) -> list[object]:
    """The tensors a registration on ``module.tensor_name`` points torch's ``set_`` at."""
    if _PARAMETRIZE.is_parametrized(module, tensor_name):
        holder: Any = module  # (a layer's attribute: a tensor to the type checker)
        kept = holder.parametrizations[tensor_name]
        return [v for _, v in kept.named_parameters(recurse=False)] + [
            v for _, v in kept.named_buffers(recurse=False)
        ]
    found = module._parameters.get(tensor_name, module._buffers.get(tensor_name))
    return [] if found is None else [found]


def register_parametrization(
    module: Any, tensor_name: Any, parametrization: Any, *, unsafe: Any = False
) -> Any:
    """torch's ``register_parametrization`` once the layer's tensor is checked (see the
    module docstring); torch's own errors (no such tensor, a shape changed) as torch
    raises them."""
    if unsafe is not False:
        raise CodeRefusedAtRuntime(
            "`register_parametrization(..., unsafe=True)` is not available: it skips torch's "
            "checks of the shapes and dtypes a parametrization returns; leave unsafe out."
        )
    if not isinstance(module, torch.nn.Module) or type(tensor_name) is not str:
        raise CodeRefusedAtRuntime(
            "`register_parametrization(...)` is not available on this: give it a layer "
            "(nn.Module) and the name of one of its parameters or buffers, as a string."
        )
    if _PARAMETRIZE.is_parametrized(module) and type(module) not in MADE_BY_REGISTERING:
        raise CodeRefusedAtRuntime(FORGED_PARAMETRIZATIONS)
    for original in _originals(module, tensor_name):
        if not _fractions(original):
            raise CodeRefusedAtRuntime(
                f"`register_parametrization(..., {tensor_name!r}, ...)` is not available on a "
                "tensor of whole numbers or booleans: torch swaps its memory for what "
                "right_inverse returns, and a backward trusts the indices it saved; "
                "parametrize a tensor of fractions."
            )
    return _PARAMETRIZE.register_parametrization(module, tensor_name, parametrization)


# `torch.nn.utils.parametrizations`: torch's own three parametrizations (`_WeightNorm`,
# `_SpectralNorm`, `_Orthogonal`, torch's tensor math on the layer's tensor), registered by
# torch's `register_parametrization` with `unsafe=True` (weight_norm's right_inverse makes
# two tensors, orthogonal's may change the original's form): the shapes and dtypes there are
# torch's, not a program's, so skipping torch's check of them opens nothing. What a
# program could still choose, the layer, is checked as for the program's own
# parametrizations (a layer of fractions, `parametrizations` made by registering), and each
# swap torch then makes goes through the checked `_maybe_set`, `_inject_new_class` and
# `_inject_property` above. No file, process or native code beyond torch's tensor math is
# reached, and nothing is kept outside the layer (spectral_norm's `_u`/`_v` are its buffers).
_PARAMETRIZATIONS: Any = torch.nn.utils.parametrizations


def _check_library_registration(call: str, module: Any, tensor_name: Any) -> None:
    """Refuse what :func:`register_parametrization` refuses, for torch's parametrizations."""
    if not isinstance(module, torch.nn.Module) or type(tensor_name) is not str:
        raise CodeRefusedAtRuntime(
            f"`{call}(...)` is not available on this: give it a layer (nn.Module) and the "
            "name of one of its parameters or buffers, as a string."
        )
    if _PARAMETRIZE.is_parametrized(module) and type(module) not in MADE_BY_REGISTERING:
        raise CodeRefusedAtRuntime(
            FORGED_PARAMETRIZATIONS.replace("register_parametrization", call)
        )
    for original in _originals(module, tensor_name):
        if not _fractions(original):
            raise CodeRefusedAtRuntime(
                f"`{call}(..., {tensor_name!r})` is not available on a tensor of whole numbers "
                "or booleans: torch swaps its memory for what the parametrization returns, "
                "and a backward trusts the indices it saved; use it on a tensor of fractions."
            )


def weight_norm(module: Any, name: Any = "weight", dim: Any = 0) -> Any:
    """torch's ``parametrizations.weight_norm`` on a checked layer (see above)."""
    _check_library_registration("weight_norm", module, name)
    return _PARAMETRIZATIONS.weight_norm(module, name, dim)


def spectral_norm(
    module: Any,
    name: Any = "weight",
    n_power_iterations: Any = 1,
    eps: Any = 1e-12,
    dim: Any = None,
) -> Any:
    """torch's ``parametrizations.spectral_norm`` on a checked layer (see above)."""
    _check_library_registration("spectral_norm", module, name)
    return _PARAMETRIZATIONS.spectral_norm(module, name, n_power_iterations, eps, dim)


_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def orthogonal(
    module: Any,
    name: Any = "weight",
    orthogonal_map: Any = None,
    *,
    use_trivialization: Any = True,
) -> Any:
    """torch's ``parametrizations.orthogonal`` on a checked layer (see above)."""
    _check_library_registration("orthogonal", module, name)
    if orthogonal_map is not None and (
        type(orthogonal_map) is not str or orthogonal_map not in _ORTHOGONAL_MAPS
    ):
        # torch looks the map up with `getattr` on its Enum and keeps what it finds on the
        # layer (`__class__`, `_member_map_`...): only its three names reach it. The message
        # is torch's own.
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    return _PARAMETRIZATIONS.orthogonal(
        module, name, orthogonal_map, use_trivialization=use_trivialization
    )
