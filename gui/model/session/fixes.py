"""One-click fixes for the classic errors of a session's own backward calls."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Literal

from gui.model import nested
from gui.model.result import Explanation, RunResult
from gui.model.session import steps
from gui.model.session.state import SessionState

FixKind = Literal["sum", "mean", "ones_like", "retain_graph"]
# The fixes offered for each kind of error a session backward call ran into.
FIXES: dict[str, tuple[FixKind, ...]] = {
    "non-scalar-backward": ("sum", "mean", "ones_like"),
    "backward-twice": ("retain_graph",),
}


def fixes_for(error: Explanation | None, result: RunResult | None) -> tuple[FixKind, ...]:
    """The fixes that answer ``error``, if it came from one of the session's calls.

    Only the session's own backward calls: the app cannot rewrite a ``backward`` the user's
    code makes (the explanation's fix says what to change).
    """
    if error is None or result is None or not result.steps:
        return ()
    failed = result.steps[-1]
    if failed.error is None or failed.source != "session":
        return ()
    return FIXES.get(error.kind, ())


def with_fix(state: SessionState, kind: FixKind, result: RunResult | None) -> SessionState:
    """The state after one click on ``kind``.

    ``"sum"``/``"mean"`` add ``loss = out.sum()`` to the program and differentiate that;
    ``"ones_like"`` passes ``torch.ones_like(out)`` as the gradient instead;
    ``"retain_graph"`` keeps the graph on every backward call but the last.
    """
    program = state.program
    if kind == "ones_like":
        if result is None or result.output_value is None:
            raise ValueError("the output's shape is not known yet")
        return steps.edit_last(state, gradient=nested.full(result.output_value.shape, 1.0))
    if kind == "retain_graph":
        calls = program.steps or ()
        kept = tuple(replace(st, retain_graph=True) for st in calls[:-1])
        return state.with_program(steps=(*kept, *calls[-1:]))
    out = result.output if result is not None else None
    if out is None:
        raise ValueError("the output has no name to reduce")
    taken = set(result.tensors) if result is not None else set()
    taken |= assigned_names(program.code)
    name, counter = "loss", 2
    while name in taken:
        name, counter = f"loss{counter}", counter + 1
    code = program.code if program.code.endswith("\n") or not program.code else program.code + "\n"
    implicit = (
        None if program.steps is None else tuple(replace(st, gradient=None) for st in program.steps)
    )
    return state.with_program(code=f"{code}{name} = {out}.{kind}()\n", output=name, steps=implicit)


def assigned_names(code: str) -> set[str]:
    """Every name ``code`` binds anywhere (so a new name can be chosen that clashes with
    none); empty when the code does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del)
    }
