"""Local rules of elementwise ops: add, subtract, multiply, divide, powers, exp, sin, ...

Each rule takes a :class:`~gui.model.explain.local_rules.terms.Ctx` and returns the forward
expression, a sentence, the partial derivatives and one gradient term per input, written
after torch's own backward formulas (``tools/autograd/derivatives.yaml``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from gui.model.explain.local_rules.flat import Vec, fdiv, flog, fmap, fmul, fpow
from gui.model.explain.local_rules.terms import Ctx, Rule, num, power


def add(ctx: Ctx, sign: float) -> Rule:
    a, b = ctx.syms[0], ctx.syms[1]
    alpha = ctx.value("alpha", 1)
    scale = sign * alpha
    word = "add" if sign > 0 else "sub"
    forward = f"{a} {'+' if sign > 0 else '-'} {b}"
    if alpha != 1:
        forward = f"torch.{word}({a}, {b}, alpha={num(alpha)})"
    scaled_b = b if alpha == 1 else f"{num(alpha)}·{b}"
    math_form = f"{a} {'+' if sign > 0 else '−'} {scaled_b}"
    template = {1: "{g}", -1: "−{g}"}.get(scale, "{s} · {g}")
    what = f"Adds {scaled_b} to {a}." if sign > 0 else f"Subtracts {scaled_b} from {a}."
    return Rule(
        forward,
        what,
        (f"∂({math_form})/∂{a} = 1", f"∂({math_form})/∂{b} = {num(scale)}"),
        (
            ctx.term(0, "{g}", ctx.g()),
            ctx.term(1, template, fmap(lambda v: scale * v, ctx.g()), s=num(scale)),
        ),
    )


def rsub(ctx: Ctx) -> Rule:
    a = ctx.syms[0]
    alpha = ctx.value("alpha", 1)
    scaled = a if alpha == 1 else f"{num(alpha)}·{a}"
    grad = fmap(lambda v: -alpha * v, ctx.g())
    return Rule(
        f"c - {a}" if alpha == 1 else f"c - {num(alpha)} * {a}",
        f"Subtracts {scaled} from a number c.",
        f"∂(c − {scaled})/∂{a} = {num(-alpha)}",
        (ctx.term(0, "{s} · {g}", grad, s=num(-alpha)),),
    )


def multiply(ctx: Ctx) -> Rule:
    a, b = ctx.syms[0], ctx.syms[1]
    x, y = ctx.tensor("self"), ctx.tensor("other")
    return Rule(
        f"{a} * {b}",
        f"Multiplies {a} and {b} element by element.",
        (f"∂({a}·{b})/∂{a} = {b}", f"∂({a}·{b})/∂{b} = {a}"),
        (
            ctx.term(0, "{g} · {b}", fmap(fmul, ctx.g(), y), b=(b, y)),
            ctx.term(1, "{g} · {a}", fmap(fmul, ctx.g(), x), a=(a, x)),
        ),
    )


def divide(ctx: Ctx) -> Rule:
    a, b = ctx.syms[0], ctx.syms[1]
    x, y = ctx.tensor("self"), ctx.tensor("other")
    grad_b = fmap(lambda g, p, q: fdiv(-g * p, q * q), ctx.g(), x, y)
    return Rule(
        f"{a} / {b}",
        f"Divides {a} by {b} element by element.",
        (f"∂({a}/{b})/∂{a} = 1/{b}", f"∂({a}/{b})/∂{b} = −{a}/{b}²"),
        (
            ctx.term(0, "{g} / {b}", fmap(fdiv, ctx.g(), y), b=(b, y)),
            ctx.term(1, "−{g} · {a} / {b}²", grad_b, a=(a, x), b=(b, y)),
        ),
    )


def pow_scalar(ctx: Ctx) -> Rule:
    a, p = ctx.syms[0], float(ctx.value("exponent", math.nan))
    x = ctx.tensor("self")
    # torch: where(exponent == 0, 0, grad * exponent * self ** (exponent - 1))
    grad = fmap(lambda g, v: 0.0 if p == 0 else g * (p * fpow(v, p - 1)), ctx.g(), x)
    template = "0 · {g}" if p == 0 else "{g} · {p}"
    if p not in (0, 1):
        template += " · " + power("{a}", p - 1)
    return Rule(
        f"{a} ** {num(p)}",
        f"Raises each element of {a} to the power {num(p)}.",
        f"∂({power(a, p)})/∂{a} = {num(p)}·{power(a, p - 1)}",
        (ctx.term(0, template, grad, p=num(p), a=(a, x)),),
    )


def pow_tensor(ctx: Ctx) -> Rule:
    a, b = ctx.syms[0], ctx.syms[1]
    x, e, r = ctx.tensor("self"), ctx.tensor("exponent"), ctx.tensor("result")

    def by_base(g: Vec, v: Vec, q: Vec) -> Vec:
        return np.where(q == 0, 0.0, g * (q * fpow(v, q - 1)))

    def by_exponent(g: Vec, res: Vec, v: Vec, q: Vec) -> Vec:
        return np.where((v == 0) & (q >= 0), 0.0, g * res * flog(v))

    return Rule(
        f"{a} ** {b}",
        f"Raises each element of {a} to the power of the matching element of {b}.",
        (
            f"∂({a}^{b})/∂{a} = {b}·{a}^({b} − 1)",
            f"∂({a}^{b})/∂{b} = {a}^{b}·ln {a} (torch uses 0 where {a} = 0 and {b} ≥ 0)",
        ),
        (
            ctx.term(
                0, "{g} · {b} · {a}^({b} − 1)", fmap(by_base, ctx.g(), x, e), a=(a, x), b=(b, e)
            ),
            ctx.term(
                1,
                "{g} · {r} · ln {a}",
                fmap(by_exponent, ctx.g(), r, x, e),
                r=(f"{a}^{b}", r),
                a=(a, x),
            ),
        ),
    )


def pow_base(ctx: Ctx) -> Rule:
    b, c = ctx.syms[0], float(ctx.value("self", math.nan))
    r = ctx.tensor("result")

    def by_exponent(g: Vec, res: Vec, q: Vec) -> Vec:
        return np.where((q >= 0) & (c == 0), 0.0, g * res * flog(c))

    grad = fmap(by_exponent, ctx.g(), r, ctx.tensor("exponent"))
    return Rule(
        f"{num(c)} ** {b}",
        f"Raises the number {num(c)} to the power of each element of {b}.",
        f"∂({num(c)}^{b})/∂{b} = {num(c)}^{b}·ln {num(c)}",
        (ctx.term(0, "{g} · {r} · ln {c}", grad, r=(f"{num(c)}^{b}", r), c=num(c)),),
    )


@dataclass(frozen=True)
class Unary:
    """An elementwise function; its derivative is computed from what torch saved
    (``derivative`` maps an array to an array, or to a plain number for a constant)."""

    math: str
    saved: str | None
    derivative_text: str
    derivative: Callable[[Vec], ArrayLike]
    what: str
    forward: str = ""  # defaults to the method call ``u.name()``
    mask: bool = False  # torch selects instead of multiplying, so an infinite g·0 stays 0


def _sign(x: Vec) -> Vec:
    return np.where((x == 0) | np.isnan(x), 0.0, np.copysign(1.0, x))


UNARY: dict[str, Unary] = {
    "Exp": Unary("exp({u})", "result", "exp({u})", lambda r: r, "Takes e to the power {u}"),
    "Log": Unary("ln {u}", "self", "1/{u}", lambda s: fdiv(1.0, s), "Takes the natural log of"),
    "Sin": Unary("sin {u}", "self", "cos {u}", np.cos, "Takes the sine of"),
    "Cos": Unary("cos {u}", "self", "(−sin {u})", lambda s: -np.sin(s), "Takes the cosine of"),
    "Tanh": Unary("tanh {u}", "result", "(1 − tanh²{u})", lambda r: 1 - r * r, "Takes tanh of"),
    "Sigmoid": Unary(
        "σ({u})", "result", "σ({u})·(1 − σ({u}))", lambda r: r * (1 - r), "Takes the sigmoid σ of"
    ),
    "Relu": Unary(
        "relu({u})",
        "result",
        "[{u} > 0]",
        lambda r: np.where(r > 0, 1.0, 0.0),
        "Zeroes the negatives of",
        mask=True,
    ),
    "Neg": Unary("−{u}", None, "(−1)", lambda _: -1.0, "Flips the sign of", forward="-{u}"),
    "Sqrt": Unary("√{u}", "result", "1/(2√{u})", lambda r: fdiv(1.0, 2 * r), "Takes the √ of"),
    "Reciprocal": Unary(
        "1/{u}", "result", "(−1/{u}²)", lambda r: -r * r, "Takes 1 over", forward="1 / {u}"
    ),
    "Abs": Unary("|{u}|", "self", "sign({u})", _sign, "Takes the absolute value of"),
}


def unary(ctx: Ctx, base: str, op: Unary) -> Rule:
    u = ctx.syms[0]
    local = fmap(op.derivative, ctx.tensor(op.saved) if op.saved else ctx.g())
    grad = fmap(lambda g, d: np.where(d == 0, 0.0, g * d) if op.mask else g * d, ctx.g(), local)
    d_text = op.derivative_text.format(u=u)
    partial = f"∂{op.math.format(u=u)}/∂{u} = {d_text}"
    if op.mask:
        partial += f" (1 where {u} > 0, else 0)"
    what = op.what.format(u=u)
    return Rule(
        (op.forward or f"{{u}}.{base.lower()}()").format(u=u),
        what if "{u}" in op.what else f"{what} each element of {u}.",
        partial,
        (ctx.term(0, "{g} · {d}", grad, d=(d_text, local)),),
    )
