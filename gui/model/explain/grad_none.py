"""Why a program's ``x.grad`` is None where it reads it ("'NoneType' object has no attribute
'zero_'", ``lr * w.grad`` with None, ``torch.allclose(dt, t.grad)``): not a leaf (never
retained, or retained only after the backward), a leaf made too late, an update that
rebound the name, no backward yet, or a ``zero_grad()`` that cleared it; said of the
learner's own tensor, also when the read is inside the program's helper function
(``t`` in ``def cmp(s, dt, t)`` is the tensor the call passed). No torch, no Qt.
"""

from __future__ import annotations

import ast
import re

from gui.model.explain.backward_history import earlier_backwards, zero_grad_between
from gui.model.explain.helper_calls import passed_as, retained_late
from gui.model.explain.rule_types import Advice, ErrorContext, Found
from gui.model.explain.source import (
    attribute_receiver,
    leaf_made_late,
    made_before,
    rebound_advice,
    rebound_update,
)


def grad_none(f: Found) -> Advice:
    """Why ``n.grad`` is None where the program reads it, in its names."""
    ctx = f.context
    n = next(iter(ctx.none_grads), None) or attribute_receiver(ctx.source_line, ("grad",))
    n = n or (ctx.leaves[0] if ctx.leaves else "x")
    passed = passed_as(ctx.program, n, f.line, ctx.call_lines)
    if passed is not None and passed.argument.isidentifier():
        # `t.grad` inside the program's own helper (`def cmp(s, dt, t)`): say it of the
        # tensor the call passed, where the call is.
        advice = _grad_none_at(f, passed.argument, passed.line)
        return Advice(
            f"Inside `{passed.function}` (line {f.line}), `{n}` is `{passed.argument}`, passed "
            f"on line {passed.line} (`{passed.text}`). {advice.explanation}",
            advice.fix,
        )
    return _grad_none_at(f, n, f.line)


def _grad_none_at(f: Found, n: str, at: int | None) -> Advice:
    """``n.grad`` is None as seen from line ``at`` (the failing line, or the call of the
    helper function it failed in)."""
    ctx = f.context
    retained = retained_late(ctx.program, n, at) if n not in ctx.leaves else None
    if retained is not None:
        site = retained.backward
        what = f"line {retained.line} (`{retained.text}`)"
        if retained.text.startswith("for "):
            what = f"the loop on line {retained.line} (`{retained.text}`) with its body"
        return Advice(
            f"`{n}.grad` is None: `{n}` is not a leaf, and its `retain_grad()` (line "
            f"{retained.line}: `{retained.text}`) comes after the backward on line {site.line} "
            f"(`{site.text}`). `retain_grad()` asks the backward passes that run after it to "
            f"keep `{n}`'s gradient; the one that already ran kept none.",
            f"Call `{n}.retain_grad()` before `{site.text}`: move {what} above line "
            f"{site.line}, after the forward pass that computes `{n}`.",
        )
    late = leaf_made_late(ctx.program, n, at) if n not in ctx.leaves else None
    if late is not None:
        made, fixed = late
        return Advice(
            f"`{n}.grad` is None: `{n}` is not a leaf. On line {made.line} (`{made.text}`) "
            f"the leaf is the tensor made with `requires_grad=True`; `{n}` is computed from "
            "it, and autograd fills `.grad` only on leaves, so backward put the gradient "
            f"on that unnamed tensor and `{n}.grad` stays None.",
            f"Make `{n}` itself the leaf, asking for gradients after the arithmetic: `{fixed}`.",
        )
    step = rebound_update(ctx.program, n)
    if step is not None:
        return Advice(*rebound_advice(n, step))
    computed = _computed_after_backward(ctx.program, n, ctx, at)
    if computed is not None:
        return Advice(
            f"`{n}.grad` is None because `{n}` is not a leaf: it is computed on line "
            f"{computed[0]} (`{computed[1]}`), and backward passes through such tensors but "
            f"stores gradients only on leaves (the tensors made with `requires_grad=True` and "
            f"a model's weights), so `{n}.grad` stays None.",
            f"To keep it, call `{n}.retain_grad()` right after line {computed[0]}, before the "
            "backward; or read the gradient of the leaf it is computed from.",
        )
    ran = earlier_backwards(ctx.program, at)
    if n in ctx.constants and ran:
        origin = made_before(ctx.program, n, at)
        where = f" on line {origin.line} (`{origin.text}`)" if origin is not None else ""
        return Advice(
            f"`{n}.grad` is None because `{n}` does not require grad: it was made{where} "
            f"without `requires_grad=True`, so the backward on line {ran[-1].line} computed "
            f"gradients only for what does (a model's weights) and none for `{n}`.",
            f"Ask for its gradient before the forward pass that uses it: "
            f"`{n}.requires_grad = True` (or `{n}.requires_grad_()`) right after it is made.",
        )
    cleared = zero_grad_between(ctx.program, at)
    if cleared is not None:
        line, text = cleared
        return Advice(
            f"`{n}.grad` is None at {f.where} because line {line} (`{text}`) cleared it: since "
            "PyTorch 2.0, `zero_grad()` sets every gradient to None (`set_to_none=True`) "
            "rather than to zeros, to save memory, until the next `backward()` fills it again.",
            f"Read `{n}.grad` after `backward()` and before `{text}`; or keep zeros instead of "
            f"None: `{text[:-1]}set_to_none=False)`.",
        )
    parametrized = _parametrized_read(ctx.program, n, at)
    if parametrized is not None:
        return Advice(*parametrized)
    attr = f.group("attr")
    if not attr:  # `lr * w.grad`: a TypeError, no attribute read on None
        return Advice(
            f"`{n}.grad` is None at {f.where}, and Python cannot compute with None: no "
            f"`backward()` has reached `{n}` yet (or `{n}` is not a leaf).",
            f"Run the backward pass before this line, or guard it: `if {n}.grad is not None:`.",
        )
    return Advice(
        f"`{n}.grad` is None until a `backward()` has reached `{n}`, so there is no tensor to "
        f"call `.{attr}` on yet (it is also None for tensors that are not leaves).",
        f"Run the backward pass first, or guard it: `if {n}.grad is not None: {n}.grad.zero_()` "
        f"(or reset with `{n}.grad = None`).",
    )


# torch.nn.utils.parametrizations / parametrize calls: afterwards `layer.weight` is computed
# from `layer.parametrizations.weight.original*` at every read, not a parameter.
_PARAMETRIZING = re.compile(
    r"\b(?P<fn>weight_norm|spectral_norm|orthogonal|register_parametrization)\("
)


def _parametrized_read(program: str | None, n: str, at: int | None) -> tuple[str, str] | None:
    """Why ``layer.weight.grad`` is None after a backward when the program parametrized
    ``layer``'s weight: it is recomputed from the originals, which hold the gradients."""
    owner, dot, attr = n.rpartition(".")
    if not dot or not attr.isidentifier() or not earlier_backwards(program, at):
        return None
    lines = (program or "").splitlines()
    for number, text in enumerate(lines[: at or len(lines)], start=1):
        found = _PARAMETRIZING.search(text)
        if found is None or (found.group("fn") == "register_parametrization" and attr not in text):
            continue
        root = re.match(r"[A-Za-z_]\w{0,99}", owner)
        if root is None or re.search(rf"\b{root.group()}\b", text) is None:
            continue  # another layer's parametrization
        if attr != "weight" and attr not in text:
            continue  # weight_norm and the others parametrize `weight` unless told otherwise
        originals = (
            f"`{owner}.parametrizations.{attr}.original0` (the magnitude g) and `.original1` "
            "(the direction v)"
            if found.group("fn") == "weight_norm"
            else f"`{owner}.parametrizations.{attr}.original`"
        )
        reads = (
            f"`{owner}.parametrizations.{attr}.original0.grad` and `.original1.grad`"
            if found.group("fn") == "weight_norm"
            else f"`{owner}.parametrizations.{attr}.original.grad`"
        )
        return (
            f"`{n}.grad` is None: line {number} (`{text.strip()}`) parametrized it, so `{n}` "
            f"is no longer a parameter but is computed from {originals} each time it is read. "
            f"It is not a leaf, and backward stores the gradients on those originals instead.",
            f"Read {reads}, or loop over `{owner}.named_parameters()` to see every gradient.",
        )
    return None


_MAKERS = re.compile(
    r"\b(tensor|zeros|ones|randn|rand|empty|full|arange|linspace|eye|Parameter|"
    r"zeros_like|ones_like|randn_like|rand_like|empty_like|full_like|from_numpy|as_tensor|"
    r"detach|clone|requires_grad_)\("
)


def _computed_after_backward(
    program: str | None, name: str, ctx: ErrorContext, line: int | None
) -> tuple[int, str] | None:
    """``(line, text)`` of the statement computing ``name`` from other tensors, when a
    backward ran before ``line`` and ``name`` is not one of the named leaves: its ``.grad``
    is None because it is not a leaf. ``None`` when the program does not show that."""
    leaves, constants = ctx.leaves, ctx.constants
    if name in leaves or name in constants or not earlier_backwards(program, line):
        return None
    made = made_before(program, name, line)
    if made is None or made.value is None or _MAKERS.search(made.text):
        return None
    computing = isinstance(made.value, ast.BinOp | ast.UnaryOp | ast.Call | ast.Subscript)
    reads = {n.id for n in ast.walk(made.value) if isinstance(n, ast.Name)}
    roots = {leaf.split(".")[0].split("[")[0] for leaf in leaves}
    if not (computing and _reaches(program, reads, roots, made.line)):
        return None
    return made.line, made.text.strip()


def _reaches(program: str | None, names: set[str], roots: set[str], line: int) -> bool:
    """Whether one of ``names`` (read on ``line``) is a leaf in ``roots`` or is computed,
    a few statements back, from one (``a = torch.tanh(h)`` with ``h = x @ W``)."""
    pending = [(name, line) for name in names]
    seen: set[str] = set()
    while pending and len(seen) < 40:
        name, at = pending.pop()
        if name in roots:
            return True
        if name in seen:
            continue
        seen.add(name)
        made = made_before(program, name, at - 1)
        if made is not None and made.value is not None and made.line < at:
            pending.extend(
                (n.id, made.line) for n in ast.walk(made.value) if isinstance(n, ast.Name)
            )
    return False
