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
import functools
import math
import re
from collections.abc import Container, Iterator
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


def named_calls(source: str | None, names: Container[str]) -> Iterator[tuple[ast.Call, str, str]]:
    """The calls on the line whose function or method is one of ``names`` (``f(...)``,
    ``x.f(...)``), in :func:`ast.walk`'s order: each with that name and the line as its
    nodes' positions read it (stripped, for :func:`segment`)."""
    tree = line_tree(source)
    text = (source or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in names:
                yield node, name, text


def differentiated(call: ast.Call) -> ast.expr | None:
    """What a ``backward`` call differentiates: ``y`` in ``y.backward()``, and in the
    function form, ``torch.autograd.backward(y)`` or ``tensors=y`` (not ``torch.autograd``,
    the receiver of that call)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "backward":
        return None
    owner = func.value
    if (isinstance(owner, ast.Name) and owner.id == "autograd") or (
        isinstance(owner, ast.Attribute) and owner.attr == "autograd"
    ):
        if call.args:
            return call.args[0]
        return next((k.value for k in call.keywords if k.arg == "tensors"), None)
    return owner


def differentiated_text(source: str | None) -> str | None:
    """What the line's first ``backward`` call differentiates, as written (see
    :func:`differentiated`): ``m.out`` in ``torch.autograd.backward(m.out)``."""
    tree = line_tree(source)
    for node in ast.walk(tree) if tree is not None else ():
        target = differentiated(node) if isinstance(node, ast.Call) else None
        if target is not None:
            return operand((source or "").strip(), target)
    return None


def backward_call(source: str | None) -> BackwardCall | None:
    """The first ``.backward(...)`` call on the line, or ``None``."""
    tree = line_tree(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr != "backward":
                continue
            value = differentiated(node)
            receiver = value.id if isinstance(value, ast.Name) else None
            function_form = value is not node.func.value
            args = node.args[1:] if function_form else node.args
            gradient = args[0] if args else None
            text = (source or "").strip()
            rest = [ast.get_source_segment(text, a) or ast.unparse(a) for a in args[1:]]
            for kw in node.keywords:
                if kw.arg == "tensors" and function_form:
                    continue
                if kw.arg in ("gradient", "grad_tensors"):
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
    for target in inplace_targets(line_tree(source)):
        while isinstance(target, ast.Subscript | ast.Attribute):
            target = target.value  # x[0] and x.data both belong to x
        if isinstance(target, ast.Name):
            return target.id
    return None


def inplace_targets(tree: ast.AST | None) -> Iterator[ast.expr]:
    """What each in-place change on the line writes to, as written: the target of
    ``x -= ...`` or ``x[0] = ...``, the receiver of ``x.add_(...)``, the first argument of
    ``torch.sin_(a)`` or ``nn.init.zeros_(w)``."""
    if tree is None:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign):
            yield node.target
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            yield node.targets[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr.endswith("_") and not attr.startswith("_"):
                root = node.func.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in _LIBRARY_NAMES and node.args:
                    yield node.args[0]  # torch.sin_(a), nn.init.zeros_(w)
                else:
                    yield node.func.value


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
        dotted = _dotted(value) if isinstance(value, ast.Attribute) else None
        if dotted is not None:  # `log.loss[0]`: the tensor is `log.loss`
            text = ast.get_source_segment((source or "").strip(), node) or ast.unparse(node)
            return dotted, text
    return None


# Names that hold torch's (or numpy's) functions, not tensors: in `torch.sin_(a)` the
# tensor changed in place is the argument.
_LIBRARY_NAMES = frozenset({"torch", "F", "nn", "np", "numpy", "functional", "init"})


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` as text when ``node`` is a plain name or a chain of attributes on one."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def attribute_receiver(source: str | None, attrs: tuple[str, ...]) -> str | None:
    """The name in ``name.attr`` / ``name.attr()`` / ``float(name)`` for the first of ``attrs``
    (a dotted name too: ``model.fc.weight`` in ``model.fc.weight.grad``)."""
    tree = line_tree(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in attrs:
            dotted = _dotted(node.value)
            if dotted is not None and dotted.split(".")[0] not in _LIBRARY_NAMES:
                return dotted
            if isinstance(node.value, ast.Subscript) and _dotted(node.value.value) is not None:
                # `hidden[0].grad`, `losses[-1].backward()`: the item, as written
                text = ast.get_source_segment((source or "").strip(), node.value)
                return text or ast.unparse(node.value)
            inner = node.value.value if isinstance(node.value, ast.Attribute) else None
            if isinstance(inner, ast.Subscript) and _dotted(inner.value) is not None:
                # `net[0].weight.grad`: an attribute of the item, as written
                text = ast.get_source_segment((source or "").strip(), node.value)
                return text or ast.unparse(node.value)
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


# ---------------------------------------------------------------------------------------------
# Reading the whole program (``ErrorContext.program``): where a name is made, the blocks and
# loops around a line. Hints too: a program that does not parse gives ``None`` everywhere.


@functools.lru_cache(maxsize=8)
def program_tree(program: str | None) -> ast.Module | None:
    """The whole program parsed, or ``None``."""
    if not program:
        return None
    try:
        return ast.parse(program)
    except (SyntaxError, ValueError):
        return None


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _stored_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def segment(program: str | None, node: ast.AST) -> str:
    """The text of ``node`` as the program wrote it (one line's worth, stripped)."""
    text = ast.get_source_segment(program or "", node) or ast.unparse(node)
    return " ".join(text.split())


@dataclass(frozen=True)
class Made:
    """One statement that binds ``name``: ``name = value`` (``value`` may be ``None`` for
    ``for name in ...`` or ``name += ...``)."""

    name: str
    line: int
    text: str  # the whole statement, as written
    value: ast.expr | None
    node: ast.stmt


def assignments(program: str | None, name: str) -> list[Made]:
    """Every statement that binds ``name`` (anywhere: top level, loops, function bodies)."""
    return list(_assignments(program, name))


@functools.lru_cache(maxsize=1024)
def _assignments(program: str | None, name: str) -> tuple[Made, ...]:
    # Cached: the advice walks a loss's history back through many names, each asking here.
    tree = program_tree(program)
    if tree is None:
        return ()
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
            value = node.value if isinstance(node, ast.AnnAssign) else None
        elif isinstance(node, ast.For | ast.With):
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) or any(
            isinstance(t, ast.Tuple | ast.List) and name in _stored_names(t) for t in targets
        ):
            if isinstance(targets[0], ast.Tuple | ast.List):
                value = None  # `out, hidden = rnn(x, hidden)`: not hidden's whole value
            assert isinstance(node, ast.stmt)
            found.append(Made(name, node.lineno, segment(program, node), value, node))
    return tuple(sorted(found, key=lambda m: m.line))


def made_before(program: str | None, name: str, line: int | None) -> Made | None:
    """The last statement binding ``name`` at or before ``line`` (or the last of all)."""
    # `w -= lr * w.grad` changes `w`; the statement that made it is an earlier one.
    made = [m for m in assignments(program, name) if not isinstance(m.node, ast.AugAssign)]
    before = [m for m in made if line is None or m.line <= line]
    chosen = before or made
    return chosen[-1] if chosen else None


_NO_GRAD_CALLS = frozenset({"no_grad", "inference_mode"})


def _turns_grad_off(call: ast.expr) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(False)``."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in _NO_GRAD_CALLS:
        return True
    if name == "set_grad_enabled" and call.args:
        arg = call.args[0]
        return isinstance(arg, ast.Constant) and arg.value is False
    return False


def no_grad_block(program: str | None, line: int) -> tuple[int, str] | None:
    """The ``with torch.no_grad():`` (or a ``@torch.no_grad()`` function) around ``line``:
    its line and its header as written."""
    tree = program_tree(program)
    if tree is None:
        return None
    best: tuple[int, str] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.With | ast.FunctionDef):
            continue
        end = node.end_lineno or node.lineno
        if not node.body or not node.body[0].lineno <= line <= end:
            continue
        if isinstance(node, ast.With):
            if any(_turns_grad_off(item.context_expr) for item in node.items):
                items = ", ".join(segment(program, i) for i in node.items)
                best = (node.lineno, f"with {items}:")
        elif any(_turns_grad_off(d) for d in node.decorator_list):
            deco = next(d for d in node.decorator_list if _turns_grad_off(d))
            best = (deco.lineno, f"@{segment(program, deco)}")
    return best


@dataclass(frozen=True)
class Carried:
    """Names a loop hands from one pass to the next: ``out, hidden = rnn(x, hidden)``."""

    names: tuple[str, ...]
    line: int
    text: str
    loop_line: int
    # The statement of the loop's own body that holds it: the line itself, or the inner
    # loop around it (`for t in ...:` over the steps of one chunk), where a cut belongs.
    pass_line: int = 0


def carried_in_loop(program: str | None, line: int, skip: frozenset[str]) -> Carried | None:
    """In the innermost loop around ``line``: a statement that computes a name from its own
    previous value with a call (a model's state, a hidden state), other than ``skip``."""
    tree = program_tree(program)
    if tree is None:
        return None
    loops = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.For | ast.While) and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    for loop in sorted(loops, key=lambda n: -n.lineno):  # innermost first
        for node in ast.walk(loop):
            if not isinstance(node, ast.Assign):
                continue
            stored = set().union(*(_stored_names(t) for t in node.targets))
            loaded = _loaded_names(node.value)
            has_call = any(isinstance(n, ast.Call) for n in ast.walk(node.value))
            value = node.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and isinstance(value.func.value, ast.Name)
                and value.func.value.id in stored
            ):
                continue  # `x = x.to(device)`, `h = h.detach()`: a method of itself
            names = tuple(sorted((stored & loaded) - skip))
            if names and has_call:
                outer = next(
                    (
                        s.lineno
                        for s in loop.body
                        if s.lineno <= node.lineno <= (s.end_lineno or s.lineno)
                    ),
                    node.lineno,
                )
                return Carried(names, node.lineno, segment(program, node), loop.lineno, outer)
    return None


def receiver_text(
    source: str | None, attrs: tuple[str, ...], calls: tuple[str, ...] = ()
) -> str | None:
    """The expression written before ``.attr`` (``model(x).numpy()`` gives ``model(x)``), or
    inside ``float(...)``/``int(...)`` for the names in ``calls``."""
    tree = line_tree(source)
    if tree is None:
        return None
    text = (source or "").strip()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in attrs:
            return operand(text, node.value)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in calls
            and len(node.args) == 1
        ):
            return operand(text, node.args[0])
    return None


def operand(text: str | None, node: ast.expr) -> str:
    """``node`` as written, in brackets unless a method can follow it as is (``x``,
    ``model(x)``, ``t[0]``, ``a.b``): ``(a + b)`` so that ``(a + b).detach()`` means it."""
    written = " ".join((ast.get_source_segment(text or "", node) or ast.unparse(node)).split())
    simple = isinstance(node, ast.Name | ast.Call | ast.Attribute | ast.Subscript)
    return written if simple else f"({written})"


def condition_text(source: str | None) -> str | None:
    """The condition of the line's ``if``/``elif``/``while``/``assert`` (or ``a if c else b``)."""
    text = (source or "").strip()
    if text.startswith("elif "):
        text = text[2:]
    tree = line_tree(text)
    if tree is None:
        return None
    for node in ast.walk(tree):
        test = getattr(node, "test", None)
        if isinstance(node, ast.If | ast.While | ast.Assert | ast.IfExp) and test is not None:
            return ast.get_source_segment(text, test) or ast.unparse(test)
    return None


def first_call_args(source: str | None) -> tuple[str, str] | None:
    """The first two arguments of the line's outermost call with two or more
    (``criterion(y_pred, y_batch)``), as written."""
    tree = line_tree(source)
    if tree is None:
        return None
    text = (source or "").strip()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            a, b = node.args[:2]
            return (
                ast.get_source_segment(text, a) or ast.unparse(a),
                ast.get_source_segment(text, b) or ast.unparse(b),
            )
    return None


def line_names(source: str | None) -> list[str]:
    """The names the line reads, in the order they appear."""
    tree = line_tree(source)
    if tree is None:
        return []
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    ordered = sorted(found, key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in ordered))


_REQUIRES_GRAD_KEYWORD = re.compile(r",\s*requires_grad\s*=\s*True")


def leaf_made_late(program: str | None, name: str, line: int | None) -> tuple[Made, str] | None:
    """``name = torch.randn(3, requires_grad=True) * 0.01``: ``requires_grad=True`` inside an
    expression that computes more, so ``name`` is not the leaf. Returns where it is made and
    the same line making a leaf: ``name = (torch.randn(3) * 0.01).requires_grad_()``."""
    made = made_before(program, name, line)
    if made is None or made.value is None:
        return None
    value = made.value
    if isinstance(value, ast.Call) and any(k.arg == "requires_grad" for k in value.keywords):
        return None  # the call itself makes the leaf
    written = " ".join((ast.get_source_segment(program or "", value) or "").split())
    if not _REQUIRES_GRAD_KEYWORD.search(written):
        return None
    plain = _REQUIRES_GRAD_KEYWORD.sub("", written)
    return made, f"{name} = ({plain}).requires_grad_()"


def tensor_operand(source: str | None, methods: tuple[str, ...] = ()) -> str | None:
    """The tensor the line's first call works on: the receiver of ``t.method(...)`` for
    ``methods`` (or any method when none are given), else the first argument of
    ``f(t, ...)`` / ``torch.max(t, 1)`` / ``model(t)``."""
    tree = line_tree(source)
    if tree is None:
        return None
    text = (source or "").strip()
    calls = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Call)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    plain = ast.Name | ast.Attribute | ast.Subscript
    for node in calls:
        func = node.func
        if isinstance(func, ast.Attribute) and (not methods or func.attr in methods):
            root = func.value
            while isinstance(root, ast.Attribute):
                root = root.value
            library = isinstance(root, ast.Name) and root.id in _LIBRARY_NAMES | {"self"}
            if not library and isinstance(func.value, plain):
                return operand(text, func.value)
        # `self.pool(torch.relu(self.conv1(x)))`: the value the calls start from is `x`.
        if not methods and node.args and isinstance(node.args[0], plain):
            return operand(text, node.args[0])
    return None


def list_attributes(program: str | None) -> list[tuple[str, int, str]]:
    """``self.layers = [...]`` (or a list comprehension, or a dict) in the program's classes:
    the attribute, its line and the statement, as written."""
    tree = program_tree(program)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and isinstance(node.value, ast.List | ast.ListComp | ast.Dict | ast.DictComp)
            and any(isinstance(n, ast.Call) for n in ast.walk(node.value))
        ):
            found.append((f"self.{target.attr}", node.lineno, segment(program, node)))
    return found


def tensor_attributes(program: str | None) -> list[tuple[str, int, str, str]]:
    """``self.w = torch.randn(3, requires_grad=True)`` in the program's classes: a raw tensor
    an ``nn.Module`` does not register. The attribute, its line, the statement and the value,
    as written."""
    tree = program_tree(program)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        root = value
        while isinstance(root, ast.Call | ast.Attribute):
            root = root.func if isinstance(root, ast.Call) else root.value
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and isinstance(value, ast.Call)
            and isinstance(root, ast.Name)
            and root.id == "torch"
            and "Parameter" not in segment(program, value)
        ):
            written = segment(program, value)
            found.append((f"self.{target.attr}", node.lineno, segment(program, node), written))
    return found


def rebound_update(program: str | None, name: str) -> Made | None:
    """``w = w - lr * w.grad``: a gradient step written as a new tensor under the leaf's name,
    which makes ``w`` a computed (non-leaf) tensor whose ``.grad`` stays None."""
    for made in assignments(program, name):
        value = made.value
        if value is None or isinstance(made.node, ast.AugAssign):
            continue
        reads_grad = any(
            isinstance(n, ast.Attribute)
            and n.attr == "grad"
            and isinstance(n.value, ast.Name)
            and n.value.id == name
            for n in ast.walk(value)
        )
        if reads_grad:
            return made
    return None


def rebound_advice(n: str, step: Made) -> tuple[str, str]:
    """``w = w - lr * w.grad`` explained: the explanation and the fix."""
    update = step.text.split("=", 1)[1].strip()
    op = "-=" if update.startswith(f"{n} -") else None
    inplace = f"{n} {op} {update.split('-', 1)[1].strip()}" if op else f"{n}.copy_({update})"
    return (
        f"Line {step.line} (`{step.text}`) does not change `{n}`: it computes a new tensor "
        f"from the old `{n}` and gives it the same name. That new `{n}` is a computed "
        "(non-leaf) tensor, so the next `backward()` passes its gradient on to the old one "
        f"and `{n}.grad` stays None.",
        f"Update the leaf itself, in place, with gradient tracking off: `with torch.no_grad(): "
        f"{inplace}`, then zero its gradient (`{n}.grad.zero_()`) before the next backward.",
    )
