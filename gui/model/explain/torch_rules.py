"""The catalogue behind :mod:`.messages`: one rule per error or warning torch raises.

Each :class:`Rule` pairs a regular expression (matched with ``search`` on the distinctive part
of the message, because torch appends hints and C++ traces) with a builder that turns the
match and the :class:`ErrorContext` into plain words. New messages are new table rows, not new
branches. Python's own errors and runaway programs are the rest of the catalogue, in
:mod:`gui.model.explain.python_rules`; the helpers the builders share (reading the user's line,
shape arithmetic) are in :mod:`gui.model.explain.source`. No torch and no Qt.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gui.model.explain.backward_history import (
    accumulated,
    earlier_backwards,
    grad_subject,
    why_freed,
)
from gui.model.explain.dtype_hints import float32_statement, integer_leaf
from gui.model.explain.grad_switches import reads
from gui.model.explain.graph_cuts import find_cut, history
from gui.model.explain.inplace_sites import guilty_site, inplace_sites, inplace_story
from gui.model.explain.operands import (
    batch_merging_reshapes,
    conv_layers,
    dtype_words,
    elementwise_operands,
    from_numpy_calls,
    layer_call,
    linear_layers,
    product_dtypes,
    product_operands,
)
from gui.model.explain.source import (
    TORCH_SIZE,
    BackwardCall,
    Shape,
    assignments,
    attribute_receiver,
    backward_call,
    broadcasts_to,
    carried_in_loop,
    condition_text,
    differentiated_text,
    expand,
    first_call_args,
    flatten,
    inplace_target,
    leaf_made_late,
    line_names,
    line_tree,
    list_attributes,
    list_literal,
    made_before,
    no_grad_block,
    numel,
    operand,
    ordinal,
    parse_shape,
    rebound_advice,
    rebound_update,
    receiver_text,
    render,
    reshape,
    shape_text,
    tensor_attributes,
    tensor_literal,
    tensor_operand,
    zero_dim_subscript,
)
from gui.model.explain.written import (
    inplace_written,
    numpy_argument,
    view_receiver,
    whole_number_source,
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
    # The whole program's text, for advice that needs more than the failing line: where a
    # tensor was made, the `with torch.no_grad():` around it, the loop that carries it over.
    program: str | None = None


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
    written = differentiated_text(found.context.source_line)
    return grad_subject(found.context.source_line) or written or default


# ---------------------------------------------------------------------------------------------
# Builders, one per kind. Each returns 1-3 sentences of explanation and one concrete fix.


def _grad_call_text(source: str | None) -> str | None:
    """The ``torch.autograd.grad(...)`` call on the line, as written."""
    tree = line_tree(source)
    text = (source or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "grad":
            return ast.get_source_segment(text, node) or ast.unparse(node)
    return None


def _non_scalar(f: Found) -> Advice:
    n = subject(f)
    shape = f.context.tensor_shape
    what = f"`{n}` has shape {shape_text(shape)}" if shape else f"`{n}` holds several numbers"
    grads = _grad_call_text(f.context.source_line)
    if grads is not None and backward_call(f.context.source_line) is None:
        return Advice(
            "`torch.autograd.grad(outputs, inputs)` with no `grad_outputs` starts from one "
            f"number, like `backward()`. {what}, so autograd needs to be told how much each "
            "element matters: the vector v in `Jᵀv`.",
            f"Pass one weight per element: `{grads[:-1]}, grad_outputs=torch.ones_like({n}))` "
            f"(for an elementwise function that gives each point's own derivative), or "
            f"differentiate `{n}.sum()`.",
        )
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


def _detached(program: str | None, name: str) -> str:
    """``h = h.detach()``, or one by one for a state made as a tuple (an LSTM's ``(h, c)``)."""
    if any(isinstance(m.value, ast.Tuple) for m in assignments(program, name)):
        return f"`{name} = tuple(s.detach() for s in {name})`"
    return f"`{name} = {name}.detach()`"


def _backward_twice(f: Found) -> Advice:
    n = subject(f)
    carried = None
    if f.line is not None and "_saved" not in (f.context.source_line or ""):
        carried = carried_in_loop(f.context.program, f.line, frozenset({n}))
        total = accumulated(f.context.program, n, f.line)
        if total is not None:  # the loss itself carried over: a running total
            return Advice(*total)
    if carried is not None:
        names = " and ".join(f"`{c}`" for c in carried.names)
        detach = " and ".join(_detached(f.context.program, c) for c in carried.names)
        return Advice(
            f"{names} {'is' if len(carried.names) == 1 else 'are'} carried from one pass of "
            f"the loop to the next (line {carried.line}: `{carried.text}`), so this pass's "
            f"`{n}` is computed from the previous pass's graph too. The previous "
            f"`{n}.backward()` walked that graph and freed the values it saved, so this "
            "backward cannot go through it again.",
            f"Cut the link at the start of each pass, before line {carried.line}: {detach} "
            "(same values, without the old graph; an LSTM's `(h, c)` pair is detached one "
            "by one). `retain_graph=True` would instead keep every earlier pass's graph and "
            "backpropagate through all of them each time.",
        )
    story = None
    if "_saved" not in (f.context.source_line or ""):
        story = why_freed(f.context.program, n, f.line)
    if story is not None:
        return Advice(*story)
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
    grads = _grad_call_text(f.context.source_line)
    if grads is not None and backward_call(f.context.source_line) is None and numel(out):
        return Advice(
            "`grad_outputs` of `torch.autograd.grad` gives one weight per output element, so it "
            f"must have exactly the shape of `{n}`, {shape_text(out)}; you passed "
            f"{shape_text(given)}.",
            f"Give it `{n}`'s shape: `grad_outputs=torch.ones_like({n})` when every element "
            f"counts equally, or reshape yours with `.reshape({n}.shape)`.",
        )
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
            f"Give it `{n}`'s shape: {' or '.join(options)}; {ones}",
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
    written = inplace_written(line, f.context.program, f.line)
    if target is not None and n == target and n not in leaves and written is not None:
        # `self.w -= ...`, `params[0].sub_(...)`: the leaf is what the line picks out of
        # an object or a list, not the object itself.
        n = written
    changed = inplace_target(line)
    update = line if changed is not None and changed in (n, target) else f"{n} -= lr * {n}.grad"
    if "view of a leaf" in f.message:
        return _leaf_view_inplace(f, n, update)
    return Advice(
        f"`{n}` is a leaf: a tensor you created with `requires_grad=True`, whose gradient "
        f"autograd delivers to `{n}.grad`. Changing it in place (`-=`, `[...] =`, or a method "
        "ending in `_`) would overwrite the very value that gradient is about, and torch cannot "
        "record that.",
        f"Do the update outside autograd: `with torch.no_grad(): {update}`; or update `{n}.data`; "
        f"or write `{n} = {n} + ...` (a new tensor, which is no longer a leaf).",
    )


def _leaf_view_inplace(f: Found, view: str, update: str) -> Advice:
    """ "a view of a leaf Variable ... in-place": ``view`` shares a leaf's memory (``first =
    x[:2]``); the leaf it was cut from is named from the line that made it, if it shows."""
    if view in f.context.leaves:
        # `coef[0] = 1.0` on the leaf `coef` itself: the view is the part written into.
        return Advice(
            f"`{view}` is a leaf (a tensor made with `requires_grad=True`, whose gradient goes "
            f"to `{view}.grad`), and `{update}` changes part of it in place, through a view of "
            f"`{view}`. Autograd cannot record a change to the very values that gradient is "
            "about.",
            f"Set the values outside autograd, before training: `with torch.no_grad(): "
            f"{update}`; or build the values first and ask for gradients after: make `{view}` "
            "without `requires_grad=True`, fill it in, then call `.requires_grad_()`.",
        )
    made = _made_from(f.context.program, view, f.line, f.context.leaves)
    if made is None:
        leaf, where = "a leaf", ""
        of_leaf = "that leaf"
    else:
        leaf_name, made_line, made_text = made
        leaf, where = f"the leaf `{leaf_name}`", f" (line {made_line}: `{made_text}`)"
        of_leaf = f"`{leaf_name}`"
    site = next((x for x in inplace_sites(f.context.program) if x.line == f.line), None)
    fixed = site.fixed if site is not None and site.how in ("operator", "method") else None
    out_of_place = f"`{fixed}`" if fixed else f"`{view} = {view} * 2` instead of `{view}.mul_(2)`"
    return Advice(
        f"`{view}` is a view of {leaf}{where}: it shares {of_leaf}'s memory, so changing "
        f"`{view}` in place changes {of_leaf} too. A leaf made with `requires_grad=True` gets "
        "its gradient in `.grad`, and autograd cannot record a change to the very values that "
        "gradient is about.",
        f"Change it outside autograd: `with torch.no_grad(): {update}`; or work on a copy: "
        f"`{view} = {view}.clone()` before changing it; or write it out of place: "
        f"{out_of_place}.",
    )


def _made_from(
    program: str | None, name: str, before: int | None, leaves: tuple[str, ...]
) -> tuple[str, int, str] | None:
    """``(leaf, line, text)``: the leaf ``name`` was cut from, and the statement before line
    ``before`` that made ``name`` (``first = x[:2]``), followed through other views
    (``row = grid[0]`` after ``grid = w.view(2, 3)``); ``None`` if the program does not show."""
    made = None
    for statement in history(program, name, before):
        made = made or statement
        leaf = next((r for r in reads(statement) if r in leaves and r != name), None)
        if leaf is not None:
            return leaf, made.line, made.text.strip()
    return None


def _saved_modified(f: Found) -> Advice:
    op = re.sub(r"Backward\d*$", "", f.group("op"))
    shape = f" of shape [{f.group('shape')}]" if f.group("shape") else ""
    origin = f" (the output of {op})" if op else ""
    versions = ""
    if f.group("version"):
        versions = f" (its version counter went from {f.group('expected')} to {f.group('version')})"
    found = guilty_site(f.context.program, f.line, f.group("op"))
    if found is not None:
        site, made = found
        losses = [b.receiver for b in earlier_backwards(f.context.program, site.line)]
        losses = list(dict.fromkeys([*losses[-1:], subject(f, "loss2")]))
        return Advice(*inplace_story(site, made, shape, origin, f.where, losses))
    return Advice(
        f"A tensor{shape}{origin} was saved during the forward pass because a gradient needs "
        f"its value, then changed in place{versions}. Autograd refuses to compute a derivative "
        "from a value that is no longer the one the forward pass used.",
        "Use the out-of-place form so the saved value stays intact: `y = y + 1` instead of "
        "`y += 1` or `y.add_(1)`; or change a copy: `y2 = y.clone()`.",
    )


def _integer_grad(f: Found) -> Advice:
    why = (
        "Gradients are rates of change, which only exist for real (floating-point) or complex "
        "numbers."
    )
    leaf = integer_leaf(f.context.source_line)
    if leaf is not None and leaf.switched and leaf.name:
        return Advice(
            f"{why} `{leaf.name}` holds whole numbers (an integer dtype such as int64), so it "
            "cannot require grad. Labels and indices (class numbers, positions) never need a "
            "gradient: nothing is learned about them.",
            f"If `{leaf.name}` holds labels or indices, delete `{leaf.name}.requires_grad_()` "
            f"(or `.requires_grad = True`); if it holds values to learn, make them floats: "
            f"`{leaf.fixed}`.",
        )
    literal = list_literal(line_tree(f.context.source_line))
    old_type = re.search(r"\b(?:Long|Int|Short|Byte|Char)Tensor\b", f.context.source_line or "")
    if old_type is not None:
        line = (f.context.source_line or "").strip()
        fix = f"Make it hold floats: `{line.replace(old_type.group(0), 'FloatTensor', 1)}`"
    elif literal is not None and all(isinstance(v, int) for v in flatten(literal)):
        fix = f"Write the numbers as floats: `{render(literal)}` instead of `{literal}`"
    elif leaf is not None and leaf.fixed:
        fix = f"Make it hold floats: `{leaf.fixed}`"
    else:
        fix = "Write the numbers as floats: `torch.tensor([1., 2.], requires_grad=True)`"
    named = f"`{leaf.name}`" if leaf is not None and leaf.name else "This tensor"
    return Advice(
        f"{why} {named} is made of whole numbers (like `torch.tensor([1, 2])` or "
        "`torch.arange(5)`: dtype int64), so it cannot require grad.",
        fix + ("." if "dtype=torch.float32" in fix else ", or pass `dtype=torch.float32`."),
    )


def _non_leaf_grad(f: Found) -> Advice:
    ctx = f.context
    owner = (
        ctx.attribute_owner or attribute_receiver(ctx.source_line, ("grad",)) or ctx.tensor or "y"
    )
    # The leaf it was computed from (made with requires_grad), else any leaf the run has.
    leaf = next(
        (m.name for m in history(ctx.program, owner, f.line) if "requires_grad" in m.text),
        next((name for name in ctx.leaves if name != owner), "x"),
    )
    step = rebound_update(ctx.program, owner)
    if step is not None:
        return Advice(*rebound_advice(owner, step))
    late = leaf_made_late(ctx.program, owner, f.line)
    if late is not None:
        made, fixed = late
        return Advice(
            "Autograd keeps `.grad` only on leaves (tensors created with "
            f"`requires_grad=True` and not computed further). `{owner}` is computed: on line "
            f"{made.line} (`{made.text}`) the leaf is the tensor made with "
            f"`requires_grad=True`, and `{owner}` is the result of computing with it, so "
            f"`{owner}.grad` stays None.",
            f"Make `{owner}` itself the leaf, asking for gradients after the arithmetic: "
            f"`{fixed}`.",
        )
    return Advice(
        "Autograd keeps `.grad` only on leaves (tensors you created with `requires_grad=True`). "
        f"`{owner}` is an intermediate result: during backward its gradient is passed on to the "
        f"tensors it came from and then dropped, so `{owner}.grad` is None.",
        f"Call `{owner}.retain_grad()` before `backward()` to keep it, or read the leaf's "
        f"gradient `{leaf}.grad`.",
    )


def _made_without_grad(f: Found, n: str) -> Advice | None:
    """``n`` (or a tensor its line reads) computed inside ``with torch.no_grad():``."""
    program = f.context.program
    made = made_before(program, n, f.line)
    if made is None:
        return None
    names = [n, *(name for name in line_names(made.text) if name != n)]
    for name in names:
        where = made if name == n else made_before(program, name, made.line)
        block = no_grad_block(program, where.line) if where is not None else None
        if where is None or block is None:
            continue
        header_line, header = block
        via = "" if name == n else f", and `{n}` is computed from it (line {made.line})"
        if header.startswith("@"):
            # A decorator turns tracking off for the whole function: nothing to move out.
            return Advice(
                f"`{name}` is computed in a function decorated with `{header}` (line "
                f"{header_line}): line {where.line} (`{where.text}`) ran with gradient tracking "
                f"off{via}. While that function runs torch records nothing, whatever requires "
                f"grad, so `{n}` has no `grad_fn` and backward has nothing to follow.",
                f"Remove `{header}` (line {header_line}) from a function that trains; keep it "
                "on functions that only evaluate, where no backward follows.",
            )
        return Advice(
            f"`{name}` is computed inside `{header}` (line {header_line}): line {where.line} "
            f"(`{where.text}`) ran with gradient tracking off{via}. Inside that block torch "
            f"records nothing, whatever requires grad, so `{n}` has no `grad_fn` and backward "
            "has nothing to follow.",
            f"Compute `{name}` outside `{header}`: move line {where.line} out of that block "
            "(keep `torch.no_grad()` for evaluation, where no backward follows).",
        )
    return None


def _no_grad_fn(f: Found) -> Advice:
    n = subject(f)
    # `z.sum().backward()`: the tensors the expression reads are the ones made somewhere.
    for name in [n] if n.isidentifier() else line_names(n):
        without = _made_without_grad(f, name)
        if without is not None:
            return without
    cut = find_cut(f.context.program, n, f.line)
    if cut is not None:
        return Advice(
            "`backward()` follows a tensor's `grad_fn` back to the leaves that require grad. "
            + cut.explanation,
            cut.fix,
        )
    if ".parameters()" in (f.context.program or ""):  # a model being trained, not toy inputs
        return Advice(
            "`backward()` follows a tensor's `grad_fn` back to the leaves that require grad. "
            f"`{n}` has no `grad_fn`: nothing it was computed from requires grad. With a model, "
            "that means its weights' history was cut on the way to it: by a `.detach()`, "
            "`.data`, `.item()`, `.numpy()` or `torch.tensor(...)` of a tensor, a "
            "`torch.no_grad()` block, or parameters frozen with `requires_grad=False`.",
            f"Compute `{n}` from the model's output directly, without any of those between "
            f"them (print `t.grad_fn` for each tensor on the way: the first that shows None is "
            "where the link is cut).",
        )
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
    whole = whole_number_source(f.context.program, n, f.line)
    if whole is not None:
        name, line, text = whole
        return Advice(
            "`backward()` follows a tensor's `grad_fn` back to leaves that require grad. "
            f"`{n}` is computed from `{name}` (line {line}: `{text}`), which holds whole "
            "numbers (an integer dtype): gradients exist only for floating-point numbers, so "
            f"`{name}` cannot require grad and `{n}` has no `grad_fn`.",
            f"If `{name}` holds values to learn, make them floats that require grad: "
            f"`{name} = {text.split('=', 1)[1].strip()}.float().requires_grad_()` on line {line}.",
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
    n = (
        receiver_text(src, ("item",), calls=("float", "int"))
        or attribute_receiver(src, ("item", "float", "int"))
        or f.context.tensor
        or "y"
    )
    return Advice(
        "`float()` and `.item()` turn a tensor into a plain Python number, which has no "
        "`grad_fn`: anything computed from that number is invisible to autograd and gets no "
        "gradient.",
        f"When you only want the number (to print or log), say so: `{n}.detach().item()`; keep "
        f"computing with the tensor `{n}` where gradients should flow.",
    )


def _numpy(f: Found) -> Advice:
    src = f.context.source_line
    handed = numpy_argument(src) if receiver_text(src, ("numpy",)) is None else None
    n = receiver_text(src, ("numpy",)) or handed or f.context.tensor
    if n is None:
        return Advice(
            "A tensor that requires grad (a leaf made with `requires_grad=True`, or computed "
            "from one, such as a model's weights) went to NumPy on this line. A NumPy array "
            "cannot record operations, so converting it would silently cut it out of the "
            "autograd graph; torch makes you do that on purpose.",
            "Detach it first: `t.detach().numpy()` (or `np.array(t.detach())`) for the "
            "tensor `t` on this line.",
        )
    return Advice(
        f"`{n}` requires grad (it is a leaf made with `requires_grad=True`, or computed from "
        "one, such as a model's weights). A NumPy array cannot record operations, so "
        "converting it would silently cut it out of the autograd graph; torch makes you do "
        "that on purpose.",
        f"Detach first: `{n}.detach().numpy()`"
        + (f" (here: `{_detached_arg(src, handed)}`)." if handed else "."),
    )


def _detached_arg(source: str | None, handed: str) -> str:
    """The line with the tensor handed to NumPy detached: ``np.array(fitted.detach())``."""
    line = (source or "").strip()
    return re.sub(rf"(?<![\w.]){re.escape(handed)}(?![\w(])", f"{handed}.detach()", line, count=1)


def _broadcast(f: Found) -> Advice:
    a, b, dim = f.group("a"), f.group("b"), f.group("dim")
    sides = elementwise_operands(f.context.source_line)
    here = f"Here dimension {dim} has size {a} on one side and {b} on the other."
    printed = "print(t.shape)"
    if sides is not None:
        # torch's "tensor a" and "tensor b" are the left and right operands, in order.
        here = (
            f"Here dimension {dim} (counted as torch lines them up) has size {a} in `{sides[0]}` "
            f"and {b} in `{sides[1]}`."
        )
        printed = f"print({sides[0]}.shape, {sides[1]}.shape)"
    return Advice(
        "Elementwise operations line the two shapes up from the right; in each dimension the "
        f"sizes must be equal, or one of them 1 (then it is repeated: broadcasting). {here}",
        f"Print the shapes used on this line (`{printed}`) and make dimension "
        f"{dim} agree: slice or reshape one tensor, or add a size-1 dimension with "
        "`t.unsqueeze(...)` so it can broadcast.",
    )


def _matmul(f: Found) -> Advice:
    r1, c1, r2, c2 = (int(f.group(k)) for k in ("r1", "c1", "r2", "c2"))
    line = (f.context.source_line or "").strip()
    named = product_operands(line)
    if named is None and layer_call(line) is not None:
        return _linear_shapes(f, r1, c1, r2, c2)
    a, b = named or ("A", "B")
    product = f"{a} @ {b}"
    whole = product in line and line.count(product) == 1

    def written(new: str) -> str:
        return line.replace(product, new) if whole else new

    if named is None and c1 == c2:
        # No one product on the line (`x @ W1 @ W2`, a function call): no names to guess.
        fix = (
            f"Transpose the second side with `.T`: ({r1}x{c1}) @ ({c2}x{r2}) fits; print the "
            "shapes of the tensors on this line to see which one it is."
        )
    elif named is None:
        fix = (
            f"Make the inner sizes agree ({c1} vs {r2}): transpose or reshape one side; "
            "print the shapes of the tensors on this line first."
        )
    elif c1 == c2:
        fix = f"Transpose the second: `{written(f'{a} @ {b}.T')}` is ({r1}x{c1}) @ ({c2}x{r2})."
    elif r1 == r2:
        fix = f"Transpose the first: `{written(f'{a}.T @ {b}')}` is ({c1}x{r1}) @ ({r2}x{c2})."
    else:
        fix = f"Reshape one side so the inner sizes agree ({c1} vs {r2}); print both shapes first."
    # mat1 is the first side as a matrix (a batch of them is flattened into rows), mat2 the
    # second: the program's own names, when the line shows one product.
    sides = (
        f"Here `{a}` enters as a {r1}x{c1} matrix and `{b}` as a {r2}x{c2} matrix. "
        if named
        else ""
    )
    return Advice(
        f"{sides}A matrix product ({r1}x{c1}) @ ({r2}x{c2}) pairs each row of the first with "
        f"each column of the second, so the first's columns ({c1}) must equal the second's "
        f"rows ({r2}).",
        fix,
    )


def _linear_shapes(f: Found, r1: int, c1: int, r2: int, c2: int) -> Advice:
    """A layer call failed inside: a Linear layer made for ``r2`` input features (its weight,
    transposed, is ``r2 x c2``) received rows of ``c1`` numbers."""
    call = layer_call(f.context.source_line)
    assert call is not None
    made = linear_layers(f.context.program, r2, c2)
    layer = "a Linear layer"
    if len(made) == 1:
        bound = f" (`{made[0].target}`)" if made[0].target else ""
        layer = f"`{made[0].text}`{bound} on line {made[0].line}"
    return Advice(
        f"Inside `{call.layer}({call.argument})`, {layer} is made for {r2} input features "
        f"(`in_features={r2}`, {c2} outputs), but what reached it has {c1} numbers in each "
        f"row ({r1} rows of {c1}). A Linear layer multiplies each row by its weight, so the "
        "row's length must equal its in_features.",
        f"Make that layer take what arrives: `nn.Linear({c1}, {c2})` (in_features is the size "
        f"of the last dimension reaching it; print `{call.argument}.shape` and the shapes "
        "between the layers), or reshape the input to rows of "
        f"{r2}.",
    )


_DTYPE_WORDS = re.compile(r"\b(float|double|half|bfloat16|long|int|short|byte|bool)\b", re.I)


_FROM_NUMPY = re.compile(r"from_numpy|\bnp\.|numpy|float64|double")


def _from_numpy(f: Found, text: str, line: int) -> bool:
    """Whether the statement makes float64 data from NumPy, itself or through a name it reads
    (``batch = torch.tensor(arr)`` after ``arr = np.random.randn(...)``)."""
    if _FROM_NUMPY.search(text):
        return True
    for name in line_names(text.split("=", 1)[-1]):
        source = made_before(f.context.program, name, line - 1)
        if source is not None and _FROM_NUMPY.search(source.text):
            return True
    return False


def _dtype(f: Found) -> Advice:
    found = list(dict.fromkeys(w.capitalize() for w in _DTYPE_WORDS.findall(f.message)))
    names = f" ({' and '.join(found)})" if len(found) >= 2 else ""
    fix = (
        "Convert one side so they match, usually to float32: `t.float()` (or create it with "
        "`dtype=torch.float32`)."
    )
    if re.search(r"Found dtype Long but expected Float", f.message) and first_call_args(
        f.context.source_line
    ):
        pred, y = _loss_args(f)
        fix = (
            f"This loss compares probabilities with targets as floats (0. and 1.): "
            f"`{_call_with(f, pred, f'{y}.float()')}`."
        )
    elif "Double" in found:
        for name in line_names(f.context.source_line):
            made = made_before(f.context.program, name, f.line)
            if made is None or made.value is None or not _from_numpy(f, made.text, made.line):
                continue
            if ".double()" in made.text:
                fix = (
                    f"`{name}` was made float64 with `.double()` on line {made.line}: drop it "
                    f"(`{made.text.replace('.double()', '', 1)}`), or convert the other side "
                    "with `.double()` too."
                )
                break
            value = operand(f.context.program, made.value)
            fix = (
                f"Convert `{name}` to float32 where it is made, line {made.line}: "
                f"`{float32_statement(made, value)}` (NumPy arrays are float64 unless told "
                "otherwise)."
            )
            break
    sides, fix = _product_sides(f, fix)
    return Advice(
        f"Both operands of this operation must have the same dtype, but they differ{names}. "
        f"{sides}torch's default is Float (float32); Double (float64) usually comes from NumPy "
        "arrays, `torch.from_numpy` or `dtype=torch.float64`.",
        fix,
    )


_WHOLE_NUMBERS = frozenset({"Long", "Int", "Short", "Byte", "Char", "Bool"})


def _product_sides(f: Found, fix: str) -> tuple[str, str]:
    """Name the two sides of a matrix product whose dtypes differ (``mat1``/``m1`` first):
    ``a @ b`` on the line, or a layer's input and its weights; and, for float64 data that
    reaches a layer, the fix where it comes from ``torch.from_numpy``."""
    line = f.context.source_line
    operands = product_operands(line)
    dtypes = product_dtypes(f.message, product=operands is not None)
    if dtypes is None:
        return "", fix
    first, second = dtypes
    if operands is not None:
        a, b = operands
        return (
            f"`{a}` is {dtype_words(first)} and `{b}` is {dtype_words(second)}. ",
            fix,
        )
    call = layer_call(line)
    # The first layer a value reaches on the line fails first when the input is the odd one
    # out; a weight that is odd may belong to any layer of the line.
    if call is None or (call.calls > 1 and first == "Float"):
        return "", fix
    sides = (
        f"`{call.argument}` is {dtype_words(first)} but the weights of `{call.layer}` are "
        f"{dtype_words(second)}. "
    )
    if "where it is made" in fix or "was made float64" in fix:
        return sides, fix
    if first in _WHOLE_NUMBERS:
        return sides, (
            f"A layer computes with fractions: `{call.layer}({call.argument}.float())`; if "
            f"`{call.argument}` holds token or class ids, look them up with `nn.Embedding` "
            "instead."
        )
    if first == "Double" and second == "Float":
        made = list(dict.fromkeys(text for _, text in from_numpy_calls(f.context.program)))
        where = ""
        if len(made) == 1:
            lines = [n for n, text in from_numpy_calls(f.context.program) if text == made[0]]
            where = f" (line {lines[0]}: `{made[0]}.float()`)"
        fix = (
            f"Convert the data to float32 where it is made{where}, or on this line: "
            f"`{call.layer}({call.argument}.float())`."
        )
    elif first == "Float" and second == "Double":
        fix = (
            f"Give the layer float32 weights: `{call.layer}.float()` (or drop the `.double()` "
            f"that made them float64), or the input float64: `{call.argument}.double()`."
        )
    return sides, fix


def _ambiguous_bool(f: Found) -> Advice:
    cond = condition_text(f.context.source_line)
    what = f"`{cond}`" if cond else "the condition"
    pick = (
        f"`torch.where({cond}, a, b)` (a where it holds, b elsewhere)"
        if cond
        else "`torch.where(condition, a, b)`"
    )
    ask = f"`({cond}).any()` or `({cond}).all()`" if cond else "`.any()` or `.all()`"
    return Advice(
        f"Python's `if`/`while`/`and`/`or` need one True or False, but {what} is a tensor "
        "with one True/False per element, and Python will not guess whether you mean "
        "'any of them' or 'all of them'.",
        f"To decide element by element, compute both results and pick with {pick}; to ask "
        f"about the whole tensor, write {ask}.",
    )


def _loss_args(f: Found) -> tuple[str, str]:
    """The predictions and the targets as the loss call on the line names them."""
    return first_call_args(f.context.source_line) or ("output", "target")


def _class_target_dtype(f: Found) -> Advice:
    pred, y = _loss_args(f)
    return Advice(
        "`CrossEntropyLoss` and `NLLLoss` take targets as class indices, one whole number "
        f"per example (dtype Long: 0, 1, 2...), but `{y}` holds floats. (Targets of the "
        f"same shape as `{pred}` would be read as class probabilities instead.)",
        f"Pass the classes as integers: `{_call_with(f, pred, f'{y}.long()')}`, or make "
        f"`{y}` with `dtype=torch.long`.",
    )


def _call_with(f: Found, pred: str, y: str) -> str:
    """The line's loss call with its two arguments replaced (or a generic call)."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and len(node.args) >= 2:
                func = ast.get_source_segment(text, node.func) or ast.unparse(node.func)
                return f"{func}({pred}, {y})"
    return f"criterion({pred}, {y})"


def _class_target_shape(f: Found) -> Advice:
    pred, y = _loss_args(f)
    return Advice(
        "`CrossEntropyLoss` (and `F.cross_entropy`, `NLLLoss`) want the targets as a 1-d "
        f"tensor of class indices, one per example, shape [N]; `{y}` has more dimensions: "
        "a column of shape [N, 1] (labels taken from a table), or one-hot rows [N, C].",
        f"For a column of labels drop the extra dimension: "
        f"`{_call_with(f, pred, f'{y}.squeeze(1)')}`; for one-hot rows take the index of the "
        f"1 in each row: `{y}.argmax(dim=1)`.",
    )


def _class_target_range(f: Found) -> Advice:
    pred, y = _loss_args(f)
    t = f.group("target")
    if int(t) < 0:
        return Advice(
            f"`{y}` holds class indices, which count from 0, and it has {t}: a class index "
            "is never negative.",
            f"Map every label in `{y}` to 0 to C-1 before calling the loss (C: the number of "
            "classes).",
        )
    return Advice(
        f"`{y}` holds class indices, and a class index must be 0 to C-1, where C is the "
        f"number of scores per example in `{pred}` (its last dimension). {t} is past the "
        f"end, so `{pred}` has at most {t} classes.",
        f"If your labels count from 1, shift them: `{_call_with(f, pred, f'{y} - 1')}`; "
        f"otherwise give the last layer one output per class (at least {int(t) + 1} here).",
    )


def _softmax_dim(f: Found) -> Advice:
    fn = f.group("fn") or "softmax"
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    written = None
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == fn and not any(k.arg == "dim" for k in node.keywords):
            call = ast.get_source_segment(text, node)
            if call and call.endswith(")"):
                written = f"{call[:-1]}, dim=-1)"
            break
    fix = (
        f"Say which dimension: `{written}` (the last one: each row sums to 1)"
        if written
        else f"Pass `dim=`: `F.{fn}(x, dim=-1)`, or `nn.Softmax(dim=1)` in a model"
    )
    return Advice(
        f"`{fn}` makes numbers along one dimension sum to 1, and no `dim=` was given, so torch "
        "guessed it (dimension 0 for 1-d and 3-d tensors, 1 otherwise). For a batch the "
        "guess can normalise across examples instead of across classes, silently.",
        fix + "; the numbers stay the same when the guess was right.",
    )


def _volatile(f: Found) -> Advice:
    return Advice(
        "`Variable(..., volatile=True)` is how PyTorch 0.3 turned gradients off for inference; "
        "it does nothing today, so this tensor is treated like any other.",
        "Drop `volatile=True` (and `Variable`: tensors do it all now) and put the lines that "
        "need no gradients under `with torch.no_grad():`.",
    )


def _conv_channels(f: Found) -> Advice:
    weight, given = parse_shape(f.group("weight")), parse_shape(f.group("input"))
    want, got = int(f.group("want")), int(f.group("got"))
    x = tensor_operand(f.context.source_line) or "x"
    layer = (
        f"The layer was built for {want} input channels (weight {shape_text(weight)}: "
        "out channels, in channels, kernel height, kernel width)"
    )
    if len(given) == 4 and given[-1] == want:
        return Advice(
            f"{layer}, and convolutions read images as [batch, channels, height, width]. "
            f"The input has shape {shape_text(given)}: channels last, as images come from "
            "NumPy, PIL or matplotlib, so torch took the height as the channels.",
            f"Move the channels to the front: `{x}.permute(0, 3, 1, 2)` (shape "
            f"[{given[0]}, {given[3]}, {given[1]}, {given[2]}]).",
        )
    made = conv_layers(f.context.program, want, int(weight[0]) if weight else -1)
    if len(made) == 1:
        bound = f" (`{made[0].target}`)" if made[0].target else ""
        layer = (
            f"`{made[0].text}`{bound} on line {made[0].line} was built for {want} input "
            f"channels (weight {shape_text(weight)}: out channels, in channels, kernel height, "
            "kernel width)"
        )
    call = layer_call(f.context.source_line)
    # The line's input is what reached the layer only if the line calls one layer.
    first = call is None or call.calls == 1
    other = f", or give `{x}` {want} channels" if first else ""
    return Advice(
        f"{layer}, but the input has {got} channels (shape {shape_text(given)}, read as "
        "[batch, channels, height, width]).",
        f"Make them agree: build the layer with `in_channels={got}` (the previous layer's "
        f"`out_channels`){other}.",
    )


def _conv_input_dims(f: Found) -> Advice:
    op = f.group("op")
    size = parse_shape(f.group("size"))
    x = tensor_operand(f.context.source_line) or "x"
    small, big = int(f.group("small")), int(f.group("big"))
    if len(size) == small - 1:
        fix = (
            f"Add the missing dimension: `{x}.unsqueeze(0)` (one channel: shape "
            f"[1, {', '.join(map(str, size))}]); for a batch of such images, "
            f"`{x}.unsqueeze(1)`."
        )
    else:
        fix = f"Reshape `{x}` to [batch, channels, ...] with {big} dimensions; print its shape."
    return Advice(
        f"`{op}` takes {big} dimensions (batch, channels, then the image's) or {small} for a "
        f"single example (channels first); `{x}` has {len(size)}: {shape_text(size)}.",
        fix,
    )


def _dim_range(f: Found) -> Advice:
    hi, got = int(f.group("hi")), f.group("got")
    dims = hi + 1
    x = tensor_operand(f.context.source_line) or "the tensor"
    named = f"`{x}`" if x != "the tensor" else x
    numbered = (
        "dimension 0 (or -1)"
        if dims == 1
        else f"numbered 0 to {hi} (or -1 to -{dims} from the end)"
    )
    return Advice(
        f"{named} has {dims} dimension{'s' if dims != 1 else ''}: {numbered}, so dimension "
        f"{got} does not exist. Code written for a batch "
        "(dim=1: one row per example) fails on a single example that has no batch dimension.",
        f"Use `dim=-1` (the last dimension, whatever the count), or give {named} its batch "
        f"dimension: `{x if x != 'the tensor' else 't'}.unsqueeze(0)`.",
    )


def _view_stride(f: Found) -> Advice:
    line = (f.context.source_line or "").strip()
    found = view_receiver(line)
    if found is None:
        x = tensor_operand(line, ("view",)) or "t"
        fixed = line.replace(".view(", ".reshape(") if ".view(" in line else f"{x}.reshape(...)"
        contiguous = f"{x}.contiguous().view(...)"
    else:
        x, arguments = found
        fixed = line.replace(f"{x}.view(", f"{x}.reshape(", 1)
        contiguous = f"{x}.contiguous().view({arguments})"
    # The line shows the reorder (`batch.transpose(1, 2).view(...)`), or it happened where
    # the tensor was made: say only what is sure.
    if re.search(r"\.(t|transpose|permute|swapaxes|movedim)\(|\.(T|mT)\b", x):
        why = f"`{x}` reorders the dimensions without moving the numbers"
    else:
        why = (
            f"the numbers of `{x}` are not stored in that order (it is, or was made from, a "
            "transposed, permuted, expanded or sliced tensor)"
        )
    return Advice(
        f"`.view()` only relabels the numbers in memory, so it needs them stored in order; "
        f"{why}.",
        f"Use `.reshape`, which copies when it has to: `{fixed}`; or `{contiguous}`.",
    )


def _view_size(f: Found) -> Advice:
    shape_words, size = f.group("shape"), int(f.group("size"))
    asked = [int(v) for v in shape_words.replace(" ", "").split(",") if v]
    known = numel(tuple(v for v in asked if v != -1))
    x = tensor_operand(f.context.source_line, ("view", "reshape")) or "x"
    if -1 in asked and known:
        what = f"`-1` means 'whatever is left', so {size} must divide by {known}, and it does not"
    else:
        what = f"[{shape_words}] holds {known} numbers"
    return Advice(
        f"`{x}` holds {size} numbers, and the new shape must hold exactly as many: {what}. "
        "Before a Linear layer this usually means the flattened size is not what the layer "
        "was built for.",
        f"Keep one row per example and let torch count the rest: `{x}.view({x}.size(0), -1)` "
        f"(or `torch.flatten({x}, 1)`), print that shape, and build the next `nn.Linear` with "
        "its last number as `in_features`.",
    )


def _batch_size(f: Found) -> Advice:
    pred, y = _loss_args(f)
    given, target = f.group("given"), f.group("target")
    merged = batch_merging_reshapes(f.context.program)
    if len(merged) == 1:
        line, text, tensor, fixed = merged[0]
        return Advice(
            f"The loss pairs each row of `{pred}` ({given} rows) with one label of `{y}` "
            f"({target} labels). Line {line} (`{text}`) reshapes `{tensor}` with `-1` first: "
            "torch fills the batch dimension with whatever is left, so when the other sizes "
            "do not match one example, examples are merged or split and the counts stop "
            "agreeing.",
            f"Keep the batch size and let torch count the rest: `{fixed}` on line {line}, "
            "and set the next Linear's `in_features` to the size it prints.",
        )
    return Advice(
        f"The loss pairs each row of `{pred}` ({given} rows) with one label of `{y}` "
        f"({target} labels). A reshape such as `x.view(-1, n)` with the wrong n before the "
        "model's Linear layers merges or splits examples, so the counts stop agreeing.",
        "Reshape with the batch size kept: `x.view(x.size(0), -1)` (or `torch.flatten(x, 1)`), "
        "and set the next Linear's `in_features` to the printed size.",
    )


def _empty_parameters(f: Found) -> Advice:
    lists = list_attributes(f.context.program)
    if lists:
        attr, line, text = lists[0]
        holder = "ModuleDict" if "{" in text.split("=", 1)[1] else "ModuleList"
        return Advice(
            f"`{attr}` (line {line}) is a plain Python "
            f"{'dict' if holder == 'ModuleDict' else 'list'}: nn.Module registers a layer only "
            "when it is an attribute itself or inside nn.ModuleList/nn.ModuleDict/"
            "nn.Sequential, so `parameters()` finds nothing to optimize.",
            f"Wrap it: `{attr} = nn.{holder}(...)` around the same layers.",
        )
    raw = tensor_attributes(f.context.program)
    if raw:
        attr, line, text, value = raw[0]
        plain = re.sub(r",?\s*requires_grad\s*=\s*True", "", value)
        return Advice(
            f"`{attr}` (line {line}: `{text}`) is a plain tensor: nn.Module registers a "
            "tensor as a parameter only when it is wrapped in `nn.Parameter`, so "
            "`parameters()` finds nothing to optimize (`requires_grad=True` alone does not "
            "register it).",
            f"Wrap it: `{attr} = nn.Parameter({plain})` (a Parameter requires grad by "
            "itself), and the same for every such tensor.",
        )
    return Advice(
        "The optimizer was given no parameters: the model's `parameters()` found none. Layers "
        "count only as attributes (`self.fc = nn.Linear(...)`) or inside nn.ModuleList/"
        "nn.Sequential, and raw tensors only when wrapped in `nn.Parameter`.",
        "Register the layers that way (and call `super().__init__()` first), then pass "
        "`model.parameters()`.",
    )


_TARGET_PAIR = (
    rf"[Tt]arget size \({TORCH_SIZE.format('target')}\).*?input size "
    rf"\({TORCH_SIZE.format('input')}\)"
)


def _target_size(f: Found) -> Advice:
    target, given = parse_shape(f.group("target")), parse_shape(f.group("input"))
    args = first_call_args(f.context.source_line)
    pred, y = args if args is not None else ("output", "target")
    if given[:-1] == target and given[-1:] == (1,):
        fix = (
            f"Give them the same shape: `{y}.unsqueeze(1)` (shape {shape_text(given)}) or "
            f"`{pred}.squeeze(1)` (shape {shape_text(target)}) in that call."
        )
    elif target[:-1] == given and target[-1:] == (1,):
        fix = (
            f"Give them the same shape: `{y}.squeeze(1)` (shape {shape_text(given)}) or "
            f"`{pred}.unsqueeze(1)` (shape {shape_text(target)}) in that call."
        )
    else:
        fix = f"Reshape one of them so both are {shape_text(given)}: print both shapes first."
    if f.exception.endswith("Warning"):
        try:
            both = shape_text(tuple(np.broadcast_shapes(given, target)))
        except ValueError:
            both = "a larger shape"
        result = (
            f"The loss broadcasts them against each other (to {both}: every prediction "
            "paired with every target), so it runs, but its value and gradients are wrong."
        )
    else:
        result = "This loss compares them element by element, so it stops."
    return Advice(
        f"The loss got predictions `{pred}` of shape {shape_text(given)} and targets `{y}` of "
        f"shape {shape_text(target)}: the same numbers of values, but one has an extra "
        f"dimension of size 1. {result}",
        fix,
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
    r"|Input type \(\w+\) and (?:weight|bias) type \(\w+\) should be the same"
)

# First match wins. Torch rules accept any class: the engine may re-raise them differently.
TORCH_RULES: tuple[Rule, ...] = rule_table(
    ("complex-backward", r"implicitly created only for real scalar", "", _complex_backward),
    ("non-scalar-backward", r"implicitly created only for scalar", "", _non_scalar),
    ("backward-twice", r"backward through the graph a second time", "", _backward_twice),
    ("gradient-shape-mismatch", _SHAPE_PAIR, "", _gradient_shape),
    (
        "leaf-inplace",
        r"requires grad (?:is being|has been) used in an in-place|cannot resize variables "
        r"that require grad",
        "",
        _leaf_inplace,
    ),
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
    ("zero-dim-index", r"invalid index of a 0-dim tensor", "", _zero_dim_index),
    (
        "ambiguous-bool",
        r"Boolean value of Tensor with more than one (value|element) is ambiguous",
        "",
        _ambiguous_bool,
    ),
    ("target-size", _TARGET_PAIR, "", _target_size),
    (
        "class-target-dtype",
        r"expected target dtype to be Long|expected scalar type Long but found Float",
        "",
        _class_target_dtype,
    ),
    ("class-target-shape", r"multi-target not supported", "", _class_target_shape),
    (
        "conv-channels",
        r"weight of size \[(?P<weight>[\d, ]+)\], expected input\[(?P<input>[\d, ]+)\] to "
        r"have (?P<want>\d+) channels, but got (?P<got>\d+) channels",
        "",
        _conv_channels,
    ),
    (
        "conv-input-dims",
        r"Expected (?P<small>\d)D \(unbatched\) or (?P<big>\d)D \(batched\) input to "
        r"(?P<op>\w+), but got input of size: \[(?P<size>[\d, ]*)\]",
        "",
        _conv_input_dims,
    ),
    (
        "dim-out-of-range",
        r"Dimension out of range \(expected to be in range of \[(?P<lo>-?\d+), "
        r"(?P<hi>-?\d+)\], but got (?P<got>-?\d+)\)",
        "",
        _dim_range,
    ),
    (
        "view-not-contiguous",
        r"view size is not compatible with input tensor's size",
        "",
        _view_stride,
    ),
    (
        "view-size",
        r"shape '\[(?P<shape>[-\d, ]+)\]' is invalid for input of size (?P<size>\d+)",
        "",
        _view_size,
    ),
    (
        "batch-size-mismatch",
        r"Expected input batch_size \((?P<given>\d+)\) to match target batch_size "
        r"\((?P<target>\d+)\)",
        "",
        _batch_size,
    ),
    ("empty-parameters", r"optimizer got an empty parameter list", "", _empty_parameters),
    ("class-target-range", r"Target (?P<target>-?\d+) is out of bounds", "", _class_target_range),
    (
        "no-gpu",
        r"Torch not compiled with CUDA enabled|no CUDA GPUs are available|Found no NVIDIA driver"
        r"|Torch not compiled with MPS",
        "",
        _no_gpu,
    ),
)

_PROGRAM_FRAME = re.compile(r'File "<program>", line (\d+)')


def _anomaly_traceback(f: Found) -> Advice:
    node = f.group("node")
    lines = [int(n) for n in _PROGRAM_FRAME.findall(f.message)]
    program = f.context.program.splitlines() if f.context.program else []
    if not lines:
        return Advice(
            f"Anomaly detection is on, and the backward of `{node}` failed: torch names the "
            "forward call that made that node, in a line of code outside your program.",
            "The error below says what went wrong in that backward.",
        )
    made = lines[-1]  # the innermost of the program's own frames: where the node was made
    text = program[made - 1].strip() if 0 < made <= len(program) else ""
    where = f"line {made}" + (f" (`{text}`)" if text else "")
    calls = ", ".join(f"line {n}" for n in lines[:-1])
    via = f", called from {calls}" if calls else ""
    return Advice(
        f"Anomaly detection (`torch.autograd.set_detect_anomaly(True)` or `with "
        f"torch.autograd.detect_anomaly():`) is on, and the backward of `{node}` failed. "
        f"torch records where each node was made: `{node}` was made on {where}{via}. The "
        "frames of the traceback outside your program are the app's, which runs it.",
        f"Look at {where}: the error below says what went wrong in its backward (often a "
        "tensor it saved was changed in place afterwards).",
    )


WARNING_RULES: tuple[Rule, ...] = rule_table(
    ("cpu-only", r"Autograd Explorer computes on the CPU", "", _cpu_only),
    (
        "anomaly-traceback",
        r"Error detected in (?P<node>\w+)\. Traceback of forward call that caused the error",
        "",
        _anomaly_traceback,
    ),
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
    ("target-size-broadcast", _TARGET_PAIR, "", _target_size),
    (
        "implicit-softmax-dim",
        r"Implicit dimension choice for (?P<fn>\w+) has been deprecated",
        "",
        _softmax_dim,
    ),
    ("volatile-removed", r"volatile was removed", "", _volatile),
)
