"""Program-wide switches that leave a loss without a ``grad_fn``: gradients turned off for the
whole program (``torch.set_grad_enabled(False)`` as a statement), every parameter frozen
(``for p in model.parameters(): p.requires_grad = False``, ``model.requires_grad_(False)``),
or ``requires_grad`` switched on after the computation that needed it.

:mod:`gui.model.explain.graph_cuts` asks these after walking the loss's own history; the
:class:`Cut` they return is the one it returns. The program's text only: no torch, no Qt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gui.model.explain.source import Made, made_before, program_tree, segment


@dataclass(frozen=True)
class Cut:
    """One statement that left the differentiated tensor without a ``grad_fn``."""

    line: int
    text: str
    explanation: str
    fix: str
    always: bool = False  # a cut whatever the statement reads (no_grad function, autograd.grad)


def reads(statement: Made) -> list[str]:
    """The names the statement's value reads, left to right."""
    value = statement.value
    if value is None:
        return []
    names = [n for n in ast.walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return list(dict.fromkeys(n.id for n in sorted(names, key=lambda n: n.col_offset)))


def called(node: ast.AST) -> str:
    """The called name of a call: ``detach`` for ``x.detach()``, ``tensor`` for ``torch.tensor``."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _statements(program: str | None) -> list[ast.stmt]:
    tree = program_tree(program)
    if tree is None:
        return []
    return sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt)), key=lambda n: n.lineno)


def _switch(node: ast.stmt) -> tuple[str, bool] | None:
    """``X.requires_grad = flag`` / ``X.requires_grad_(flag)``: the receiver as written and
    the flag; ``torch.set_grad_enabled(flag)`` as a statement: ``("", flag)``."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                return ast.unparse(target.value), value.value
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        flag = True
        if call.args:
            arg = call.args[0]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, bool)):
                return None
            flag = arg.value
        if called(call) == "requires_grad_" and isinstance(call.func, ast.Attribute):
            return ast.unparse(call.func.value), flag
        if called(call) == "set_grad_enabled" and call.args:
            return "", flag
    return None


def switched_off(program: str | None, subject: str, line: int | None) -> Cut | None:
    """``torch.set_grad_enabled(False)`` as a statement of its own, still in force."""
    off = None
    for node in _statements(program):
        if line is not None and node.lineno >= line:
            break
        switch = _switch(node)
        if switch is not None and switch[0] == "":
            off = None if switch[1] else node
    if off is None:
        return None
    text = segment(program, off)
    return Cut(
        off.lineno,
        text,
        f"Line {off.lineno} (`{text}`) turned gradient tracking off for everything after it, "
        f"not just one block, so no operation since was recorded and `{subject}` has no "
        "`grad_fn`.",
        f"Remove line {off.lineno}, or limit it to the evaluation code: "
        "`with torch.no_grad():` around the lines that need no gradients.",
    )


def frozen(program: str | None, subject: str, line: int | None) -> Cut | None:
    """``for p in model.parameters(): p.requires_grad_(False)`` (or ``model.requires_grad_(
    False)``) with nothing left unfrozen."""
    tree = program_tree(program)
    if tree is None:
        return None
    for node in _statements(program):
        switch = _switch(node) if line is None or node.lineno < line else None
        if switch is None or switch[1] or not switch[0].isidentifier():
            continue
        made = made_before(program, switch[0], node.lineno)
        if made is None or not isinstance(made.value, ast.Call):
            continue
        root = made.value.func
        while isinstance(root, ast.Attribute | ast.Call):
            root = root.value if isinstance(root, ast.Attribute) else root.func
        if isinstance(root, ast.Name) and root.id != "torch":  # a module, not a tensor
            text = segment(program, node)
            return Cut(
                node.lineno,
                text,
                f"Line {node.lineno} (`{text}`) froze every parameter of `{switch[0]}`, so "
                f"nothing `{subject}` is computed from requires grad and `{subject}` has no "
                "`grad_fn`.",
                f"Freeze only the part you do not train (e.g. "
                f"`{_first_part(program, switch[0] + '.parameters()', node.lineno)}"
                ".requires_grad_(False)`), and leave the layers you train with "
                "`requires_grad=True`.",
            )
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.For) or (line is not None and loop.lineno >= line):
            continue
        iterated = segment(program, loop.iter)
        if "parameters()" not in iterated:
            continue
        for step in ast.walk(loop):
            if not isinstance(step, ast.stmt):
                continue
            switch = _switch(step)
            if switch is None or switch[1] or not switch[0]:
                continue
            text = segment(program, step)
            return Cut(
                step.lineno,
                text,
                f"Line {step.lineno} (`{text}`, in the loop over `{iterated}`) froze every "
                f"parameter, so nothing `{subject}` is computed from requires grad and "
                f"`{subject}` has no `grad_fn`.",
                f"Freeze only the part you do not train: loop over that part's parameters "
                f"(e.g. `for param in {_first_part(program, iterated, loop.lineno)}"
                ".parameters():`), and leave the layers you train, such as the new last "
                "layer, with `requires_grad=True`.",
            )
    return None


def _first_part(program: str | None, iterated: str, line: int) -> str:
    """The first sub-module of the model whose parameters were frozen: ``backbone`` for
    ``model = nn.Sequential(backbone, head)``, else ``model[0]``."""
    model = iterated.removesuffix(".parameters()").removesuffix(".named_parameters()")
    made = made_before(program, model, line)
    if made is not None and isinstance(made.value, ast.Call):
        for arg in made.value.args:
            if isinstance(arg, ast.Name):
                return arg.id
    return f"{model}[0]"


def too_late(program: str | None, subject: str, line: int | None, made: list[Made]) -> Cut | None:
    """``w.requires_grad = True`` after ``loss`` was computed from ``w``."""
    for node in _statements(program):
        if line is not None and node.lineno >= line:
            break
        switch = _switch(node)
        if switch is None or not switch[0] or not switch[1]:
            continue
        name = switch[0]
        used = [m for m in made if name in reads(m) and m.line < node.lineno]
        if not used:
            continue
        text, first = segment(program, node), used[-1]
        return Cut(
            node.lineno,
            text,
            f"`{name}` is asked for gradients on line {node.lineno} (`{text}`), after line "
            f"{first.line} (`{first.text}`) already used it. Autograd records only what "
            f"happens while a tensor requires grad, so `{subject}` has no `grad_fn`.",
            f"Ask first, compute after: move line {node.lineno} above line {first.line}, or "
            f"create `{name}` with `requires_grad=True`.",
        )
    return None


def flag_receiver(source: str | None) -> str | None:
    """What ``.requires_grad_(...)`` / ``.requires_grad = ...`` is set on in ``source``, as
    written, when it is an expression and not a name: ``b.clone()`` in
    ``d = b.clone().requires_grad_(False)``."""
    text = (source or "").strip()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("requires_grad", "requires_grad_"):
            written = ast.get_source_segment(text, node.value) or ast.unparse(node.value)
            simple = isinstance(node.value, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
            return written if simple else f"({written})"  # `(w * 2)`, as it reads
    return None
