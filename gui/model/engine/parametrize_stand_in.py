"""``torch.nn.utils.parametrize.register_parametrization`` for programs (the
"Parametrizations" tutorial): torch's, on tensors of fractions only, with torch's checks on.

Registering keeps the layer's tensor as ``parametrizations.<name>.original`` and, with
torch's ``set_``, points it at what the parametrization's ``right_inverse`` returned (and
later at whatever ``layer.<name> = value`` is given): from then on the program may hold a
tensor sharing that memory under a version counter of its own. For a tensor of whole
numbers (an index buffer) that is the door the guard shuts on ``.data`` of whole numbers:
torch's backward trusts the indices it saved, and changing them unseen made its kernels
write out of bounds. Fractions index nothing, so the stand-in admits only floating-point and
complex tensors; ``unsafe=True`` (torch's shape and dtype checks skipped) stays refused.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.utils.parametrize

from gui.model.engine.refusal import CodeRefusedAtRuntime

_PARAMETRIZE: Any = torch.nn.utils.parametrize


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
    for original in _originals(module, tensor_name):
        if isinstance(original, torch.Tensor) and not (
            original.is_floating_point() or original.is_complex()
        ):
            raise CodeRefusedAtRuntime(
                f"`register_parametrization(..., {tensor_name!r}, ...)` is not available on a "
                "tensor of whole numbers or booleans: torch swaps its memory for what "
                "right_inverse returns, and a backward trusts the indices it saved; "
                "parametrize a tensor of fractions."
            )
    return _PARAMETRIZE.register_parametrization(module, tensor_name, parametrization)
