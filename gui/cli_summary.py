"""A text report of a session for the terminal (``autograd-explorer SESSION.json``).

Until the window exists this is what the app shows: the same engine, the same numbers,
printed. Without a session it runs the first lesson.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TextIO

from gui.model.results import RunResult
from gui.model.runner import EngineProcess
from gui.model.session_file import SessionFileError, load_session
from gui.model.spec import DEFAULT_TIME_LIMIT_SECONDS
from gui.model.tensor_format import format_tensor
from gui.resources import default_lesson


def report(result: RunResult) -> str:
    """Human-readable lines for ``result``: tensors, gradients per step, graph, errors."""
    out = []
    for info in result.tensors.values():
        kind = "leaf" if info.is_leaf else (info.grad_fn or "tensor")
        out.append(f"{info.name} = {format_tensor(info.value)}   ({kind})")
    for line in result.printed:
        out.append(f"printed (line {line.line}): {line.text}")
    for step in result.steps:
        where = f"line {step.line}" if step.line else "session"
        seed = format_tensor(step.gradient) if step.gradient is not None else "implicit 1"
        out.append(
            f"backward #{step.index + 1} on {step.tensor or 'output'} ({where}), gradient {seed}:"
        )
        for name, grad in step.grads_after.items():
            out.append(f"    {name}.grad = {format_tensor(grad)}")
    if result.graph is not None:
        names = [
            n.label if n.label == n.name else f"{n.label} ({n.name})"
            for n in result.graph.nodes
            if n.kind in ("function", "leaf")
        ]
        out.append(
            f"graph: {len(result.graph.nodes)} nodes: {', '.join(names[:12])}"
            + (" ..." if len(names) > 12 else "")
        )
    for w in result.warnings:
        out.append(f"warning (line {w.line}): {w.message}\n    {w.explanation}\n    fix: {w.fix}")
    if result.error is not None:
        e = result.error
        out.append(f"error (line {e.line}): {e.message}\n    {e.explanation}\n    fix: {e.fix}")
    return "\n".join(out)


def summarize(
    path: str | None,
    time_limit: float = DEFAULT_TIME_LIMIT_SECONDS,
    stdout: TextIO = sys.stdout,
    stderr: TextIO = sys.stderr,
) -> int:
    """Run the session at ``path`` (default: the welcome lesson) and print :func:`report`."""
    session_path = path or str(default_lesson())
    try:
        session = load_session(session_path)
    except SessionFileError as exc:
        print(f"error: {exc}", file=stderr)
        return 2
    engine = EngineProcess()
    try:
        result = engine.run(dataclasses.replace(session.request(), time_limit=time_limit))
    finally:
        engine.close()
    if session.title:
        print(f"# {session.title}", file=stdout)
    print(report(result), file=stdout)
    return 0
