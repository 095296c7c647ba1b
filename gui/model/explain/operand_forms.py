"""Operands of the wrong form for the operation on the line, in the learner's names: a
boolean mask whose shape does not match the tensor it picks from, ``torch.dot`` of vectors
of different lengths, ``torch.mm`` given a vector, and a backward through an operation
torch has no derivative for (``unique``, ``histc``...). No torch, no Qt.
"""

from __future__ import annotations

import ast
import re

from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import line_tree, named_calls, parse_shape, shape_text


def _written(text: str, node: ast.AST) -> str:
    return " ".join((ast.get_source_segment(text, node) or ast.unparse(node)).split())


def _subscript(f: Found) -> tuple[str, str] | None:
    """``(tensor, index)`` of the line's first subscript, as written."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Subscript):
            return _written(text, node.value), _written(text, node.slice)
    return None


def _call_args(f: Found, names: tuple[str, ...]) -> tuple[str, ...] | None:
    """The arguments of the line's ``torch.dot(a, b)`` / ``a.dot(b)`` (by name), as written."""
    for node, _, text in named_calls(f.context.source_line, names):
        func = node.func
        args = [_written(text, a) for a in node.args]
        owner = func.value if isinstance(func, ast.Attribute) else None
        if owner is not None and not (isinstance(owner, ast.Name) and owner.id == "torch"):
            args.insert(0, _written(text, owner))  # `a.dot(b)`
        return tuple(args)
    return None


def mask_shape(f: Found) -> Advice:
    """``The shape of the mask [3] at index 0 does not match the shape of the indexed
    tensor [4, 2] at index 0``."""
    mask, shape = parse_shape(f.group("mask")), parse_shape(f.group("shape"))
    at = f.group("i")
    found = _subscript(f)
    tensor, index = (f"`{found[0]}`", f"`{found[1]}`") if found else ("the tensor", "the mask")
    return Advice(
        f"A boolean mask picks the elements where it is True, so its shape must match the "
        f"first dimensions of the tensor it indexes; {index} has shape {shape_text(mask)} and "
        f"{tensor} has shape {shape_text(shape)}, which differ at dimension {at}.",
        f"Make the mask from the same tensor, or one of the same length (print both: "
        f"`print({index.strip('`')}.shape, {tensor.strip('`')}.shape)`).",
    )


def dot_sizes(f: Found) -> Advice:
    """``inconsistent tensor size, expected tensor [3] and src [4] to have the same number
    of elements``."""
    args = _call_args(f, ("dot", "vdot", "inner"))
    first, second = f.group("first"), f.group("second")
    if args is not None and len(args) >= 2:
        a, b = args[0], args[1]
        return Advice(
            f"`torch.dot` multiplies two vectors element by element and adds the products, so "
            f"they must have the same length: `{a}` has {first} elements and `{b}` {second}.",
            f"Check their shapes (`print({a}.shape, {b}.shape)`); for a matrix times a vector "
            f"use `@` (`M @ v`).",
        )
    return Advice(
        "The two tensors must have the same number of elements (a dot product multiplies "
        f"them element by element); they have {first} and {second}.",
        "Print both shapes and make them agree.",
    )


def needs_matrix(f: Found) -> Advice:
    """``mat2 must be a matrix`` / ``self must be a matrix`` (``torch.mm``)."""
    args = _call_args(f, ("mm",))
    which = 1 if f.group("which") == "mat2" else 0
    if args is not None and len(args) > which:
        operand, other = args[which], args[1 - which] if len(args) > 1 else "M"
        fix = (
            f"`{other} @ {operand}` (or `torch.mv({other}, {operand})`)"
            if which == 1
            else f"`{operand} @ {other}`"
        )
        return Advice(
            f"`torch.mm` multiplies two matrices (2-D tensors), but `{operand}` is not 2-D.",
            f"For a matrix times a vector use {fix}; or make the vector a one-column matrix "
            f"with `{operand}.unsqueeze(1)`; for batches of matrices use `torch.bmm` or `@`.",
        )
    return Advice(
        "`torch.mm` multiplies two matrices (2-D tensors), and one of its operands is not 2-D.",
        "Use `@` (it handles vectors and batches), `torch.mv` for a matrix times a vector, "
        "or `torch.bmm` for batches.",
    )


_PICKS = frozenset({"unique", "unique_consecutive", "unique_dim", "histc", "bincount",
                    "histogram", "searchsorted", "bucketize"})  # fmt: skip


def no_derivative(f: Found) -> Advice:
    """``the derivative for '_unique2' is not implemented``."""
    op = re.sub(r"\d+$", "", f.group("op").strip("_")) or f.group("op")
    used = next(
        (
            f" (used on line {n}: `{line.strip()}`)"
            for n, line in enumerate((f.context.program or "").splitlines(), start=1)
            if re.search(rf"\b{re.escape(op)}\(", line) and not line.lstrip().startswith("#")
        ),
        "",
    )
    if op in _PICKS:
        return Advice(
            f"torch has no gradient formula for `{op}`{used}: it counts, sorts out or picks "
            "values, and no small change of its inputs changes its output smoothly, so a "
            "backward pass cannot go through it.",
            f"Keep `{op}` out of what you differentiate: apply it to `.detach()`-ed values "
            "(for indices or counts you use as constants), or use a differentiable stand-in "
            "(e.g. a soft histogram from `torch.sigmoid` or `torch.softmax`).",
        )
    return Advice(
        f"torch has no gradient formula for `{op}`{used} (it is not implemented for this "
        "operation, or for differentiating it a second time), so the backward pass cannot "
        "go through it.",
        f"Keep `{op}` out of what you differentiate (apply it to `.detach()`-ed values), "
        "or compute what you need another way; for a second derivative, check that every "
        "operation on the way supports one.",
    )


MASK_SHAPE = (
    r"The shape of the mask \[(?P<mask>[\d, ]*)\] at index (?P<i>\d+) does not match the "
    r"shape of the indexed tensor \[(?P<shape>[\d, ]*)\] at index (?P<j>\d+)"
)
DOT_SIZES = (
    r"inconsistent tensor size, expected tensor \[[\d, ]*\] and src \[[\d, ]*\] to have the "
    r"same number of elements, but got (?P<first>\d+) and (?P<second>\d+) elements"
)
NEEDS_MATRIX = r"^(?P<which>mat2|self|mat1) must be a matrix"
NO_DERIVATIVE = r"the derivative for '(?P<op>\w+)' is not implemented"
