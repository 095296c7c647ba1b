"""Write the three export files for one result: ``result.json``, ``script.py``, ``graph.svg``.

The window's File > Export and the command line's ``--export`` (:mod:`gui.headless`) both
call :func:`write_export`, so they write the same files.
"""

from __future__ import annotations

import json
from pathlib import Path

from gui.model.drawing.paint import step_for_graph
from gui.model.drawing.svg import render_svg
from gui.model.export.result_json import result_document
from gui.model.result import RunResult


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
        last = result.steps[-1] if result.steps else None
        svg = render_svg(result.graph, step_for_graph(result), grads, last)
    else:
        svg = _empty_svg("No autograd graph: the program stopped before making one.")
    (out_dir / "graph.svg").write_text(svg, encoding="utf-8")


def _empty_svg(text: str) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="60" viewBox="0 0 480 60">'
        f'<text x="12" y="34" font-family="sans-serif" font-size="14">{text}</text></svg>\n'
    )
