"""Step-through backward: PyTorch's recorded backward pass, replayed node by node.

The engine hooks every node of the graph while torch's own engine runs ``backward`` and
records, per node, the gradient arriving, the gradients leaving and *when* it ran
(:class:`~gui.model.result.NodeFlow`, ``order``). Nothing here recomputes a gradient: a
replay at ``position`` n shows the first n nodes torch ran, in torch's order, with exactly
the numbers torch produced, and the rest as not reached yet. Leaves' ``.grad`` fills in
when their ``AccumulateGrad`` node is reached: before it, a leaf shows ``.grad`` as it was
before this call (so a second call visibly adds on top of the first).

Pure functions and a frozen state; the session holds the state and the window's replay bar
drives it (a timer calls :meth:`~gui.model.session.session.Session.step_replay`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gui.model.result import StepRecord, TensorData

# Nodes per second: slow enough to follow a box at a time on a projector, and the bar's
# slider goes from a crawl to a blur.
DEFAULT_SPEED = 1.5
SLOWEST = 0.25
FASTEST = 20.0


@dataclass(frozen=True)
class Replay:
    """Where a step-through of one backward call stands.

    ``position`` is how many nodes have run (0: only the seed ``v`` at the output, the
    call's node count: the whole pass). ``playing`` says the replay bar's timer advances
    it; ``speed`` is nodes per second while playing.
    """

    position: int = 0
    playing: bool = False
    speed: float = DEFAULT_SPEED


def run_order(step: StepRecord) -> tuple[str, ...]:
    """The keys of the nodes torch ran during ``step``, in the order it ran them."""
    return tuple(sorted(step.flows, key=lambda key: step.flows[key].order))


def node_count(step: StepRecord | None) -> int:
    """How many nodes a replay of ``step`` steps through (0: nothing to replay)."""
    return 0 if step is None else len(step.flows)


def clamp(replay: Replay, step: StepRecord | None) -> Replay:
    """``replay`` within ``step``'s nodes; playing stops at the end."""
    count = node_count(step)
    position = min(max(replay.position, 0), count)
    playing = replay.playing and position < count
    if (position, playing) == (replay.position, replay.playing):
        return replay
    return replace(replay, position=position, playing=playing)


def active_node(replay: Replay, step: StepRecord | None) -> str | None:
    """The node that ran last at ``replay.position`` (``None`` before the first)."""
    if step is None or replay.position <= 0:
        return None
    order = run_order(step)
    return order[min(replay.position, len(order)) - 1]


def replayed_step(step: StepRecord, position: int) -> StepRecord:
    """``step`` as far as ``position`` nodes into torch's pass: the flows of the nodes run
    so far, and each leaf's ``.grad`` as before the call until its ``AccumulateGrad`` ran.

    The record keeps everything else (seed, Jacobians, error), so every panel that shows a
    step shows this one unchanged.
    """
    order = run_order(step)
    if position >= len(order):
        return step
    done = set(order[:position])
    flows = {key: flow for key, flow in step.flows.items() if key in done}
    return replace(step, flows=flows)


def replayed_leaf_grads(
    step: StepRecord,
    position: int,
    leaf_keys: dict[str, str],
) -> dict[str, TensorData | None]:
    """Each leaf's ``.grad`` at ``position`` of the replay of ``step``.

    ``leaf_keys`` maps a leaf's name to its graph node key (its ``AccumulateGrad``). A leaf
    whose node has run shows ``.grad`` after the call, any other as it was before it (a
    leaf the call does not reach keeps its ``.grad``).
    """
    done = set(run_order(step)[:position])
    grads: dict[str, TensorData | None] = {}
    for name, after in step.grads_after.items():
        key = leaf_keys.get(name)
        reached = key is None or key in done or key not in step.flows
        grads[name] = after if reached else step.grads_before.get(name)
    return grads
