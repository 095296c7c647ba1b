"""Local rules of ops that move numbers around: sums, means, unbind, matrix products,
reshapes; the generic ``Jᵀ·g`` fallback; and :func:`rule_for`, which picks a rule."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from gui.model.explain.local_rules import elementwise
from gui.model.explain.local_rules.flat import (
    Shape,
    arr,
    expand,
    fmap,
    fmul,
    matmul,
    permute,
    reshape,
    scalar,
    stack,
    transpose,
)
from gui.model.explain.local_rules.terms import SUBSCRIPT, Ctx, Rule
from gui.model.tensor_format import format_shape


def _reduced_dims(ctx: Ctx, shape: Shape) -> tuple[int, ...]:
    if ctx.node.name.endswith("Backward0"):  # sum() / mean() over everything
        return tuple(range(len(shape)))
    dims = ctx.value("dim", [])
    dims = dims if isinstance(dims, list) else [dims]
    return tuple(sorted(int(d) % max(len(shape), 1) for d in dims)) or tuple(range(len(shape)))


def reduce(ctx: Ctx, mean: bool) -> Rule:
    u, shape = ctx.syms[0], ctx.sizes() or ()
    dims = _reduced_dims(ctx, shape)
    n = math.prod(shape[d] for d in dims)
    g = ctx.g()
    keepdim = bool(ctx.value("keepdim", False))
    if not keepdim:  # put the summed-away dims back as size 1
        g = reshape(g, tuple(1 if i in dims else d for i, d in enumerate(shape)))
    if mean:
        g = fmap(lambda v: v / n, g)
    whole = ctx.node.name.endswith("Backward0")
    dim_text = str(dims[0]) if len(dims) == 1 else str(list(dims))
    args = "" if whole else f"dim={dim_text}" + (", keepdim=True" if keepdim else "")
    call = f"{u}.{'mean' if mean else 'sum'}({args})"
    verb = "Averages" if mean else "Adds up"
    where = "every element" if whole else f"each element (along dim {dim_text})"
    template = "{g} / {n}, copied into shape {s}" if mean else "{g} copied into shape {s}"
    return Rule(
        call,
        f"{verb} the elements of {u}" + ("." if whole else f" along dim {dim_text}."),
        f"∂({call})/∂{u}ᵢ = {f'1/{n}' if mean else '1'} for {where} of {u}",
        (ctx.term(0, template, expand(g, shape), n=str(n), s=format_shape(shape)),),
    )


def unbind(ctx: Ctx) -> Rule:
    u, dim = ctx.syms[0], int(ctx.value("dim", 0))
    arriving = ctx.flow.arriving if ctx.flow is not None else ()
    count = max(ctx.node.output_count, len(arriving))
    shape = ctx.shapes[0]
    zeros = None if shape is None else expand(scalar(0.0), shape[:dim] + shape[dim + 1 :])
    parts = [arr(t) if t is not None else zeros for t in arriving]
    shown = range(count) if count <= 6 else (0, count - 1)
    slots = {f"g{i}": (f"g{i}".translate(SUBSCRIPT), parts[i] if parts else None) for i in shown}
    listed = (", " if count <= 6 else ", …, ").join("{" + k + "}" for k in slots)
    return Rule(
        f"{u}.unbind({dim})",
        f"Splits {u} into its {count} slices along dim {dim}.",
        f"Each slice is a piece of {u}, so its gradient goes back to that piece's place: "
        "the slices' gradients are stacked (a slice that got none adds zeros)",
        (ctx.term(0, f"stack([{listed}], dim={dim})", stack(parts, dim), **slots),),
    )


def matrix(ctx: Ctx, kind: str) -> Rule:
    a, b = ctx.syms[0], ctx.syms[1]
    other = {"Mm": "mat2", "Mv": "vec", "Dot": "tensor"}[kind]
    x, y, g = ctx.tensor("self"), ctx.tensor(other), ctx.g()
    if kind == "Dot":
        return Rule(
            f"{a} @ {b}",
            f"Multiplies vectors {a} and {b} element by element and adds up the products.",
            (f"∂({a}·{b})/∂{a} = {b}", f"∂({a}·{b})/∂{b} = {a}"),
            (
                ctx.term(0, "{g} · {b}", fmap(fmul, g, y), b=(b, y)),
                ctx.term(1, "{g} · {a}", fmap(fmul, g, x), a=(a, x)),
            ),
        )
    if kind == "Mm":
        what = f"Multiplies matrix {a} by matrix {b}."
        grad_a = ctx.term(0, "{g} @ {b}ᵀ", matmul(g, transpose(y)), b=(b, y))
        grad_b = ctx.term(1, "{a}ᵀ @ {g}", matmul(transpose(x), g), a=(a, x))
    else:
        what = f"Multiplies matrix {a} by vector {b}."
        column = None if g is None else reshape(g, (g.size, 1))
        outer = fmap(fmul, column, None if y is None else reshape(y, (1, y.size)))
        grad_a = ctx.term(0, "outer({g}, {b})", outer, b=(b, y))
        product = matmul(transpose(x), column)
        grad_b = ctx.term(1, "{a}ᵀ @ {g}", reshape(product, y.shape if y else None), a=(a, x))
    partial = (f"∂({a}@{b})ᵢⱼ/∂{a}ᵢₖ = {b}ₖⱼ", f"∂({a}@{b})ᵢⱼ/∂{b}ₖⱼ = {a}ᵢₖ")
    if kind == "Mv":
        partial = (f"∂({a}@{b})ᵢ/∂{a}ᵢₖ = {b}ₖ", f"∂({a}@{b})ᵢ/∂{b}ₖ = {a}ᵢₖ")
    return Rule(f"{a} @ {b}", what, partial, (grad_a, grad_b))


SHAPE_OPS = {
    "Unsqueeze": "unsqueeze",
    "Squeeze": "squeeze",
    "View": "view",
    "ReshapeAlias": "reshape",
    "UnsafeView": "view",
    "Clone": "clone",
}


def shape_op(ctx: Ctx, method: str) -> Rule:
    u, dim, shape = ctx.syms[0], ctx.value("dim"), ctx.shapes[0]
    arg = "" if dim is None else str(dim)
    out = ctx.node.value.shape if ctx.node.value is not None else None
    arriving = ctx.flow.arriving[0] if ctx.flow is not None and ctx.flow.arriving else None
    if out is None and arriving is not None:  # what arrives has the output's shape
        out = arriving.shape
    if method in ("view", "reshape") and out is not None:
        arg = ", ".join(str(d) for d in out)
    return Rule(
        f"{u}.{method}({arg})",
        f"Gives the elements of {u} a new shape; no number changes.",
        f"Every output element is one element of {u}, with derivative 1",
        (ctx.term(0, "{g} reshaped to {s}", reshape(ctx.g(), shape), s=format_shape(shape or ())),),
    )


def permute_op(ctx: Ctx, method: str) -> Rule:
    u = ctx.syms[0]
    shape = ctx.shapes[0] or ()
    dims = ctx.value("dims") or list(reversed(range(len(shape))))
    inverse = tuple(sorted(range(len(dims)), key=lambda i: dims[i]))
    call = f"{u}.t()" if method == "T" else f"{u}.permute{tuple(dims)}"
    template = "{g}ᵀ" if list(dims) == [1, 0] else f"{{g}}.permute{inverse}"
    return Rule(
        call,
        f"Reorders the dims of {u} ({'transposes it' if method == 'T' else f'to {dims}'}); "
        "no number changes.",
        f"Every output element is one element of {u}, with derivative 1",
        (ctx.term(0, template, permute(ctx.g(), inverse)),),
    )


def generic(ctx: Ctx, op: str) -> Rule:
    return Rule(
        f"{op}({', '.join(ctx.syms)})",
        f"Computes {op} of its input{'s' if len(ctx.syms) > 1 else ''}.",
        "torch computes grad_input = Jᵀ·g for this op: the Jacobian J of its output with "
        "respect to that input, transposed, times the arriving gradient g",
        tuple(ctx.term(i, "Jᵀ · {g}", None) for i in range(len(ctx.syms))),
    )


RuleMaker = Callable[[Ctx], Rule]
# By the op's base name (the class name without ``Backward<n>``).
_RULES: dict[str, RuleMaker] = {
    "Add": lambda ctx: elementwise.add(ctx, 1.0),
    "Sub": lambda ctx: elementwise.add(ctx, -1.0),
    "Rsub": elementwise.rsub,
    "Mul": elementwise.multiply,
    "Div": elementwise.divide,
    "Sum": lambda ctx: reduce(ctx, mean=False),
    "Mean": lambda ctx: reduce(ctx, mean=True),
    "Unbind": unbind,
    "Mm": lambda ctx: matrix(ctx, "Mm"),
    "Mv": lambda ctx: matrix(ctx, "Mv"),
    "Dot": lambda ctx: matrix(ctx, "Dot"),
}
# Overloads differ in what they save, so these go by the full class name.
_BY_CLASS: dict[str, RuleMaker] = {
    "PowBackward0": elementwise.pow_scalar,
    "PowBackward1": elementwise.pow_tensor,
    "PowBackward2": elementwise.pow_base,
}
_BINARY = {"Add", "Sub", "Mul", "Div", "Mm", "Mv", "Dot"}


def rule_for(ctx: Ctx) -> Rule:
    """The local rule of ``ctx.node``: a specific one where we have it, else ``Jᵀ·g``."""
    name = ctx.node.name
    base = re.sub(r"Backward\d*$", "", name)
    if not ctx.syms or (base in _BINARY and len(ctx.syms) < 2):
        # No inputs drawn, or an overload taking a plain number that no formula here fits.
        return generic(ctx, base[:1].lower() + base[1:])
    if name in _BY_CLASS:
        return _BY_CLASS[name](ctx)
    if base in elementwise.UNARY:
        return elementwise.unary(ctx, base, elementwise.UNARY[base])
    if base in SHAPE_OPS:
        return shape_op(ctx, SHAPE_OPS[base])
    if base in ("Permute", "T"):
        return permute_op(ctx, base)
    if base in _RULES:
        return _RULES[base](ctx)
    return generic(ctx, base[:1].lower() + base[1:])
