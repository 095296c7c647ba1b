"""A gradient meant to be differentiated again that comes out of a custom Function whose
``backward`` is decorated with ``@once_differentiable``: torch runs that backward with
gradient recording off, so ``torch.autograd.grad(..., create_graph=True)`` (or
``backward(create_graph=True)``) hands back a gradient without a graph, and the second
backward finds nothing to follow ("element 0 of tensors does not require grad"). The
program says which Function and which line asked for the graph. No torch, no Qt.
"""

from __future__ import annotations

import ast

from gui.model.explain.rule_types import Advice
from gui.model.explain.source import assignments, program_tree, segment


def _once_differentiable_functions(tree: ast.Module) -> list[tuple[str, int]]:
    """``(class name, line of its decorated backward)`` for each such Function."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.name != "backward":
                continue
            for deco in item.decorator_list:
                name = deco.attr if isinstance(deco, ast.Attribute) else getattr(deco, "id", "")
                if name == "once_differentiable":
                    found.append((node.name, item.lineno))
    return found


def once_differentiable_cut(
    program: str | None, subject: str, names: list[str], line: int
) -> Advice | None:
    """The story when ``subject`` or one of the ``names`` it is computed from is a gradient
    asked for with ``create_graph=True`` through a ``@once_differentiable`` backward, else
    ``None``."""
    tree = program_tree(program)
    if tree is None or "create_graph=True" not in (program or ""):
        return None
    functions = _once_differentiable_functions(tree)
    if not functions:
        return None
    for name in names:
        made = [m for m in assignments(program, name) if m.line < line]
        if not made:
            continue
        node = made[-1].node
        value = getattr(node, "value", None)
        text = segment(program, value) if isinstance(value, ast.expr) else ""
        asked = "create_graph=True" in text or (
            isinstance(value, ast.Attribute)
            and value.attr == "grad"
            and "create_graph=True" in (program or "")
        )
        if not asked:  # `torch.autograd.grad(..., create_graph=True)`, or `x.grad` after
            continue  # `backward(create_graph=True)`; without it, another story applies
        where = f"line {made[-1].line} (`{made[-1].text}`)"
        listed = ", ".join(f"`{cls}.backward` (line {at})" for cls, at in functions)
        first = functions[0][0]
        return Advice(
            "`backward()` follows a tensor's `grad_fn` back to the leaves that require grad. "
            + (
                f"`{subject}` is computed from `{name}`, which "
                if name != subject
                else f"`{name}` "
            )
            + f"is a gradient, made on {where} with the graph kept for a second "
            f"derivative, but the backward it comes through is decorated with "
            f"`@once_differentiable`: {listed}. Torch runs such a backward with gradient "
            f"recording off, so the gradient it returns has no graph and `{name}` cannot be "
            "differentiated again.",
            f"Remove `@once_differentiable` from `{first}.backward` and write it with torch "
            "operations on the saved tensors (they are differentiable), so that its "
            "gradient keeps a graph; or differentiate once only.",
        )
    return None
