"""Which of the learner's tensors a failing matrix product or layer call was about.

torch's messages name ``mat1`` and ``mat2`` (``mat1 and mat2 shapes cannot be multiplied
(32x784 and 512x10)``, ``expected m1 and m2 to have the same dtype, but got: float !=
double``): the two sides of a product, in order. On the learner's line those are the two
operands of ``a @ b`` (``a.mm(b)``, ``torch.matmul(a, b)``), or, for a layer call
(``model(x)``, ``self.fc1(h)``), the input that reaches a Linear layer and that layer's
weight (transposed: ``in_features x out_features``). The helpers here read the line and the
program only (no torch), and answer ``None`` when the text does not show which is which,
so an explanation never names a tensor it cannot be sure of.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from gui.model.explain.source import line_tree, program_tree, segment

# Names whose calls are library functions, not the learner's layers (`torch.relu(h)`).
_LIBRARIES = frozenset({"torch", "F", "nn", "np", "numpy", "functional", "init", "math"})
# Builtins and tensor methods that are not layer calls (`len(x)`, `x.view(...)`).
_NOT_LAYERS = frozenset({"print", "len", "float", "int", "list", "tuple", "sum", "max", "min"})
# Tensor methods of one tensor argument (`a.mul(b)`): calls on a tensor, not a layer.
_TENSOR_METHODS = frozenset({
    "mm", "matmul", "bmm", "mv", "dot", "mul", "add", "sub", "div", "pow", "expand_as",
    "view_as", "reshape_as", "type_as", "to", "masked_fill", "gather", "index_select", "eq",
    "ne", "lt", "gt", "le", "ge", "max", "min", "maximum", "minimum", "where", "append",
    "extend", "get", "pop", "format", "join", "item", "copy_", "add_", "mul_", "sub_",
})  # fmt: skip


def simple(node: ast.expr) -> bool:
    """A name, an attribute chain or an item of one: ``x``, ``self.W``, ``params[0]``."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name)


def product_operands(source: str | None) -> tuple[str, str] | None:
    """The two sides of the one matrix product on the line, as written: ``a @ b``,
    ``a.mm(b)``, ``a.matmul(b)``, ``torch.mm(a, b)``, ``torch.matmul(a, b)``; ``None``
    when there is none, more than one, or a side is itself a computation."""
    tree = line_tree(source)
    if tree is None or source is None:
        return None
    text = source.strip()
    found: list[tuple[ast.expr, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found.append((node.left, node.right))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("mm", "matmul", "bmm")
            and not node.keywords
        ):
            if len(node.args) == 1:
                found.append((node.func.value, node.args[0]))
            elif len(node.args) == 2:
                found.append((node.args[0], node.args[1]))
    if len(found) != 1 or not all(simple(side) for side in found[0]):
        return None
    left, right = found[0]
    return segment(text, left), segment(text, right)


@dataclass(frozen=True)
class LayerCall:
    """``layer(argument)`` on the line: the first layer a value reaches (innermost call)."""

    layer: str
    argument: str
    calls: int  # how many layer calls the line has


def layer_call(source: str | None, prefer: str | None = None) -> LayerCall | None:
    """The innermost call of one of the program's layers or models on the line, with its one
    positional argument: ``self.fc1(h)`` in ``self.fc2(torch.relu(self.fc1(h)))``; the call
    of ``prefer`` (``self.fc2``) instead when the line has one (the layer known to fail)."""
    tree = line_tree(source)
    if tree is None or source is None:
        return None
    text = source.strip()
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
            continue
        root = node.func
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if not isinstance(root, ast.Name) or root.id in _LIBRARIES or root.id in _NOT_LAYERS:
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr in _TENSOR_METHODS:
            continue
        calls.append(node)
    if not calls:
        return None
    # ast.walk is breadth first: the last call found is the innermost one.
    inner = calls[-1]
    chosen = [c for c in calls if prefer is not None and segment(text, c.func) == prefer]
    if chosen:
        inner = chosen[-1]
    argument = inner.args[0]
    if not simple(argument) and not isinstance(argument, ast.Call):
        return None
    return LayerCall(segment(text, inner.func), segment(text, argument), len(calls))


@dataclass(frozen=True)
class LinearMade:
    """A statement making ``nn.Linear(in_features, out_features)``."""

    target: str  # what it is bound to (`self.fc1`), or "" inside a container
    line: int
    text: str  # the call as written: `nn.Linear(512, 10)`


def linear_layers(program: str | None, in_features: int, out_features: int) -> list[LinearMade]:
    """Every ``Linear(in_features, out_features)`` the program writes with these numbers."""
    tree = program_tree(program)
    if tree is None:
        return []
    found = []
    targets: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            targets[id(node.value)] = segment(program, node.targets[0])
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = (
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        )
        sizes = [a.value for a in node.args[:2] if isinstance(a, ast.Constant)]
        if name == "Linear" and sizes == [in_features, out_features]:
            found.append(LinearMade(targets.get(id(node), ""), node.lineno, segment(program, node)))
    return found


def conv_layers(program: str | None, in_channels: int, out_channels: int) -> list[LinearMade]:
    """Every ``Conv1d/2d/3d(in_channels, out_channels, ...)`` the program writes."""
    tree = program_tree(program)
    if tree is None:
        return []
    targets = {
        id(node.value): segment(program, node.targets[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and len(node.targets) == 1
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        sizes = [a.value for a in node.args[:2] if isinstance(a, ast.Constant)]
        if name in ("Conv1d", "Conv2d", "Conv3d") and sizes == [in_channels, out_channels]:
            found.append(LinearMade(targets.get(id(node), ""), node.lineno, segment(program, node)))
    return found


def from_numpy_calls(program: str | None) -> list[tuple[int, str]]:
    """``(line, text)`` of every ``torch.from_numpy(...)`` call: float64 data's usual door."""
    tree = program_tree(program)
    if tree is None:
        return []
    return [
        (node.lineno, segment(program, node))
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "from_numpy"
    ]


_ORDERED_DTYPES = (
    re.compile(r"must have the same dtype, but got (?P<a>\w+) and (?P<b>\w+)"),
    re.compile(r"to have the same dtype, but got: (?P<a>\w+) != (?P<b>\w+)"),
    # a convolution's input, then its weight or bias
    re.compile(r"Input type \((?P<a>\w+)\) and (?:bias|weight) type \((?P<b>\w+)\)"),
    # a recurrent layer's input, then its weights (torch names them `torch.int64`)
    re.compile(
        r"RNN input dtype \(torch\.(?P<a>\w+)\) does not match weight dtype \(torch\.(?P<b>\w+)\)"
    ),
)
# `bmm` and friends: the first operand's dtype, then the second's. Kernels behind a layer
# word it alike in another order, so it names the two sides of a product only.
_SCALAR_TYPE = re.compile(r"expected scalar type (?P<a>\w+) but found (?P<b>\w+)")
_BITS = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16"}


def product_dtypes(message: str, product: bool = False) -> tuple[str, str] | None:
    """The dtypes of ``mat1`` and ``mat2`` (a layer's input and weight), in that order, as
    torch names them (``Double``); ``product``: the line shows one product ``a @ b``."""
    for pattern in (*_ORDERED_DTYPES, _SCALAR_TYPE) if product else _ORDERED_DTYPES:
        match = pattern.search(message)
        if match:
            return _canonical(match.group("a")), _canonical(match.group("b"))
    return None


# torch's dtype names (`torch.int64`) as its messages' scalar types (`Long`).
_SCALAR_NAMES = {
    "float": "Float", "double": "Double", "half": "Half", "bfloat16": "BFloat16",
    "float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
}  # fmt: skip


def _canonical(word: str) -> str:
    return _SCALAR_NAMES.get(word.lower(), word[:1].upper() + word[1:])


def dtype_words(dtype: str) -> str:
    """``Double (float64)``."""
    bits = _BITS.get(dtype)
    return f"{dtype} ({bits})" if bits else dtype


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod)


def elementwise_operands(source: str | None) -> tuple[str, str] | None:
    """The two sides of the one elementwise operator on the line (``left + right``), when
    both are a tensor as written (a name, attribute or item): torch's ``tensor a`` and
    ``tensor b``. ``None`` for more than one operator (which pair failed is not sure)."""
    tree = line_tree(source)
    if tree is None or source is None:
        return None
    text = source.strip()
    found: list[ast.BinOp | ast.AugAssign] = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.BinOp | ast.AugAssign) and isinstance(n.op, _ELEMENTWISE)
    ]
    if len(found) != 1:
        return None
    node = found[0]
    left, right = (
        (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
    )
    if not (simple(left) and simple(right)):
        return None
    return segment(text, left), segment(text, right)


def batch_merging_reshapes(program: str | None) -> list[tuple[int, str, str, str]]:
    """``(line, statement, tensor, fixed)`` for each ``t.view(-1, n)`` or ``t.reshape(-1,
    n)`` (``-1`` first, a number after) the program writes: ``fixed`` keeps the batch
    dimension, ``t.view(t.size(0), -1)``."""
    tree = program_tree(program)
    if tree is None:
        return []
    found = []
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.stmt) or isinstance(
            statement, ast.FunctionDef | ast.ClassDef | ast.For | ast.While | ast.If | ast.With
        ):
            continue
        for node in ast.walk(statement):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("view", "reshape")
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.UnaryOp)
                and isinstance(node.args[0].op, ast.USub)
                and isinstance(node.args[0].operand, ast.Constant)
                and node.args[0].operand.value == 1
                and simple(node.func.value)
            ):
                continue
            tensor = segment(program, node.func.value)
            call = segment(program, node)
            text = segment(program, statement)
            fixed = text.replace(call, f"{tensor}.{node.func.attr}({tensor}.size(0), -1)", 1)
            found.append((statement.lineno, text, tensor, fixed))
    return found
