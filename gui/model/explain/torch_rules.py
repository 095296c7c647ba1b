"""The catalogue behind :mod:`.messages`: one rule per error or warning torch raises.

Each :class:`Rule` pairs a regular expression (matched with ``search`` on the distinctive part
of the message, because torch appends hints and C++ traces) with a builder that turns the
match and the :class:`ErrorContext` into plain words. New messages are new table rows, not new
branches. The builders here are autograd's (backward, leaves, saved tensors, grad modes);
those for what an operation was given (shapes, dtypes, layers, loss targets) are in
:mod:`gui.model.explain.input_builders`, and the rule shapes in
:mod:`gui.model.explain.rule_types`. Python's own errors and runaway programs are the rest
of the catalogue, in :mod:`gui.model.explain.python_rules`; the helpers the builders share
(reading the user's line, shape arithmetic) are in :mod:`gui.model.explain.source`. No
torch and no Qt.
"""

from __future__ import annotations

import ast
import re

from gui.model.explain.backward_history import (
    accumulated,
    earlier_backwards,
    why_freed,
)
from gui.model.explain.distribution_args import (
    INVALID_PARAMETER,
    MATRIX_EXPECTED,
    VALUE_NOT_BROADCASTABLE,
    invalid_parameter,
    matrix_expected,
    value_not_broadcastable,
)
from gui.model.explain.dtype_hints import integer_leaf
from gui.model.explain.grad_readers import (
    asking_for_grad,
    optimized_without_grad,
    trained_without_grad,
)
from gui.model.explain.grad_switches import reads
from gui.model.explain.graph_cuts import find_cut, history
from gui.model.explain.inplace_sites import (
    guilty_site,
    inplace_sites,
    inplace_story,
    other_optimizer_story,
)
from gui.model.explain.input_builders import (
    TARGET_PAIR,
    ambiguous_bool,
    batch_size,
    broadcast,
    class_target_dtype,
    class_target_range,
    class_target_shape,
    conv_channels,
    conv_input_dims,
    dim_range,
    dtype,
    empty_parameters,
    matmul,
    softmax_dim,
    target_size,
    view_size,
    view_stride,
    volatile,
)
from gui.model.explain.join_shapes import (
    CAT_DIMS,
    CAT_SIZES,
    STACK_SIZES,
    cat_dims,
    cat_sizes,
    stack_sizes,
)
from gui.model.explain.layer_setup import (
    EMBEDDING_INDEX,
    HEADS_DIVIDE,
    RNN_INPUT_SIZE,
    embedding_index,
    heads_divide,
    rnn_input_size,
)
from gui.model.explain.library_inplace import library_inplace
from gui.model.explain.loss_inputs import (
    BCE_PROBABILITIES,
    CLASS_TARGET_PROBABILITIES,
    EMBEDDING_IDS_DTYPE,
    RNN_HIDDEN_SHAPE,
    bce_probabilities,
    class_target_probabilities,
    embedding_ids_dtype,
    rnn_hidden_shape,
)
from gui.model.explain.no_grad_returns import returned_without_grad
from gui.model.explain.once_differentiable import once_differentiable_cut
from gui.model.explain.operand_forms import (
    DOT_SIZES,
    MASK_SHAPE,
    NEEDS_MATRIX,
    NO_DERIVATIVE,
    dot_sizes,
    mask_shape,
    needs_matrix,
    no_derivative,
)
from gui.model.explain.rule_types import (
    Advice,
    Found,
    Rule,
    rule_table,
    subject,
)
from gui.model.explain.shrunk_inputs import (
    KERNEL_TOO_BIG,
    POOL_TOO_SMALL,
    TENSOR_EXPECTED,
    kernel_too_big,
    pool_too_small,
    tensor_expected,
)
from gui.model.explain.source import (
    TORCH_SIZE,
    BackwardCall,
    assignments,
    attribute_receiver,
    backward_call,
    broadcasts_to,
    carried_in_loop,
    expand,
    flatten,
    inplace_target,
    leaf_made_late,
    line_names,
    line_tree,
    list_literal,
    made_before,
    no_grad_block,
    numel,
    ordinal,
    parse_shape,
    rebound_advice,
    rebound_update,
    receiver_text,
    render,
    reshape,
    shape_text,
    tensor_literal,
    zero_dim_subscript,
)
from gui.model.explain.state_dicts import STATE_DICT_MISMATCH, state_dict_mismatch
from gui.model.explain.written import (
    inplace_written,
    numpy_argument,
    whole_number_source,
)

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
            f"Cut the link at the start of each pass, before line {carried.pass_line}: {detach} "
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
        other = None
        if site.how == "step":
            loss = subject(f, "loss2")
            other = other_optimizer_story(f.context.program, site, f.line, loss, shape, f.where)
        return Advice(*(other or inplace_story(site, made, shape, origin, f.where, losses)))
    inside = library_inplace(f.context.program, shape, origin)
    if inside is not None:
        return inside
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
    return returned_without_grad(program, n, f.line)


def _no_grad_fn(f: Found) -> Advice:
    n = subject(f)
    if f.line is not None:
        names = [n] if n.isidentifier() else line_names(n)
        names += [*f.context.constants, *(m.name for m in history(f.context.program, n, f.line))]
        once = once_differentiable_cut(f.context.program, n, list(dict.fromkeys(names)), f.line)
        if once is not None:
            return once
    # `z.sum().backward()`: the tensors the expression reads are the ones made somewhere.
    for name in [n] if n.isidentifier() else line_names(n):
        without = _made_without_grad(f, name)
        if without is not None:
            return without
    optimized = optimized_without_grad(f.context.program, n, f.line)
    if optimized is not None:
        o, made, step = optimized.name, optimized.made, optimized.optimizer
        return Advice(
            "`backward()` follows a tensor's `grad_fn` back to the leaves that require grad. "
            f"`{o}` is what line {step.line} (`{step.text}`) sets out to train, and `{n}` is "
            f"computed from it, but `{o}` was made on line {made.line} (`{made.text}`) "
            "without `requires_grad=True`, so torch recorded nothing to differentiate.",
            f"Ask for the gradient of `{o}` before it is used: `{o}.requires_grad_(True)` "
            f"right after line {made.line}{asking_for_grad(made)}.",
        )
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
    trained = trained_without_grad(f.context.program, n, f.line)
    if trained is not None and trained.made is not None:
        each = f"each tensor in `{trained.tensors}`" if trained.loop else f"`{trained.tensors}`"
        return Advice(
            "`backward()` follows a tensor's `grad_fn` back to leaves that require grad. "
            f"`{n}` has no `grad_fn`: nothing it is computed from requires grad, though line "
            f"{trained.line} reads `{trained.read}` of {each}, which `{n}` is computed from: "
            f"{each} was made on line {trained.made.line} (`{trained.made.text}`) without "
            "`requires_grad=True`, so torch recorded nothing to differentiate.",
            f"Ask for gradients of {each} where it is made, line {trained.made.line}: "
            f"create it with `requires_grad=True`, or append `.requires_grad_()`"
            f"{asking_for_grad(trained.made)}.",
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
    r"|RNN input dtype \(torch\.\w+\) does not match weight dtype"
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
    ("shape-mismatch", _BROADCAST, "", broadcast),
    ("matmul-shape", _MATMUL, "", matmul),
    ("dtype-mismatch", _DTYPE, "", dtype),
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
        ambiguous_bool,
    ),
    ("target-size", TARGET_PAIR, "", target_size),
    (
        "class-target-dtype",
        r"expected target dtype to be Long|expected scalar type Long but found Float",
        "",
        class_target_dtype,
    ),
    ("class-target-shape", r"multi-target not supported", "", class_target_shape),
    (
        "conv-channels",
        r"weight of size \[(?P<weight>[\d, ]+)\], expected input\[(?P<input>[\d, ]+)\] to "
        r"have (?P<want>\d+) channels, but got (?P<got>\d+) channels",
        "",
        conv_channels,
    ),
    (
        "conv-input-dims",
        r"Expected (?P<small>\d)D \(unbatched\) or (?P<big>\d)D \(batched\) input to "
        r"(?P<op>\w+), but got input of size: \[(?P<size>[\d, ]*)\]",
        "",
        conv_input_dims,
    ),
    (
        "dim-out-of-range",
        r"Dimension out of range \(expected to be in range of \[(?P<lo>-?\d+), "
        r"(?P<hi>-?\d+)\], but got (?P<got>-?\d+)\)",
        "",
        dim_range,
    ),
    (
        "view-not-contiguous",
        r"view size is not compatible with input tensor's size",
        "",
        view_stride,
    ),
    (
        "view-size",
        r"shape '\[(?P<shape>[-\d, ]+)\]' is invalid for input of size (?P<size>\d+)",
        "",
        view_size,
    ),
    (
        "batch-size-mismatch",
        r"Expected input batch_size \((?P<given>\d+)\) to match target batch_size "
        r"\((?P<target>\d+)\)",
        "",
        batch_size,
    ),
    ("empty-parameters", r"optimizer got an empty parameter list", "", empty_parameters),
    ("cat-sizes", CAT_SIZES, "", cat_sizes),
    ("cat-sizes", CAT_DIMS, "", cat_dims),
    ("stack-sizes", STACK_SIZES, "", stack_sizes),
    ("embedding-index", EMBEDDING_INDEX, "IndexError", embedding_index),
    ("rnn-input-size", RNN_INPUT_SIZE, "", rnn_input_size),
    ("heads-divide", HEADS_DIVIDE, "", heads_divide),
    ("bce-probabilities", BCE_PROBABILITIES, "", bce_probabilities),
    ("class-target-probabilities", CLASS_TARGET_PROBABILITIES, "", class_target_probabilities),
    ("rnn-hidden-shape", RNN_HIDDEN_SHAPE, "", rnn_hidden_shape),
    ("distribution-argument", INVALID_PARAMETER, "", invalid_parameter),
    ("distribution-argument", MATRIX_EXPECTED, "", matrix_expected),
    ("distribution-argument", VALUE_NOT_BROADCASTABLE, "", value_not_broadcastable),
    ("embedding-ids-dtype", EMBEDDING_IDS_DTYPE, "", embedding_ids_dtype),
    ("input-too-small", KERNEL_TOO_BIG, "", kernel_too_big),
    ("input-too-small", POOL_TOO_SMALL, "", pool_too_small),
    ("tensor-expected", TENSOR_EXPECTED, "", tensor_expected),
    ("mask-shape", MASK_SHAPE, "", mask_shape),
    ("dot-sizes", DOT_SIZES, "", dot_sizes),
    ("matmul-shape", NEEDS_MATRIX, "", needs_matrix),
    ("not-differentiable", NO_DERIVATIVE, "", no_derivative),
    ("state-dict-mismatch", STATE_DICT_MISMATCH, "", state_dict_mismatch),
    ("class-target-range", r"Target (?P<target>-?\d+) is out of bounds", "", class_target_range),
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
    ("target-size-broadcast", TARGET_PAIR, "", target_size),
    (
        "implicit-softmax-dim",
        r"Implicit dimension choice for (?P<fn>\w+) has been deprecated",
        "",
        softmax_dim,
    ),
    ("volatile-removed", r"volatile was removed", "", volatile),
)
