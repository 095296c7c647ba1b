"""A tensor's ``grad_fn`` and ``is_leaf`` as the engine reads them, for tensors the
program never asked about.

torch refuses to give the ``grad_fn`` (and ``is_leaf``) of a view made under ``no_grad``
whose base then changed in place ("A view was created in no_grad mode and its base ...
has been modified inplace"): ``nn.init.orthogonal_`` leaves one behind, and a program may
keep one in a variable. Plain torch raises only if the program itself asks; the engine
asks to name, record and draw tensors, so it must not raise there.
"""

from __future__ import annotations

from typing import Any

import torch


def node_of(t: torch.Tensor) -> Any:
    """``t.grad_fn``, or ``None`` where torch refuses to give it (see the module)."""
    try:
        return t.grad_fn
    except RuntimeError:
        return None


def is_leaf(t: torch.Tensor) -> bool:
    """``t.is_leaf``; ``False`` where torch refuses to say (the view of the module
    docstring: a view, whose history torch no longer vouches for)."""
    try:
        return t.is_leaf
    except RuntimeError:
        return False
