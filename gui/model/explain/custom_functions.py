"""A custom ``torch.autograd.Function`` whose ``backward`` returns the wrong gradients, in the
program's own names: the inputs of its ``forward`` (after ``ctx``, or all of them when the
class has a ``setup_context``), and what its ``backward`` returns. "Extending PyTorch"'s
``MulConstant`` without a ``None`` for its constant, a ``LinearFunction`` whose weight's
gradient is the transpose of the weight. Program text only: no torch, no Qt.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import line_tree, made_before, program_tree, segment


@dataclass(frozen=True)
class _Written:
    """What the program wrote for the Function: forward's inputs and backward's returns."""

    inputs: tuple[str, ...]
    returns: tuple[str, ...] | None  # None: not one plain `return` statement
    backward_line: int | None


def _function_class(program: str | None, name: str) -> _Written | None:
    tree = program_tree(program)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.ClassDef) or node.name != name:
            continue
        methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        forward, backward = methods.get("forward"), methods.get("backward")
        if forward is None:
            return None
        names = [a.arg for a in forward.args.args]
        if "setup_context" not in methods:
            names = names[1:]  # `ctx`
        returns = None
        line = None
        if backward is not None:
            line = backward.lineno
            found = [n for n in ast.walk(backward) if isinstance(n, ast.Return) and n.value]
            if len(found) == 1 and found[0].value is not None:
                value = found[0].value
                items = value.elts if isinstance(value, ast.Tuple) else [value]
                returns = tuple(segment(program, item) for item in items)
                line = found[0].lineno
        return _Written(tuple(names), returns, line)
    return None


def _named(written: _Written | None, index: int) -> str:
    if written is None or index >= len(written.inputs):
        return ""
    return f" (`{written.inputs[index]}`)"


def custom_grad_count(f: Found) -> Advice:
    """``function FooBackward returned an incorrect number of gradients (expected 2, got 1)``."""
    fn = re.sub(r"Backward$", "", f.group("fn"))
    want, got = int(f.group("want")), int(f.group("got"))
    written = _function_class(f.context.program, fn)
    inputs = ""
    if written is not None and len(written.inputs) == want:
        inputs = " (" + ", ".join(f"`{n}`" for n in written.inputs) + ")"
    fix = (
        f"Return {want} values from `backward`, in the order of forward's inputs; return "
        "`None` for an input that needs no gradient (a number, a flag)"
    )
    if written is not None and written.returns is not None and len(written.returns) == got:
        given = [*written.returns, *["None"] * (want - got)] if got < want else None
        if given is not None:
            fix += f": `return {', '.join(given)}` on line {written.backward_line}"
    return Advice(
        f"`{fn}.backward` must return one gradient for each input of `{fn}.forward` (after "
        f"`ctx`): forward takes {want}{inputs}, backward returned {got}.",
        fix + ".",
    )


_PRODUCT = re.compile(r"^(\w{1,40})\.t\(\)\.mm\((\w{1,40})\)$")


def custom_grad_shape(f: Found) -> Advice:
    """``Function FooBackward returned an invalid gradient at index 1 - got [3, 2] but
    expected shape compatible with [2, 3]``."""
    fn = re.sub(r"Backward$", "", f.group("fn"))
    index, got, want = int(f.group("index")), f.group("got"), f.group("want")
    written = _function_class(f.context.program, fn)
    named = _named(written, index)
    returned = ""
    expression = None
    if written is not None and written.returns is not None and index < len(written.returns):
        expression = written.returns[index]
        made = (
            made_before(f.context.program, expression, written.backward_line)
            if expression.isidentifier()
            else None
        )
        if made is not None and made.value is not None:
            returned = f" It is `{expression}`, made on line {made.line} (`{made.text}`)."
            expression = segment(f.context.program, made.value)
    explanation = (
        f"`{fn}.backward` returned a gradient of shape [{got}] for input {index}{named} of "
        f"`{fn}.forward`, which has shape [{want}]: each gradient must have its input's "
        f"shape (one number per input number).{returned}"
    )
    flipped = [s.strip() for s in got.split(",")][::-1] == [s.strip() for s in want.split(",")]
    if flipped and "," in got:
        product = _PRODUCT.match(expression or "")
        how = (
            f"`{product.group(2)}.t().mm({product.group(1)})` instead of `{expression}`"
            if product is not None
            else f"`({expression}).t()`"
            if expression is not None
            else "its `.t()`"
        )
        fix = (
            f"It is the transpose of the gradient for input {index}{named}: take the product "
            f"the other way round, {how}, which has shape [{want}]."
        )
    else:
        fix = (
            f"Give the gradient for input {index}{named} the shape [{want}], e.g. by "
            "broadcasting the incoming gradient back over the dimension forward reduced "
            "(`grad_output.unsqueeze(1).expand(...)`)."
        )
    return Advice(explanation, fix)


def _gradcheck_inputs(f: Found) -> tuple[str, str, list[str]]:
    """``(checker, function, input names)`` of the line's ``gradcheck(fn, inputs)``."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        if name in ("gradcheck", "gradgradcheck"):
            names = [n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)]
            return name, segment(text, node.args[0]), names
    return "gradcheck", "the function", []


def _double_made(f: Found, name: str) -> bool:
    made = made_before(f.context.program, name, f.line)
    return made is not None and ("double" in made.text or "float64" in made.text)


def gradcheck_precision(f: Found) -> Advice:
    """``Jacobian mismatch for output 0 with respect to input 0`` (``GradcheckError``), and
    the warning that an input of ``gradcheck`` is not float64."""
    checker, fn, names = _gradcheck_inputs(f)
    single = [n for n in names if not _double_made(f, n)]
    how = (
        f"`{checker}` compares the gradients `{fn}`'s backward computes with estimates from "
        "finite differences, `(f(x + eps) - f(x - eps)) / (2 * eps)` for each number of each "
        "input, and stops when they differ by more than its tolerances."
    )
    if names and not single:
        return Advice(
            f"{how} The inputs are float64, precise enough for that, so the backward's "
            "formula itself is off: the message shows the two Jacobians, the estimated one "
            "(numerical) above the backward's (analytical).",
            f"Compare the two matrices in the message to find the wrong entries, and check "
            f"the backward of `{fn}` against the derivative of its forward, by hand on a "
            "small input.",
        )
    which = ", ".join(f"`{n}`" for n in single) or "the inputs"
    example = single[0] if single else "x"
    return Advice(
        f"{how} In float32 (torch's default, about 7 significant digits) the difference "
        "of two nearby values loses most of its digits, so the estimates are too rough to "
        f"agree with a correct backward: {which} should be float64, as the docs ask.",
        f"Make the inputs double precision: create {which} with `dtype=torch.double` "
        f"(`{example} = torch.randn(..., dtype=torch.double, requires_grad=True)`) or pass "
        f"`{example}.double()`; a correct backward then passes.",
    )
