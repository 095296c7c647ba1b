"""What the node details pane shows: the selected graph node and this step's numbers, as HTML.

For the node the session has selected: its title and a plain sentence on what it is; then
first its local derivative rule and that rule with this call's numbers plugged in (see
:mod:`gui.model.explain.local_rules`, which also guarantees every final number is torch's
own), the point of clicking a box; then its value and the gradients arriving at and
leaving it (each with a swatch on the shared diverging scale, so they match the graph's
colours), for a leaf its ``.grad`` and what the shown backward call added. What only a
curious reader needs, torch's internal names for what the node saved
(``self_sym_numel``...) and torch's raw warning text, waits behind a "details" link
(:data:`DETAILS_LINK`). With no node selected, a hint and the lesson's own notes.
"""

from __future__ import annotations

import html
import re

from gui.model.drawing.collapse import group_flow
from gui.model.drawing.colors import tensor_color
from gui.model.drawing.gradient_maps import node_gradient
from gui.model.explain.local_rules import (
    DETAIL_MAX_ELEMENTS,
    NodeDescription,
    describe,
    step_contribution,
)
from gui.model.result import Graph, GraphNode, NestedValues, NodeFlow, StepRecord, TensorData
from gui.model.session import Snapshot
from gui.model.tensor_format import format_shape, format_tensor
from gui.model.views.lesson_text import markdown_html, prompts_html
from gui.model.views.memory import saved_bytes_text

EMPTY_TEXT = "Click a node in the graph to see what it does"
# The link that shows or hides the details (its href; the pane toggles on it).
DETAILS_LINK = "details"
SHOW_DETAILS = "▸ Show details: what torch saved, in its own names"
HIDE_DETAILS = "▾ Hide details"
MUTED = "#606060"
HEADING = "#303030"
_CODE_SPAN = re.compile(r"`([^`]+)`")


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def _swatch(t: TensorData | None, scale: float) -> str:
    """A small block in the colour the graph gives ``t`` (nothing for no numbers)."""
    color = tensor_color(t, scale)
    if color is None:
        return ""
    # Non-breaking spaces on a coloured background: Qt rich text has no inline boxes.
    return (
        f'<span style="background-color:{color}; color:{color}">&nbsp;&nbsp;&nbsp;&nbsp;</span>'
        "&nbsp;"
    )


def empty_page(snapshot: Snapshot) -> str:
    """The hint to click a node, then the lesson's own notes: what to try and what to see."""
    page = f'<p style="color:{MUTED}" align="center">{html.escape(EMPTY_TEXT)}</p>'
    if snapshot.notes:
        title = html.escape(snapshot.title or "About this session")
        page += (
            f'<p style="margin:12px 0 4px 0; color:{HEADING}"><b>{title}</b></p>'
            f"{markdown_html(snapshot.notes)}"
        )
    # A lesson's "Try this" prompts, with its notes (lesson_text renders both safely).
    return page + prompts_html(snapshot.state.document.lesson.prompts)


class _Html:
    """Builds the pane's HTML piece by piece (one place decides the markup)."""

    def __init__(self, mono: str, scale: float) -> None:
        self.mono = html.escape(mono, quote=True)
        self.scale = scale
        self.parts: list[str] = []
        self.rows: list[str] = []

    def code(self, text: str, escaped: bool = False) -> str:
        """``text`` in the monospace font (``escaped``: it is HTML already)."""
        body = text if escaped else _escape(text)
        return f"<span style=\"font-family:'{self.mono}'\">{body}</span>"

    def paragraph(self, text: str, style: str = "") -> None:
        self.flush_rows()
        # Escaped once, then the `code` spans marked up (escaping them again showed a
        # name like `d.<w>` as "d.&lt;w&gt;").
        body = _CODE_SPAN.sub(lambda m: self.code(m.group(1), escaped=True), _escape(text))
        self.parts.append(f'<p style="margin:0 0 6px 0; {style}">{body}</p>')

    def heading(self, text: str) -> None:
        self.flush_rows()
        self.parts.append(
            f'<p style="margin:10px 0 2px 0; color:{HEADING}"><b>{_escape(text)}</b></p>'
        )

    def row(
        self, label: str, t: TensorData | None, text: str | None = None, swatch: bool = True
    ) -> None:
        shown = text if text is not None else format_tensor(t, DETAIL_MAX_ELEMENTS)
        mark = _swatch(t, self.scale) if swatch else ""
        self.rows.append(
            f'<tr><td style="color:{MUTED}; padding-right:8px">{_escape(label)}</td>'
            f"<td>{mark}{self.code(shown)}</td></tr>"
        )

    def flush_rows(self) -> None:
        if self.rows:
            self.parts.append(
                '<table cellspacing="0" cellpadding="1">' + "".join(self.rows) + "</table>"
            )
            self.rows = []

    def link(self, href: str, text: str) -> None:
        self.flush_rows()
        self.parts.append(
            f'<p style="margin:10px 0 2px 0"><a href="{html.escape(href)}">{_escape(text)}</a></p>'
        )

    def block(self, text: str) -> None:
        """Monospace text that keeps its line breaks and alignment but still wraps."""
        self.flush_rows()
        self.parts.append(
            f"<p style=\"margin:0 0 4px 0; white-space:pre-wrap; font-family:'{self.mono}'\">"
            f"{_escape(text)}</p>"
        )

    def result(self) -> str:
        self.flush_rows()
        return "".join(self.parts)


def _flow_for(node: GraphNode, step: StepRecord | None) -> NodeFlow | None:
    if step is None or node.kind not in ("function", "leaf"):
        return None
    return step.flows.get(node.key)


def _input_names(node: GraphNode, graph: Graph, description: NodeDescription) -> list[str]:
    names = list(description.inputs)
    sources = {e.input_index: e.source for e in graph.edges if e.target == node.key}
    labels = {n.key: n.label for n in graph.nodes}
    return [
        names[i] if i < len(names) else labels.get(sources.get(i, ""), f"input {i}")
        for i in range(max(len(names), len(sources)))
    ]


def _contribution(step: StepRecord | None, leaf: str) -> TensorData | None:
    if step is None:
        return None
    added: NestedValues | None = step_contribution(step, leaf)
    after = step.grads_after.get(leaf)
    if added is None or after is None:
        return None
    return TensorData(after.shape, after.dtype, added)


def _gradient_rows(out: _Html, node: GraphNode, snapshot: Snapshot, flow: NodeFlow | None,
                   description: NodeDescription, warnings: list[str]) -> None:  # fmt: skip
    step = snapshot.graph_step
    graph = snapshot.graph
    if node.kind == "output":
        out.row("seed v (gradient in)", node_gradient(node, step, snapshot.leaf_grads))
        return
    if node.kind == "leaf":
        name = node.var or node.label
        if flow is not None and flow.arriving:
            out.row("gradient arriving", flow.arriving[0])
        paint = snapshot.paint
        if snapshot.replay_state is not None and paint is not None:
            # Part-way through a step-through: .grad as it is at this point of the call,
            # and nothing added yet until its AccumulateGrad has run.
            out.row(f"{name}.grad at this point", paint.nodes.get(node.key))
            if flow is None:
                return
        else:
            out.row(f"{name}.grad now", snapshot.leaf_grads.get(name))
        added = _contribution(step, name)
        if added is not None:
            out.row("added by this call", added)
        return
    if flow is None or graph is None:
        _stored_grad(out, node, snapshot, warnings)
        return
    for i, t in enumerate(flow.arriving):
        out.row("gradient arriving" + (f" [{i}]" if len(flow.arriving) > 1 else ""), t)
    for name, t in zip(_input_names(node, graph, description), flow.leaving, strict=False):
        if t is None:
            out.row(f"leaving → {name}", None, "none (needs no gradient)", swatch=False)
        else:
            out.row(f"leaving → {name}", t)
    _stored_grad(out, node, snapshot, warnings)


def _stored_grad(
    out: _Html, node: GraphNode, snapshot: Snapshot, warnings: list[str] | None = None
) -> None:
    """What ``y.grad`` holds for a named intermediate: the classic "why is y.grad None?".
    torch's own warning about it goes to ``warnings`` (shown with the details)."""
    info = (
        None
        if snapshot.result is None or node.var is None
        else snapshot.result.tensors.get(node.var)
    )
    if info is None or info.is_leaf:
        return
    name = info.name
    if info.grad is not None:
        out.row(f"{name}.grad (kept by retain_grad)", info.grad)
        return
    out.row(f"{name}.grad", None, "None", swatch=False)
    out.paragraph(
        f"`{name}` is not a leaf: autograd passes the gradient through it (arriving above) "
        f"but stores `.grad` only on leaves. To keep it, tick `{name}` under "
        "retain_grad on the Backward tab (`" + name + ".retain_grad()`)."
    )
    if info.grad_warning is not None and warnings is not None:
        warnings.append(info.grad_warning.message)


def step_note(snapshot: Snapshot) -> str | None:
    """Which backward call the numbers come from (``None`` when none is shown)."""
    steps = () if snapshot.result is None else snapshot.result.steps
    step = snapshot.graph_step
    if step is None:
        return None
    where = f" (line {step.line} of your code)" if step.source == "code" and step.line else ""
    note = f"Numbers from backward call {step.index + 1} of {len(steps)}{where}."
    if step.details_dropped:
        note += " This call kept only the leaves' gradients (a long loop)."
    return note


def details_html(node: GraphNode, snapshot: Snapshot, mono: str, details: bool = False) -> str:
    """The pane's HTML for ``node`` in ``snapshot`` (``mono``: the monospace font family).

    The local rule and this call's numbers come first; ``details`` adds what the node saved
    under torch's own names and torch's raw warning text, behind the :data:`DETAILS_LINK`
    link that shows or hides them.
    """
    if node.kind == "group":
        return group_html(node, snapshot, mono)
    graph = snapshot.graph
    assert graph is not None
    # The step whose flows belong to this graph: a backward the code made on another
    # tensor has other nodes under the same keys.
    step = snapshot.graph_step
    flow = _flow_for(node, step)
    description = describe(node, flow, graph, step)
    paint = snapshot.paint
    out = _Html(mono, paint.scale if paint is not None else 1.0)
    # "MulBackward0 — backward of `y = x * 2`": the name big, the expression below it, so a
    # narrow pane never breaks the expression mid-way through the heading.
    name, _, subtitle = description.title.partition(" — ")
    out.paragraph(name, "font-size:large; font-weight:bold; margin-bottom:0")
    if subtitle:
        out.paragraph(subtitle)
    out.paragraph(description.what)
    if description.rule:
        out.heading("Local rule")
        out.block(description.rule)
    if description.numbers:
        out.heading("With this call's numbers")
        note = step_note(snapshot)
        if note is not None and node.kind in ("function", "leaf"):
            out.paragraph(note, f"color:{MUTED}")
        out.block(description.numbers)
    if node.value is not None or node.kind in ("function", "leaf", "output"):
        out.heading("Values")
    if node.value is not None:
        out.row("value", node.value, swatch=False)
        out.row("shape", None, format_shape(node.value.shape), swatch=False)
    kept = saved_bytes_text(node)
    if kept is not None:  # what this node keeps in memory until backward() frees the graph
        out.row("saved for backward", None, kept, swatch=False)
    warnings: list[str] = []
    _gradient_rows(out, node, snapshot, flow, description, warnings)
    if description.saved or warnings:
        out.link(DETAILS_LINK, HIDE_DETAILS if details else SHOW_DETAILS)
    if details and description.saved:
        out.heading("Saved for backward (torch's names)")
        for saved_name, text in description.saved:
            out.row(saved_name, None, text, swatch=False)
    if details:
        for message in warnings:
            out.paragraph(f"torch warns: {message}", f"color:{MUTED}")
    return out.result()


def selected_node(snapshot: Snapshot) -> GraphNode | None:
    """The graph node the session has selected (``None``: none, or not in this graph); a
    collapsed module's box is one too."""
    graph = snapshot.graph
    if graph is None or snapshot.selected_node is None:
        return None
    grouping = snapshot.grouping
    if grouping is not None and snapshot.selected_node in grouping.groups:
        # As drawn: with this result's value at the module's output.
        drawn = (n for n in grouping.graph.nodes if n.key == snapshot.selected_node)
        return next(drawn, grouping.groups[snapshot.selected_node].node)
    return next((n for n in graph.nodes if n.key == snapshot.selected_node), None)


def group_html(node: GraphNode, snapshot: Snapshot, mono: str) -> str:
    """The pane for a collapsed module's box: what it stands for, and the gradients that
    cross its boundary in the shown call (those its edges carry)."""
    grouping, graph = snapshot.grouping, snapshot.graph
    assert grouping is not None and graph is not None
    box = grouping.groups[node.key]
    paint = snapshot.paint
    out = _Html(mono, paint.scale if paint is not None else 1.0)
    out.paragraph(f"Module {node.label}", "font-size:large; font-weight:bold; margin-bottom:0")
    out.paragraph(node.name)
    by_key = {n.key: n for n in graph.nodes}
    members = [by_key[k] for k in box.members]
    functions = sum(n.kind == "function" for n in members)
    leaves = [n for n in members if n.kind == "leaf"]
    out.paragraph(
        f"{functions} backward function{'s' * (functions != 1)} and {len(leaves)} "
        f"parameter{'s' * (len(leaves) != 1)} drawn as one box. Double-click it (or select "
        "it and press Enter) to open it; right-click any box to collapse its module."
    )
    if node.value is not None:
        out.heading("Values")
        out.row("value at its output", node.value, swatch=False)
        out.row("shape", None, format_shape(node.value.shape), swatch=False)
    step = snapshot.graph_step
    flow = None if step is None else group_flow(box, step.flows)
    if flow is not None:
        out.heading("Gradients at its boundary (this call)")
        for member, grad in zip(box.outputs, flow.arriving, strict=False):
            out.row(f"grad in at {by_key[member].label}", grad)
        for (member, _index), grad in zip(box.inputs, flow.leaving, strict=False):
            out.row(f"grad out of {by_key[member].label}", grad)
    if leaves:
        out.heading("Parameters")
        for leaf in leaves:
            name = leaf.var or leaf.label
            out.row(f"{name}.grad", snapshot.leaf_grads.get(name))
    return out.result()
