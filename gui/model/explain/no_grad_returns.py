"""A loss with no ``grad_fn`` because a helper function computed it with gradient tracking
off: ``val_loss = evaluate(model, x, y)`` where ``evaluate`` returns from inside
``with torch.no_grad():`` (or is decorated with ``@torch.no_grad()``). No torch, no Qt.
"""

from __future__ import annotations

import ast

from gui.model.explain.rule_types import Advice
from gui.model.explain.source import made_before, no_grad_block, program_tree


def returned_without_grad(program: str | None, name: str, line: int | None) -> Advice | None:
    """Advice when ``name`` (made before ``line``) is what a program function returns and
    every ``return`` of that function runs with gradient tracking off."""
    made = made_before(program, name, line)
    tree = program_tree(program)
    if made is None or tree is None or not isinstance(made.value, ast.Call):
        return None
    func = made.value.func
    if not isinstance(func, ast.Name):
        return None
    defs = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == func.id
    ]
    if len(defs) != 1:
        return None  # redefined: which one ran is not known from the text
    returns = [
        node
        for node in ast.walk(defs[0])
        if isinstance(node, ast.Return) and node.value is not None
    ]
    blocks = [no_grad_block(program, r.lineno) for r in returns]
    if not returns or blocks[0] is None or any(b is None for b in blocks):
        return None
    header_line, header = blocks[0]
    helper = func.id
    return Advice(
        "`backward()` follows a tensor's `grad_fn` back to the leaves that require grad. "
        f"`{name}` is what `{helper}(...)` returns (line {made.line}: `{made.text}`), and "
        f"`{helper}` computes it with gradient tracking off: `{header}` (line {header_line}) "
        f"is around its `return`. Torch records nothing there, so `{name}` has no `grad_fn` "
        "and backward has nothing to follow.",
        f"Keep `{helper}` for evaluation only, and compute the loss you train on outside "
        f"it, with a forward pass that is not under `{header.rstrip(':')}`.",
    )
