"""A run that read only part of a big graph, put together with the graph on screen.

While a slider is dragged on a graph of thousands of nodes, the window asks the engine
for the nodes in view only (:class:`~gui.model.request.Detail`): their values, saved
tensors and flows come back in a *partial* graph (:attr:`~gui.model.result.Graph.partial`),
with everything else a run gives (leaves, gradients, named tensors, printed lines,
errors) whole. :func:`merge` lays those numbers over the full result shown before, which
has the same structure (the engine sends a partial graph only then): the nodes read take
their new numbers, the others keep the last ones read until the drag ends and a whole run
replaces them all.

What a node's memory is (:class:`~gui.model.result.SavedStorage` numbers and bytes) comes
from the structure and stays the base's: a partial run numbers only the storages it read.
Likewise a flow's place in the backward order, which the same graph keeps.
"""

from __future__ import annotations

from dataclasses import replace

from gui.model.result import Graph, GraphNode, NodeFlow, RunResult, SavedValue, StepRecord


def is_partial(result: RunResult) -> bool:
    """Whether ``result`` holds a partial graph (it must be merged before it is shown)."""
    if result.graph is not None and result.graph.partial:
        return True
    return any(step.graph is not None and step.graph.partial for step in result.steps)


def read_keys(result: RunResult) -> frozenset[str] | None:
    """The keys of the nodes ``result`` read, if it is partial (``None``: all of them)."""
    if result.graph is None or not result.graph.partial:
        return None
    return frozenset(node.key for node in result.graph.nodes)


def merge(base: RunResult, partial: RunResult) -> RunResult | None:
    """``partial`` with its partial graphs completed from ``base``, or ``None`` when they
    do not fit (then the run must be made again, whole)."""
    if not is_partial(partial):
        return partial
    # By the identities of the partial graph and its base: one merge each. Not by the
    # partial graph alone: an answer may share one graph object between its graph and a
    # step's (pickle keeps sharing), and its merge over one base is no merge over another.
    merged: dict[tuple[int, int], Graph] = {}

    def completed(graph: Graph | None, over: Graph | None) -> Graph | None:
        if graph is None or not graph.partial:
            return graph
        if over is None:
            return None
        done = merged.get((id(graph), id(over)))
        if done is None:
            done = _merged_graph(over, graph)
            if done is None:
                return None
            merged[id(graph), id(over)] = done
        return done

    graph = completed(partial.graph, base.graph)
    if partial.graph is not None and graph is None:
        return None
    steps: list[StepRecord] = []
    for index, step in enumerate(partial.steps):
        if step.graph is None or not step.graph.partial:
            steps.append(step)
            continue
        over = base.steps[index] if index < len(base.steps) else None
        step_graph = completed(step.graph, over.graph if over is not None else None)
        if over is None or step_graph is None:
            return None
        steps.append(replace(step, graph=step_graph, flows=_merged_flows(over.flows, step.flows)))
    return replace(partial, graph=graph, steps=tuple(steps))


def _merged_graph(base: Graph, partial: Graph) -> Graph | None:
    if base.partial or base.structure_key != partial.structure_key:
        return None
    read = {node.key: node for node in partial.nodes}
    nodes: list[GraphNode] = []
    for node in base.nodes:
        new = read.pop(node.key, None)
        if new is None:
            nodes.append(node)
            continue
        saved = _merged_saved(node.saved, new.saved)
        if saved is None or new.kind != node.kind:
            return None
        nodes.append(replace(node, value=new.value, saved=saved))
    if read:  # a node the graph on screen does not have: not the same structure
        return None
    return replace(base, nodes=tuple(nodes))


def _merged_saved(
    base: tuple[SavedValue, ...], new: tuple[SavedValue, ...]
) -> tuple[SavedValue, ...] | None:
    if len(base) != len(new) or any(b.name != n.name for b, n in zip(base, new, strict=True)):
        return None
    if not base:
        return base
    return tuple(
        replace(b, tensor=n.tensor, value=n.value, freed=n.freed, recomputed=n.recomputed)
        for b, n in zip(base, new, strict=True)
    )


def _merged_flows(base: dict[str, NodeFlow], new: dict[str, NodeFlow]) -> dict[str, NodeFlow]:
    """``base``'s flows with those ``new`` read, each keeping its place in the backward
    order (the partial run numbered only the nodes it hooked)."""
    flows = dict(base)
    for key, flow in new.items():
        known = base.get(key)
        flows[key] = flow if known is None else replace(flow, order=known.order)
    return flows
