"""``torch.cat`` and ``torch.stack`` given tensors that do not fit together, in the learner's
names: which tensors of the list (as the line wrote them) disagree, by how much, and the fix
that fits the case (the same shape for ``stack``; ``pad_sequence`` for sequences of different
lengths; the same size in every other dimension for ``cat``). No torch, no Qt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import line_tree, parse_shape, shape_text

_JOINS = ("cat", "concat", "concatenate", "stack", "hstack", "vstack")


@dataclass(frozen=True)
class JoinCall:
    """The ``torch.cat([a, b], dim=1)`` on the line: the function's name as written, the
    tensors as written (``None`` when the line passes one name for the whole list) and the
    list's own text, and the dimension argument (``""`` when left out)."""

    func: str
    items: tuple[str, ...] | None
    sequence: str
    dim: str


def join_call(source: str | None) -> JoinCall | None:
    """The first ``cat``/``stack`` call on the line, or ``None``."""
    tree = line_tree(source)
    text = (source or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name not in _JOINS:
            continue
        first = node.args[0]
        items = None
        if isinstance(first, ast.List | ast.Tuple) and not any(
            isinstance(e, ast.Starred) for e in first.elts
        ):
            items = tuple(_written(text, e) for e in first.elts)
        dims = [k.value for k in node.keywords if k.arg in ("dim", "axis")] + node.args[1:2]
        dim = _written(text, dims[0]) if dims else ""
        return JoinCall(_written(text, func), items, _written(text, first), dim)
    return None


def _written(text: str, node: ast.AST) -> str:
    return " ".join((ast.get_source_segment(text, node) or ast.unparse(node)).split())


def _entry(call: JoinCall | None, index: int) -> str:
    """Tensor ``index`` of the list, by the name the line gave it when it can."""
    if call is not None and call.items is not None and 0 <= index < len(call.items):
        return f"`{call.items[index]}` (tensor {index} of the list)"
    if call is not None:
        return f"tensor {index} of `{call.sequence}`"
    return f"tensor {index} of the list"


def _shapes_print(call: JoinCall | None) -> str:
    if call is not None and call.items is not None:
        return "print(" + ", ".join(f"{item}.shape" for item in call.items) + ")"
    if call is not None:
        return f"print([t.shape for t in {call.sequence}])"
    return "print(t.shape)"


def cat_sizes(f: Found) -> Advice:
    """``Sizes of tensors must match except in dimension 1. Expected size 8 but got size 4
    for tensor number 1 in the list.``"""
    call = join_call(f.context.source_line)
    dim, want, got = f.group("dim"), f.group("want"), f.group("got")
    index = int(f.group("index") or 0)
    func = call.func if call is not None else "torch.cat"
    return Advice(
        f"`{func}` joins tensors end to end along dimension {dim}, so they may differ in "
        f"size along dimension {dim} only: every other dimension must be the same size in "
        f"all of them. {_entry(call, index).capitalize()} has size {got} in a dimension "
        f"where {_entry(call, 0)} has size {want}.",
        f"Print the shapes to see which dimension differs: `{_shapes_print(call)}`. Make "
        "that dimension agree (often the batch size: the same number of rows in each), "
        "or join along the dimension that differs.",
    )


def cat_dims(f: Found) -> Advice:
    """``Tensors must have same number of dimensions: got 2 and 3``."""
    call = join_call(f.context.source_line)
    func = call.func if call is not None else "torch.cat"
    first, other = f.group("first"), f.group("other")
    return Advice(
        f"`{func}` joins tensors along one dimension, so they must all have the same "
        f"number of dimensions; here one has {first} and another {other}.",
        f"Print the shapes (`{_shapes_print(call)}`) and add the missing dimension to the "
        "smaller one with `.unsqueeze(dim)` (or drop an extra one with `.squeeze(dim)`) "
        "before joining.",
    )


def stack_sizes(f: Found) -> Advice:
    """``stack expects each tensor to be equal size, but got [5] at entry 0 and [3] at
    entry 1``."""
    call = join_call(f.context.source_line)
    func = call.func if call is not None else "torch.stack"
    first, other = parse_shape(f.group("first")), parse_shape(f.group("other"))
    i, j = int(f.group("i") or 0), int(f.group("j") or 1)
    explanation = (
        f"`{func}` puts tensors side by side along a new dimension, so all of them must "
        f"have exactly the same shape; {_entry(call, i)} has shape {shape_text(first)} and "
        f"{_entry(call, j)} has shape {shape_text(other)}."
    )
    sequence = call.sequence if call is not None else "tensors"
    if len(first) == len(other) >= 1 and first[1:] == other[1:] and first[0] != other[0]:
        return Advice(
            explanation + " They differ in length only, like sentences of different "
            "numbers of tokens.",
            "Pad them to the longest length instead: `torch.nn.utils.rnn.pad_sequence("
            f"{sequence}, batch_first=True)` (the padding value is 0; `padding_value=` "
            "changes it), or cut them to one length first.",
        )
    return Advice(
        explanation,
        f"Print the shapes (`{_shapes_print(call)}`) and make them equal before stacking; "
        "to join tensors end to end along an existing dimension, where their sizes may "
        "differ in that dimension, use `torch.cat` instead.",
    )


CAT_SIZES = (
    r"Sizes of tensors must match except in dimension (?P<dim>-?\d+)\. Expected size "
    r"(?P<want>\d+) but got size (?P<got>\d+) for tensor number (?P<index>\d+)"
)
CAT_DIMS = r"Tensors must have same number of dimensions: got (?P<first>\d+) and (?P<other>\d+)"
STACK_SIZES = (
    r"stack expects each tensor to be equal size, but got \[(?P<first>[\d, ]*)\] at entry "
    r"(?P<i>\d+) and \[(?P<other>[\d, ]*)\] at entry (?P<j>\d+)"
)
