"""The rest of the catalogue: errors Python raises on its own, and programs that ran away.

Torch's messages have their rules in :mod:`gui.model.explain.torch_rules`. These come after them in
the lookup (first match wins) because most match on the exception class alone, any
``IndexError`` or ``NameError``, where torch's rules match on the message. The words for a
runaway program (out of time, memory, recursion depth or output) are :data:`RUNAWAY_TEXT`,
shared with :func:`.messages.explain_runaway` for the programs the app stops itself.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from gui.model.explain.source import attribute_receiver
from gui.model.explain.torch_rules import Advice, Found, Rule, rule_table

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
        "The program called print more than 100,000 times, which is usually a loop that "
        "never ends; the first and the last lines it printed are kept.",
        "Print less: a summary like `t.shape` or `t.sum()`, or only every n-th loop iteration.",
    ),
}


def _runaway(reason: str) -> Callable[[Found], Advice]:
    def build(f: Found) -> Advice:
        _message, explanation, fix = RUNAWAY_TEXT[reason]
        return Advice(explanation, fix)

    return build


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


_NONE_ATTR = r"'NoneType' object has no attribute '(?P<attr>\w+)'"


_GRAD_LINE = Rule(  # `None.zero_()` is only "grad is None" when the line reads a .grad
    "grad-is-none",
    _grad_none,
    re.compile(_NONE_ATTR),
    frozenset({"AttributeError"}),
    when=lambda ctx: ctx.source_line is None or ".grad" in ctx.source_line,
)

# After the torch rules (see gui.model.explain.messages); first match wins here too.
PYTHON_RULES: tuple[Rule, ...] = (
    *rule_table(
        ("runaway-code", r"can't allocate memory", "", _runaway("memory")),
        ("runaway-code", None, "MemoryError", _runaway("memory")),
        ("runaway-code", None, "RecursionError", _runaway("recursion")),
        ("syntax-error", None, "SyntaxError IndentationError TabError", _syntax),
        ("name-error", r"name '(?P<name>\w+)' is not defined", "NameError", _name_error),
    ),
    _GRAD_LINE,
    *rule_table(
        ("attribute-error", None, "AttributeError", _attribute),
        ("index-error", None, "IndexError", _index),
        ("zero-division", None, "ZeroDivisionError", _zero_division),
        ("type-error", None, "TypeError", _generic_python("a value had a type it cannot use")),
        ("value-error", None, "ValueError", _generic_python("a value had an unusable content")),
    ),
)
