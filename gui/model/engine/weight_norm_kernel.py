"""Weight normalization's fused kernel, reached only with a magnitude that fits.

``torch.nn.utils.parametrizations.weight_norm`` keeps a layer's weight as a magnitude
``original0`` (``g``) and a direction ``original1`` (``v``), and its forward calls
``torch._weight_norm(v, g, dim)``. For ``dim`` 0 or the last one, on the CPU, that is a
fused kernel which takes its sizes from ``v`` alone and walks ``g`` and the norms it
writes (a tensor shaped like ``g``) by pointer, one number per slice of ``v``: torch
checks nothing of ``g``'s size. A program may put any tensor of fractions there
(``m.parametrizations.weight.original0 = nn.Parameter(torch.ones(1, 1))``, or through
``torch.func.functional_call``), and a layer of 200,000 outputs then wrote 200,000 norms
past a one-number buffer (red team, round 14: heap corruption, SIGSEGV; plain torch
too). So the forward torch's parametrization runs checks ``g`` against ``v`` first; what
backward later reads cannot change form (the guard refuses ``.data`` of another shape or
dtype, ``resize_`` changes the version, ``set_`` is refused).
"""

from __future__ import annotations

import importlib
import operator
from typing import Any

import torch

from gui.model.engine.refusal import CodeRefusedAtRuntime

WEIGHT_NORM_REFUSED = (
    "This weight norm is not available: its magnitude (`original0`) holds {found} "
    "of dtype {dtype} for a direction (`original1`) of shape {shape} and dtype {v_dtype}, "
    "which needs one number per slice along dim {dim}; keep the tensors weight_norm made "
    "(change their numbers, not their sizes)."
)
_HALVES = (torch.float16, torch.bfloat16)


def check_magnitude(v: Any, g: Any, dim: Any) -> None:
    """Refuse ``g`` and ``v`` that the fused kernel would read past (see above)."""
    if not (isinstance(v, torch.Tensor) and isinstance(g, torch.Tensor)):
        return  # torch's own TypeError follows
    try:
        dim = operator.index(dim)  # torch reads a NumPy integer as its int too
    except TypeError:
        return  # torch's own TypeError follows
    if v.dim() == 0 or dim not in (0, v.dim() - 1) or v.dtype in _HALVES or g.dtype in _HALVES:
        return  # torch's composite path: broadcasting tensor math, checked by torch
    if g.numel() != v.size(dim) or g.dtype != v.dtype or g.device != v.device:
        raise CodeRefusedAtRuntime(
            WEIGHT_NORM_REFUSED.format(
                found="1 number" if g.numel() == 1 else f"{g.numel():,} numbers",
                dtype=g.dtype,
                shape=tuple(v.shape),
                v_dtype=v.dtype,
                dim=dim,
            )
        )


def check_weight_norm_kernel() -> None:
    """Have torch's weight-norm parametrization check its tensors before the kernel."""
    parametrizations: Any = importlib.import_module("torch.nn.utils.parametrizations")
    weight_norm: Any = parametrizations._WeightNorm
    torchs = weight_norm.forward
    if getattr(torchs, "_ae_checked", False):
        return

    def forward(self: Any, weight_g: Any, weight_v: Any) -> Any:
        check_magnitude(weight_v, weight_g, self.dim)
        return torchs(self, weight_g, weight_v)

    forward._ae_checked = True  # type: ignore[attr-defined]
    forward.__doc__ = torchs.__doc__
    weight_norm.forward = forward
