"""A program's own helper functions seen from the error inside them: which of the learner's
tensors a parameter stands for (``t`` in ``def cmp(s, dt, t)`` is ``logprobs`` in the call
``cmp('logprobs', dlogprobs, logprobs)``), and ``retain_grad()`` asked for only after the
backward it was meant for. No torch, no Qt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gui.model.explain.backward_history import BackwardSite, backward_sites
from gui.model.explain.source import program_tree, segment


@dataclass(frozen=True)
class PassedAs:
    """``parameter`` of ``function`` (failing inside it) is ``argument`` at the call on
    ``line`` (``text``, the whole call as written)."""

    parameter: str
    function: str
    argument: str
    line: int
    text: str


def _enclosing_function(tree: ast.Module, line: int) -> ast.FunctionDef | None:
    """The innermost ``def`` whose body holds ``line``."""
    found = None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef)
            and node.body
            and node.body[0].lineno <= line <= (node.end_lineno or node.lineno)
            and (found is None or node.lineno > found.lineno)
        ):
            found = node
    return found


def _argument(call: ast.Call, position: int, parameter: str) -> ast.expr | None:
    """The expression ``call`` passes for the parameter at ``position`` (or by keyword)."""
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    before = call.args[: position + 1]
    if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in before):
        return call.args[position]
    return None


def passed_as(
    program: str | None, name: str, line: int | None, call_lines: tuple[int, ...]
) -> PassedAs | None:
    """What the caller passed for ``name`` when ``name`` is a parameter of the program's
    function that failed on ``line``; ``call_lines`` are the program's lines of the calls
    that led there, the innermost caller last. ``None`` when ``name`` is not a parameter,
    or the call does not show the argument (``*args``, a call on another line)."""
    tree = program_tree(program)
    if tree is None or line is None or not call_lines or not name.isidentifier():
        return None
    function = _enclosing_function(tree, line)
    if function is None:
        return None
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    keyword_only = [a.arg for a in function.args.kwonlyargs]
    if name not in params and name not in keyword_only:
        return None
    position = params.index(name) if name in params else len(params) + 99
    caller = call_lines[-1]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno != caller:
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if called != function.name:
            continue
        shift = 1 if isinstance(func, ast.Attribute) and params[:1] == ["self"] else 0
        argument = _argument(node, position - shift, name)
        if argument is None:
            return None
        return PassedAs(
            name, function.name, segment(program, argument), caller, segment(program, node)
        )
    return None


@dataclass(frozen=True)
class LateRetain:
    """``retain_grad()`` for a tensor on ``line`` (``text``: the call, or the header of
    the loop whose list names the tensor), after ``backward`` ran."""

    line: int
    text: str
    backward: BackwardSite


def _retained_at(node: ast.AST, name: str, loops: dict[str, ast.For]) -> ast.Call | ast.For | None:
    """``node`` itself when it is ``name.retain_grad()``; the loop when it is
    ``t.retain_grad()`` in ``for t in [..., name, ...]:``; else ``None``."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "retain_grad"
        and isinstance(node.func.value, ast.Name)
    ):
        return None
    receiver = node.func.value.id
    if receiver == name:
        return node
    loop = loops.get(receiver)
    if loop is None or not isinstance(loop.iter, ast.List | ast.Tuple):
        return None
    if any(isinstance(e, ast.Name) and e.id == name for e in loop.iter.elts):
        return loop
    return None


def retained_late(program: str | None, name: str, line: int | None) -> LateRetain | None:
    """The ``retain_grad()`` of ``name`` that runs after the last backward before ``line``
    (and before ``line``): it came too late for that backward."""
    tree = program_tree(program)
    if tree is None or line is None:
        return None
    sites = [s for s in backward_sites(program) if s.line < line]
    if not sites:
        return None
    last = sites[-1]
    loops = {
        node.target.id: node
        for node in ast.walk(tree)
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name)
    }
    late: list[ast.Call | ast.For] = []
    for node in ast.walk(tree):
        place = _retained_at(node, name, loops)
        if place is not None and isinstance(node, ast.Call) and last.line < node.lineno < line:
            late.append(place)
    if not late:
        return None
    first = min(late, key=lambda n: n.lineno)
    if isinstance(first, ast.For):
        header = segment(program, first.iter)
        return LateRetain(first.lineno, f"for {segment(program, first.target)} in {header}:", last)
    return LateRetain(first.lineno, segment(program, first), last)
