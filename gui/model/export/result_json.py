"""Results as JSON: the ``result.json`` document written by the headless export.

The layout is documented in ``docs/session-format.md``. JSON has no NaN or infinity, so
non-finite floats are written as the strings ``"nan"``, ``"inf"`` and ``"-inf"``; complex
numbers as strings like ``"(1+2j)"``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from gui.model.result import RunResult, StepRecord, TensorData

RESULT_FORMAT = "autograd-explorer-result/1"


def to_jsonable(value: Any) -> Any:
    """Dataclasses, tuples and numbers -> plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, complex):
        return str(value)
    return value


def _values(t: TensorData | None) -> Any:
    return None if t is None else to_jsonable(t.values)


def _tensor(t: TensorData | None) -> Any:
    return None if t is None else to_jsonable(t)


def result_document(result: RunResult) -> dict[str, Any]:
    """The ``result.json`` object for ``result``."""
    out = result.output_value
    leaves = {}
    for name in result.leaves:
        info = result.tensors[name]
        leaves[name] = {
            "value": _values(info.value),
            "grad": _values(info.grad),
            "shape": list(info.value.shape),
        }
    return {
        "format": RESULT_FORMAT,
        "output": None
        if out is None
        else {
            "name": result.output,
            "value": _values(out),
            "shape": list(out.shape),
            "grad_fn": result.output_grad_fn,
            "chosen": result.output_source,
        },
        "leaves": leaves,
        "tensors": {name: to_jsonable(info) for name, info in result.tensors.items()},
        "steps": [_step(s) for s in result.steps],
        "step_count": result.step_count,
        "steps_left_out": result.steps_left_out,
        "step_values": to_jsonable(result.step_values),
        "graph": None if result.graph is None else _graph(result),
        "error": None if result.error is None else to_jsonable(result.error),
        "warnings": to_jsonable(result.warnings),
        "printed": to_jsonable(result.printed),
        "seed": result.seed,
    }


def _graph(result: RunResult) -> dict[str, Any]:
    graph = result.graph
    assert graph is not None
    return {
        "root": graph.root,
        "structure_key": graph.structure_key,
        "truncated": graph.truncated,
        "nodes": [
            {
                "key": n.key,
                "name": n.name,
                "label": n.label,
                "kind": n.kind,
                "var": n.var,
                "owner": n.owner,
                "value": _tensor(n.value),
                "saved": to_jsonable(n.saved),
            }
            for n in graph.nodes
        ],
        "edges": [[e.source, e.target] for e in graph.edges],
        "edge_details": [to_jsonable(e) for e in graph.edges],
    }


def _step(step: StepRecord) -> dict[str, Any]:
    return {
        "index": step.index,
        "source": step.source,
        "call": step.call,
        "line": step.line,
        "tensor": step.tensor,
        "inputs": None if step.inputs is None else list(step.inputs),
        "returned": {name: _values(g) for name, g in step.returned.items()},
        "gradient": _tensor(step.gradient),
        "retain_graph": step.retain_graph,
        "create_graph": step.create_graph,
        "zero_grad": step.zero_grad,
        "leaves": {
            name: {"grad": _values(after), "grad_before": _values(step.grads_before.get(name))}
            for name, after in step.grads_after.items()
        },
        "flows": {key: to_jsonable(flow) for key, flow in step.flows.items()},
        "jacobians": to_jsonable(step.jacobians),
        "jacobian_note": step.jacobian_note,
        "error": None if step.error is None else to_jsonable(step.error),
        "details_dropped": step.details_dropped,
    }
