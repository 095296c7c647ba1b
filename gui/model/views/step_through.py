"""What the step-through bar says: where the replay of torch's backward stands, and the
current node's local rule with this call's numbers (the node details pane shows the rest).
"""

from __future__ import annotations

from dataclasses import dataclass

from gui.model.explain.local_rules import describe
from gui.model.session import Snapshot
from gui.model.session.replay import node_count

IDLE_TEXT = "Step through backward: replay torch's pass node by node"


@dataclass(frozen=True)
class BarTexts:
    """The bar's texts and whether its controls can act.

    ``where``: the replay's position, short (``"Node 2 of 3"``; "" when none is on);
    ``headline``: the node there (or why there is nothing to replay); ``rule``: the
    current node's rule with numbers, one line ("" when none); ``enabled``: there is a
    recorded call to replay.
    """

    headline: str
    rule: str
    enabled: bool
    where: str = ""


def unavailable(snapshot: Snapshot) -> str | None:
    """Why the shown call cannot be replayed (``None``: it can)."""
    step = snapshot.replayed_call
    if snapshot.result is None or snapshot.graph is None:
        return "Nothing to replay yet: run a program"
    if step is None:
        return "Nothing to replay: no backward call ran on this graph"
    if step.details_dropped:
        return "This call kept only the leaves' gradients (a long loop): nothing to replay"
    if node_count(step) == 0:
        if step.error is not None:
            return "This backward call failed before any node ran"
        return "No node of this graph ran in this call"
    return None


def bar_texts(snapshot: Snapshot) -> BarTexts:
    """The step-through bar's texts for ``snapshot``."""
    reason = unavailable(snapshot)
    if reason is not None:
        return BarTexts(reason, "", False)
    replay = snapshot.replay_state
    call = snapshot.replayed_call
    graph = snapshot.graph
    assert call is not None and graph is not None
    count = node_count(call)
    if replay is None:
        return BarTexts(f"{IDLE_TEXT} ({count} nodes)", "", True)
    if replay.position == 0:
        seed = "the implicit 1" if call.gradient is None else "v"
        return BarTexts(f"{seed} waits at the output; {count} nodes to run", "", True, "Start")
    where = f"Node {replay.position} of {count}"
    key = snapshot.replay_active_node
    node = next((n for n in graph.nodes if n.key == key), None)
    if node is None:
        return BarTexts("", "", True, where)
    name = node.name if node.var is None else f"{node.var} · {node.name}"
    flow = snapshot.graph_step.flows.get(node.key) if snapshot.graph_step else None
    description = describe(node, flow, graph, snapshot.graph_step)
    rule = " ".join(description.numbers.split()) if description.numbers else ""
    done = " (done)" if replay.position >= count else ""
    return BarTexts(f"{name}{done}", rule, True, where)
