"""The catalogue behind :mod:`gui.model.explain`: one rule per error or warning torch raises.

Each :class:`Rule` pairs a regular expression (matched with ``search`` on the distinctive part
of the message, because torch appends hints and C++ traces) with a builder that turns the
match and the :class:`ErrorContext` into plain words. New messages are new table rows, not new
branches. The helpers the builders share (reading the user's line with :mod:`ast`, shape
arithmetic on tuples) live here too, in pure Python: no torch, numpy or Qt.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Shape = tuple[int, ...]


@dataclass(frozen=True)
class ErrorContext:
    """What the engine knew about the place an error happened; every field is optional."""

    tensor: str | None = None
    tensor_shape: Shape | None = None
    gradient_shape: Shape | None = None
    source_line: str | None = None
    leaves: tuple[str, ...] = ()
    attribute_owner: str | None = None


@dataclass(frozen=True)
class Found:
    """A rule's match: everything a builder may use."""

    exception: str
    message: str
    match: re.Match[str] | None
    context: ErrorContext
    line: int | None

    def group(self, name: str) -> str:
        """Return a named group of the match ('' when absent), so builders need no None checks."""
        if self.match is None:
            return ""
        return self.match.groupdict().get(name) or ""

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line is not None else "this line"


@dataclass(frozen=True)
class Advice:
    explanation: str
    fix: str


@dataclass(frozen=True)
class Rule:
    """One catalogue entry: when it applies and how to explain it."""

    kind: str
    build: Callable[[Found], Advice]
    pattern: re.Pattern[str] | None = None
    exceptions: frozenset[str] = frozenset()  # empty: any class (torch mostly raises RuntimeError)
    when: Callable[[ErrorContext], bool] | None = None

    def find(
        self, exception: str, message: str, context: ErrorContext, line: int | None
    ) -> Found | None:
        """Return a :class:`Found` when this rule applies, else ``None``."""
        if self.exceptions and exception not in self.exceptions:
            return None
        if self.when is not None and not self.when(context):
            return None
        match = None
        if self.pattern is not None:
            match = self.pattern.search(message)
            if match is None:
                return None
        return Found(exception, message, match, context, line)


# ---------------------------------------------------------------------------------------------
# Reading the user's line. Only ever a hint: a line may be part of a longer statement, so every
# helper returns None when the line does not parse and the caller falls back to generic names.


def _tree(source: str | None) -> ast.AST | None:
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
    tree = _tree(source)
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
    tree = _tree(source)
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
        while isinstance(target, ast.Subscript | ast.Attribute):
            target = target.value  # x[0] and x.data both belong to x
        if isinstance(target, ast.Name):
            return target.id
    return None


def attribute_receiver(source: str | None, attrs: tuple[str, ...]) -> str | None:
    """The name in ``name.attr`` / ``name.attr()`` / ``float(name)`` for the first of ``attrs``."""
    tree = _tree(source)
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


def subject(found: Found, default: str = "y") -> str:
    """The differentiated tensor's name: from the context, else the line's ``z.backward``."""
    if found.context.tensor:
        return found.context.tensor
    call = backward_call(found.context.source_line)
    if call is not None and call.receiver:
        return call.receiver
    return default


# ---------------------------------------------------------------------------------------------
# Shapes and nested lists, in plain Python (this module must not import torch or numpy).

_SIZE = r"torch\.Size\(\[(?P<{}>[\d, ]*)\]\)"


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
    if len(given) > len(target):
        return False
    return all(g in (1, t) for g, t in zip(reversed(given), reversed(target), strict=False))


def flatten(value: Any) -> list[Any]:
    """Nested lists in row-major order."""
    if isinstance(value, list):
        return [v for item in value for v in flatten(item)]
    return [value]


def reshape(flat: list[Any], shape: Shape) -> Any:
    """Row-major ``flat`` as nested lists of ``shape`` (a bare number for ``()``)."""
    if not shape:
        return flat[0]
    step = len(flat) // shape[0]
    return [reshape(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def expand(flat: list[Any], given: Shape, target: Shape) -> Any:
    """Broadcast row-major ``flat`` of shape ``given`` to ``target``, as nested lists."""
    padded = (1,) * (len(target) - len(given)) + given
    strides = [math.prod(padded[i + 1 :]) for i in range(len(padded))]
    out = []
    for index in itertools.product(*(range(t) for t in target)):
        pos = sum(
            0 if size == 1 else i * s for i, size, s in zip(index, padded, strides, strict=True)
        )
        out.append(flat[pos])
    return reshape(out, target)


def render(value: Any) -> str:
    """Nested numbers as torch prints them: ``[[1., 0.], [1., 0.]]``."""
    if isinstance(value, list):
        return "[" + ", ".join(render(v) for v in value) + "]"
    number = float(value)
    return f"{int(number)}." if number.is_integer() else repr(number)


def tensor_literal(value: Any) -> str:
    """Code that builds ``value`` as a float tensor."""
    return f"torch.tensor({render(value)})"


# ---------------------------------------------------------------------------------------------
# Builders, one per kind. Each returns 1-3 sentences of explanation and one concrete fix.


def _non_scalar(f: Found) -> Advice:
    n = subject(f)
    shape = f.context.tensor_shape
    what = f"`{n}` has shape {shape_text(shape)}" if shape else f"`{n}` holds several numbers"
    return Advice(
        "`backward()` with no argument means `backward(1)`: it starts from one number and asks "
        f"how each input changes it. {what}, so autograd needs to be told how much each element "
        "matters: the vector v in `x.grad = Jᵀv`.",
        f"Reduce to one number: `{n}.sum().backward()` (or `{n}.mean().backward()`), or pass one "
        f"weight per element: `{n}.backward(gradient=torch.ones_like({n}))`.",
    )


def _complex_backward(f: Found) -> Advice:
    n = subject(f)
    return Advice(
        "`backward()` with no argument only works from a single real number. A complex output "
        "has no single 'uphill' direction, so autograd will not pick a gradient for you.",
        f"Reduce to a real number first, e.g. `{n}.abs().sum().backward()` or "
        f"`{n}.real.sum().backward()`.",
    )


def _backward_twice(f: Found) -> Advice:
    n = subject(f)
    if "_saved" in (f.context.source_line or ""):
        # Same message, other cause: reading node._saved_self after the graph was freed.
        what = "the saved values you are reading (`_saved_...`) are gone."
    else:
        what = "a second pass over the same graph has nothing left to work with."
    return Advice(
        "A backward pass uses the values the forward pass saved (e.g. `x` for `x**2`) and then "
        f"frees them to save memory, so {what}",
        f"Keep them on every backward but the last: `{n}.backward(retain_graph=True)`; or "
        f"recompute `{n}` (run the forward pass again) before the next backward.",
    )


def _gradient_shape(f: Found) -> Advice:
    n = subject(f)
    given = parse_shape(f.group("given")) if f.match else (f.context.gradient_shape or ())
    out = parse_shape(f.group("out")) if f.match else (f.context.tensor_shape or ())
    call = backward_call(f.context.source_line) or BackwardCall(None, None, None, ())
    arg = call.gradient_text or "v"
    literal = list_literal(call.gradient)
    if literal is not None and len(flatten(literal)) != numel(given):
        literal = None  # the list on the line is not the gradient's numbers
    base = (
        "The gradient argument v of `backward(v)` gives one weight per output element, so it must "
        f"have exactly the output's shape {shape_text(out)}; you passed {shape_text(given)}. "
    )
    ones = f"use `torch.ones_like({n})` when every element counts equally."
    if numel(given) == numel(out):
        values = (
            reshape(flatten(literal), out)
            if literal is not None
            else reshape([1] * numel(out), out)
        )
        own = "" if literal is not None else " (with your numbers in place of the 1s)"
        options = [f"`{call.with_gradient(n, tensor_literal(values))}`{own}"]
        if not out:
            options.append(f"`{call.with_gradient(n, None)}` (a single number's backward means 1)")
        else:
            options.append(f"`{call.with_gradient(n, f'{arg}.reshape({n}.shape)')}`")
        return Advice(
            base + "Old PyTorch (0.x tutorials) reshaped it for you; today's PyTorch does not.",
            f"Give it {n}'s shape: {' or '.join(options)}; {ones}",
        )
    if broadcasts_to(given, out):
        rows = len(given) == 1 and len(out) == 2
        copied = "copied onto every row" if rows else "repeated to fill the output's shape"
        if literal is not None and numel(out) <= 36:
            expanded = expand(flatten(literal), given, out)
            shown = f"{render(literal)} was {copied}, i.e. {render(expanded)}"
            explicit = f" or write it out: `{call.with_gradient(n, tensor_literal(expanded))}`"
            flat = flatten(literal)
            nonzero = [i for i, v in enumerate(flat) if v != 0]
            if rows and len(nonzero) == 1:
                shown += f", which selects the {_ordinal(nonzero[0])} column of {n}"
        else:
            shown, explicit = f"your gradient was {copied}", ""
        return Advice(
            base + f"Old PyTorch broadcast it: {shown}. Today's PyTorch asks you to say that.",
            f"Expand it: `{call.with_gradient(n, f'{arg}.expand_as({n})')}`{explicit}; {ones}",
        )
    if not out:
        fix = (
            f"`{n}` is a single number: call `{n}.backward()` with no argument, or pass "
            "`torch.tensor(1.)`."
        )
    else:
        fix = f"Pass a tensor of shape {shape_text(out)}; {ones}"
    return Advice(
        base + "The sizes cannot be lined up, so autograd cannot guess what you meant.", fix
    )


def _ordinal(index: int) -> str:
    words = ("first", "second", "third", "fourth", "fifth")
    return words[index] if index < len(words) else f"{index + 1}th"


def _leaf_inplace(f: Found) -> Advice:
    leaves = f.context.leaves
    n = (
        f.context.tensor
        or inplace_target(f.context.source_line)
        or (leaves[0] if len(leaves) == 1 else "x")
    )
    line = (f.context.source_line or "").strip()
    update = line if inplace_target(line) == n else f"{n} -= lr * {n}.grad"
    return Advice(
        f"`{n}` is a leaf: a tensor you created with `requires_grad=True`, whose gradient "
        f"autograd delivers to `{n}.grad`. Changing it in place (`-=`, `[...] =`, or a method "
        "ending in `_`) would overwrite the very value that gradient is about, and torch cannot "
        "record that.",
        f"Do the update outside autograd: `with torch.no_grad(): {update}`; or update `{n}.data`; "
        f"or write `{n} = {n} + ...` (a new tensor, which is no longer a leaf).",
    )


def _saved_modified(f: Found) -> Advice:
    op = re.sub(r"Backward\d*$", "", f.group("op"))
    shape = f" of shape [{f.group('shape')}]" if f.group("shape") else ""
    origin = f" (the output of {op})" if op else ""
    versions = ""
    if f.group("version"):
        versions = f" (its version counter went from {f.group('expected')} to {f.group('version')})"
    return Advice(
        f"A tensor{shape}{origin} was saved during the forward pass because a gradient needs "
        f"its value, then changed in place{versions}. Autograd refuses to compute a derivative "
        "from a value that is no longer the one the forward pass used.",
        "Use the out-of-place form so the saved value stays intact: `y = y + 1` instead of "
        "`y += 1` or `y.add_(1)`; or change a copy: `y2 = y.clone()`.",
    )


def _integer_grad(f: Found) -> Advice:
    literal = list_literal(_tree(f.context.source_line))
    if literal is not None and all(isinstance(v, int) for v in flatten(literal)):
        fix = f"Write the numbers as floats: `{render(literal)}` instead of `{literal}`"
    else:
        fix = "Write the numbers as floats: `torch.tensor([1., 2.], requires_grad=True)`"
    return Advice(
        "Gradients are rates of change, which only exist for real (floating-point) or complex "
        "numbers. A tensor of whole numbers like `tensor([1, 2])` has dtype int64, so it cannot "
        "require grad.",
        fix + ", or pass `dtype=torch.float32`.",
    )


def _non_leaf_grad(f: Found) -> Advice:
    ctx = f.context
    owner = (
        ctx.attribute_owner or attribute_receiver(ctx.source_line, ("grad",)) or ctx.tensor or "y"
    )
    leaf = next((name for name in ctx.leaves if name != owner), "x")
    return Advice(
        "Autograd keeps `.grad` only on leaves (tensors you created with `requires_grad=True`). "
        f"`{owner}` is an intermediate result: during backward its gradient is passed on to the "
        f"tensors it came from and then dropped, so `{owner}.grad` is None.",
        f"Call `{owner}.retain_grad()` before `backward()` to keep it, or read the leaf's "
        f"gradient `{leaf}.grad`.",
    )


def _no_grad_fn(f: Found) -> Advice:
    n = subject(f)
    leaf = f.context.leaves[0] if f.context.leaves else "x"
    return Advice(
        "`backward()` follows a tensor's `grad_fn` back to leaves that require grad. "
        f"`{n}` has no `grad_fn`: nothing it was computed from requires grad (or it was computed "
        "inside `torch.no_grad()`), so there is nothing to differentiate.",
        f"Create the input with `requires_grad=True`, e.g. `{leaf} = torch.tensor([1., 2.], "
        f"requires_grad=True)` (or call `{leaf}.requires_grad_()`) before computing `{n}`, and do "
        f"not compute `{n}` inside `with torch.no_grad():`.",
    )


def _scalar_conversion(f: Found) -> Advice:
    src = f.context.source_line
    n = attribute_receiver(src, ("item", "float", "int")) or f.context.tensor or "y"
    return Advice(
        "`float()` and `.item()` turn a tensor into a plain Python number, which has no "
        "`grad_fn`: anything computed from that number is invisible to autograd and gets no "
        "gradient.",
        f"When you only want the number (to print or log), say so: `{n}.detach().item()`; keep "
        f"computing with the tensor `{n}` where gradients should flow.",
    )


def _numpy(f: Found) -> Advice:
    n = attribute_receiver(f.context.source_line, ("numpy",)) or f.context.tensor or "y"
    return Advice(
        "A NumPy array cannot record operations, so converting a tensor that requires grad "
        "would silently cut it out of the autograd graph; torch makes you do that on purpose.",
        f"Detach first: `{n}.detach().numpy()`.",
    )


def _broadcast(f: Found) -> Advice:
    a, b, dim = f.group("a"), f.group("b"), f.group("dim")
    return Advice(
        "Elementwise operations line the two shapes up from the right; in each dimension the "
        "sizes must be equal, or one of them 1 (then it is repeated: broadcasting). "
        f"Here dimension {dim} has size {a} on one side and {b} on the other.",
        "Print the shapes used on this line (`print(t.shape)`) and make dimension "
        f"{dim} agree: slice or reshape one tensor, or add a size-1 dimension with "
        "`t.unsqueeze(...)` so it can broadcast.",
    )


def _matmul(f: Found) -> Advice:
    r1, c1, r2, c2 = (int(f.group(k)) for k in ("r1", "c1", "r2", "c2"))
    if c1 == c2:
        fix = f"Transpose the second: `A @ B.T` is ({r1}x{c1}) @ ({c2}x{r2})."
    elif r1 == r2:
        fix = f"Transpose the first: `A.T @ B` is ({c1}x{r1}) @ ({r2}x{c2})."
    else:
        fix = f"Reshape one side so the inner sizes agree ({c1} vs {r2}); print both shapes first."
    return Advice(
        f"A matrix product ({r1}x{c1}) @ ({r2}x{c2}) pairs each row of the first with each "
        f"column of the second, so the first's columns ({c1}) must equal the second's rows ({r2}).",
        fix,
    )


_DTYPE_WORDS = re.compile(r"\b(float|double|half|bfloat16|long|int|short|byte|bool)\b", re.I)


def _dtype(f: Found) -> Advice:
    found = list(dict.fromkeys(w.capitalize() for w in _DTYPE_WORDS.findall(f.message)))
    names = f" ({' and '.join(found)})" if len(found) >= 2 else ""
    return Advice(
        f"Both operands of this operation must have the same dtype, but they differ{names}. "
        "torch's default is Float (float32); Double (float64) usually comes from NumPy arrays, "
        "`torch.from_numpy` or `dtype=torch.float64`.",
        "Convert one side so they match, usually to float32: `t.float()` (or create it with "
        "`dtype=torch.float32`).",
    )


def _retain_no_grad(f: Found) -> Advice:
    n = attribute_receiver(f.context.source_line, ("retain_grad",)) or f.context.tensor or "y"
    return Advice(
        "`retain_grad()` keeps the gradient of an intermediate result, but "
        f"`{n}` takes no part in any gradient computation: nothing it was computed from "
        "requires grad.",
        f"Create the inputs with `requires_grad=True` (or call `x.requires_grad_()`) before "
        f"computing `{n}`, or drop the `{n}.retain_grad()` call.",
    )


def _leaf_moved(f: Found) -> Advice:
    return Advice(
        "A tensor that was a leaf when the graph was built was later changed in place by an "
        "operation autograd recorded, so it is no longer a leaf and its gradient has nowhere to "
        "be stored.",
        "Finish preparing values before turning on gradients (`x.requires_grad_()` last), or make "
        "the change out of place (`x2 = x * w`) or inside `with torch.no_grad():`.",
    )


def _name_error(f: Found) -> Advice:
    name = f.group("name")
    close = difflib.get_close_matches(name, f.context.leaves, n=1)
    known = ", ".join(f"`{leaf}`" for leaf in f.context.leaves)
    extra = f" Tensors defined so far that require grad: {known}." if known else ""
    fix = f"Did you mean `{close[0]}`? " if close else ""
    return Advice(
        f"Python does not know the name `{name}` at {f.where}: nothing was assigned to it before "
        f"this line runs (names are case-sensitive).{extra}",
        fix + f"Assign `{name}` on an earlier line, or correct the spelling.",
    )


def _grad_none(f: Found) -> Advice:
    ctx = f.context
    n = attribute_receiver(ctx.source_line, ("grad",)) or (ctx.leaves[0] if ctx.leaves else "x")
    attr = f.group("attr")
    return Advice(
        f"`{n}.grad` is None until a `backward()` has reached `{n}`, so there is no tensor to "
        f"call `.{attr}` on yet (it is also None for tensors that are not leaves).",
        f"Run the backward pass first, or guard it: `if {n}.grad is not None: {n}.grad.zero_()` "
        f"(or reset with `{n}.grad = None`).",
    )


def _attribute(f: Found) -> Advice:
    m = re.search(r"'(\w+)' object has no attribute '(\w+)'", f.message)
    kind, attr = m.groups() if m else ("this", "that attribute")
    none = (
        " The value is None: often a function that returns nothing." if kind == "NoneType" else ""
    )
    return Advice(
        f"A value of type `{kind}` has no attribute `{attr}` at {f.where}.{none}",
        "Check the spelling, and print the value on that line to see what it really is.",
    )


def _index(f: Found) -> Advice:
    m = re.search(r"out of bounds for dimension (\d+) with size (\d+)", f.message)
    if m:
        dim, size = m.groups()
        what = f"Indices count from 0, so dimension {dim} of size {size} accepts 0 to "
        what += f"{int(size) - 1} (or -1 to -{size})."
    else:
        what = "Indices count from 0, so a length-n sequence accepts 0 to n-1."
    return Advice(
        f"An index at {f.where} is past the end. {what}",
        "Use an index within the size; print `t.shape` to check.",
    )


def _zero_division(f: Found) -> Advice:
    return Advice(
        f"Python numbers cannot be divided by zero, so {f.where} stopped (a tensor would give "
        "inf or nan instead).",
        "Check the divisor on that line and make sure it is not 0.",
    )


def _generic_python(label: str) -> Callable[[Found], Advice]:
    def build(f: Found) -> Advice:
        return Advice(
            f"Python raised {f.exception} at {f.where}: {label}.",
            "Read the message; print the values used on that line to see what they hold.",
        )

    return build


def _syntax(f: Found) -> Advice:
    return Advice(
        f"Python could not read the program at {f.where}, so nothing ran.",
        "Look for a missing bracket, colon or quote at or just before that spot.",
    )


RUNAWAY_TEXT: dict[str, tuple[str, str, str]] = {
    # reason: (message, explanation, fix); "{seconds}" is filled in by explain_runaway.
    "time": (
        "The program was stopped: it ran longer than {seconds}.",
        "The app reruns your code on every edit and slider move, so each run gets a time limit; "
        "a loop that never ends, or a very large computation, runs over it.",
        "Check that every loop ends (its condition must change), or use smaller tensors and "
        "fewer iterations.",
    ),
    "memory": (
        "The program was stopped: it ran out of memory.",
        "A tensor asked for more memory than the run may use; e.g. `torch.ones(100000, 100000)` "
        "needs 40 GB.",
        "Use smaller shapes: the explorer is for tensors small enough to look at.",
    ),
    "recursion": (
        "The program was stopped: a function called itself too deeply.",
        "A function kept calling itself without reaching a case that stops, until Python's "
        "recursion limit was hit.",
        "Give the recursive function a base case that returns without calling itself, or use "
        "a loop.",
    ),
    "output": (
        "The program was stopped: it printed too much.",
        "Printing was cut off because the program printed more text than the app keeps.",
        "Print less: a summary like `t.shape` or `t.sum()`, or only every n-th loop iteration.",
    ),
}


def _runaway(reason: str) -> Callable[[Found], Advice]:
    def build(f: Found) -> Advice:
        _message, explanation, fix = RUNAWAY_TEXT[reason]
        return Advice(explanation, fix)

    return build


_SHAPE_PAIR = (
    rf"Mismatch in shape: grad_output\[\d+\] has a shape of {_SIZE.format('given')} "
    rf"and output\[\d+\] has a shape of {_SIZE.format('out')}"
)
_SAVED = (
    r"needed for gradient computation has been modified by an inplace operation"
    r"(?::\s*\[torch\.\w+ \[(?P<shape>[\d, ]*)\]\], which is (?:output \d+ of (?P<op>\w+)|[^,]+),"
    r" is at version (?P<version>\d+); expected version (?P<expected>\d+))?"
)
_BROADCAST = (
    r"(?:size of tensor a|expanded size of the tensor) \((?P<a>\d+)\) must match the "
    r"(?:size of tensor b|existing size) \((?P<b>\d+)\) at non-singleton dimension (?P<dim>\d+)"
)
_MATMUL = r"shapes cannot be multiplied \((?P<r1>\d+)x(?P<c1>\d+) and (?P<r2>\d+)x(?P<c2>\d+)\)"
_DTYPE = (
    r"expected scalar type \w+ but found|Found dtype \w+ but expected|have the same dtype"
    r"|to have same dtype|must have the same scalar type|dtypes match"
)
_NONE_ATTR = r"'NoneType' object has no attribute '(?P<attr>\w+)'"


def _table(*rows: tuple[str, str | None, str, Callable[[Found], Advice]]) -> tuple[Rule, ...]:
    """Rules from compact rows: (kind, message regex or None, exception classes or "", builder)."""
    return tuple(
        Rule(kind, build, re.compile(rx, re.I) if rx else None, frozenset(exc.split()))
        for kind, rx, exc, build in rows
    )


_GRAD_LINE = Rule(  # `None.zero_()` is only "grad is None" when the line reads a .grad
    "grad-is-none",
    _grad_none,
    re.compile(_NONE_ATTR),
    frozenset({"AttributeError"}),
    when=lambda ctx: ctx.source_line is None or ".grad" in ctx.source_line,
)

# First match wins. Torch rules accept any class: the engine may re-raise them differently.
EXCEPTION_RULES: tuple[Rule, ...] = (
    *_table(
        ("complex-backward", r"implicitly created only for real scalar", "", _complex_backward),
        ("non-scalar-backward", r"implicitly created only for scalar", "", _non_scalar),
        ("backward-twice", r"backward through the graph a second time", "", _backward_twice),
        ("gradient-shape-mismatch", _SHAPE_PAIR, "", _gradient_shape),
        ("leaf-inplace", r"requires grad is being used in an in-place", "", _leaf_inplace),
        ("saved-tensor-modified", _SAVED, "", _saved_modified),
        (
            "integer-requires-grad",
            r"floating point( and complex)? dtype can require",
            "",
            _integer_grad,
        ),
        ("no-grad-to-compute", r"not require grad and does not have a grad_fn", "", _no_grad_fn),
        ("numpy-requires-grad", r"Can't call numpy\(\) on Tensor that requires grad", "", _numpy),
        ("shape-mismatch", _BROADCAST, "", _broadcast),
        ("matmul-shape", _MATMUL, "", _matmul),
        ("dtype-mismatch", _DTYPE, "", _dtype),
        (
            "retain-grad-no-grad",
            r"can't retain_grad on Tensor that has requires_grad",
            "",
            _retain_no_grad,
        ),
        ("leaf-moved", r"leaf variable has been moved into the graph interior", "", _leaf_moved),
        ("runaway-code", r"can't allocate memory", "", _runaway("memory")),
        ("runaway-code", None, "MemoryError", _runaway("memory")),
        ("runaway-code", None, "RecursionError", _runaway("recursion")),
        ("syntax-error", None, "SyntaxError IndentationError TabError", _syntax),
        ("name-error", r"name '(?P<name>\w+)' is not defined", "NameError", _name_error),
    ),
    _GRAD_LINE,
    *_table(
        ("attribute-error", None, "AttributeError", _attribute),
        ("index-error", None, "IndexError", _index),
        ("zero-division", None, "ZeroDivisionError", _zero_division),
        ("type-error", None, "TypeError", _generic_python("a value had a type it cannot use")),
        ("value-error", None, "ValueError", _generic_python("a value had an unusable content")),
    ),
)

WARNING_RULES: tuple[Rule, ...] = _table(
    (
        "non-leaf-grad",
        r"attribute of a Tensor that is not a leaf Tensor is being accessed",
        "",
        _non_leaf_grad,
    ),
    (
        "scalar-conversion",
        r"Converting a tensor with requires_grad=True to a scalar",
        "",
        _scalar_conversion,
    ),
)
