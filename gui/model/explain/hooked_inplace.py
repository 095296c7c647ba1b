"""An in-place change next to a module with a full backward hook: torch's
"Output 0 of BackwardHookFunction is a view and is being modified inplace", in the
learner's terms. ``register_full_backward_hook`` passes the hooked module's inputs and
outputs through torch's ``BackwardHookFunction``, which hands them on as views; an in-place
layer or operation that then changes one of them (``nn.ReLU(inplace=True)``,
``F.relu(x, inplace=True)``, ``x += 1``) is refused. The program says where the hook was
registered and which line asks for an in-place change. No torch, no Qt.
"""

from __future__ import annotations

import re

from gui.model.explain.rule_types import Advice, Found

_INPLACE_FLAG = re.compile(r"\s*,?\s*inplace\s*=\s*True\s*")
_HOOKS = ("register_full_backward_hook", "register_full_backward_pre_hook")


def _first_line(program: str, words: tuple[str, ...]) -> tuple[int, str] | None:
    for number, text in enumerate(program.splitlines(), start=1):
        if any(word in text for word in words) and not text.lstrip().startswith("#"):
            return number, text.strip()
    return None


def hooked_inplace(f: Found) -> Advice:
    """The explanation for a view made by ``BackwardHookFunction`` changed in place."""
    program = f.context.program or ""
    hook = _first_line(program, _HOOKS)
    inplace = _first_line(program, ("inplace=True",))
    registered = " (`register_full_backward_hook`)"
    if hook is not None:
        registered = f" (line {hook[0]}: `{hook[1]}`)"
    changed = (
        f" Line {inplace[0]} (`{inplace[1]}`) asks for an in-place change, which lands on "
        "one of them."
        if inplace is not None
        else ""
    )
    fix = (
        "Write the change out of place (`x = x + 1`, `nn.ReLU()` rather than "
        "`nn.ReLU(inplace=True)`); the numbers are the same."
    )
    if inplace is not None:
        fixed = _INPLACE_FLAG.sub("", inplace[1])
        fix = (
            f"Use the out-of-place form on line {inplace[0]}, `inplace=False` (the default): "
            f"`{fixed}`; the numbers are the same."
        )
    return Advice(
        f"A module has a full backward hook{registered}: torch passes that module's inputs "
        "and outputs through its `BackwardHookFunction`, which hands them on as views, so "
        "that the hook sees the gradients arriving at them. Autograd cannot track an "
        f"in-place change of such a view, so it refuses.{changed}",
        fix + " Or register the hook on a module whose inputs and outputs nothing changes "
        "in place.",
    )
