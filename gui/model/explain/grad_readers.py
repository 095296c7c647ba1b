"""The tensors a program means to train: those whose ``.grad`` it reads (``w.grad`` in an
update, ``for p in params: p.data -= lr * p.grad``). When a loss has no ``grad_fn``, these,
not the data it is computed from, are the ones to make require grad. No torch, no Qt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gui.model.explain.source import Made, made_before, program_tree, segment


@dataclass(frozen=True)
class GradReader:
    """``w.grad`` read on ``line``; ``tensors`` is what to make require grad: ``w`` itself,
    or the list ``weights`` when ``w`` is a loop's variable over it."""

    read: str  # `w.grad`, as written
    line: int
    tensors: str  # `w` or `weights`
    loop: bool  # `tensors` is a list the loop runs over
    made: Made | None  # the statement that made `tensors`


def grad_readers(program: str | None, before: int | None) -> list[GradReader]:
    """Every ``<name>.grad`` the program reads (after ``before``, or anywhere when ``None``),
    in source order, each name once."""
    tree = program_tree(program)
    if tree is None:
        return []
    loops: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            loops[node.target.id] = node.iter
    found: dict[str, GradReader] = {}
    reads = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "grad"
        and isinstance(node.ctx, ast.Load)
        and _dotted(node.value) is not None
    ]
    for node in sorted(reads, key=lambda n: (n.lineno, n.col_offset)):
        if before is not None and node.lineno <= before:
            continue
        name = _dotted(node.value) or ""
        if name in found:
            continue
        over = loops.get(name)
        if isinstance(over, ast.Name):
            tensors, loop = over.id, True
        else:
            tensors, loop = name, False
        made = _made(program, tree, tensors, node.lineno)
        found[name] = GradReader(segment(program, node), node.lineno, tensors, loop, made)
    return list(found.values())


def _dotted(node: ast.expr) -> str | None:
    """``w`` or ``m.w`` / ``self.w`` (names and attributes only)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _made(program: str | None, tree: ast.Module, tensors: str, line: int) -> Made | None:
    """The statement that made ``tensors``: a name's last binding before ``line``; for an
    attribute (``m.w``), the one statement anywhere that assigns an attribute of that name
    (``self.w = ...`` in the class), when there is exactly one."""
    if "." not in tensors:
        return made_before(program, tensors, line)
    attr = tensors.rsplit(".", 1)[1]
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Attribute)
        and node.targets[0].attr == attr
    ]
    if len(found) != 1:
        return None
    node = found[0]
    return Made(tensors, node.lineno, segment(program, node), node.value, node)


def trained_without_grad(program: str | None, loss: str, line: int | None) -> GradReader | None:
    """The first tensor (or list of tensors) the program reads ``.grad`` of after the failing
    ``line`` and that ``loss`` is computed from (its name appears in ``loss``'s history)."""
    from gui.model.explain.graph_cuts import history  # (graph_cuts imports this module's kin)

    if line is None or not loss.isidentifier():
        return None
    texts = [m.text for m in history(program, loss, line)]
    for reader in grad_readers(program, line):
        if reader.made is None:
            continue
        word = reader.tensors
        if any(_reads_name(text, word) for text in texts):
            return reader
    return None


def _reads_name(statement: str, name: str) -> bool:
    """``statement`` loads ``name`` (a whole name or dotted name, not part of another)."""
    try:
        tree = ast.parse(statement.strip())
    except SyntaxError:
        return False
    return any(
        isinstance(node, ast.Name | ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and _dotted(node) == name
        for node in ast.walk(tree)
    )


def asking_for_grad(made: Made) -> str:
    """`` (`a * 0.1` becomes `(a * 0.1).requires_grad_()`, still a leaf)`` for the first
    tensor ``made`` makes (a list's first element), or ``""`` when it is not written out."""
    value = made.value
    if isinstance(value, ast.List | ast.Tuple) and value.elts:
        value = value.elts[0]
    elif isinstance(value, ast.ListComp):
        value = value.elt
    if value is None:
        return ""
    text = ast.unparse(value)
    simple = isinstance(value, ast.Call | ast.Name | ast.Attribute | ast.Subscript)
    asked = f"{text}.requires_grad_()" if simple else f"({text}).requires_grad_()"
    return f" (`{text}` becomes `{asked}`, still a leaf)"


_OPTIMIZERS = frozenset(
    {
        "SGD", "Adam", "AdamW", "LBFGS", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
        "RAdam", "ASGD", "Rprop", "SparseAdam", "Adafactor",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Optimized:
    """``name``, listed by hand in an optimizer (``optim.LBFGS([input_img])``), made by
    ``made`` without ``requires_grad``: what the program means to train, and cannot."""

    name: str
    made: Made
    optimizer: Made  # the statement that makes the optimizer


def _listed_tensors(value: ast.expr | None) -> list[str]:
    """``[a, b]`` in ``torch.optim.Adam([a, b], lr=...)``: the names listed, as written."""
    if not isinstance(value, ast.Call) or not value.args:
        return []
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    listed = value.args[0]
    if name not in _OPTIMIZERS or not isinstance(listed, ast.List | ast.Tuple):
        return []
    return [e.id for e in listed.elts if isinstance(e, ast.Name)]


def _asks_for_grad(program: str | None, tree: ast.Module, name: str, line: int) -> bool:
    """``name.requires_grad_()`` or ``name.requires_grad = True`` before ``line``."""
    for node in ast.walk(tree):
        if getattr(node, "lineno", line) >= line:
            continue
        target = node.func if isinstance(node, ast.Call) else node
        if isinstance(node, ast.Assign):
            target = node.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and target.attr in ("requires_grad_", "requires_grad")
            and isinstance(target.value, ast.Name)
            and target.value.id == name
        ):
            return True
    return False


def optimized_without_grad(program: str | None, loss: str, line: int | None) -> Optimized | None:
    """The first tensor ``loss`` is computed from that the program hands to an optimizer by
    name (``optim.LBFGS([input_img])``), made without asking for its gradient."""
    from gui.model.explain.graph_cuts import history  # (graph_cuts imports this module's kin)

    tree = program_tree(program)
    if tree is None or line is None or not loss.isidentifier():
        return None
    texts = [m.text for m in history(program, loss, line)]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or node.lineno >= line:
            continue
        for name in _listed_tensors(node.value):
            made = made_before(program, name, node.lineno)
            if made is None or "requires_grad" in made.text or "Parameter(" in made.text:
                continue
            if _asks_for_grad(program, tree, name, line):
                continue
            if any(_reads_name(text, name) for text in texts):
                optimizer = Made("", node.lineno, segment(program, node), node.value, node)
                return Optimized(name, made, optimizer)
    return None
