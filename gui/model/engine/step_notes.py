"""A note on a program that runs without error but trains nothing: ``optimizer.step()``
called while none of the optimizer's parameters has a gradient (the step before
``loss.backward()``, or right after ``zero_grad()``), which changes nothing.

Plain torch says nothing here; the engine warns (:class:`StepWithoutGradients`), and the
warning is explained like torch's own (``explain.training_rules``). It is said only when it
is certainly true: a torch optimizer (a program's own ``Optimizer`` subclass may change
weights without gradients), no closure (``LBFGS`` computes the gradients inside ``step``),
and every parameter of every group with ``.grad`` ``None`` (torch's optimizers skip those).
"""

from __future__ import annotations

import warnings
from typing import Any

import torch.optim
from torch.optim.optimizer import Optimizer, register_optimizer_step_pre_hook

from gui.model.engine.capture import program_line

STEP_WITHOUT_GRADIENTS = (
    "optimizer.step() ran while none of its parameters had a gradient (every .grad was "
    "None), so this step changed nothing."
)


class StepWithoutGradients(UserWarning):
    """The engine's note: a torch optimizer stepped with no gradient to use."""


# torch's own optimizer classes, by identity: a program's class may claim any `__module__`.
_TORCH_OPTIMIZERS = frozenset(
    v for v in vars(torch.optim).values() if isinstance(v, type) and issubclass(v, Optimizer)
)


def _torch_optimizer(optimizer: object) -> bool:
    """An optimizer class torch defines (``torch.optim.SGD``...), not a program's."""
    return type(optimizer) in _TORCH_OPTIMIZERS


def _note_step_without_gradients(optimizer: Any, args: Any, kwargs: Any) -> None:
    """torch's global step pre-hook: warn when the step has nothing to do (see above)."""
    # torch hands the hook `step`'s own arguments, `self` first: a closure is a second.
    if len(args) > 1 or kwargs or not _torch_optimizer(optimizer) or program_line() is None:
        return
    params = _plain_params(vars(optimizer).get("param_groups"))
    if params and all(p.grad is None for p in params):
        warnings.warn(STEP_WITHOUT_GRADIENTS, StepWithoutGradients, stacklevel=2)


_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


def _plain_params(groups: object) -> list[torch.Tensor] | None:
    """The parameters of ``groups`` if they are torch's own containers of plain tensors,
    else ``None`` (no note). A program may set ``opt.param_groups`` to anything: reading a
    generator here emptied it before torch's step read it (the step changed nothing, where
    plain torch's changed the weights), and a list of its own class, or a ``grad`` of its
    own, ran its code once more than plain torch does."""
    if type(groups) is not list:
        return None
    params: list[torch.Tensor] = []
    for group in groups:
        found = dict.get(group, "params") if type(group) is dict else None
        if type(found) is not list or not all(type(p) in _PLAIN_TENSORS for p in found):
            return None
        params += found
    return params


_registered: list[object] = []


def note_steps_without_gradients() -> None:
    """Register the step pre-hook once per process (every optimizer of every program)."""
    if not _registered:
        _registered.append(register_optimizer_step_pre_hook(_note_step_without_gradients))
