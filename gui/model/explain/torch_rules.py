"""The catalogue behind :mod:`.messages`: one rule per error or warning torch raises.

Each :class:`Rule` pairs a regular expression (matched with ``search`` on the distinctive part
of the message, because torch appends hints and C++ traces) with a builder that turns the
match and the :class:`ErrorContext` into plain words. New messages are new table rows, not new
branches. Python's own errors and runaway programs are the rest of the catalogue, in
:mod:`gui.model.explain.python_rules`; the helpers the builders share (reading the user's line,
shape arithmetic) are in :mod:`gui.model.explain.source`. No torch and no Qt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gui.model.explain.source import (
    TORCH_SIZE,
    BackwardCall,
    Shape,
    attribute_receiver,
    backward_call,
    broadcasts_to,
    expand,
    flatten,
    inplace_target,
    line_tree,
    list_literal,
    matmul_operands,
    numel,
    ordinal,
    parse_shape,
    render,
    reshape,
    shape_text,
    tensor_literal,
    zero_dim_subscript,
)


@dataclass(frozen=True)
class ErrorContext:
    """What the engine knew about the place an error happened; every field is optional."""

    tensor: str | None = None
    tensor_shape: Shape | None = None
    gradient_shape: Shape | None = None
    source_line: str | None = None
    leaves: tuple[str, ...] = ()
    attribute_owner: str | None = None
    # Named float tensors made directly (leaves) that do not require grad: the likely inputs
    # a "does not require grad" error is about.
    constants: tuple[str, ...] = ()


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


def rule_table(*rows: tuple[str, str | None, str, Callable[[Found], Advice]]) -> tuple[Rule, ...]:
    """Rules from compact rows: (kind, message regex or None, exception classes or "", builder)."""
    return tuple(
        Rule(kind, build, re.compile(rx, re.I) if rx else None, frozenset(exc.split()))
        for kind, rx, exc, build in rows
    )


def subject(found: Found, default: str = "y") -> str:
    """The differentiated tensor's name: from the context, else the line's ``z.backward``."""
    if found.context.tensor:
        return found.context.tensor
    call = backward_call(found.context.source_line)
    if call is not None and call.receiver:
        return call.receiver
    return default


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
        options = []
        if numel(out):  # no list literal has an empty shape like [0, 2]
            values = (
                reshape(flatten(literal), out)
                if literal is not None
                else reshape([1] * numel(out), out)
            )
            own = "" if literal is not None else " (with your numbers in place of the 1s)"
            options.append(f"`{call.with_gradient(n, tensor_literal(values))}`{own}")
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
        if literal is not None and 0 < numel(out) <= 36:
            expanded = expand(flatten(literal), given, out)
            shown = f"{render(literal)} was {copied}, i.e. {render(expanded)}"
            explicit = f" or write it out: `{call.with_gradient(n, tensor_literal(expanded))}`"
            flat = flatten(literal)
            nonzero = [i for i, v in enumerate(flat) if v != 0]
            if rows and len(nonzero) == 1:
                shown += f", which selects the {ordinal(nonzero[0])} column of {n}"
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


def _leaf_inplace(f: Found) -> Advice:
    leaves = f.context.leaves
    line = (f.context.source_line or "").strip()
    # The tensor changed on the failing line comes first: the context's tensor is the one a
    # backward call differentiates, which is not the leaf when a hook changes it.
    target = inplace_target(line)
    named = [leaf for leaf in leaves if re.search(rf"\b{re.escape(leaf)}\b", line)]
    if target is None or (leaves and target not in leaves and named):
        target = named[0] if named else None
    n = target or f.context.tensor or (leaves[0] if len(leaves) == 1 else "x")
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
    literal = list_literal(line_tree(f.context.source_line))
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
    inputs = [c for c in f.context.constants if c != n]
    if inputs:
        leaf = inputs[0]
        return Advice(
            "`backward()` follows a tensor's `grad_fn` back to leaves that require grad. "
            f"`{n}` has no `grad_fn`: `{leaf}`, which it is computed from, does not require "
            "grad (or it was computed inside `torch.no_grad()`), so there is nothing to "
            "differentiate.",
            f"Right after `{leaf}` is created, ask for its gradient: `{leaf}.requires_grad_()` "
            f"(or create it with `requires_grad=True`), and do not compute `{n}` inside "
            "`with torch.no_grad():`.",
        )
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
    line = (f.context.source_line or "").strip()
    a, b = matmul_operands(line) or ("A", "B")
    product = f"{a} @ {b}"
    whole = product in line and line.count(product) == 1

    def written(new: str) -> str:
        return line.replace(product, new) if whole else new

    if c1 == c2:
        fix = f"Transpose the second: `{written(f'{a} @ {b}.T')}` is ({r1}x{c1}) @ ({c2}x{r2})."
    elif r1 == r2:
        fix = f"Transpose the first: `{written(f'{a}.T @ {b}')}` is ({c1}x{r1}) @ ({r2}x{c2})."
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


def _zero_dim_index(f: Found) -> Advice:
    line = (f.context.source_line or "").strip()
    found = zero_dim_subscript(line)
    name = found[0] if found else (f.context.tensor or "loss")
    fixed = line.replace(found[1], f"{name}.item()") if found else f"{name}.item()"
    return Advice(
        f"`{name}` is a 0-d tensor: a single number with no dimensions, so there is no "
        "element [0] to take. Old tutorials (PyTorch 0.3 and before) wrote `loss.data[0]` "
        "because losses were 1-element vectors then.",
        f"Take the number with `.item()`: `{fixed}`.",
    )


_CUDA_LITERAL = re.compile(r"""(["'])cuda(:\d+)?\1""")


def _no_gpu(f: Found) -> Advice:
    line = (f.context.source_line or "").strip()
    portable = "`device = 'cuda' if torch.cuda.is_available() else 'cpu'`"
    if _CUDA_LITERAL.search(line):
        fixed = _CUDA_LITERAL.sub(lambda m: f"{m.group(1)}cpu{m.group(1)}", line)
        fix = f"Use the CPU here: `{fixed}`; or pick the device the portable way, {portable}."
    else:
        fix = f"Where the device is chosen, pick it the portable way: {portable}."
    return Advice(
        "This app computes on the CPU only: torch here has no GPU (CUDA) to move tensors to. "
        "The CPU gives the same numbers, just without a graphics card.",
        fix,
    )


def _cpu_only(f: Found) -> Advice:
    return Advice(
        "Autograd Explorer runs your code on the CPU, so `torch.cuda.is_available()` is False "
        "and code that picks its device with it uses the CPU. Nothing else changes.",
        "Nothing to fix: the numbers are the ones a GPU would give (up to rounding).",
    )


def _leaf_moved(f: Found) -> Advice:
    return Advice(
        "A tensor that was a leaf when the graph was built was later changed in place by an "
        "operation autograd recorded, so it is no longer a leaf and its gradient has nowhere to "
        "be stored.",
        "Finish preparing values before turning on gradients (`x.requires_grad_()` last), or make "
        "the change out of place (`x2 = x * w`) or inside `with torch.no_grad():`.",
    )


_SHAPE_PAIR = (
    rf"Mismatch in shape: grad_output\[\d+\] has a shape of {TORCH_SIZE.format('given')} "
    rf"and output\[\d+\] has a shape of {TORCH_SIZE.format('out')}"
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

# First match wins. Torch rules accept any class: the engine may re-raise them differently.
TORCH_RULES: tuple[Rule, ...] = rule_table(
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
    ("zero-dim-index", r"invalid index of a 0-dim tensor", "", _zero_dim_index),
    (
        "no-gpu",
        r"Torch not compiled with CUDA enabled|no CUDA GPUs are available|Found no NVIDIA driver"
        r"|Torch not compiled with MPS",
        "",
        _no_gpu,
    ),
)

WARNING_RULES: tuple[Rule, ...] = rule_table(
    ("cpu-only", r"Autograd Explorer computes on the CPU", "", _cpu_only),
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
