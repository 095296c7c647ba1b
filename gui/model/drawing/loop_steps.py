"""Steps of an unrolled loop in a graph without module names: repeated runs of the same
ops that share the same leaves (``h = torch.tanh(W @ h + U @ x[t])`` in a ``for`` loop).

Plain code gives its parameters plain names (``W``, ``U``), so :mod:`.groups` finds no
module; the repetition is still there in the graph's structure. This module finds it along
the graph's *spine*, the longest chain from the output down to a leaf (each step of a loop
lies on it once): the op classes along the spine repeat with a period of ``p`` ops; each
period and what hangs off it alone (the ``U @ x[t]`` of that step, not the ``W`` every step
shares) is one step. The steps become modules ``loop.0``, ``loop.1``... in the order the
loop ran, so everything :mod:`.collapse` does for modules works for them.

It is a heuristic with a bounded cost: one pass for the spine, ``MAX_PERIOD`` passes over
its names for the period, one pass claiming the nodes off it. Graphs whose spine does not
repeat at least :data:`MIN_REPEATS` times get no steps.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from gui.model.result import Graph

# Longest run of ops one loop step may have along the spine.
MAX_PERIOD = 64
# A pattern seen fewer times than this is not called a loop (two alike ops are common).
MIN_REPEATS = 3
# Nor is a run of fewer ops than this (``sum(q**2)`` over three numbers is three adds: a
# loop in Python, but three boxes need no folding).
MIN_LOOP_OPS = 6
LOOP = "loop"


def _spine(graph: Graph, inputs: dict[str, list[str]], order: list[str]) -> list[str]:
    """The longest chain of function nodes from the root down its inputs."""
    depth: dict[str, int] = {}
    for key in order:  # inputs first
        depth[key] = 1 + max((depth.get(s, 0) for s in inputs[key]), default=0)
    spine: list[str] = []
    at: str | None = graph.root
    seen: set[str] = set()
    while at is not None and at in inputs and at not in seen:
        seen.add(at)
        spine.append(at)
        at = max(inputs[at], key=lambda s: depth.get(s, 0), default=None)
    return spine


def _period(names: list[str]) -> tuple[int, int, int] | None:
    """``(period, start, repeats)`` of the longest periodic run of ``names`` (the
    shortest period among equally long runs), or ``None`` when nothing repeats enough."""
    codes: dict[str, int] = {}
    ids = np.array([codes.setdefault(n, len(codes)) for n in names], dtype=np.int64)
    best: tuple[int, int, int] | None = None
    best_cover = 0
    for p in range(1, min(MAX_PERIOD, len(names) // MIN_REPEATS) + 1):
        # Runs of positions i with names[i] == names[i + p]: one run of r covers r + p
        # names, (r + p) // p whole periods of them.
        same = np.concatenate(([0], (ids[:-p] == ids[p:]).astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(same))
        if edges.size == 0:
            continue
        starts, ends = edges[0::2], edges[1::2]
        repeats = (ends - starts + p) // p
        i = int(np.argmax(repeats))
        cover = int(repeats[i]) * p
        if repeats[i] >= MIN_REPEATS and cover >= MIN_LOOP_OPS and cover > best_cover:
            best_cover = cover
            # Whole periods aligned to the run's far end (the loop's first steps).
            best = (p, int(ends[i]) + p - best_cover, int(repeats[i]))
    return best


def loop_steps(
    graph: Graph, inputs: dict[str, list[str]], order: list[str]
) -> dict[str, tuple[str, ...]]:
    """The loop step (``("loop", "3")``) of each node that belongs to one (see the module
    docstring); empty when the graph shows no loop. ``inputs`` maps each function and
    leaf node to its inputs, ``order`` lists them inputs first."""
    spine = _spine(graph, inputs, order)
    names = {n.key: n.name for n in graph.nodes}
    found = _period([names[k] for k in spine])
    if found is None:
        return {}
    period, start, repeats = found
    segments = [spine[start + s * period : start + (s + 1) * period] for s in range(repeats)]
    on_spine = {key: step for step, segment in enumerate(segments) for key in segment}
    owner: dict[str, int] = dict(on_spine)
    shared: set[str] = set()
    for step in range(repeats):
        queue = deque(segments[step])
        while queue:
            key = queue.popleft()
            for source in inputs[key]:
                if source in on_spine or source in shared:
                    continue
                claimed = owner.get(source)
                if claimed is None:
                    owner[source] = step
                    queue.append(source)
                elif claimed != step:
                    shared.add(source)  # used by several steps (W, U): outside them all
    # What a shared node uses is shared too (the weight under a shared transpose), though
    # the first step to reach it claimed it before the second step found it shared.
    queue = deque(shared)
    while queue:
        for source in inputs[queue.popleft()]:
            if source not in on_spine and source not in shared:
                shared.add(source)
                queue.append(source)
    # The spine runs from the output back in time: the last step found ran first.
    steps: dict[str, tuple[str, ...]] = {
        k: (LOOP, str(repeats - 1 - s)) for k, s in owner.items() if k not in shared
    }
    owned_by = {n.key: n.owner for n in graph.nodes if n.owner is not None}
    for key, owner_key in owned_by.items():
        if owner_key in steps:
            steps[key] = steps[owner_key]
    return steps
