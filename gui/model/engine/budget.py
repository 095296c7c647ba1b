"""How big a result may get, and how one that is too big is cut down to size.

A result is pickled here, sent through a pipe and unpickled on the window's worker thread,
which holds the GIL all the while (about 10 ms per MB on this project's machines): while it
unpickles, the window cannot repaint. 600 backward calls on two 64x64 leaves once made a
150 MB result (more than a second of frozen window per run). So every result is measured
before it leaves, and one over :data:`MAX_RESULT_BYTES` is cut down, in this order:

1. steps lose their details (per-node gradients, graph, Jacobians), except the step whose
   gradients the graph shows (already past :data:`STEP_DETAILS_BYTES`: a training loop's
   hundred detailed calls are rarely looked at one by one, and every tick reads them);
2. tensors with many elements keep their statistics instead of every number, except the
   leaves' values and gradients after the run and the output (what the sliders, the bars
   and the boxes show in full); the history plots draw a big gradient's norm anyway;
3. fewer steps are kept: the first and the last that fit, the others counted
   (``RunResult.steps_left_out``, and a warning that says how many);
4. the leaves' own numbers become statistics too (a program with hundreds of big leaves).

The run itself already keeps only the first and last steps, printed lines and warnings
(:mod:`.run`, :mod:`.capture`); this is the last guard, for results that are big because
their tensors are.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from functools import partial
from typing import overload

import torch

from gui.model import graph_columns  # noqa: F401  (results pickle their graphs as columns)
from gui.model.engine.tensors import summary_of
from gui.model.result import (
    Explanation,
    Graph,
    GraphNode,
    NodeFlow,
    RunResult,
    SavedValue,
    StepRecord,
    TensorData,
    TensorInfo,
    left_out,
)

# ~30 ms to unpickle on the window's side: a few tens of milliseconds at most, once per run.
# The lessons' results are 10-100 KB; a 64x64 leaf with a few backward calls about 1 MB.
MAX_RESULT_BYTES = 3 * 1024**2
# A training loop's detailed backward calls (up to run.MAX_DETAILED_STEPS, each with its
# per-node gradients, graph and Jacobians) may take at most this much; past it only the
# call the graph shows keeps its details. Reading a result costs the window about 100 ms
# per MB with its checks, on every slider tick: 100 detailed calls of a small model made a
# polynomial-fitting tutorial's tick read 3 MB.
STEP_DETAILS_BYTES = 512 * 1024
# Tensors up to this many elements keep their numbers even in a result cut down to size:
# they cost little, and the boxes of the graph show them in full.
SMALL_TENSOR_ELEMENTS = 16
STEPS_LEFT_OUT = "steps-left-out"


def size_of(value: object) -> int:
    """Bytes ``value`` takes pickled (as the connection to the window pickles it)."""
    return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


# The last result :func:`bounded` returned, with the bytes it measured it by: sending it
# reuses them (:func:`take_pickled`) instead of pickling the result a second time, which
# for a 200-node graph costs as much again as the measuring (~1.5 ms on the tick's path).
_measured: tuple[RunResult, bytes] | None = None


def take_pickled(result: RunResult) -> bytes | None:
    """``result`` pickled, if it is the one :func:`bounded` just measured (once: the bytes
    are let go of here); else ``None``."""
    global _measured
    measured, _measured = _measured, None
    if measured is None or measured[0] is not result:
        return None
    return measured[1]


def bounded(result: RunResult, limit: int = MAX_RESULT_BYTES) -> RunResult:
    """``result`` if it pickles to at most ``limit`` bytes, else a smaller one (see the
    module docstring); says how many backward calls it left out, if any."""
    global _measured
    _measured = None
    pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    if len(pickled) > min(limit, STEP_DETAILS_BYTES):
        bare = _without_step_details(result)
        if any(a is not b for a, b in zip(bare.steps, result.steps, strict=True)):
            result = bare
            pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    cuts: tuple[Callable[[RunResult], RunResult], ...] = (
        _summarised,
        partial(_fewer_steps, limit=limit),
        partial(_summarised, leaves_too=True),
    )
    for cut in cuts:
        if len(pickled) <= limit:
            break
        result = cut(result)
        pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    noted = _with_steps_note(result)
    if noted is result:
        _measured = (result, pickled)
    return noted


def _graph_step(result: RunResult) -> int | None:
    """Position of the step whose gradients the graph shows (the last one on its graph)."""
    graph = result.graph
    if graph is None:
        return None
    for position in range(len(result.steps) - 1, -1, -1):
        step = result.steps[position]
        if step.graph is not None and step.graph.structure_key == graph.structure_key:
            return position
    return None


def _without_step_details(result: RunResult) -> RunResult:
    shown = _graph_step(result)
    steps = tuple(
        step if position == shown else _bare(step) for position, step in enumerate(result.steps)
    )
    return dataclasses.replace(result, steps=steps)


def _bare(step: StepRecord) -> StepRecord:
    if step.details_dropped and not step.jacobians and step.graph is None and not step.flows:
        return step
    return dataclasses.replace(
        step, flows={}, graph=None, jacobians=(), jacobian_note=None, details_dropped=True
    )


def _fewer_steps(result: RunResult, limit: int) -> RunResult:
    """Keep the first and the last steps that fit in ``limit`` with the rest of the result.

    Taken from both ends in turn, never across the gap the run already left, so the steps
    left out stay one stretch in the middle.
    """
    steps = result.steps
    gap = result.steps_gap if result.steps_left_out else len(steps)
    room = limit - size_of(dataclasses.replace(result, steps=()))
    sizes = [size_of(step) for step in steps]
    first, last = 0, len(steps)  # keep steps[:first] and steps[last:]
    turn_first = True
    while first < last:
        take_first = (turn_first and first < gap) or last <= gap
        position = first if take_first else last - 1
        if sizes[position] > room:
            break
        room -= sizes[position]
        if take_first:
            first += 1
        else:
            last -= 1
        turn_first = not turn_first
    if first == last:
        return result
    dropped = last - first
    return dataclasses.replace(
        result,
        steps=steps[:first] + steps[last:],
        steps_left_out=result.steps_left_out + dropped,
        steps_gap=first,
    )


def _with_steps_note(result: RunResult) -> RunResult:
    """Add the warning that says how many backward calls are not in the result."""
    count = result.steps_left_out
    if not count or any(w.kind == STEPS_LEFT_OUT for w in result.warnings):
        return result
    kept = len(result.steps)
    note = Explanation(
        kind=STEPS_LEFT_OUT,
        message=left_out(count, "backward calls" if count > 1 else "backward call"),
        explanation=f"The program called backward {result.step_count:,} times; the app keeps "
        f"the first {result.steps_gap:,} and the last {kept - result.steps_gap:,} of them, so "
        "a long loop stays quick to show. The gradients after the last call are all there.",
        fix="To look at every call, run fewer iterations (e.g. `range(20)`).",
        severity="warning",
    )
    return dataclasses.replace(result, warnings=(*result.warnings, note))


# -- numbers as statistics ------------------------------------------------------------


def _summarised(result: RunResult, leaves_too: bool = False) -> RunResult:
    """Big tensors as statistics, except (unless ``leaves_too``) the leaves' values and
    gradients after the run, and the output's value."""
    keep = set() if leaves_too else {*result.leaves, result.output}
    tensors = {
        name: info if name in keep else _info_summary(info) for name, info in result.tensors.items()
    }
    steps = tuple(_step_summary(step) for step in result.steps)
    graph = None if result.graph is None else _graph_summary(result.graph)
    output = result.output_value if not leaves_too else _summary(result.output_value)
    return dataclasses.replace(
        result, tensors=tensors, steps=steps, graph=graph, output_value=output
    )


@overload
def _summary(t: TensorData) -> TensorData: ...
@overload
def _summary(t: None) -> None: ...
@overload
def _summary(t: TensorData | None) -> TensorData | None: ...
def _summary(t: TensorData | None) -> TensorData | None:
    """``t`` as statistics only, when it has more than a few elements."""
    if t is None or t.values is None or t.numel <= SMALL_TENSOR_ELEMENTS:
        return t
    try:
        stats = summary_of(torch.tensor(t.values))
    except (TypeError, ValueError, RuntimeError):  # not numbers torch can read back
        return dataclasses.replace(t, values=None)
    return dataclasses.replace(t, values=None, summary=stats)


def _info_summary(info: TensorInfo) -> TensorInfo:
    return dataclasses.replace(info, value=_summary(info.value), grad=_summary(info.grad))


def _flow_summary(flow: NodeFlow) -> NodeFlow:
    return NodeFlow(
        arriving=tuple(map(_summary, flow.arriving)),
        leaving=tuple(map(_summary, flow.leaving)),
        order=flow.order,
    )


def _step_summary(step: StepRecord) -> StepRecord:
    return dataclasses.replace(
        step,
        gradient=_summary(step.gradient),
        grads_before={k: _summary(v) for k, v in step.grads_before.items()},
        grads_after={k: _summary(v) for k, v in step.grads_after.items()},
        returned={k: _summary(v) for k, v in step.returned.items()},
        flows={k: _flow_summary(f) for k, f in step.flows.items()},
        graph=None if step.graph is None else _graph_summary(step.graph),
        jacobians=(),
        jacobian_note="left out: the result was too big to keep it" if step.jacobians else None,
    )


def _graph_summary(graph: Graph) -> Graph:
    return dataclasses.replace(graph, nodes=tuple(_node_summary(n) for n in graph.nodes))


def _node_summary(node: GraphNode) -> GraphNode:
    saved = tuple(_saved_summary(s) for s in node.saved)
    return dataclasses.replace(node, value=_summary(node.value), saved=saved)


def _saved_summary(saved: SavedValue) -> SavedValue:
    return dataclasses.replace(saved, tensor=_summary(saved.tensor))
