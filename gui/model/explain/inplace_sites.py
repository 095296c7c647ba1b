"""Which statement changed a saved tensor in place: the learner's side of "one of the
variables needed for gradient computation has been modified by an inplace operation".

torch names the saved tensor only by its shape and the operation that made it ("output 0 of
Sigmoid"); the program says who changed it: ``hidden += bias``, ``h.add_(x)``,
``a[0] = 0``, an ``nn.ReLU(inplace=True)`` right after that operation, or an
``optimizer.step()`` between the forward pass and a later backward. :func:`guilty_site`
picks the statement that fits the message best and writes its out-of-place form. The
program's text only: no torch, no Qt; ``None`` when nothing fits.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from gui.model.explain.source import Made, line_names, made_before, program_tree, segment
from gui.model.explain.written import tensor_part

_OPERATORS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.MatMult: "@",
    ast.Pow: "**",
    ast.FloorDiv: "//",
}
# Methods ending in `_` that are not a change of the tensor's values.
_NOT_CHANGES = frozenset({"requires_grad_", "retain_grad_", "share_memory_", "manual_seed_"})
_INPLACE_FLAG = re.compile(r",?\s*inplace\s*=\s*True")


@dataclass(frozen=True)
class InplaceSite:
    """One statement that changes a tensor in place."""

    name: str  # the changed tensor as written ("" for a layer built with inplace=True)
    line: int
    text: str
    how: str  # "operator", "method", "index", "layer", "step"
    fixed: str  # the statement written out of place (or the advice for a step)
    loop_var: str | None = None  # `states[t + 1] = ...` in `for t in ...`: the loop's name


def _root(node: ast.expr) -> tuple[str, bool]:
    """The tensor a target belongs to as written (``x`` for ``x[0]``, ``self.act`` for
    ``self.act[:, 0]``) and whether it goes through ``.data`` or ``.grad`` (changes autograd
    does not count against the saved value)."""
    hidden = False
    while isinstance(node, ast.Subscript | ast.Attribute):
        if isinstance(node, ast.Attribute) and node.attr in ("data", "grad"):
            hidden = True
        elif isinstance(node, ast.Attribute):
            break  # `self.act`: an attribute holding the tensor
        node = node.value
    chain: list[str] = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return "", hidden
    return ".".join([node.id, *reversed(chain)]), hidden


def _site(program: str | None, node: ast.stmt) -> InplaceSite | None:
    text = segment(program, node)
    if isinstance(node, ast.AugAssign):
        name, hidden = _root(node.target)
        op = _OPERATORS.get(type(node.op))
        if name and not hidden and isinstance(node.target, ast.Subscript):
            return InplaceSite(name, node.lineno, text, "index", f"{name} = {name}.clone()")
        if name and not hidden and op:
            target = segment(program, node.target)
            value = segment(program, node.value)
            fixed = f"{target} = {target} {op} {value}"
            return InplaceSite(name, node.lineno, text, "operator", fixed)
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
        name, hidden = _root(node.targets[0])
        if name and not hidden:
            fixed = f"{name} = {name}.clone()"
            return InplaceSite(name, node.lineno, text, "index", fixed)
    if not isinstance(node, ast.Expr | ast.Assign):
        return None
    for call in ast.walk(node.value):
        if not isinstance(call, ast.Call):
            continue
        if any(k.arg == "inplace" for k in call.keywords) and _INPLACE_FLAG.search(text):
            # `F.relu(h, inplace=True)` changes `h`; `nn.ReLU(inplace=True)` a later input.
            name = _root(call.args[0])[0] if call.args else ""
            return InplaceSite(name, node.lineno, text, "layer", _INPLACE_FLAG.sub("", text))
        func = call.func
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr == "step" and not call.args and isinstance(node, ast.Expr):
            return InplaceSite(segment(program, func.value), node.lineno, text, "step", "")
        attr = func.attr
        if attr.endswith("_") and not attr.startswith("_") and attr not in _NOT_CHANGES:
            name, hidden = _root(func.value)
            item = tensor_part(func.value, program, node.lineno)
            if not hidden and isinstance(item, ast.Subscript):
                name = segment(program, item)  # `acts[0]` of a list, not `acts`
            if name and not hidden and name not in ("torch", "nn", "init", "F"):
                receiver = segment(program, func.value)
                args = ", ".join(segment(program, a) for a in [*call.args, *call.keywords])
                fixed = f"{receiver} = {receiver}.{attr[:-1]}({args})"
                return InplaceSite(name, node.lineno, text, "method", fixed)
    return None


def inplace_sites(program: str | None) -> list[InplaceSite]:
    """Every statement of the program that changes a tensor in place, in line order."""
    tree = program_tree(program)
    if tree is None:
        return []
    found = []
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            site = _site(program, node)
            if site is not None and site.how == "index":
                site = replace(site, loop_var=_loop_index(node, parents))
            if site is not None:
                found.append(site)
    return sorted(found, key=lambda s: s.line)


def _loop_index(node: ast.stmt, parents: dict[ast.AST, ast.AST]) -> str | None:
    """The name of a loop around ``node`` that its subscript uses (``t`` in ``h[t + 1] =``)."""
    target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
    if not isinstance(target, ast.Subscript):
        return None
    used = {n.id for n in ast.walk(target.slice) if isinstance(n, ast.Name)}
    parent = parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.For):
            names = {n.id for n in ast.walk(parent.target) if isinstance(n, ast.Name)}
            if names & used:
                return sorted(names & used)[0]
        parent = parents.get(parent)
    return None


def _made_by(program: str | None, site: InplaceSite, op: str) -> Made | None:
    """The statement that made the changed tensor, when it used ``op`` (``sigmoid``)."""
    if "." in site.name:
        made = _attribute_made(program, site.name, site.line - 1)
    else:
        made = made_before(program, site.name, site.line - 1) if site.name else None
    if made is not None and op and op in made.text.lower():
        return made
    return None


def _attribute_made(program: str | None, name: str, before: int) -> Made | None:
    """The last ``self.act = ...`` (an attribute written as ``name``) at or before ``before``."""
    tree = program_tree(program)
    found = [
        node
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Attribute)
        and segment(program, node.targets[0]) == name
        and node.lineno <= before
    ]
    if not found:
        return None
    node = max(found, key=lambda n: n.lineno)
    return Made(name, node.lineno, segment(program, node), node.value, node)


def guilty_site(
    program: str | None, line: int | None, op: str
) -> tuple[InplaceSite, Made | None] | None:
    """The in-place change behind the error at ``line``: the statement whose tensor was made
    by ``op`` (torch's name for the saved tensor's maker, e.g. ``Sigmoid``) first, then a
    layer built with ``inplace=True`` next to an ``op`` layer, then an optimizer step
    (torch calls a saved weight ``AsStrided`` or ``T``), then the last change before."""
    op = re.sub(r"Backward\d*$", "", op).lower()
    sites = [s for s in inplace_sites(program) if line is None or s.line < line]
    if not sites:
        return None
    for site in reversed(sites):
        made = _made_by(program, site, op)
        if made is not None:
            return site, made
    for site in reversed(sites):
        if site.how == "layer" and op and op in site.text.lower():
            return site, None
    weights = op in ("asstrided", "t", "")
    for site in reversed(sites):
        if site.how == "step" and weights:
            return site, None
    changes = [s for s in sites if s.how != "step"]
    return (changes[-1], None) if changes else None


# torch's names for a saved tensor that is a slice of another (its maker is no real step).
_VIEW_MAKERS = frozenset({"asstrided", "select", "slice", "view", "t", "transpose", "expand"})

_REFUSES = (
    "Autograd refuses to compute a derivative from a value that is no longer the one the "
    "forward pass used."
)


_LIBRARIES = frozenset({"torch", "F", "nn", "np", "numpy", "functional", "init", "math"})


def _called_by_program(value: ast.expr | None) -> bool:
    """``netD(fake)``, ``self.critic(s)``: a call of something the program made (a model),
    not of a library (``torch.ones``, ``nn.BCELoss``)."""
    if not isinstance(value, ast.Call):
        return False
    root = value.func
    while isinstance(root, ast.Attribute | ast.Subscript | ast.Call):
        root = root.value if not isinstance(root, ast.Call) else root.func
    return isinstance(root, ast.Name) and root.id not in _LIBRARIES


_OPTIMIZERS = frozenset({
    "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
    "LBFGS", "ASGD", "Rprop", "SparseAdam",
})  # fmt: skip


def _an_optimizer(program: str | None, name: str) -> bool:
    """``name`` is bound to ``torch.optim.X(...)`` (not a scheduler, whose ``step`` is
    another thing)."""
    made = made_before(program, name, None) if name.isidentifier() else None
    value = made.value if made is not None else None
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return called in _OPTIMIZERS


def other_optimizer_story(
    program: str | None, site: InplaceSite, line: int | None, loss: str, shape: str, where: str
) -> tuple[str, str] | None:
    """The saved-weight error when the failing backward's loss belongs to another optimizer,
    stepped after it (a GAN's generator after ``optimizerD.step()``): adding the losses
    would give the first optimizer's weights the second loss's gradient, so the fix is to
    recompute, after the step, the model output the loss reads (``d_fake = netD(fake)``)."""
    if line is None:
        return None
    later = [
        s
        for s in inplace_sites(program)
        if s.how == "step"
        and s.line > line
        and s.name != site.name
        and _an_optimizer(program, s.name)
    ]
    if not later or not _an_optimizer(program, site.name):
        return None
    other = later[0]
    made = made_before(program, loss, line)
    reads = None
    for name in line_names(made.text if made is not None else None):
        before = made_before(program, name, site.line)
        if name != loss and before is not None and _called_by_program(before.value):
            reads = before
            break
    story = (
        f"`{site.text}` on line {site.line} updated the weights in place (a tensor{shape} "
        f"among them), but the backward on {where} still needs the values the forward pass "
        f"used: `{loss}` was computed from outputs made before that step. {_REFUSES} `{loss}` "
        f"is the loss of another optimizer (`{other.text}` on line {other.line})."
    )
    spoil = (
        f"adding the losses into one backward instead would also give the weights "
        f"`{site.name}` updates the gradient of `{loss}`."
    )
    if reads is not None and made is not None:
        return story, (
            f"Recompute what `{loss}` reads after the step, with the updated weights: repeat "
            f"`{reads.text}` after line {site.line}, before line {made.line} (`{made.text}`); "
            + spoil
        )
    return story, f"Recompute the forward pass that `{loss}` reads after `{site.text}`; " + spoil


def inplace_story(
    site: InplaceSite, made: Made | None, shape: str, origin: str, where: str, losses: list[str]
) -> tuple[str, str]:
    """The saved-tensor error told with the statement that changed it: the explanation and
    the fix. ``shape``/``origin`` describe torch's saved tensor (" of shape [2, 4]", " (the
    output of Sigmoid)"), ``where`` the failing line, ``losses`` the tensors differentiated
    around an optimizer step."""
    changed = f"line {site.line} (`{site.text}`)"
    if site.how == "step":
        both = " + ".join(losses) if len(losses) > 1 else "loss1 + loss2"
        return (
            f"`{site.text}` on line {site.line} updated the weights in place (a tensor"
            f"{shape} among them), but the backward on {where} still needs the values the "
            f"forward pass used: it was computed before that step. {_REFUSES}",
            f"Run every backward first and step once: `({both}).backward()` (or each "
            f"`backward()` before `{site.text}`); or recompute the forward pass after the step.",
        )
    if site.how == "layer" and made is None:
        return (
            f"The layer on {changed} is built with `inplace=True`, so it overwrites its input: "
            f"the output{shape}{origin} that the layer before it saved for its own backward. "
            + _REFUSES,
            f"Build it without `inplace=True`: `{site.fixed}`.",
        )
    if site.how == "index" and site.loop_var:
        return (
            f"Each pass of the loop writes into `{site.name}` in place on {changed}, while an "
            f"earlier pass saved part of `{site.name}` (a view: a slice of it) for its own "
            f"backward. The write changes the tensor that slice belongs to. {_REFUSES}",
            f"Collect the steps in a Python list and build the tensor once after the loop: "
            f"`steps.append(...)` in the loop (reading the previous step as `steps[-1]`), then "
            f"`{site.name} = torch.stack(steps)`.",
        )
    what = f"`{site.name}`"
    if made is not None:
        what += f" (line {made.line}: `{made.text}`)"
    maker = origin.strip(" ()").removeprefix("the output of ")
    view = maker.lower() in _VIEW_MAKERS
    saved = f" by {maker}" if origin and not view else ""
    fix = (
        f"Change a copy instead: `{site.fixed}` just before line {site.line}, so that "
        f"`{site.text}` changes the copy and the saved values stay intact."
        if site.how == "index"
        else f"Write it out of place, a new tensor under the same name: `{site.fixed}` on "
        f"line {site.line}."
    )
    return (
        f"{what} was saved{saved} during the forward pass because its gradient needs that "
        f"value, and {changed} changed it in place afterwards. {_REFUSES}",
        fix,
    )
