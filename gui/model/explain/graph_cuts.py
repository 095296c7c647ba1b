"""Where a program cut a tensor off from autograd: the statement behind "element 0 of tensors
does not require grad and does not have a grad_fn".

The error is raised at ``loss.backward()``, but the cause is earlier: a ``.detach()``, a
``.data``, numbers taken out with ``.item()`` and put back with ``torch.tensor``, a NumPy
round trip, a gradient from ``torch.autograd.grad`` without ``create_graph=True``, gradients
switched off for the whole program, every parameter frozen, or ``requires_grad`` switched on
after the computation. :func:`find_cut` walks back from the differentiated tensor through the
statements that made it (the program's text only: no torch, no Qt) and returns the first such
statement with words naming the learner's own variables; the program-wide switches are in
:mod:`gui.model.explain.grad_switches`. A hint only: ``None`` when the program does not say.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from gui.model.explain.grad_switches import Cut, called, frozen, reads, switched_off, too_late
from gui.model.explain.source import Made, made_before, no_grad_block, program_tree, segment

# Calls that make a brand-new tensor from the numbers they are given (no history).
_REBUILDERS = frozenset({"tensor", "Tensor", "FloatTensor", "DoubleTensor", "LongTensor"})
_TO_NUMBERS = frozenset({"item", "tolist"})
# Steps whose result has no gradient: whole numbers or True/False.
_STEPS = frozenset(
    {"argmax", "argmin", "round", "floor", "ceil", "sign", "long", "int", "bool", "eq", "gt", "lt"}
)
_NUMPY_CALLS = frozenset({"numpy", "from_numpy"})
_NUMPY_MODULES = frozenset({"np", "numpy"})
_LIBRARIES = frozenset({"torch", "nn", "F", "np", "numpy", "math", "random", "T"})


def history(program: str | None, name: str, line: int | None, limit: int = 40) -> Iterator[Made]:
    """The statements ``name`` was computed from, nearest first: the one that made it, then
    those that made the names it read (breadth first; each name once). A list filled with
    ``items.append(expr)`` counts each append as a statement that made it."""
    seen: set[str] = set()
    queue: list[tuple[str, int | None]] = [(name, line)]
    if not name.isidentifier():  # `criterion(out, y).backward()`: start from what it reads
        try:
            tree = ast.parse(name.strip(), mode="eval")
        except SyntaxError:
            return
        loaded = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
        queue = [(n.id, line) for n in sorted(loaded, key=lambda n: n.col_offset)]
    while queue and limit > 0:
        current, before = queue.pop(0)
        if current in seen:
            continue
        seen.add(current)
        made = made_before(program, current, before)
        statements = [made] if made is not None and made.value is not None else []
        statements += appends(program, current, before)
        for statement in statements:
            limit -= 1
            yield statement
            for read in reads(statement):
                if read not in seen:
                    queue.append((read, statement.line - 1))


def appends(program: str | None, name: str, line: int | None) -> list[Made]:
    """``name.append(expr)`` statements at or before ``line``."""
    tree = program_tree(program)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr in ("append", "extend")
            and isinstance(node.value.func.value, ast.Name)
            and node.value.func.value.id == name
            and node.value.args
            and (line is None or node.lineno <= line)
        ):
            found.append(Made(name, node.lineno, segment(program, node), node.value.args[0], node))
    return found


def _no_grad_function(program: str | None, call: ast.Call) -> tuple[int, str] | None:
    """``f(x)`` where the program defines ``f`` under ``@torch.no_grad()``: the decorator."""
    if not isinstance(call.func, ast.Name):
        return None
    tree = program_tree(program)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == call.func.id and node.body:
            return no_grad_block(program, node.body[0].lineno)
    return None


def _module_of(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return ""


def _without(text: str, piece: str) -> str:
    return text.replace(piece, "", 1)


def _undetached(text: str) -> str:
    """The statement without ``.detach()`` (and a ``.requires_grad_(...)`` after it, which
    only makes sense on a detached copy)."""
    return re.sub(r"\.requires_grad_\([^()]*\)", "", _without(text, ".detach()"))


def _statement_cut(program: str | None, made: Made, subject: str, depth: int = 0) -> Cut | None:
    """The cut this one statement makes (or a function it calls, one level down), if any."""
    value = made.value
    if value is None:
        return None
    cut = _own_cut(program, made, subject)
    if cut is None and depth == 0:
        cut = _inside_calls(program, made, subject)
    return cut


def _own_cut(program: str | None, made: Made, subject: str) -> Cut | None:
    """The cut the statement's own expression makes, if any."""
    value = made.value
    if value is None:
        return None
    text, where = made.text, f"line {made.line} (`{made.text}`)"
    named = f"`{made.name}`"
    calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)]
    later = "" if made.name == subject else f", and `{subject}` is computed from it"
    for call in calls:
        if called(call) == "grad" and not any(
            k.arg == "create_graph" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in call.keywords
        ):
            written = segment(program, call)
            fixed = text.replace(written, f"{written[:-1]}, create_graph=True)", 1)
            return Cut(
                made.line,
                text,
                f"{named} comes from `torch.autograd.grad` on {where}, which by default "
                "returns plain numbers: it does not record how the gradient was computed"
                f"{later}, so there is no graph to differentiate a second time.",
                f"Ask it to build that graph: `{fixed}` (as a gradient penalty needs).",
                always=True,
            )
    for call in calls:
        decorated = _no_grad_function(program, call)
        if decorated is not None:
            header_line, header = decorated
            return Cut(
                made.line,
                text,
                f"{named} is computed on {where} by calling `{called(call)}`, which is "
                f"decorated with `{header}` (line {header_line}): everything inside it runs "
                f"with gradient tracking off{later}, so nothing was recorded for backward.",
                f"Call the layers directly where you train (or remove `{header}` from "
                f"`{called(call)}` and use `with torch.no_grad():` around its calls in the "
                "evaluation code instead).",
                always=True,
            )
    for call in calls:
        name = called(call)
        if name in _NUMPY_CALLS or _module_of(call) in _NUMPY_MODULES:
            return Cut(
                made.line,
                text,
                f"{named} is computed through NumPy on {where}: NumPy arrays record no "
                f"operations, so the tensor that comes back has no history{later}.",
                "Write that step with torch functions, which autograd records (`torch.exp`, "
                "`torch.softmax(t, dim=1)`, `t.sum(dim=1, keepdim=True)`...), and keep "
                "NumPy for results you only print or plot.",
            )
    for call in calls:
        if called(call) == "sample" and isinstance(call.func, ast.Attribute):
            dist = segment(program, call.func.value)
            drawn = made.name
            return Cut(
                made.line,
                text,
                f"{named} is drawn with `{dist}.sample()` on {where}: a random draw is not a "
                f"smooth function of the probabilities, so it carries no gradient{later}; "
                "the weights never reach it.",
                f"Differentiate the log-probability of what was drawn instead, "
                f"`{dist}.log_prob({drawn})`, weighted by the reward or return (REINFORCE: "
                f"`-({dist}.log_prob({drawn}) * returns).mean()`), and keep `{drawn}` for "
                "choosing what to do; a continuous distribution can also draw with "
                f"`{dist}.rsample()`, which keeps the gradient.",
            )
    for call in calls:
        if called(call) == "detach":
            return Cut(
                made.line,
                text,
                f"{named} is made with `.detach()` on {where}: a copy of the numbers without "
                f"their history{later}, so backward has no way back to the weights.",
                f"Drop `.detach()` there: `{_undetached(text)}`; detach only what "
                f"you print or log: `print({made.name}.detach())`.",
            )
    if any(isinstance(n, ast.Attribute) and n.attr == "data" for n in ast.walk(value)):
        return Cut(
            made.line,
            text,
            f"{named} is made from `.data` on {where}: the bare numbers without their history "
            f"(an old PyTorch habit){later}, so backward has no way back to the weights.",
            f"Drop `.data` there: `{_without(text, '.data')}`; for printing, "
            f"`{made.name}.detach()` is the safe way to get the numbers.",
        )
    for call in calls:
        if called(call) in _REBUILDERS and _module_of(call) in ("torch", "T", "") and call.args:
            return _rebuilt(program, made, call, named, where, later)
    for call in calls:
        if called(call) in _TO_NUMBERS or (called(call) == "float" and call.args):
            return Cut(
                made.line,
                text,
                f"{named} is made from Python numbers (`.item()`) on {where}: a plain number "
                f"has no history{later}, so backward has no way back to the weights.",
                "Keep the tensor where gradients should flow and take `.item()` only for "
                "printing or logging; to combine several losses, `torch.stack(losses)` keeps "
                "their graphs.",
            )
    for node in ast.walk(value):
        step = called(node) if isinstance(node, ast.Call) else ""
        if (step in _STEPS or isinstance(node, ast.Compare)) and _reads_graph(program, node, made):
            written = segment(program, node)
            return Cut(
                made.line,
                text,
                f"{named} is made with `{written}` on {where}: "
                + (
                    "a comparison gives True/False"
                    if isinstance(node, ast.Compare)
                    else f"`{step}` gives whole numbers (a class index, a rounded value)"
                )
                + f", which do not change smoothly with the weights, so autograd records no "
                f"gradient through it{later}.",
                f"Compute the loss from the raw scores instead, e.g. "
                f"`nn.functional.cross_entropy({_raw_scores(program, node)}, "
                f"{_labels(program, node, 'labels')})` for class "
                f"scores or `nn.functional.binary_cross_entropy_with_logits("
                f"{_raw_scores(program, node)}, {_labels(program, node, 'targets')})`; keep "
                f"`{written}` for accuracy and printing.",
            )
    return None


def _rebuilt(
    program: str | None, made: Made, call: ast.Call, named: str, where: str, later: str
) -> Cut | None:
    """``torch.tensor(x)``: a new tensor from numbers, when ``x`` was computed (not a literal)."""
    arg = call.args[0]
    if isinstance(arg, ast.List | ast.Tuple | ast.Constant) and not any(
        isinstance(n, ast.Name) for n in ast.walk(arg)
    ):
        return None  # torch.tensor([1., 2.]): data, not a cut
    written, rebuild = segment(program, arg), segment(program, call)
    numbers = ""
    # The list the numbers came from: the argument itself (`torch.tensor(losses)`) or one
    # it reads (`torch.tensor(sum(losses) / len(losses))`).
    collected = arg.id if isinstance(arg, ast.Name) else None
    if collected is None:
        read = [n.id for n in ast.walk(arg) if isinstance(n, ast.Name)]
        collected = next((n for n in read if appends(program, n, made.line)), None)
    source = made_before(program, collected, made.line - 1) if collected else None
    filled = appends(program, collected, made.line) if collected else []
    if source is not None and re.search(r"\bnp\.|\bnumpy\b|\.numpy\(\)", source.text):
        return None  # NumPy numbers: the NumPy step is the cut, found further back
    listed = filled or (
        source is not None and isinstance(source.value, ast.List | ast.ListComp | ast.Tuple)
    )
    if collected is not None and not isinstance(arg, ast.Name) and filled:
        values = [(a, a.value) for a in filled if a.value is not None]
        if any(called(c) in _TO_NUMBERS for _, v in values for c in ast.walk(v)):
            numbers = f" (each taken out of `{collected}` with `.item()`, line {values[0][0].line})"
        fix = (
            f"Keep the tensors: append the losses themselves to `{collected}` (no `.item()`), "
            f"then `{made.text.replace(rebuild, written, 1)}` keeps their graphs; take "
            "`.item()` only for printing."
        )
    elif isinstance(arg, ast.Name) and listed:
        values = [(a, a.value) for a in filled if a.value is not None]
        if not filled and (
            source is None
            or source.value is None
            or not any(isinstance(n, ast.Name | ast.Call) for n in ast.walk(source.value))
        ):
            return None  # a name for literal data
        if any(called(c) in _TO_NUMBERS for _, v in values for c in ast.walk(v)):
            numbers = f" (each taken out with `.item()`, line {values[0][0].line})"
        stacked = f"torch.stack({written})"
        fix = (
            f"Keep the tensors and combine them with torch: collect the losses themselves "
            f"(no `.item()`) and stack them: `{made.text.replace(rebuild, stacked, 1)}`."
        )
    elif isinstance(arg, ast.Name) and made.text.replace(" ", "") == f"{arg.id}={rebuild}":
        fix = (
            f"`{arg.id}` is already a tensor: delete line {made.line} "
            f"(`{arg.id}.clone()` if you need a copy: it keeps the history)."
        )
    else:
        copied = written if isinstance(arg, ast.Name | ast.Attribute | ast.Call) else f"({written})"
        fix = (
            f"Use the tensor itself: `{written}` in place of `{rebuild}` "
            f"(`{copied}.clone()` if you need a copy: it keeps the history)."
        )
    return Cut(
        made.line,
        made.text,
        f"{named} is built with `{segment(program, call.func)}(...)` on {where}, which copies "
        f"the numbers of `{written}`{numbers} into a new tensor without their history{later}: "
        "backward has no way back to the weights.",
        fix,
    )


def _called_bodies(program: str | None, call: ast.Call) -> list[ast.FunctionDef]:
    """The program's own code a call runs: ``f(x)`` for ``def f``, ``model(x)`` for
    ``model = Net()`` with ``class Net`` (its ``forward``)."""
    if not isinstance(call.func, ast.Name):
        return []
    tree = program_tree(program)
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)] if tree else []
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)] if tree else []
    own = [d for d in defs if d.name == call.func.id]
    if own:
        return own
    made = made_before(program, call.func.id, call.lineno)
    if made is None or not isinstance(made.value, ast.Call):
        return []
    cls = made.value.func
    cls_name = cls.id if isinstance(cls, ast.Name) else ""
    return [
        n
        for c in classes
        if c.name == cls_name
        for n in c.body
        if isinstance(n, ast.FunctionDef) and n.name == "forward"
    ]


def _inside_calls(program: str | None, made: Made, subject: str) -> Cut | None:
    """A cut inside a function or model ``forward`` the statement calls."""
    if made.value is None:
        return None
    for call in (n for n in ast.walk(made.value) if isinstance(n, ast.Call)):
        for body in _called_bodies(program, call):
            result = segment(program, call)
            for node in ast.walk(body):
                if not isinstance(node, ast.Return | ast.Assign) or node.value is None:
                    continue
                target = node.targets[0] if isinstance(node, ast.Assign) else None
                name = target.id if isinstance(target, ast.Name) else result
                inner = Made(name, node.lineno, segment(program, node), node.value, node)
                cut = _statement_cut(program, inner, subject, depth=1)
                if cut is not None:
                    return cut
    return None


def find_cut(program: str | None, subject: str, line: int | None) -> Cut | None:
    """The statement that left ``subject`` (the tensor ``backward`` was called on at ``line``)
    without a ``grad_fn``, nearest first; then program-wide switches (gradients turned off
    everywhere, every parameter frozen, ``requires_grad`` set too late)."""
    made = list(history(program, subject, line))
    off = switched_off(program, subject, line)
    if off is not None:
        return off
    for statement in made:
        cut = _statement_cut(program, statement, subject)
        if cut is not None and (cut.always or _fed_by_graph(program, statement)):
            return cut
    return frozen(program, subject, line) or too_late(program, subject, line, made)


def _scores(program: str | None, node: ast.AST) -> str:
    """What a step was applied to: ``logits`` in ``logits.argmax(1)`` or ``torch.round(p)``."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and _module_of(node) not in _LIBRARIES:
            return segment(program, node.func.value)
        if node.args:
            return segment(program, node.args[0])
    if isinstance(node, ast.Compare):
        return segment(program, node.left)
    return "scores"


def _raw_scores(program: str | None, node: ast.AST) -> str:
    """The scores before every step that cut them: ``scores`` in
    ``(scores.argmax(dim=1) == yb).sum()``, not ``scores.argmax(dim=1)``."""
    while True:
        inner: ast.AST | None = None
        if isinstance(node, ast.Compare):
            inner = node.left
        elif isinstance(node, ast.Call) and called(node) in _STEPS:
            if isinstance(node.func, ast.Attribute) and _module_of(node) not in _LIBRARIES:
                inner = node.func.value
            elif node.args:
                inner = node.args[0]
        if inner is None:
            return (
                _scores(program, node) if isinstance(node, ast.Compare) else segment(program, node)
            )
        node = inner


def _labels(program: str | None, node: ast.AST, default: str) -> str:
    """What the scores were compared with (``yb`` in ``preds == yb``), or ``default``."""
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        other = node.comparators[0]
        if isinstance(other, ast.Name | ast.Attribute | ast.Subscript):
            return segment(program, other)
    return default


def _reads_graph(program: str | None, node: ast.AST, made: Made) -> bool:
    """Whether a step reads a tensor with a graph (``logits`` in ``logits.argmax(1)``), not
    data (``labels.long()``)."""
    part = node.func if isinstance(node, ast.Call) else node
    if isinstance(part, ast.Attribute) and _calls_a_layer(program, part.value):
        return True  # `net(xb).argmax(1)`: the step reads the model's output directly
    for name in {n.id for n in ast.walk(part) if isinstance(n, ast.Name)}:
        source = made_before(program, name, made.line - 1)
        if source is not None and _fed_by_graph(program, source):
            return True
    return False


def _fed_by_graph(program: str | None, statement: Made) -> bool:
    """Whether what the statement cuts had a graph to lose: it (or what it reads) calls one
    of the program's layers or models (``net(x)``, ``self.fc(h)``) or reads a tensor made
    with ``requires_grad``. Labels made from NumPy are data, not a cut."""
    statements = [statement, *history(program, statement.name, statement.line - 1, limit=30)]
    for made in statements:
        if "requires_grad" in made.text or "Parameter(" in made.text:
            return True
        if made.value is not None and _calls_a_layer(program, made.value):
            return True
    return False


def _calls_a_layer(program: str | None, value: ast.AST) -> bool:
    """Whether ``value`` calls one of the program's layers or models (``net(x)``,
    ``self.fc(h)``): a name the program binds, not a library's function."""
    for node in ast.walk(value):
        if not isinstance(node, ast.Call):
            continue
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and (
            root.id == "self"
            or (root.id not in _LIBRARIES and bool(made_before(program, root.id, None)))
        ):
            return True
    return False
