"""Errors of a training step's helpers, and of a leaf changed after the graph was built:
``clip_grad_norm_(..., error_if_nonfinite=True)`` refusing an infinite or NaN norm, an
optimizer that needs a closure (``LBFGS.step()``) stepped without one or given a closure
that returns nothing, a ``OneCycleLR`` stepped past the steps it was made for, a model
handed to ``clip_grad_norm_`` instead of its parameters, a scheduler stepped before its
optimizer (a warning), and "leaf variable has been moved into the graph interior".

The rows extend :data:`gui.model.explain.torch_rules.TORCH_RULES` (see
:data:`gui.model.explain.messages.EXCEPTION_RULES`). Program text only: no torch, no Qt.
"""

from __future__ import annotations

import ast
import re

from gui.model.explain.inplace_sites import InplaceSite, inplace_sites
from gui.model.explain.rule_types import Advice, ErrorContext, Found, Rule, rule_table
from gui.model.explain.source import (
    assignments,
    attribute_receiver,
    line_tree,
    made_before,
    program_tree,
    segment,
)

_CLIPPERS = ("clip_grad_norm_", "clip_grad_norm", "clip_grads_with_norm_", "get_total_norm")


def _parameters_text(source: str | None) -> str:
    """The first argument of the line's ``clip_grad_norm_(...)`` call, as written."""
    tree = line_tree(source)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in _CLIPPERS:
                return segment((source or "").strip(), node.args[0])
    return "model.parameters()"


def _nonfinite_norm(f: Found) -> Advice:
    order = f.group("order") or "2.0"
    params = _parameters_text(f.context.source_line)
    return Advice(
        f"With `error_if_nonfinite=True`, clipping first adds up the gradients of "
        f"`{params}` into one norm (of order {order}), and it came out infinite or NaN: at "
        "least one gradient is. Scaling by that norm would make every gradient 0 or NaN, so "
        "torch stops here instead. The cause is in the forward pass: a `log` of 0, a "
        "division by 0, `sqrt` at 0, or values that overflow.",
        "Find the step that made it: run the forward and backward pass under "
        "`torch.autograd.set_detect_anomaly(True)` (it names the operation whose gradient "
        "went NaN), print the loss, and keep inputs away from the bad point "
        "(`torch.log(x.clamp(min=1e-8))`); `error_if_nonfinite=False` only hides it.",
    )


def _requires_grad_text(program: str | None, name: str) -> str | None:
    """``w = torch.ones(3, requires_grad=True)``: the statement that made ``name`` a leaf
    that requires grad, as written."""
    for made in assignments(program, name):
        if "requires_grad" in made.text or "Parameter(" in made.text:
            return made.text
    return None


def _switched_off(program: str | None, name: str, before: int) -> str | None:
    """``w.requires_grad_(False)`` or ``w.requires_grad = False`` before line ``before``."""
    tree = program_tree(program)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.stmt) or node.lineno >= before:
            continue
        text = segment(program, node).replace(" ", "")
        if text in (f"{name}.requires_grad_(False)", f"{name}.requires_grad=False"):
            return segment(program, node)
    return None


def moved_leaf_site(program: str | None, line: int | None) -> InplaceSite | None:
    """The in-place change, before ``line``, of a tensor the program made as a leaf that
    requires grad (the last one: the change that moved it into the graph)."""
    found = None
    for site in inplace_sites(program):
        if line is not None and site.line >= line:
            break
        if site.how in ("operator", "method", "index") and _requires_grad_text(program, site.name):
            found = site
    return found


def _leaf_moved(f: Found) -> Advice:
    program = f.context.program
    site = moved_leaf_site(program, f.line)
    if site is None:
        return Advice(
            "A tensor that was a leaf when the graph was built was later changed in place by "
            "an operation autograd recorded, so it is no longer a leaf and its gradient has "
            "nowhere to be stored.",
            "Finish preparing values before turning on gradients (`x.requires_grad_()` "
            "last), or make the change out of place (`x2 = x * w`) or inside "
            "`with torch.no_grad():`.",
        )
    n = site.name
    off = _switched_off(program, n, site.line)
    how = f"after `{off}`, " if off else ""
    return Advice(
        f"`{n}` was a leaf when the graph was built: backward stores its gradient in "
        f"`{n}.grad`. Then, {how}line {site.line} (`{site.text}`) changed `{n}` in place "
        f"with a tensor that requires grad; autograd recorded that change, so `{n}` now has "
        "a `grad_fn` of its own, is no longer a leaf, and the gradient has nowhere to go.",
        f"Change `{n}` after `backward()`, inside `with torch.no_grad():` (`{site.text}` "
        f"under it), or out of place under a new name (`{n}_new = {n} + ...`)"
        + (f", and leave out `{off}`." if off else "."),
    )


def _closure_missing(f: Found) -> Advice:
    """``LBFGS.step() missing 1 required positional argument: 'closure'``."""
    kind = f.group("optimizer")
    opt = attribute_receiver(f.context.source_line, ("step",)) or "optimizer"
    return Advice(
        f"`{opt}` is an optimizer of class `{kind}`: one step evaluates the loss and its gradients "
        "several times (it tries step sizes along a direction and recomputes the loss at "
        "each), so `step` must be given a function it can call to recompute them, a "
        "closure; the loss computed once before the call is not enough.",
        "Put the forward pass, loss and backward in a function that returns the loss, and "
        f"pass it: `def closure(): {opt}.zero_grad(); loss = ...; loss.backward(); return "
        f"loss`, then `loss = {opt}.step(closure)` (it returns the first loss it computed).",
    )


def _scheduler_total_steps(f: Found) -> Advice:
    """``OneCycleLR`` stepped more times than ``total_steps`` (or ``epochs * steps_per_epoch``)."""
    sched = attribute_receiver(f.context.source_line, ("step",)) or "scheduler"
    tried, total = f.group("tried"), f.group("total")
    made = made_before(f.context.program, sched, f.line) if sched.isidentifier() else None
    where = f", made on line {made.line} (`{made.text}`)," if made is not None else ""
    return Advice(
        f"`{sched}`{where} plans the whole schedule in advance: {total} steps in all (its "
        "`total_steps`, or `epochs * steps_per_epoch`), the learning rate rising then "
        f"falling over exactly that many `{sched}.step()` calls, with no value after the "
        f"last. This is call {tried}: the loop steps it more often than it was made for "
        "(one more epoch, or a step per batch for a schedule counted in epochs).",
        f"Make `{sched}` for the steps the loop really takes: `total_steps=` the number of "
        f"`{sched}.step()` calls, or `epochs=` and `steps_per_epoch=` (the batches per "
        "epoch, when it is stepped after every batch) with the same numbers as the loops.",
    )


def _clipper_call(context: ErrorContext) -> ast.Call | None:
    """The line's ``clip_grad_norm_(...)`` / ``clip_grad_value_(...)`` call."""
    tree = line_tree(context.source_line)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in (*_CLIPPERS, "clip_grad_value_"):
                return node
    return None


def _clip_given_module(f: Found) -> Advice:
    """``clip_grad_norm_(model, 1.0)``: the model where its parameters belong."""
    call = _clipper_call(f.context)
    line = (f.context.source_line or "").strip()
    given = segment(line, call.args[0]) if call is not None else "model"
    name = getattr(call.func, "attr", getattr(call.func, "id", "")) if call else "clip_grad_norm_"
    return Advice(
        f"`{name}` works on tensors: it reads the `.grad` of each tensor it is given. "
        f"`{given}` is a model, not its tensors: torch went through it as if it were a list "
        f"of tensors and found a layer (`{f.group('cls')}`) where a tensor should be.",
        f"Give it the parameters: `{name}({given}.parameters(), ...)`, as the optimizer is "
        f"given them.",
    )


def _step_closure_text(source: str | None) -> str | None:
    """``closure`` in the line's ``optimizer.step(closure)``."""
    tree = line_tree(source)
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "step"
            and len(node.args) == 1
        ):
            return segment((source or "").strip(), node.args[0])
    return None


def _closure_loss(program: str | None, name: str) -> tuple[int, str] | None:
    """The closure's own ``def`` line and the name it calls ``.backward()`` on."""
    tree = program_tree(program)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == name:
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr == "backward"
                    and isinstance(inner.func.value, ast.Name)
                ):
                    return node.lineno, inner.func.value.id
            return node.lineno, "loss"
    return None


def _closure_returns_none(f: Found) -> Advice:
    """``float() argument must be ... not 'NoneType'`` at ``optimizer.step(closure)``."""
    closure = _step_closure_text(f.context.source_line) or "closure"
    found = _closure_loss(f.context.program, closure) if closure.isidentifier() else None
    loss = found[1] if found else "loss"
    where = f" (its `def` is on line {found[0]})" if found else ""
    return Advice(
        f"`{closure}`{where} is called by the optimizer's `step` to recompute the loss, and "
        f"`step` then reads the number it returns (`float(...)` of it, to compare losses "
        f"between tries). `{closure}` computes the loss and its gradients but returns "
        "nothing, so Python hands `step` `None`.",
        f"End `{closure}` with `return {loss}`.",
    )


def _step_calls_closure(context: ErrorContext) -> bool:
    return _step_closure_text(context.source_line) is not None


def _scheduler_first(f: Found) -> Advice:
    """``Detected call of `lr_scheduler.step()` before `optimizer.step()```."""
    sched = attribute_receiver(f.context.source_line, ("step",)) or "scheduler"
    return Advice(
        f"`{sched}.step()` ran before the optimizer had taken any step, so the schedule "
        "moved on before the first learning rate was ever used: the first value of the "
        "schedule is skipped, and every later one comes a step early.",
        f"Call `{sched}.step()` after `optimizer.step()`: at the end of each epoch (or of "
        "each batch, for a schedule counted in batches).",
    )


TRAINING_WARNING_RULES: tuple[Rule, ...] = rule_table(
    (
        "scheduler-before-optimizer",
        r"^Detected call of `lr_scheduler\.step\(\)` before `optimizer\.step\(\)`",
        "",
        _scheduler_first,
    ),
)


TRAINING_RULES: tuple[Rule, ...] = (
    *rule_table(
        (
            "nonfinite-grad-norm",
            r"The total norm of order (?P<order>[-\w.]+) for gradients from `parameters` is "
            r"non-finite",
            "",
            _nonfinite_norm,
        ),
        ("leaf-moved", r"leaf variable has been moved into the graph interior", "", _leaf_moved),
        (
            "optimizer-closure",
            r"^(?P<optimizer>\w{1,40})\.step\(\) missing 1 required positional argument: 'closure'",
            "TypeError",
            _closure_missing,
        ),
        (
            "scheduler-total-steps",
            r"^Tried to step (?P<tried>\d+) times\. The specified number of total steps is "
            r"(?P<total>\d+)",
            "ValueError",
            _scheduler_total_steps,
        ),
    ),
    Rule(
        "clip-given-module",
        _clip_given_module,
        re.compile(
            r"^'(?!(?:int|float|bool|str|complex|NoneType)')(?P<cls>\w{1,60})' object "
            r"(?:has no attribute 'grad'|is not iterable)$"
        ),
        frozenset({"AttributeError", "TypeError"}),
        lambda context: _clipper_call(context) is not None,
    ),
    Rule(
        "closure-returns-none",
        _closure_returns_none,
        re.compile(r"^float\(\) argument must be a string or a (?:real )?number, not 'NoneType'$"),
        frozenset({"TypeError"}),
        _step_calls_closure,
    ),
)
