"""Describe any node of the graph: title, what it is, its rule, the numbers plugged in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gui.model.explain.local_rules.flat import Shape, agrees
from gui.model.explain.local_rules.structural import rule_for
from gui.model.explain.local_rules.terms import SUBSCRIPT, Ctx, Rule, Term, num, text
from gui.model.result import Graph, GraphNode, NestedValues, NodeFlow, StepRecord, TensorData

NO_STEP_TEXT = "No backward call has reached this node yet: run backward to see the numbers."
FAILED_STEP_TEXT = (
    "This backward call stopped with an error before any gradient reached this node "
    "(the error panel says why)."
)


@dataclass(frozen=True)
class GradCheck:
    """One input's gradient: the rule evaluated with numpy next to torch's result."""

    input_index: int
    symbol: str
    recomputed: NestedValues | None
    torch: TensorData | None
    matches: bool | None


@dataclass(frozen=True)
class NodeDescription:
    """Everything the details pane says about one node (plain text, no markup)."""

    title: str
    what: str
    rule: str
    numbers: str
    saved: tuple[tuple[str, str], ...] = ()
    checks: tuple[GradCheck, ...] = ()
    inputs: tuple[str, ...] = ()  # the symbol each input goes by in ``rule`` and ``numbers``


_FUNCTION_PLACEHOLDERS = ("u", "v", "w", "s", "t", "p", "q", "h")
_CONSTANT_PLACEHOLDERS = ("c", "k", "m", "n")


def _inputs(node: GraphNode, graph: Graph, flow: NodeFlow | None) -> list[GraphNode | None]:
    """The node feeding each input of ``node``, in ``next_functions`` order."""
    by_index = {
        e.input_index: e.source
        for e in graph.edges
        if e.target == node.key and e.kind in ("data", "constant") and e.input_index is not None
    }
    count = max([len(flow.leaving) if flow is not None else 0, *(i + 1 for i in by_index)])
    keys = {n.key: n for n in graph.nodes}
    return [keys.get(by_index[i]) if i in by_index else None for i in range(count)]


def _scalar_text(t: TensorData | None) -> str | None:
    if t is None or t.shape != () or isinstance(t.values, list) or t.values is None:
        return None
    return num(t.values)


def _symbols(
    sources: Sequence[GraphNode | None], graph: Graph
) -> tuple[tuple[str, ...], list[str]]:
    """A short symbol per input (the user's name where there is one) and notes on the rest."""
    taken = {n.var for n in graph.nodes if n.var} | {"g"}
    pools = {
        kind: [p for p in names if p not in taken]
        for kind, names in (
            ("function", _FUNCTION_PLACEHOLDERS),
            ("constant", _CONSTANT_PLACEHOLDERS),
        )
    }
    syms: list[str] = []
    notes: list[str] = []
    for source in sources:
        if source is not None and source.var and source.var.isidentifier():
            syms.append(source.var)
            continue
        if source is not None and source.kind == "constant":
            number = _scalar_text(source.value)
            if number is not None:
                syms.append(number)
                continue
        kind = "constant" if source is not None and source.kind == "constant" else "function"
        sym = pools[kind].pop(0) if pools[kind] else f"in{len(syms)}"
        syms.append(sym)
        notes.append(f"{sym} is {_source_text(source)}.")
    for sym in dict.fromkeys(s for s in syms if syms.count(s) > 1):
        notes.append(f"{sym} feeds this node twice: both gradients are added up in {sym}'s.")
    return tuple(syms), notes


def _source_text(source: GraphNode | None) -> str:
    if source is None:
        return "an input outside the drawn graph"
    if source.kind == "constant":
        if source.value is None:
            return "a constant (a plain number torch did not keep)"
        return f"the constant {text(source.value)}"
    if source.kind == "leaf":
        return "a leaf tensor"
    if source.var:
        return f"one of {source.var}, the outputs of {source.name}"
    if source.output_count > 1:
        return f"one of the {source.output_count} outputs of {source.name}"
    return f"the result of {source.name}"


def _context(node: GraphNode, flow: NodeFlow | None, graph: Graph) -> tuple[Ctx, list[str]]:
    sources = _inputs(node, graph, flow)
    syms, notes = _symbols(sources, graph)
    leaving = flow.leaving if flow is not None else ()
    needs: list[bool] = []
    shapes: list[Shape | None] = []
    for i, source in enumerate(sources):
        torch_grad = leaving[i] if i < len(leaving) else None
        needs.append(torch_grad is not None if flow is not None else _needs_grad(source))
        if torch_grad is not None:
            shapes.append(torch_grad.shape)
        else:
            shapes.append(source.value.shape if source and source.value else None)
    g_sym = "g" if "g" not in syms else "g_out"
    saved = {s.name: s for s in node.saved}
    ctx = Ctx(node, flow, saved, syms, tuple(needs), tuple(shapes), g_sym)
    return ctx, notes


def _needs_grad(source: GraphNode | None) -> bool:
    return source is not None and source.kind != "constant"


def _fill(term: Term, numbers: bool) -> str:
    if not numbers:
        return term.template.format(**{k: sym for k, (sym, _) in term.slots.items()})
    return term.template.format(**{k: _operand(v) for k, (_, v) in term.slots.items()})


def _operand(v: object) -> str:
    written = text(v)
    # "1. · -2." reads as a typo; "1. · (-2.)" does not.
    return f"({written})" if written.startswith("-") else written


def _grad_name(sym: str) -> str:
    return f"grad_{sym}" if sym.isidentifier() else f"grad({sym})"


def _numbers(ctx: Ctx, rule: Rule) -> tuple[str, tuple[GradCheck, ...]]:
    flow = ctx.flow
    if flow is None:
        return NO_STEP_TEXT, ()
    if len(flow.arriving) == 1:
        lines = [f"{ctx.g_sym} = {text(flow.arriving[0])}"]
    else:
        lines = [
            f"{ctx.g_sym}{str(i).translate(SUBSCRIPT)} = {text(t)}"
            for i, t in enumerate(flow.arriving)
        ]
    checks = []
    for i, term in enumerate(rule.terms):
        sym = ctx.syms[i]
        torch_grad = flow.leaving[i] if i < len(flow.leaving) else None
        if term is None or torch_grad is None:
            lines.append(f"{sym}: no gradient (it does not require grad)")
            continue
        head = f"{_grad_name(sym)} = "
        pad = " " * (len(head) - 2)
        plugged, final = _fill(term, numbers=True), text(torch_grad)
        lines.append(head + _fill(term, numbers=False))
        known = all(v is not None for _, v in term.slots.values())
        if known and plugged != final:
            lines.append(pad + "= " + plugged)
        matches = None if term.value is None else agrees(term.value, torch_grad)
        lines.append(pad + "= " + final + ("   (torch's own result)" if matches is False else ""))
        recomputed = None if term.value is None else term.value.nested()
        checks.append(GradCheck(i, sym, recomputed, torch_grad, matches))
    return "\n".join(lines), tuple(checks)


def _partials(rule: Rule, ctx: Ctx) -> str:
    if isinstance(rule.partials, str):
        return rule.partials
    wanted = [p for p, needed in zip(rule.partials, ctx.needs, strict=False) if needed]
    return ", ".join(wanted or rule.partials)


def _saved_rows(node: GraphNode) -> tuple[tuple[str, str], ...]:
    rows = []
    for s in node.saved:
        if "stride" in s.name or (
            s.value is None and s.tensor is None and not s.freed and not s.recomputed
        ):
            continue  # memory layout, or nothing saved (not needed for this backward)
        if s.recomputed:
            shown = (
                "not kept: made inside torch.utils.checkpoint, so backward() runs the "
                "checkpointed block again to get it"
            )
        elif s.freed:
            shown = "freed by an earlier backward (pass retain_graph=True to keep it)"
        elif s.tensor is not None:
            shown = text(s.tensor) + (f"   (this is {s.refers_to})" if s.refers_to else "")
        elif isinstance(s.value, list):
            shown = str(s.value)
        else:
            shown = text(s.value)
        rows.append((s.name, shown))
    return tuple(rows)


def describe(
    node: GraphNode, flow: NodeFlow | None, graph: Graph, step: StepRecord | None = None
) -> NodeDescription:
    """What ``node`` does in the backward pass, with ``flow``'s numbers plugged in.

    Parameters
    ----------
    node
        The selected node (any kind: function, leaf, constant, saved, output).
    flow
        What the shown backward step saw at ``node`` (``None``: no step reached it).
    graph
        The graph ``node`` belongs to (for its inputs' names and its owner).
    step
        The shown step, for a leaf's ``.grad`` before and after and the output's seed.

    Returns
    -------
    NodeDescription
        Plain text; every final ``= ...`` of ``numbers`` is torch's own gradient.
    """
    if node.kind == "leaf":
        return _describe_leaf(node, flow, step)
    if node.kind == "output":
        return _describe_output(node, step)
    if node.kind in ("constant", "saved"):
        return _describe_owned(node, graph)
    ctx, notes = _context(node, flow, graph)
    rule = rule_for(ctx)
    forward = (
        f"{node.var} = {rule.forward}" if node.var and node.var.isidentifier() else rule.forward
    )
    equations = [
        f"{_grad_name(ctx.syms[i])} = {_fill(t, False)}" for i, t in enumerate(rule.terms) if t
    ]
    numbers, checks = _numbers(ctx, rule)
    if flow is None and step is not None and step.error is not None:
        numbers = FAILED_STEP_TEXT
    what = (
        f"A function node. {rule.what} Backward takes {ctx.g_sym}, the gradient arriving from "
        f"the output's side, and sends each input {ctx.g_sym} times the local derivative."
    )
    return NodeDescription(
        title=f"{node.name} — backward of `{forward}`",
        what=" ".join([what, *notes]),
        rule=_partials(rule, ctx) + ("  →  " + ", ".join(equations) if equations else ""),
        numbers=numbers,
        saved=_saved_rows(node),
        checks=checks,
        inputs=ctx.syms,
    )


def _describe_leaf(
    node: GraphNode, flow: NodeFlow | None, step: StepRecord | None
) -> NodeDescription:
    x = node.var or node.label
    arriving = flow.arriving[0] if flow is not None and flow.arriving else None
    numbers = NO_STEP_TEXT if arriving is None else f"g = {text(arriving)}"
    if arriving is None and step is not None and step.error is not None:
        numbers = FAILED_STEP_TEXT
    if arriving is not None and step is not None and x in step.grads_after:
        before, after = step.grads_before.get(x), step.grads_after[x]
        pad = " " * (len(x) + 6)
        numbers += (
            f"\n{x}.grad = {x}.grad + g"
            f"\n{pad}= {'None' if before is None else text(before)} + {text(arriving)}"
            + ("   (None counts as 0)" if before is None else "")
            + f"\n{pad}= {text(after)}"
        )
    return NodeDescription(
        title=f"{x} — leaf tensor (AccumulateGrad)",
        what=(
            f"{x} is a leaf: a tensor you made with requires_grad=True, not computed from others. "
            f"Its AccumulateGrad node adds every gradient that arrives into {x}.grad, so "
            "backward calls pile up until you zero the gradient."
        ),
        rule=f"{x}.grad ← {x}.grad + g   (while {x}.grad is None it counts as 0)",
        numbers=numbers,
    )


def _describe_output(node: GraphNode, step: StepRecord | None) -> NodeDescription:
    z = node.label
    if step is None:
        numbers = NO_STEP_TEXT
    elif step.gradient is None and step.error is not None:
        # e.g. "grad can be implicitly created only for scalar outputs"
        numbers = f"v: none given, and torch could not use the implicit 1: {step.error.message}"
    elif step.gradient is None:
        numbers = f"v = 1   (implicit: {z}.backward() on a scalar is {z}.backward(1))"
    else:
        numbers = f"v = {text(step.gradient)}"
    return NodeDescription(
        title=f"{z} — the output",
        what=(
            f"The tensor backward() starts from. {z}.backward(v) seeds the pass with v: how much "
            f"each element of {z} matters (for a scalar the implicit v is 1)."
        ),
        rule=f"∂{z}/∂{z} = 1  →  the pass starts with g = v",
        numbers=numbers,
    )


def _describe_owned(node: GraphNode, graph: Graph) -> NodeDescription:
    owner = next((n for n in graph.nodes if n.key == node.owner), None)
    owner_name = owner.name if owner is not None else "its function"
    if node.value is not None:
        value = text(node.value)
    elif node.kind == "constant":
        value = "not kept by torch (a plain number its backward does not need)"
    else:
        value = "freed by an earlier backward (pass retain_graph=True to keep it)"
    if node.kind == "constant":
        what = (
            f"An input of {owner_name} that does not require grad (a number or a tensor made "
            "without requires_grad), so no gradient is computed for it."
        )
        name = node.var or _scalar_text(node.value)
        title = (
            f"constant {name} — input of {owner_name}"
            if name
            else f"constant — input of {owner_name}"
        )
    else:
        what = (
            f"{owner_name} saved this tensor during the forward pass because its backward "
            "formula needs it" + (f"; it is your {node.var}." if node.var else ".")
        )
        title = f"saved {node.label} — kept by {owner_name}"
    return NodeDescription(title=title, what=what, rule="", numbers=f"value = {value}")
