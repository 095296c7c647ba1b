"""The headless export: ``python main.py SESSION.json --export DIR``.

Runs a session with no window and writes ``result.json`` (everything the engine computed),
``script.py`` (the same computation as plain PyTorch) and ``graph.svg`` (the graph drawn).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import TextIO

from gui.model.codegen import plain_script
from gui.model.jsonio import result_document
from gui.model.results import RunResult, StepRecord
from gui.model.runner import EngineProcess, refusal
from gui.model.session_file import SessionFileError, load_session
from gui.model.spec import DEFAULT_TIME_LIMIT_SECONDS
from gui.model.svg_export import render_svg

EXIT_OK = 0
EXIT_CANNOT_WRITE = 1
EXIT_BAD_INPUT = 2


def step_for_graph(result: RunResult) -> StepRecord | None:
    """The last backward step whose flows belong to the result's graph (same structure)."""
    if result.graph is None:
        return None
    for step in reversed(result.steps):
        if step.graph is not None and step.graph.structure_key == result.graph.structure_key:
            return step
    return None


def write_export(result: RunResult, script: str, out_dir: Path) -> None:
    """Write the three export files into ``out_dir`` (created if needed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    document = result_document(result)
    (out_dir / "result.json").write_text(
        json.dumps(document, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    (out_dir / "script.py").write_text(script, encoding="utf-8")
    if result.graph is not None:
        grads = {name: result.tensors[name].grad for name in result.leaves}
        svg = render_svg(result.graph, step_for_graph(result), grads)
    else:
        svg = _empty_svg("No autograd graph: the program stopped before making one.")
    (out_dir / "graph.svg").write_text(svg, encoding="utf-8")


def _empty_svg(text: str) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="60" viewBox="0 0 480 60">'
        f'<text x="12" y="34" font-family="sans-serif" font-size="14">{text}</text></svg>\n'
    )


def _one_line(message: str, stream: TextIO) -> None:
    """Scripts read the first stderr line: field names from a file may hold newlines."""
    print(" ".join(message.split()), file=stream)


def export_session(
    session_path: str,
    out_dir: str,
    time_limit: float = DEFAULT_TIME_LIMIT_SECONDS,
    stderr: TextIO = sys.stderr,
) -> int:
    """Run ``session_path`` headless into ``out_dir``; return the process exit status."""
    try:
        session = load_session(session_path)
    except SessionFileError as exc:
        _one_line(f"error: {exc}", stderr)
        return EXIT_BAD_INPUT
    refused = refusal(session.code)
    if refused is not None:
        where = f"line {refused.line}" + (f", column {refused.column}" if refused.column else "")
        _one_line(f"error: {session_path}: code refused at {where}: {refused.message}", stderr)
        return EXIT_BAD_INPUT
    request = dataclasses.replace(session.request(), time_limit=time_limit)
    engine = EngineProcess()
    try:
        result = engine.run(request)
    finally:
        engine.close()
    try:
        write_export(result, plain_script(request, result), Path(out_dir))
    except OSError as exc:
        print(f"error: cannot write to {out_dir}: {exc.strerror or exc}", file=stderr)
        return EXIT_CANNOT_WRITE
    return EXIT_OK
