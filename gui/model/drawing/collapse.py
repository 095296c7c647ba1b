"""Modules drawn as one box each: a graph with its collapsed modules folded into groups.

:func:`group_view` takes a graph, its module tree (:mod:`.groups`) and which modules the
user collapsed, and gives the graph the window draws: each collapsed module is one node
of kind ``"group"`` (its key :data:`GROUP_PREFIX` + path), edges inside it are gone, and
edges crossing its boundary are rerouted to it. A rerouted edge carries exactly the
gradient of the edge it stands for: edges leaving a group keep their target and input
index (the target's own ``leaving`` tuple holds their gradient); edges entering one get an
``input_index`` into the group's synthetic ``leaving`` tuple (:meth:`Grouping.step`), which
lists the gradients of those edges in order. A group's ``arriving`` is what arrived at its
output nodes, so its box shows the gradient at its output as a function's box does.

The structure key of the drawn graph covers the collapse set, so layouts (cached by key)
differ per set and a slider tick on the same set moves nothing.
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from dataclasses import dataclass, replace

from gui.model.drawing.groups import ModuleTree, cached_module_tree, op_summary
from gui.model.drawing.module_paths import Path, module_of_name, path_text
from gui.model.result import (
    Graph,
    GraphEdge,
    GraphNode,
    NodeFlow,
    RunResult,
    StepRecord,
    TensorData,
)

_log = logging.getLogger(__name__)

GROUP_PREFIX = "group:"
# A graph with more function nodes than this opens with its modules collapsed: past a few
# hundred boxes a learner cannot follow edges, and dot's layout time grows fast.
BIG_GRAPH_FUNCTIONS = 300
# How many boxes the automatic collapse aims for at most (the deepest level that fits):
# about what fits readable on a 1280x720 projector after a zoom or two.
READABLE_BOXES = 150


def group_key(path: Path) -> str:
    """The drawn graph's key of the box standing for module ``path``."""
    return GROUP_PREFIX + "\x1f".join(path)


@dataclass(frozen=True)
class GroupChoice:
    """Which modules the user collapsed, and the module set they chose it for.

    ``modules`` is ``None`` for the automatic choice (:func:`default_collapsed`): a new
    structure with other modules also goes back to it (a choice made for ``model.0`` means
    nothing for another model), while a slider tick or an edit keeping the modules keeps it.
    """

    collapsed: frozenset[Path] = frozenset()
    modules: tuple[Path, ...] | None = None


AUTOMATIC = GroupChoice()


@dataclass(frozen=True)
class GroupBox:
    """One collapsed module: its members, and the edges its box stands for.

    ``outputs`` are the members whose result leaves the module (their arriving gradients
    make the group's); ``inputs`` are ``(member, input_index)`` per edge entering it, in the
    order of the group's synthetic ``leaving`` tuple.
    """

    path: Path
    node: GraphNode
    members: tuple[str, ...]
    outputs: tuple[str, ...]
    inputs: tuple[tuple[str, int | None], ...]


@dataclass(frozen=True)
class _Plan:
    groups: dict[str, GroupBox]
    hidden: dict[str, str]
    order: tuple[str, ...]
    edges: tuple[GraphEdge, ...]
    root: str | None
    structure_key: str


@dataclass(frozen=True)
class Grouping:
    """The graph as drawn with ``collapsed`` modules folded (``graph``), with what the
    window needs to map between it and the full graph."""

    tree: ModuleTree
    choice: GroupChoice
    collapsed: frozenset[Path]
    graph: Graph
    groups: dict[str, GroupBox]
    hidden: dict[str, str]

    def shown_key(self, key: str | None) -> str | None:
        """The drawn box of node ``key``: its group's while it is hidden in one."""
        if key is None:
            return None
        return self.hidden.get(key, key)

    def hiding(self, key: str) -> list[Path]:
        """The collapsed modules that hide node ``key`` (outermost first): expanding all
        of them shows it."""
        path = self.tree.module.get(key)
        if path is None or key not in self.hidden:
            return []
        return [path[:n] for n in range(1, len(path) + 1) if path[:n] in self.collapsed]

    def step(self, step: StepRecord | None) -> StepRecord | None:
        """``step`` with a flow for each group box (see the module docstring)."""
        if step is None or not self.groups or not step.flows:
            return step
        flows = dict(step.flows)
        for key, box in self.groups.items():
            flow = group_flow(box, step.flows)
            if flow is not None:
                flows[key] = flow
        return replace(step, flows=flows)

    def result(self, result: RunResult) -> RunResult:
        """``result`` with its graph as drawn, and the steps run on it with the groups'
        flows (for pictures of what the window shows: the exports' SVG and DOT)."""
        if not self.groups or result.graph is None:
            return result
        full = result.graph.structure_key
        steps = tuple(
            self._drawn_step(s) if s.graph is not None and s.graph.structure_key == full else s
            for s in result.steps
        )
        return replace(result, graph=self.graph, steps=steps)

    def _drawn_step(self, step: StepRecord) -> StepRecord:
        with_groups = self.step(step)
        flows = step.flows if with_groups is None else with_groups.flows
        return replace(step, graph=self.graph, flows=flows)


def group_flow(box: GroupBox, flows: dict[str, NodeFlow]) -> NodeFlow | None:
    """The gradients at a group's boundary in one backward call (``None``: it did not run)."""
    ran = [flows[m] for m in box.members if m in flows]
    if not ran:
        return None
    arriving: list[TensorData | None] = []
    for member in box.outputs:
        flow = flows.get(member)
        arriving.extend(flow.arriving if flow is not None else (None,))
    leaving: list[TensorData | None] = []
    for member, index in box.inputs:
        flow = flows.get(member)
        ok = flow is not None and index is not None and index < len(flow.leaving)
        leaving.append(
            flow.leaving[index] if ok and flow is not None and index is not None else None
        )
    return NodeFlow(tuple(arriving), tuple(leaving), min(f.order for f in ran))


def _outermost(path: Path, collapsed: frozenset[Path]) -> Path | None:
    for n in range(1, len(path) + 1):
        if path[:n] in collapsed:
            return path[:n]
    return None


def _summary(tree: ModuleTree, path: Path, members: list[GraphNode]) -> str:
    count = sum(n.kind in ("function", "leaf") for n in members)
    text = f"{op_summary(members)} · {count} nodes"
    alike = tree.repeats.get(path)
    if alike is None:
        return text
    last = [p[-1] for p in alike]
    parent = path_text(path[:-1])
    prefix = f"{parent}." if parent else ""
    if all(x.isdigit() and len(x) < 18 for x in last) and [int(x) for x in last] == list(
        range(int(last[0]), int(last[0]) + len(last))
    ):
        return f"{text} · same as {prefix}{last[0]}–{last[-1]}"
    return f"{text} · {len(alike)} alike"


def _plan(graph: Graph, tree: ModuleTree, collapsed: frozenset[Path]) -> _Plan:
    hidden: dict[str, str] = {}
    members: dict[str, list[GraphNode]] = {}
    paths: dict[str, Path] = {}
    order: list[str] = []
    for node in graph.nodes:
        path = tree.module.get(node.key)
        top = _outermost(path, collapsed) if path is not None else None
        if top is None:
            order.append(node.key)
            continue
        key = group_key(top)
        hidden[node.key] = key
        if key not in members:
            members[key], paths[key] = [], top
            order.append(key)
        members[key].append(node)
    outputs: dict[str, dict[str, None]] = {k: {} for k in members}
    inputs: dict[str, list[tuple[str, int | None]]] = {k: [] for k in members}
    edges: list[GraphEdge] = []
    for edge in graph.edges:
        source = hidden.get(edge.source, edge.source)
        target = hidden.get(edge.target, edge.target)
        if source == target:
            continue
        if source != edge.source:
            outputs[source].setdefault(edge.source, None)
        if target != edge.target:
            inputs[target].append((edge.target, edge.input_index))
            edge = GraphEdge(source, target, edge.kind, len(inputs[target]) - 1)
        elif source != edge.source:
            edge = replace(edge, source=source)
        edges.append(edge)
    groups = {}
    for key, nodes in members.items():
        outs = tuple(outputs[key])
        count = sum(_outputs_of(n) for n in nodes if n.key in outputs[key])
        node = GraphNode(
            key,
            _summary(tree, paths[key], nodes),
            path_text(paths[key]),
            "group",
            output_count=max(count, 1),
        )
        groups[key] = GroupBox(
            paths[key], node, tuple(n.key for n in nodes), outs, tuple(inputs[key])
        )
    digest = hashlib.sha1(
        "\n".join(sorted(map(group_key, paths.values()))).encode("utf-8", "surrogatepass")
    ).hexdigest()
    root = None if graph.root is None else hidden.get(graph.root, graph.root)
    return _Plan(
        groups, hidden, tuple(order), tuple(edges), root, f"{graph.structure_key}+g{digest[:16]}"
    )


def _outputs_of(node: GraphNode) -> int:
    return node.output_count if node.kind == "function" else 1


_PLANS: OrderedDict[tuple[str, frozenset[Path]], _Plan] = OrderedDict()
_PLANS_KEPT = 8


def _cached_plan(graph: Graph, tree: ModuleTree, collapsed: frozenset[Path]) -> _Plan:
    key = (graph.structure_key, collapsed)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan(graph, tree, collapsed)
        _PLANS[key] = plan
        while len(_PLANS) > _PLANS_KEPT:
            _PLANS.popitem(last=False)
    return plan


def collapse(graph: Graph, tree: ModuleTree, collapsed: frozenset[Path]) -> Grouping:
    """``graph`` drawn with the modules in ``collapsed`` folded (paths not in the tree are
    ignored; a module inside a collapsed one is hidden in it, and comes back collapsed or
    not as it was when its parent is expanded)."""
    wanted = frozenset(p for p in collapsed if p in set(tree.paths))
    if not wanted:
        return Grouping(tree, GroupChoice(wanted, tree.paths), wanted, graph, {}, {})
    plan = _cached_plan(graph, tree, wanted)
    by_key = {n.key: n for n in graph.nodes}
    nodes = tuple(
        _with_value(plan.groups[k], by_key) if k in plan.groups else by_key[k] for k in plan.order
    )
    drawn = Graph(nodes, plan.edges, plan.root, plan.structure_key, graph.truncated)
    return Grouping(tree, GroupChoice(wanted, tree.paths), wanted, drawn, plan.groups, plan.hidden)


def _with_value(box: GroupBox, by_key: dict[str, GraphNode]) -> GraphNode:
    """A module's box with its output's value (this result's numbers): the value's shape
    sizes the box's gradient line and its element cells, as a function's box."""
    if len(box.outputs) != 1:
        return box.node
    value = by_key[box.outputs[0]].value
    return box.node if value is None else replace(box.node, value=value)


def depth_collapsed(tree: ModuleTree, depth: int) -> frozenset[Path]:
    """Collapse to ``depth``: every module that deep, and shallower ones with no module
    inside (a top-level ``fc1`` beside ``encoder.layers``)."""
    parents = {p[:-1] for p in tree.paths}
    return frozenset(
        p for p in tree.paths if len(p) == depth or (len(p) < depth and p not in parents)
    )


def box_count(graph: Graph, tree: ModuleTree, depth: int) -> int:
    """How many boxes (saved tensors aside) :func:`depth_collapsed` at ``depth`` draws."""
    if depth <= 0:
        return sum(n.kind != "saved" for n in graph.nodes)
    parents = {p[:-1] for p in tree.paths}
    groups: set[Path] = set()
    loose = 0
    for node in graph.nodes:
        path = tree.module.get(node.key)
        if path is not None and len(path) >= depth:
            groups.add(path[:depth])
        elif path is not None and path not in parents:
            groups.add(path)
        elif node.kind != "saved":
            loose += 1
    return loose + len(groups)


_DEFAULTS: OrderedDict[str, frozenset[Path]] = OrderedDict()


def default_collapsed(graph: Graph, tree: ModuleTree) -> frozenset[Path]:
    """Nothing for a graph small enough to read; for a big one the deepest level that
    leaves at most :data:`READABLE_BOXES` boxes (the shallowest when none does).
    Remembered by structure: a slider tick does not count boxes again."""
    known = _DEFAULTS.get(graph.structure_key)
    if known is None:
        known = _DEFAULTS[graph.structure_key] = _default(graph, tree)
        while len(_DEFAULTS) > _PLANS_KEPT:
            _DEFAULTS.popitem(last=False)
    return known


def _default(graph: Graph, tree: ModuleTree) -> frozenset[Path]:
    functions = sum(n.kind == "function" for n in graph.nodes)
    # A loop's steps are a guess from the structure: offered in the menus, never imposed.
    if functions <= BIG_GRAPH_FUNCTIONS or not tree.paths or tree.loop:
        return frozenset()
    for depth in range(tree.depth, 0, -1):
        if box_count(graph, tree, depth) <= READABLE_BOXES:
            return depth_collapsed(tree, depth)
    return depth_collapsed(tree, 1)


def group_view(graph: Graph | None, choice: GroupChoice = AUTOMATIC) -> Grouping | None:
    """The graph to draw for ``choice`` (``None``: no graph, or one without modules)."""
    if graph is None or not graph.nodes:
        return None
    tree = cached_module_tree(graph)
    if not tree.paths:
        return None
    if choice.modules is not None and choice.modules == tree.paths:
        collapsed = choice.collapsed
    else:
        collapsed = default_collapsed(graph, tree)
    return replace(collapse(graph, tree, collapsed), choice=choice)


def draws_whole(graph: Graph | None, choice: GroupChoice) -> bool:
    """Whether :func:`group_view` surely draws ``graph`` as it is, known without its module
    tree (a 5,000-function graph's took 0.1 s): nothing is collapsed by choice, and no leaf
    names a module (``model.0.weight``), so the automatic choice folds nothing either (the
    steps of a loop are offered, never imposed). ``False``: it may fold something."""
    if graph is None or choice.collapsed:
        return False
    return not any(
        node.kind == "leaf" and module_of_name(node.var or node.label) for node in graph.nodes
    )


def drawn_result(result: RunResult) -> RunResult | None:
    """``result`` as the window first draws it (the automatic choice: a big model's
    modules collapsed), for exports made without a window; ``None`` when that is the
    result itself."""
    grouping = safe_group_view(result.graph, AUTOMATIC)
    if grouping is None or not grouping.groups:
        return None
    return grouping.result(result)


def safe_group_view(graph: Graph | None, choice: GroupChoice) -> Grouping | None:
    """:func:`~gui.model.drawing.collapse.group_view`, never raising: a graph the grouping
    cannot handle is drawn whole rather than not at all."""
    try:
        return group_view(graph, choice)
    except Exception:  # a bug here must not cost the picture: draw the graph unfolded
        _log.exception("grouping the graph's modules failed; drawing it whole")
        return None
