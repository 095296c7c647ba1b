"""What the learner's line wrote, as written: the tensor it changes in place (``self.w``,
``params[0]``), hands to NumPy or to ``float()``, or rebinds from itself, and where a tensor
of whole numbers it is computed from was made. Explanations name these instead of the
object holding them (``self``, ``params``) or a placeholder. The program's text only: no
torch, no Qt; ``None`` when the text does not show it.
"""

from __future__ import annotations

import ast
import re

from gui.model.explain.operands import simple
from gui.model.explain.source import (
    inplace_targets,
    line_tree,
    made_before,
    program_tree,
    segment,
)


def inplace_written(source: str | None, program: str | None, line: int | None) -> str | None:
    """The tensor changed in place on the line as written, down to the object that is the
    tensor: ``self.w`` in ``self.w -= lr * self.w.grad``, ``params[0]`` in
    ``params[0].sub_(...)`` when ``params`` is a list the program made; ``x`` in ``x[0] = 1``
    and ``x.data.zero_()`` (an element or the numbers of ``x`` belong to ``x``)."""
    target = next(inplace_targets(line_tree(source)), None)
    if target is None or source is None:
        return None
    return segment(source.strip(), tensor_part(target, program, line))


def tensor_part(target: ast.expr, program: str | None, line: int | None) -> ast.expr:
    """Strip what indexes into a tensor (``[0]``, ``.data``) but keep what picks a tensor
    out of a Python container or object (``params[0]``, ``self.w``)."""
    while True:
        if isinstance(target, ast.Attribute) and target.attr in ("data", "T", "mT", "real"):
            target = target.value
            continue
        if isinstance(target, ast.Subscript):
            base = target.value
            made = made_before(program, base.id, line) if isinstance(base, ast.Name) else None
            listed = made is not None and isinstance(
                made.value, ast.List | ast.Tuple | ast.ListComp | ast.Dict | ast.DictComp
            )
            if listed or (made is not None and _makes_container(made.value)):
                return target
            target = base
            continue
        return target


_SPLITTERS = frozenset({"unbind", "chunk", "split", "tensor_split", "hsplit", "vsplit"})


def _makes_container(value: ast.expr | None) -> bool:
    """``list(model.parameters())``, ``[w, b]``, ``x.unbind(0)``, ``torch.chunk(x, 2)``: a
    container of tensors, not a tensor."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Name):
        return func.id in ("list", "tuple", "dict")
    return isinstance(func, ast.Attribute) and func.attr in _SPLITTERS


def view_receiver(source: str | None) -> tuple[str, str] | None:
    """``(receiver, arguments)`` of the one ``.view(...)`` call on the line, as written:
    ``("batch.transpose(1, 2)", "4, -1")`` for ``batch.transpose(1, 2).view(4, -1)``."""
    tree = line_tree(source)
    if tree is None or source is None:
        return None
    text = source.strip()
    views = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "view"
    ]
    if len(views) != 1:
        return None
    call = views[0]
    assert isinstance(call.func, ast.Attribute)
    arguments = ", ".join(segment(text, a) for a in call.args)
    return segment(text, call.func.value), arguments


def numpy_argument(source: str | None) -> str | None:
    """The tensor handed to NumPy on the line: ``fitted`` in ``np.array(fitted)`` or
    ``np.mean(preds)`` (NumPy calls ``.numpy()`` on it, which is what failed)."""
    tree = line_tree(source)
    if tree is None or source is None:
        return None
    text = source.strip()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in ("np", "numpy") and simple(node.args[0]):
            return segment(text, node.args[0])
    return None


_REQUIRES_GRAD_KEYWORD = re.compile(r",\s*requires_grad\s*=\s*True")


def attribute_made_late(
    program: str | None, source: str | None
) -> tuple[str, int, str, str] | None:
    """``(attribute, line, statement, fixed)`` for an attribute the line reads
    (``model.weights``) that the program sets to arithmetic on a leaf
    (``self.weights = torch.randn(3, requires_grad=True) * 0.1``): what it holds is not
    the leaf. ``fixed`` asks for gradients last: ``self.weights = (torch.randn(3) *
    0.1).requires_grad_()``."""
    line = line_tree(source)
    tree = program_tree(program)
    if line is None or tree is None:
        return None
    read = {n.attr for n in ast.walk(line) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Attribute) or target.attr not in read:
            continue
        if isinstance(value, ast.Call) and any(k.arg == "requires_grad" for k in value.keywords):
            continue  # the call itself makes the leaf
        written = segment(program, value)
        if not _REQUIRES_GRAD_KEYWORD.search(written):
            continue
        plain = _REQUIRES_GRAD_KEYWORD.sub("", written)
        name = segment(program, target)
        fixed = f"{name} = ({plain}).requires_grad_()"
        return name, node.lineno, segment(program, node), fixed
    return None


def number_taken(source: str | None) -> tuple[str, str] | None:
    """``(tensor, how)`` for the one number asked of a tensor on the line: ``("vals",
    "float(vals)")`` for ``float(vals)``, ``("out", "out.item()")`` for ``out.item()``."""
    tree = line_tree(source)
    if tree is None or source is None:
        return None
    text = source.strip()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        converted = isinstance(func, ast.Name) and func.id in ("float", "int")
        if converted and len(node.args) == 1 and simple(node.args[0]):
            return segment(text, node.args[0]), segment(text, node)
        item = isinstance(func, ast.Attribute) and func.attr == "item" and not node.args
        if item and isinstance(func, ast.Attribute) and simple(func.value):
            return segment(text, func.value), segment(text, node)
    return None


def rebound_from_itself(
    program: str | None, source: str | None, line: int | None
) -> tuple[str, int, str, str] | None:
    """``(tensor, line, statement, fixed)`` for a tensor the line reads (``p.w`` or ``w``)
    whose last binding before ``line`` computes it from itself (``p.w = p.w.double()``,
    ``w = w * 0.01``): what it holds is no longer the leaf. ``fixed`` makes a leaf again:
    ``p.w = p.w.detach().double().requires_grad_()``."""
    read = line_tree(source)
    tree = program_tree(program)
    if read is None or tree is None or line is None:
        return None
    wanted = {
        segment(source or "", n)
        for n in ast.walk(read)
        if isinstance(n, ast.Name | ast.Attribute) and simple(n)
    }
    best: ast.Assign | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or node.lineno >= line:
            continue
        target = segment(program, node.targets[0])
        if target not in wanted or (best is not None and best.lineno > node.lineno):
            continue
        best = node
    if best is None:
        return None
    target = segment(program, best.targets[0])
    value = segment(program, best.value)
    pattern = rf"(?<![\w.]){re.escape(target)}(?![\w(])"
    if not re.search(pattern, value) or "requires_grad" in value:
        return None
    fixed_value = re.sub(pattern, f"{target}.detach()", value, count=1)
    if not isinstance(best.value, ast.Call):
        fixed_value = f"({fixed_value})"
    return target, best.lineno, segment(program, best), f"{target} = {fixed_value}.requires_grad_()"


_WHOLE_MAKERS = re.compile(
    r"\b(arange|randint|LongTensor|IntTensor)\(|dtype\s*=\s*torch\.(long|int\d*|int)\b"
)


def _whole_literal(value: ast.expr) -> bool:
    """``torch.tensor([1, 2, 3])``: a literal of whole numbers only, no dtype given."""
    if not (isinstance(value, ast.Call) and value.args and not value.keywords):
        return False
    func = value.func
    if not (isinstance(func, ast.Attribute) and func.attr == "tensor"):
        return False
    numbers = [n for n in ast.walk(value.args[0]) if isinstance(n, ast.Constant)]
    return bool(numbers) and all(
        type(n.value) is int for n in numbers
    )  # a float anywhere makes floats


def whole_number_source(
    program: str | None, name: str, line: int | None
) -> tuple[str, int, str] | None:
    """``(tensor, line, statement)``: a tensor of whole numbers made directly
    (``counts = torch.tensor([1, 2, 3])``, ``torch.arange(5)``) that ``name`` is ``name``
    itself or is computed from (its statement, or the one before it), found in the program."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen or len(seen) > 20:
            continue
        seen.add(current)
        made = made_before(program, current, line)
        if made is None or made.value is None:
            continue
        if _whole_literal(made.value) or (
            isinstance(made.value, ast.Call)
            and _WHOLE_MAKERS.search(made.text)
            and "requires_grad" not in made.text
            and "float" not in made.text
        ):
            return current, made.line, made.text.strip()
        todo += [n.id for n in ast.walk(made.value) if isinstance(n, ast.Name)]
    return None
