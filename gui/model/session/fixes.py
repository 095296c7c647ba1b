"""One-click fixes for the classic errors of backward calls: the session's own and the code's.

Two errors have fixes, and each is offered whenever torch's error is shown:

- ``grad can be implicitly created only for scalar outputs``: reduce with ``.sum()`` or
  ``.mean()``, or pass ``torch.ones_like(out)``. For a session call (the Backward tab's) the
  session changes: a ``loss = out.sum()`` line and that as the output, or the gradient
  argument. For the code's own ``y.backward()`` the fix rewrites that very call in the code
  (``y.sum().backward()``, ``y.backward(torch.ones_like(y))``), in the learner's own words.
- ``Trying to backward through the graph a second time``: keep the graph. The session's calls
  go back to automatic ``retain_graph`` (kept whenever another call follows); a ``backward``
  in the code that freed the graph gets ``retain_graph=True``.

The code's calls are found with :mod:`ast` at the line the engine recorded, never by text
search, and a rewrite is offered only when the rewritten program still parses.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, replace
from typing import Literal

from gui.model import nested
from gui.model.request import Program
from gui.model.result import Explanation, RunResult, StepRecord
from gui.model.session import steps
from gui.model.session.state import SessionState

FixKind = Literal["sum", "mean", "ones_like", "retain_graph"]
# The fixes offered for each kind of error a backward call ran into.
FIXES: dict[str, tuple[FixKind, ...]] = {
    "non-scalar-backward": ("sum", "mean", "ones_like"),
    "backward-twice": ("retain_graph",),
}
# ``torch.autograd.backward(y)`` is a call named backward too, but not a tensor's method.
_NOT_A_TENSOR = re.compile(r"(^|\.)autograd$")


@dataclass(frozen=True)
class CodeFix:
    """A fix that rewrites one ``backward`` call of the code: its line, the call as written
    and as it becomes (``y.backward()`` -> ``y.sum().backward()``), and the new code."""

    line: int
    before: str
    after: str
    code: str


def failed_call(error: Explanation | None, result: RunResult | None) -> StepRecord | None:
    """The backward call that raised ``error`` (the newest run's), if a call did."""
    if error is None or result is None or not result.steps:
        return None
    failed = result.steps[-1]
    if failed.error is None or failed.error.kind != error.kind:
        return None
    return failed


def fixes_for(
    error: Explanation | None, result: RunResult | None, program: Program
) -> tuple[FixKind, ...]:
    """The fixes that answer ``error`` when a backward call raised it (from the Backward tab
    or from the code); only those that can be applied to ``program`` as it is now."""
    failed = failed_call(error, result)
    if error is None or result is None or failed is None:
        return ()
    return tuple(
        kind for kind in FIXES.get(error.kind, ()) if _applies(kind, failed, result, program)
    )


def _applies(kind: FixKind, failed: StepRecord, result: RunResult, program: Program) -> bool:
    target = _code_target(kind, failed, result)
    if target is not None:
        return code_fix(program.code, target, kind) is not None
    if kind == "retain_graph":
        return any(st.retain_graph is False for st in program.steps or ())
    if failed.source == "code":
        return False
    if kind == "ones_like":
        return result.output_value is not None
    return result.output is not None


def _code_target(kind: FixKind, failed: StepRecord, result: RunResult) -> StepRecord | None:
    """The code's own call that ``kind`` rewrites, if it rewrites one: the failed call, or
    for ``"retain_graph"`` the code's call that freed the graph."""
    if kind == "retain_graph":
        freer = freeing_call(result, failed)
        return freer if freer is not None and freer.source == "code" else None
    return failed if failed.source == "code" else None


def planned_code_fix(
    error: Explanation | None, result: RunResult | None, program: Program, kind: FixKind
) -> CodeFix | None:
    """How ``kind`` would rewrite the code (to show it on the button), if it rewrites it."""
    failed = failed_call(error, result)
    if failed is None or result is None:
        return None
    target = _code_target(kind, failed, result)
    return None if target is None else code_fix(program.code, target, kind)


def freeing_call(result: RunResult, failed: StepRecord) -> StepRecord | None:
    """The call that freed the graph ``failed`` needed: the last one before it that kept
    nothing (neither ``retain_graph`` nor ``create_graph``)."""
    before = [s for s in result.steps if s.index < failed.index and s.error is None]
    for step in reversed(before):
        if not step.retain_graph and not step.create_graph:
            return step
    return None


def with_fix(state: SessionState, kind: FixKind, result: RunResult | None) -> SessionState:
    """The state after one click on ``kind`` (unchanged when it no longer applies).

    For the code's own call, the call is rewritten (see :func:`code_fix`). For the session's:
    ``"sum"``/``"mean"`` add ``loss = out.sum()`` to the program and differentiate that;
    ``"ones_like"`` passes ``torch.ones_like(out)`` as the gradient instead;
    ``"retain_graph"`` makes every call's ``retain_graph`` automatic again, and gives the
    code's call that freed the graph ``retain_graph=True``.
    """
    program = state.program
    failed = None if result is None or not result.steps else result.steps[-1]
    if failed is None or failed.error is None or result is None:
        return state
    target = _code_target(kind, failed, result)
    fix = None if target is None else code_fix(program.code, target, kind)
    if fix is not None:
        state = state.with_program(code=fix.code)
    if kind == "retain_graph":
        calls = state.program.steps
        if calls is not None:
            automatic = tuple(
                replace(st, retain_graph=None) if st.retain_graph is False else st for st in calls
            )
            state = state.with_program(steps=automatic)
        return state
    if failed.source == "code":
        return state
    if kind == "ones_like":
        if result.output_value is None:
            raise ValueError("the output's shape is not known yet")
        return steps.edit_last(state, gradient=nested.full(result.output_value.shape, 1.0))
    out = result.output
    if out is None:
        raise ValueError("the output has no name to reduce")
    taken = set(result.tensors) | assigned_names(program.code)
    name, counter = "loss", 2
    while name in taken:
        name, counter = f"loss{counter}", counter + 1
    code = program.code if program.code.endswith("\n") or not program.code else program.code + "\n"
    implicit = (
        None if program.steps is None else tuple(replace(st, gradient=None) for st in program.steps)
    )
    return state.with_program(code=f"{code}{name} = {out}.{kind}()\n", output=name, steps=implicit)


def code_fix(code: str, call: StepRecord, kind: FixKind) -> CodeFix | None:
    """``kind`` applied to the code's ``backward`` call that ``call`` recorded, or ``None``
    when that call cannot be found in ``code`` (edited since) or rewritten safely.

    ``"sum"``/``"mean"``: ``y.backward()`` -> ``y.sum().backward()``; ``"ones_like"``:
    ``y.backward(torch.ones_like(y))``; ``"retain_graph"``: ``retain_graph=True`` added (or
    an explicit ``retain_graph=False`` turned into it).
    """
    if call.source != "code" or call.line is None:
        return None
    return _code_fix(code, call.line, call.tensor, kind)


@functools.lru_cache(maxsize=64)
def _code_fix(code: str, line: int, tensor: str | None, kind: FixKind) -> CodeFix | None:
    # Cached: every panel asks about the same error on every render while it is shown.
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    node = _backward_call_at(tree, line, tensor)
    if node is None:
        return None
    offsets = _Offsets(code)
    new = _rewritten(code, node, kind, offsets)
    if new is None:
        return None
    try:
        new_tree = ast.parse(new)
    except SyntaxError:
        return None
    before = ast.get_source_segment(code, node)
    # Every rewrite inserts text after the call's start: the new call starts where it did.
    rewritten = next(
        (
            n
            for n in ast.walk(new_tree)
            if isinstance(n, ast.Call)
            and _receiver(n) is not None
            and (n.lineno, n.col_offset) == (node.lineno, node.col_offset)
        ),
        None,
    )
    after = None if rewritten is None else ast.get_source_segment(new, rewritten)
    if before is None or after is None:
        return None
    return CodeFix(line=node.lineno, before=before, after=after, code=new)


def _receiver(node: ast.Call) -> ast.expr | None:
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "backward":
        return None
    if _NOT_A_TENSOR.search(ast.unparse(func.value)):
        return None
    return func.value


def _backward_call_at(tree: ast.AST, line: int, tensor: str | None) -> ast.Call | None:
    """The one ``<tensor>.backward(...)`` call spanning ``line`` (the one on ``tensor`` when
    the line has several), or ``None`` when there is not exactly one: a fix is offered only
    where it is certain which call it rewrites."""
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and _receiver(node) is not None
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    if len(found) > 1 and tensor is not None:
        found = [n for n in found if ast.unparse(_receiver(n) or n) == tensor]
    return found[0] if len(found) == 1 else None


class _Offsets:
    """Positions in the code text from :mod:`ast`'s (line, UTF-8 byte column) pairs."""

    def __init__(self, code: str) -> None:
        # ast counts lines at "\n" (a "\r\n" ends with one): not str.splitlines, which also
        # breaks at form feeds and other characters Python's tokenizer does not count.
        self.lines = re.findall(r"[^\n]*\n|[^\n]+$", code)
        self.starts = [0]
        for text in self.lines:
            self.starts.append(self.starts[-1] + len(text))

    def at(self, line: int, column: int) -> int:
        text = self.lines[line - 1]
        return self.starts[line - 1] + len(text.encode("utf-8")[:column].decode("utf-8"))


def _rewritten(code: str, node: ast.Call, kind: FixKind, offsets: _Offsets) -> str | None:
    func = node.func
    receiver = _receiver(node)
    if receiver is None or not isinstance(func, ast.Attribute):
        return None
    value_end = offsets.at(receiver.end_lineno or receiver.lineno, receiver.end_col_offset or 0)
    func_end = offsets.at(func.end_lineno or func.lineno, func.end_col_offset or 0)
    call_end = offsets.at(node.end_lineno or node.lineno, node.end_col_offset or 0)
    if kind in ("sum", "mean"):
        dot = code.rfind(".", value_end, func_end - len("backward"))
        if dot < 0:
            return None
        return f"{code[:dot]}.{kind}(){code[dot:]}"
    if kind == "ones_like":
        if node.args or any(kw.arg in ("gradient", None) for kw in node.keywords):
            return None  # it has a gradient already: not the error this fixes
        opening = code.find("(", func_end, call_end)
        written = ast.get_source_segment(code, receiver)
        if opening < 0 or written is None:
            return None
        gradient = f"torch.ones_like({written})" + (", " if node.keywords else "")
        return f"{code[: opening + 1]}{gradient}{code[opening + 1 :]}"
    # retain_graph
    for keyword in node.keywords:
        if keyword.arg == "retain_graph":
            value = keyword.value
            start = offsets.at(value.lineno, value.col_offset)
            stop = offsets.at(value.end_lineno or value.lineno, value.end_col_offset or 0)
            return f"{code[:start]}True{code[stop:]}"
    closing = call_end - 1
    if code[closing] != ")":
        return None
    # Spaces before ")" go, line breaks stay (a comment may end the line before them).
    before = code[:closing].rstrip(" \t")
    last = before.rstrip()[-1:]
    if last == "(" or (last == "," and before.endswith("\n")):
        separator = ""
    else:
        separator = " " if last == "," else ", "
    return f"{before}{separator}retain_graph=True{code[closing:]}"


def assigned_names(code: str) -> set[str]:
    """Every name ``code`` binds anywhere (so a new name can be chosen that clashes with
    none); empty when the code does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del)
    }
