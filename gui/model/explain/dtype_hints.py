"""Dtype fixes written on the learner's own line: a whole-number tensor asked to require grad
(``torch.arange(5, requires_grad=True)``, ``labels.requires_grad_()``), and a float64 tensor
that must become float32 without losing its place as a leaf.

Used by the dtype rules of :mod:`gui.model.explain.torch_rules`. The line's text only: no
torch, no Qt; ``None`` when the line does not show it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from gui.model.explain.source import Made, line_tree

_FLOAT64 = re.compile(r"dtype\s*=\s*(?:torch\.)?(?:float64|double)\b")
_INTEGER_DTYPE = re.compile(r"dtype\s*=\s*(?:torch\.)?(?:long|int\d*|uint8|int)\b")
_REQUIRES_GRAD = re.compile(r",?\s*requires_grad\s*=\s*True")


@dataclass(frozen=True)
class IntegerLeaf:
    """The tensor of whole numbers asked to require grad, and how to say it as floats."""

    name: str | None  # the variable, when the line names one
    switched: bool  # requires_grad asked for after the tensor was made (`t.requires_grad_()`)
    fixed: str | None  # the statement written with floats


def integer_leaf(source: str | None) -> IntegerLeaf | None:
    """Read ``x = torch.arange(5, requires_grad=True)`` or ``labels.requires_grad_()``."""
    tree = line_tree(source)
    text = (source or "").strip()
    if tree is None:
        return None
    target = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            break
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute):
            # `self.scale = nn.Parameter(torch.tensor([1, 2]))`: the attribute, as written
            target = ast.get_source_segment(text, node.targets[0]) or ast.unparse(node.targets[0])
            break
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "requires_grad_":
            receiver = ast.get_source_segment(text, func.value) or ast.unparse(func.value)
            return IntegerLeaf(receiver, True, f"{receiver} = {receiver}.float().requires_grad_()")
        if any(k.arg == "requires_grad" for k in node.keywords):
            call = ast.get_source_segment(text, node) or ast.unparse(node)
            return IntegerLeaf(target, False, _as_float(text, call))
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "Parameter" and target is not None:
            return IntegerLeaf(target, False, "")  # nn.Parameter asks for gradients itself
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr == "requires_grad"
        ):
            owner = ast.unparse(node.targets[0].value)
            return IntegerLeaf(owner, True, f"{owner} = {owner}.float().requires_grad_()")
    return None


def _as_float(line: str, call: str) -> str:
    """The line with ``call`` making floats: its dtype replaced, or ``dtype=torch.float32``
    added before ``requires_grad=True``."""
    if _INTEGER_DTYPE.search(call):
        fixed = _INTEGER_DTYPE.sub("dtype=torch.float32", call)
    else:
        fixed = _REQUIRES_GRAD.sub(", dtype=torch.float32, requires_grad=True", call, count=1)
    return line.replace(call, fixed, 1)


def float32_statement(made: Made, value: str) -> str:
    """``made`` rewritten to make float32: ``dtype=torch.float64`` becomes ``torch.float32``;
    a leaf made with ``requires_grad=True`` is converted first and asked for gradients after,
    so that it stays a leaf; otherwise ``.float()`` is appended."""
    if _FLOAT64.search(made.text):
        return _FLOAT64.sub("dtype=torch.float32", made.text)
    if value.endswith(".requires_grad_()"):
        return f"{made.name} = {value.removesuffix('.requires_grad_()')}.float().requires_grad_()"
    if _REQUIRES_GRAD.search(value):
        return f"{made.name} = {_REQUIRES_GRAD.sub('', value)}.float().requires_grad_()"
    each = _per_element(value)
    if each is not None:
        return f"{made.name} = {each}"
    return f"{made.name} = {value}.float()"


def _per_element(value: str) -> str | None:
    """``[torch.tensor(a) for a in arrays]`` (a list has no ``.float()``) with ``.float()``
    on each element: ``[torch.tensor(a).float() for a in arrays]``; ``None`` when ``value``
    is not a list (or tuple) written out or comprehended."""
    try:
        node = ast.parse(value, mode="eval").body
        # `([...])`: the list itself, without the brackets an operand is shown in.
        inner = ast.get_source_segment(value, node)
        if inner is not None and inner != value:
            value, node = inner, ast.parse(inner, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.ListComp | ast.GeneratorExp):
        elements = [node.elt]
    elif isinstance(node, ast.List | ast.Tuple) and node.elts:
        elements = list(node.elts)
    else:
        return None
    lines = value.encode().splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    text = value.encode()
    # Offsets are UTF-8 bytes; insert from the last element back so earlier ones hold.
    for element in reversed(elements):
        if element.end_lineno is None or element.end_col_offset is None:
            return None
        end = starts[element.end_lineno - 1] + element.end_col_offset
        text = text[:end] + b".float()" + text[end:]
    return text.decode()
