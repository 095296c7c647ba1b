"""Reading the user's own line and the shapes in torch's messages, to tailor a fix.

The rule builders (:mod:`.torch_rules`, :mod:`.python_rules`) use these
helpers to write a fix in the user's own terms: the tensor ``backward`` was called on, the
gradient list as it was typed, the shapes inside a ``torch.Size([2, 2])``. Everything here is a
hint only: a helper that cannot make sense of its input returns ``None`` and the builder falls
back to generic names. :mod:`ast` for the line, numpy for reshaping and broadcasting the
numbers; no torch or Qt.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

Shape = tuple[int, ...]


# ---------------------------------------------------------------------------------------------
# Reading the user's line. Only ever a hint: a line may be part of a longer statement, so every
# helper returns None when the line does not parse and the caller falls back to generic names.


def line_tree(source: str | None) -> ast.AST | None:
    """The line parsed on its own, or ``None`` when it is not a whole statement."""
    if not source:
        return None
    text = source.strip()
    # A block header (`for ...:`, `with ...:`) parses once it has a body.
    for candidate in (text, text + " pass"):
        try:
            return ast.parse(candidate)
        except SyntaxError:
            continue
    return None


@dataclass(frozen=True)
class BackwardCall:
    """``receiver.backward(gradient, **rest)`` as written on the user's line."""

    receiver: str | None
    gradient: ast.expr | None
    gradient_text: str | None  # as the user wrote it (ast.unparse would turn 1. into 1.0)
    rest: tuple[str, ...]

    def with_gradient(self, receiver: str, gradient: str | None) -> str:
        args = ([gradient] if gradient else []) + list(self.rest)
        return f"{receiver}.backward({', '.join(args)})"


def backward_call(source: str | None) -> BackwardCall | None:
    """The first ``.backward(...)`` call on the line, or ``None``."""
    tree = line_tree(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr != "backward":
                continue
            value = node.func.value
            receiver = value.id if isinstance(value, ast.Name) else None
            gradient = node.args[0] if node.args else None
            text = (source or "").strip()
            rest = [ast.get_source_segment(text, a) or ast.unparse(a) for a in node.args[1:]]
            for kw in node.keywords:
                if kw.arg == "gradient":
                    gradient = kw.value
                else:
                    rest.append(ast.get_source_segment(text, kw) or ast.unparse(kw))
            written = None
            if gradient is not None:
                written = ast.get_source_segment(text, gradient) or ast.unparse(gradient)
            return BackwardCall(receiver, gradient, written, tuple(rest))
    return None


def list_literal(node: ast.AST | None) -> list[Any] | None:
    """The first list of plain numbers inside ``node``: ``[1, 0]`` in ``T.FloatTensor([1, 0])``."""
    if node is None:
        return None
    for sub in ast.walk(node):
        if isinstance(sub, ast.List):
            try:
                value = ast.literal_eval(sub)
            except ValueError:
                continue
            if all(isinstance(v, int | float) and not isinstance(v, bool) for v in flatten(value)):
                return list(value)
    return None


def inplace_target(source: str | None) -> str | None:
    """The name changed in place on the line: ``x -= ...``, ``x[0] = ...`` or ``x.add_(...)``."""
    tree = line_tree(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        target: ast.expr | None = None
        if isinstance(node, ast.AugAssign):
            target = node.target
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            target = node.targets[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr.endswith("_") and not attr.startswith("_"):
                target = node.func.value
                root = target
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in _LIBRARY_NAMES and node.args:
                    target = node.args[0]  # torch.sin_(a), nn.init.zeros_(w)
        while isinstance(target, ast.Subscript | ast.Attribute):
            target = target.value  # x[0] and x.data both belong to x
        if isinstance(target, ast.Name):
            return target.id
    return None


def matmul_operands(source: str | None) -> tuple[str, str] | None:
    """The two names of ``a @ b``, ``a.mm(b)``, ``torch.mm(a, b)`` or ``torch.matmul(a, b)``."""
    tree = line_tree(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        pair: tuple[ast.expr, ast.expr] | None = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            pair = (node.left, node.right)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("mm", "matmul")
        ):
            args = [*node.args]
            if len(args) == 1:
                pair = (node.func.value, args[0])
            elif len(args) == 2:
                pair = (args[0], args[1])
        if pair is not None and all(isinstance(p, ast.Name) for p in pair):
            left, right = pair
            assert isinstance(left, ast.Name) and isinstance(right, ast.Name)
            return left.id, right.id
    return None


def zero_dim_subscript(source: str | None) -> tuple[str, str] | None:
    """``loss.data[0]`` or ``loss[0]`` on the line: the tensor's name and the text to replace."""
    tree = line_tree(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript):
            continue
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "data":
            value = value.value
        if isinstance(value, ast.Name):
            text = ast.get_source_segment((source or "").strip(), node) or ast.unparse(node)
            return value.id, text
    return None


# Names that hold torch's (or numpy's) functions, not tensors: in `torch.sin_(a)` the
# tensor changed in place is the argument.
_LIBRARY_NAMES = frozenset({"torch", "F", "nn", "np", "numpy", "functional", "init"})


def attribute_receiver(source: str | None, attrs: tuple[str, ...]) -> str | None:
    """The name in ``name.attr`` / ``name.attr()`` / ``float(name)`` for the first of ``attrs``."""
    tree = line_tree(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in attrs
            and isinstance(node.value, ast.Name)
        ):
            return node.value.id
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in attrs
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            return node.args[0].id
    return None


# ---------------------------------------------------------------------------------------------
# Shapes and nested lists of numbers.

# The pattern for ``torch.Size([...])`` in a message; ``.format(name)`` names its group.
TORCH_SIZE = r"torch\.Size\(\[(?P<{}>[\d, ]*)\]\)"


def parse_shape(text: str) -> Shape:
    """``"2, 2"`` (the inside of ``torch.Size([2, 2])``) as ``(2, 2)``."""
    return tuple(int(p) for p in text.replace(" ", "").split(",") if p)


def shape_text(shape: Shape) -> str:
    """A shape as a learner reads it, spelling out the 0-d case."""
    return f"[{', '.join(map(str, shape))}]" if shape else "[] (a single number)"


def numel(shape: Shape) -> int:
    """The number of elements of a tensor of this shape."""
    return math.prod(shape)


def broadcasts_to(given: Shape, target: Shape) -> bool:
    """Whether ``given`` expands to ``target`` by torch's rule (align right; sizes equal or 1)."""
    try:
        return np.broadcast_shapes(given, target) == tuple(target)
    except ValueError:
        return False


def flatten(value: Any) -> list[Any]:
    """Nested lists in row-major order, each number as it was written.

    A walk rather than numpy: the lists come from the learner's line, and the callers check
    them (ragged? a bool? ints only?), which ``np.asarray`` would refuse or coerce away.
    """
    if isinstance(value, list):
        return [v for item in value for v in flatten(item)]
    return [value]


def reshape(flat: list[Any], shape: Shape) -> Any:
    """Row-major ``flat`` as nested lists of ``shape`` (a bare number for ``()``).

    ``flat`` must hold exactly ``numel(shape)`` numbers (else ``ValueError``).
    """
    return np.reshape(np.asarray(flat), shape).tolist()


def expand(flat: list[Any], given: Shape, target: Shape) -> Any:
    """Broadcast row-major ``flat`` of shape ``given`` to ``target``, as nested lists.

    ``ValueError`` unless ``flat`` fills ``given`` and ``given`` broadcasts to ``target``.
    """
    return np.broadcast_to(np.reshape(np.asarray(flat), given), target).tolist()


def render(value: Any) -> str:
    """Nested numbers as torch prints them: ``[[1., 0.], [1., 0.]]``."""
    if isinstance(value, list):
        return "[" + ", ".join(render(v) for v in value) + "]"
    number = float(value)
    return f"{int(number)}." if number.is_integer() else repr(number)


def tensor_literal(value: Any) -> str:
    """Code that builds ``value`` as a float tensor."""
    return f"torch.tensor({render(value)})"


def ordinal(index: int) -> str:
    """``0`` as ``"first"``, ``1`` as ``"second"``...: a column as a sentence names it."""
    words = ("first", "second", "third", "fourth", "fifth")
    return words[index] if index < len(words) else f"{index + 1}th"
