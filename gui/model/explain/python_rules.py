"""The rest of the catalogue: errors Python raises on its own, and programs that ran away.

Torch's messages have their rules in :mod:`gui.model.explain.torch_rules`. These come after them in
the lookup (first match wins) because most match on the exception class alone, any
``IndexError`` or ``NameError``, where torch's rules match on the message. The words for a
runaway program (out of time, memory, recursion depth or output) are :data:`RUNAWAY_TEXT`,
shared with :func:`.messages.explain_runaway` for the programs the app stops itself.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable

from gui.model.explain.grad_none import grad_none
from gui.model.explain.rule_types import Advice, Found, Rule, rule_table
from gui.model.explain.source import (
    assignments,
    attribute_receiver,
    line_tree,
    made_before,
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


def _rename_fix(name: str, line: int) -> str:
    """Two names for ``loss = loss(out, y)``: the function one, the result the other."""
    if name in ("criterion", "loss_fn", "loss_func", "objective"):
        return (
            f"Give the result its own name: `loss = {name}(...)` on line {line} (and "
            f"`loss.backward()` after it), so `{name}` stays the function."
        )
    return (
        f"Give the function and its result different names: `criterion = ...` for the "
        f"function where it is made, and `{name} = criterion(...)` on line {line}."
    )


def _not_callable(f: Found) -> Advice:
    kind = f.group("kind")
    called = _called_names(f.context.source_line)
    for name in called:
        made_all = [m for m in assignments(f.context.program, name) if m.value is not None]
        itself = [m for m in made_all if name in _called_names(m.text)]
        # `loss = loss(out, y)` rebinds the function's name to its result; else the last of
        # several assignments (the first one made the function).
        made = itself[0] if itself else (made_all[-1] if len(made_all) > 1 else None)
        if made is not None and made.line == f.line:
            return Advice(
                f"`{made.text}` stores the result under the name of the function, so the next "
                f"time this line runs (the loop's next pass) `{name}(...)` calls the {kind} "
                f"from the time before: `{name}` is no longer the function at {f.where}.",
                _rename_fix(name, made.line),
            )
        if made is not None:
            return Advice(
                f"`{name}` holds a {kind} at {f.where}, not the function it held before: "
                f"line {made.line} (`{made.text}`) assigned a new value to the same name, so "
                f"the next call `{name}(...)` calls that {kind}.",
                f"Give the function and its result different names, e.g. `criterion = ...` "
                f"for the function and `{name}_value = {name}(...)`, or rename the result on "
                f"line {made.line}.",
            )
    return Advice(
        f"A {kind} was called like a function at {f.where}: a name that held a function (a "
        "loss, a layer) probably got a tensor assigned to it.",
        "Check which name on that line is called, and give the function and its result "
        "different names.",
    )


def _called_names(source: str | None) -> list[str]:
    tree = line_tree(source)
    if tree is None:
        return []
    return [
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    ]


def _attribute(f: Found) -> Advice:
    m = re.search(r"'(\w+)' object has no attribute '(\w+)'", f.message)
    kind, attr = m.groups() if m else ("this", "that attribute")
    none = (
        " The value is None: often a function that returns nothing." if kind == "NoneType" else ""
    )
    uncalled = _loss_function_not_called(f, kind, attr)
    if uncalled is not None:
        return uncalled
    return Advice(
        f"A value of type `{kind}` has no attribute `{attr}` at {f.where}.{none}",
        "Check the spelling, and print the value on that line to see what it really is.",
    )


def _loss_function_not_called(f: Found, kind: str, attr: str) -> Advice | None:
    """``loss = criterion`` then ``loss.backward()``: the loss function, never called."""
    if attr not in ("backward", "item") or not kind.endswith("Loss"):
        return None
    name = attribute_receiver(f.context.source_line, (attr,))
    if name is None:
        return None
    made = made_before(f.context.program, name, f.line)
    bound = f" (line {made.line}: `{made.text}`)" if made is not None else ""
    function = made.text.split("=", 1)[1].strip() if made is not None else name
    called = function if function.isidentifier() else name
    return Advice(
        f"`{name}` is the loss function itself, an `{kind}` object{bound}, not a loss value: "
        f"a loss function gives a tensor (which has `.{attr}()`) only when it is called on "
        "predictions and targets.",
        f"Call it: `{name} = {called}(predictions, targets)` with your model's output and "
        "the targets, then `.backward()` on the result.",
    )


def _class_not_instance(f: Found) -> Advice:
    """``model = Net`` (no brackets), then ``model(x)``: ``Net.__init__`` gets ``x``."""
    cls = f.group("cls")
    for name in _called_names(f.context.source_line):
        made = made_before(f.context.program, name, f.line)
        if made is not None and isinstance(made.value, ast.Name) and made.value.id == cls:
            return Advice(
                f"`{name}` is the class `{cls}` itself (line {made.line}: `{made.text}`), "
                f"not a model made from it: calling `{name}(...)` makes a new `{cls}`, so "
                f"your input went to `{cls}.__init__`, which does not take it.",
                f"Make the model once, with brackets: `{name} = {cls}()` on line "
                f"{made.line}; then `{name}(...)` runs its `forward`.",
            )
    return _generic_python("a value had a type it cannot use")(f)


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
    grad_none,
    re.compile(_NONE_ATTR),
    frozenset({"AttributeError"}),
    when=lambda ctx: ctx.source_line is None or ".grad" in ctx.source_line,
)

_GRAD_OPERAND = Rule(  # `w -= lr * w.grad` with `w.grad` None: a TypeError naming NoneType
    "grad-is-none",
    grad_none,
    re.compile(r"unsupported operand type\(s\) for .*'NoneType'"),
    frozenset({"TypeError"}),
    when=lambda ctx: bool(re.search(r"\w\.grad\b", ctx.source_line or "")),
)

# A tensor or function given `x.grad` while it is None (`torch.allclose(dt, t.grad)`,
# `torch.all(dt == t.grad)`): the engine saw that `.grad` None on the failing line, so this
# goes before torch's rules, which would blame the argument's type.
GRAD_NONE_ARGUMENT = Rule(
    "grad-is-none",
    grad_none,
    re.compile(r"NoneType|\bNone\b|got \(bool\)"),
    frozenset({"TypeError"}),
    when=lambda ctx: bool(ctx.none_grads),
)


# After the torch rules (see gui.model.explain.messages); first match wins here too.
def _own_assert(f: Found) -> Advice:
    """The program's own ``assert condition, "message"`` failed (Raschka's ``assert d_out %
    num_heads == 0, "d_out must be divisible by num_heads"``)."""
    tree = line_tree(f.context.source_line)
    check = tree.body[0] if isinstance(tree, ast.Module) and tree.body else None
    text = (f.context.source_line or "").strip()
    condition = (
        " ".join((ast.get_source_segment(text, check.test) or ast.unparse(check.test)).split())
        if isinstance(check, ast.Assert)
        else "its condition"
    )
    program = (f.context.program or "").splitlines()
    caller = ""
    if f.context.call_lines and 0 < f.context.call_lines[-1] <= len(program):
        at = f.context.call_lines[-1]
        caller = f", reached from line {at} (`{program[at - 1].strip()}`)"
    said = f'; its message says: "{f.message}"' if f.message else ""
    return Advice(
        f"This is the program's own check, not torch's: the `assert` on {f.where}{caller} "
        f"stops the run when `{condition}` is False, and it was False for the values it "
        f"got{said}.",
        f"Print the values in `{condition}` just before {f.where} and change what they came "
        "from (the arguments of the call that reached it), so the condition holds.",
    )


_OWN_ASSERT = Rule(
    "own-assert",
    _own_assert,
    exceptions=frozenset({"AssertionError"}),
    when=lambda context: (context.source_line or "").lstrip().startswith("assert "),
)


PYTHON_RULES: tuple[Rule, ...] = (
    *rule_table(
        ("runaway-code", r"can't allocate memory", "", _runaway("memory")),
        ("runaway-code", None, "MemoryError", _runaway("memory")),
        ("runaway-code", None, "RecursionError", _runaway("recursion")),
        ("syntax-error", None, "SyntaxError IndentationError TabError", _syntax),
        ("name-error", r"name '(?P<name>\w+)' is not defined", "NameError", _name_error),
    ),
    _GRAD_LINE,
    _GRAD_OPERAND,
    _OWN_ASSERT,
    *rule_table(
        ("attribute-error", None, "AttributeError", _attribute),
        ("index-error", None, "IndexError", _index),
        ("zero-division", None, "ZeroDivisionError", _zero_division),
        (
            "not-callable",
            r"'(?P<kind>Tensor|Parameter|float|int)' object is not callable",
            "TypeError",
            _not_callable,
        ),
        (
            "class-not-instance",
            r"\b(?P<cls>\w+)\.__init__\(\) takes \d+ positional arguments? "
            r"but \d+ (were|was) given",
            "TypeError",
            _class_not_instance,
        ),
        ("type-error", None, "TypeError", _generic_python("a value had a type it cannot use")),
        ("value-error", None, "ValueError", _generic_python("a value had an unusable content")),
    ),
)
