"""Why a graph was already freed: the learner's side of "Trying to backward through the graph a
second time".

torch says only that the saved values are gone; the program says which earlier backward
freed them and why this one reaches them again: a running total of the loss kept as a tensor,
the loss computed once before the training loop, an earlier ``loss.backward()`` on the same
loss, or another loss computed from the same tensor (two heads on one encoder, a GAN's
generated batch used for both players). Each function returns the explanation and the fix in
the learner's own names, or ``None`` when the program does not show it. No torch, no Qt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gui.model.explain.graph_cuts import history
from gui.model.explain.source import (
    Made,
    assignments,
    differentiated,
    line_tree,
    made_before,
    program_tree,
    segment,
)

Story = tuple[str, str]  # (explanation, fix)

_FREED = (
    "A backward pass frees the values the forward pass saved for it (to save memory), so "
    "no second backward can go through the same part of a graph."
)


@dataclass(frozen=True)
class BackwardSite:
    """A statement that runs a backward pass: ``loss.backward(...)`` or
    ``torch.autograd.grad(loss, ...)``."""

    receiver: str
    line: int
    text: str
    keeps_graph: bool  # retain_graph=True or create_graph=True


def grad_subject(source: str | None) -> str | None:
    """The outputs of ``torch.autograd.grad(outputs, ...)`` on the line, if a plain name."""
    tree = line_tree(source)
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "grad"
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            return node.args[0].id
    return None


def backward_sites(program: str | None) -> list[BackwardSite]:
    """Every backward pass the program starts, in line order."""
    tree = program_tree(program)
    found = []
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        keeps = any(
            k.arg in ("retain_graph", "create_graph")
            and isinstance(k.value, ast.Constant)
            and k.value.value is True
            for k in node.keywords
        )
        receiver = None
        target = differentiated(node)
        if target is not None:
            receiver = segment(program, target)
        elif node.func.attr == "grad" and node.args and isinstance(node.args[0], ast.Name):
            receiver = node.args[0].id
        if receiver is not None:
            found.append(BackwardSite(receiver, node.lineno, segment(program, node), keeps))
    return sorted(found, key=lambda s: s.line)


def _loops_around(program: str | None, line: int) -> list[ast.For | ast.While]:
    tree = program_tree(program)
    loops = [
        n
        for n in (ast.walk(tree) if tree is not None else ())
        if isinstance(n, ast.For | ast.While) and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    return sorted(loops, key=lambda n: -n.lineno)  # innermost first


def _computed(program: str | None, made: Made) -> bool:
    """Whether the statement computes from the program's own values (``shared = encoder(x)``),
    rather than making new data or a layer (``x = torch.randn(3)``, ``nn.Linear(2, 1)``)."""
    value = made.value
    if value is None:
        return False
    reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    return any(assignments(program, name) for name in reads - {made.name})


def accumulated(program: str | None, subject: str, line: int) -> Story | None:
    """``running_loss = running_loss + loss`` in the loop, then ``running_loss.backward()``."""
    for loop in _loops_around(program, line):
        for node in ast.walk(loop):
            added: ast.expr | None = None
            if not isinstance(node, ast.stmt):
                continue
            if (
                isinstance(node, ast.AugAssign)
                and isinstance(node.target, ast.Name)
                and node.target.id == subject
                and isinstance(node.op, ast.Add)
            ):
                added = node.value
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == subject
                and isinstance(node.value, ast.BinOp)
                and isinstance(node.value.op, ast.Add)
            ):
                left, right = node.value.left, node.value.right
                if isinstance(left, ast.Name) and left.id == subject:
                    added = right
                elif isinstance(right, ast.Name) and right.id == subject:
                    added = left
            if added is None or _reset_before(loop, subject, node):
                continue
            term, text = segment(program, added), segment(program, node)
            simple = isinstance(added, ast.Name | ast.Call | ast.Attribute | ast.Subscript)
            number = f"{term}.item()" if simple else f"({term}).item()"
            return (
                f"`{subject}` adds each pass's `{term}` to the total of the passes before "
                f"(line {node.lineno}: `{text}`), so it holds every earlier pass's graph too. "
                f"{_FREED} The previous `{subject}.backward()` freed those earlier graphs, and "
                "this one walks into them again.",
                f"Backpropagate this pass's loss only, `{term}.backward()`, and keep the total "
                f"as a plain number for printing: `{subject} += {number}`.",
            )
    return None


def _reset_before(loop: ast.For | ast.While, subject: str, adding: ast.stmt) -> bool:
    """Whether each pass of ``loop`` starts the total afresh before adding to it
    (``loss = 0.0`` above an inner loop's ``loss = loss + ...``): then the total holds only
    this pass's graphs, and whatever carries the old graph over is something else (an RNN's
    state kept across passes)."""
    for node in ast.walk(loop):
        if (
            isinstance(node, ast.Assign)
            and node.lineno < adding.lineno
            and any(isinstance(t, ast.Name) and t.id == subject for t in node.targets)
            and not any(isinstance(n, ast.Name) and n.id == subject for n in ast.walk(node.value))
        ):
            return True
    return False


def _made_before_loop(program: str | None, subject: str, line: int) -> Story | None:
    """``loss = criterion(model(X), y)`` above ``for epoch in ...: loss.backward()``."""
    loops = _loops_around(program, line)
    if not loops:
        return None
    outer = loops[-1]
    made = [m for m in assignments(program, subject) if m.line < line]
    if not made:
        return None
    if any(outer.lineno <= m.line <= (outer.end_lineno or 0) for m in made):
        return _input_before_loop(program, subject, line, outer)
    forward = [
        m
        for m in history(program, subject, made[-1].line)
        if m.line < outer.lineno and (m.name == subject or _computed(program, m))
    ]
    lines = sorted({m.line for m in forward} | {made[-1].line})
    shown = ", ".join(f"line {n}" for n in lines)
    return (
        f"`{subject}` is computed once, on line {made[-1].line} (`{made[-1].text}`), before "
        f"the loop on line {outer.lineno}, so every pass calls backward on that same graph. "
        f"{_FREED} The first pass freed it; the second finds nothing to go through.",
        f"Move the forward pass into the loop ({shown}), at the start of each pass, so that "
        f"each `{subject}.backward()` gets a fresh graph made with the current weights.",
    )


def _has_graph(program: str | None, made: Made) -> bool:
    """Whether the statement likely makes a tensor with a graph: it calls a layer or model of
    the program (``encoder(x)``) or reads a tensor made with ``requires_grad``."""
    if made.value is None or not _computed(program, made):
        return False
    for node in ast.walk(made.value):
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Name) and assignments(program, called.id):
            return True
        if isinstance(node, ast.Name):
            source = assignments(program, node.id)
            if any("requires_grad" in m.text for m in source):
                return True
    return False


def _input_before_loop(
    program: str | None, subject: str, line: int, loop: ast.For | ast.While
) -> Story | None:
    """``features = encoder(x)`` above the loop, ``loss`` computed from it in each pass."""
    for made in history(program, subject, line):
        if made.line >= loop.lineno or made.name == subject or not _has_graph(program, made):
            continue
        value = segment(program, made.value) if made.value is not None else ""
        simple = made.value is not None and isinstance(made.value, ast.Call | ast.Name)
        detached = f"{value}.detach()" if simple else f"({value}).detach()"
        return (
            f"`{made.name}` is computed once, on line {made.line} (`{made.text}`), before the "
            f"loop on line {loop.lineno}, and each pass computes `{subject}` from it. The first "
            f"`{subject}.backward()` went back through `{made.name}`'s graph and freed the values "
            "it saved (backward does that to save memory), so the second pass cannot go "
            "through it again.",
            f"If what makes `{made.name}` is not being trained, cut it off once: "
            f"`{made.name} = {detached}` on line {made.line}; if it is, move line {made.line} "
            "into the loop so each pass computes it afresh.",
        )
    return None


def _self_attributes(node: ast.AST) -> set[str]:
    return {
        a.attr
        for a in ast.walk(node)
        if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "self"
    }


def _state_on_self(program: str | None) -> Story | None:
    """``out, self.hidden = self.rnn(x, self.hidden)`` in a method: state the model keeps
    from one call to the next, so each batch's graph hangs on to the previous one."""
    tree = program_tree(program)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        stored = set().union(*(_self_attributes(t) for t in node.targets))
        carried = sorted(stored & _self_attributes(node.value))
        if not carried:
            continue
        attr, text = carried[0], segment(program, node)
        return (
            f"`self.{attr}` is kept on the model from one call to the next (line {node.lineno}: "
            f"`{text}`), so each batch's output is computed from the previous batch's graph "
            "too. The previous backward went through that graph and freed the values it saved "
            "(backward does that to save memory), so this one cannot go through it again.",
            f"Cut the link before it is used again: `self.{attr} = self.{attr}.detach()` just "
            f"before line {node.lineno} (for an LSTM's `(h, c)` pair: "
            f"`self.{attr} = tuple(s.detach() for s in self.{attr})`).",
        )
    return None


def _parameter_attributes(tree: ast.AST) -> set[str]:
    """``self.name`` attributes the program assigns an ``nn.Parameter(...)`` or a layer."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called == "Parameter" or called[:1].isupper():
                for target in node.targets:
                    found |= (
                        _self_attributes(target) if isinstance(target, ast.Attribute) else set()
                    )
    return found


def _buffer_from_parameters(program: str | None) -> Story | None:
    """``self.register_buffer("pe", ...)`` of a value computed from the module's own
    parameter in ``__init__``: the buffer carries that computation's graph into every
    forward, and the first backward frees it."""
    tree = program_tree(program)
    if tree is None:
        return None
    parameters = _parameter_attributes(tree)
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef):
            continue
        reads: dict[str, set[str]] = {}  # local name -> the self attributes it is computed from
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    used = _self_attributes(node.value)
                    for name in ast.walk(node.value):
                        if isinstance(name, ast.Name):
                            used |= reads.get(name.id, set())
                    reads[target.id] = used
        for node in ast.walk(function):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "register_buffer"
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            used = _self_attributes(node.args[1])
            for name in ast.walk(node.args[1]):
                if isinstance(name, ast.Name):
                    used |= reads.get(name.id, set())
            learned = sorted(used & parameters)
            if not learned:
                continue
            buffer, text = node.args[0].value, segment(program, node)
            return (
                f"The buffer `self.{buffer}` (line {node.lineno}: `{text}`) is computed once, "
                f"when the module is made, from `self.{learned[0]}`, a parameter, so it "
                "keeps that computation's graph and every forward pass builds on it. The "
                "first backward went through that shared part and freed the values it saved "
                "(backward does that to save memory), so the next one cannot go through it "
                "again.",
                f"If `self.{buffer}` should follow `self.{learned[0]}` as it learns, compute it "
                "in `forward` (each pass then has a graph of its own); if it is a constant, "
                f"register it without the graph: `.detach()` the value on line {node.lineno}.",
            )
    return None


def _earlier_backward(program: str | None, subject: str, line: int) -> Story | None:
    """An earlier backward freed a graph this one shares."""
    earlier = [s for s in backward_sites(program) if s.line < line and not s.keeps_graph]
    if not earlier:
        return None
    previous = earlier[-1]
    keep = f"{previous.text[:-1]}{', ' if previous.text[-2] != '(' else ''}retain_graph=True)"
    if previous.receiver == subject:
        return (
            f"Line {previous.line} (`{previous.text}`) already ran a backward pass through "
            f"`{subject}`'s graph. {_FREED}",
            f"Keep the graph for the second pass: `{keep}` on line {previous.line}; or get "
            "everything in one pass (`torch.autograd.grad` takes a list of inputs).",
        )
    alias = _alias_statement(program, subject, previous.receiver, line)
    if alias is not None:
        return (
            f"`{previous.receiver}` and `{subject}` are one tensor under two names (line "
            f"{alias.line}: `{alias.text}`), so line {previous.line} (`{previous.text}`) "
            f"already ran a backward pass through `{subject}`'s graph. {_FREED}",
            f"Keep the graph for the second pass: `{keep}` on line {previous.line}; or "
            "get everything in one pass (`torch.autograd.grad` takes a list of inputs).",
        )
    mine = {(m.name, m.line): m for m in history(program, subject, line)}
    theirs = {(m.name, m.line) for m in history(program, previous.receiver, previous.line)}
    shared = sorted(
        (m for key, m in mine.items() if key in theirs and _computed(program, m)),
        key=lambda m: m.line,
    )
    if not shared:
        return None
    common = shared[-1]
    first = previous.receiver
    if common.name == subject:
        return (
            f"`{first}` is computed from `{subject}`'s graph (line {common.line}: "
            f"`{common.text}`), so `{previous.text}` on line {previous.line} went back through "
            f"that graph and freed the values it saved (backward does that to save memory); "
            f"`{subject}.backward()` needs them again.",
            f"Keep the graph on the first: `{keep}` on line {previous.line}; or do one "
            f"backward for both: `({first} + {subject}).backward()`.",
        )
    return (
        f"`{first}` and `{subject}` are both computed from `{common.name}` (line "
        f"{common.line}: `{common.text}`). `{previous.text}` on line {previous.line} went back "
        f"through `{common.name}`'s graph and freed the values it saved (backward does that "
        f"to save memory); `{subject}`'s backward needs the same part again.",
        f"Do one backward for both: `({first} + {subject}).backward()`; or keep the graph on "
        f"the first: `{keep}` on line {previous.line}; or, if `{first}` should not reach "
        f"into `{common.name}`'s graph (a GAN's discriminator step on generated samples), use "
        f"`{common.name}.detach()` when computing `{first}`.",
    )


def _alias_statement(program: str | None, subject: str, other: str, line: int) -> Made | None:
    """The statement that made ``subject`` and ``other`` one tensor: ``a = b = expr``, or
    ``b = a`` (each way round), when it is the last binding of both before ``line``."""
    made = made_before(program, subject, line)
    theirs = made_before(program, other, line)
    if made is None or theirs is None:
        return None
    same = (made.node.lineno, made.node.col_offset) == (theirs.node.lineno, theirs.node.col_offset)
    if same and isinstance(made.node, ast.Assign):
        return made  # a = b = expr
    for one, two, last in ((made, other, theirs), (theirs, subject, made)):
        # `b = a`, and `a` not bound again after it
        if isinstance(one.value, ast.Name) and one.value.id == two and last.line <= one.line:
            return one
    return None


def why_freed(program: str | None, subject: str, line: int | None) -> Story | None:
    """Why the graph behind ``subject`` (differentiated at ``line``) was already freed, when
    the program shows it: a loss computed before the loop, an earlier backward through a
    shared part (a running total of the loss is :func:`accumulated`)."""
    if line is None or not program:
        return None
    return (
        _made_before_loop(program, subject, line)
        or _earlier_backward(program, subject, line)
        or _state_on_self(program)
        or _buffer_from_parameters(program)
    )


def earlier_backwards(program: str | None, line: int | None) -> list[BackwardSite]:
    """The backward passes started before ``line`` (for the optimizer-step advice)."""
    return [s for s in backward_sites(program) if line is None or s.line < line]


def zero_grad_between(program: str | None, line: int | None) -> tuple[int, str] | None:
    """``optimizer.zero_grad()`` after the last backward before ``line`` (or before ``line``
    with no backward in between, inside the same loop pass): its line and text."""
    tree = program_tree(program)
    if tree is None or line is None:
        return None
    backwards = [s.line for s in backward_sites(program) if s.line < line]
    last = max(backwards, default=0)
    clears = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "zero_grad"
        and not node.args
        and not node.keywords
        and last < node.lineno < line
    ]
    if not clears:
        return None
    latest = max(clears, key=lambda n: n.lineno)
    return latest.lineno, segment(program, latest)
