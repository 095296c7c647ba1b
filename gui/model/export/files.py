"""Write the export files for one result: ``result.json``, ``script.py``, ``graph.svg`` and
``graph.dot`` (the pictures drawn with Qt, ``graph.png`` and ``plots.png``, are written by
:mod:`gui.picture_export`, from the SVG :func:`write_export` returns).

The window's File > Export and the command line's ``--export`` (:mod:`gui.headless`) both
call :func:`write_export`, so they write the same files. The SVG is drawn by the layout
worker (:mod:`gui.model.drawing.layout_process`): Graphviz runs there with a time limit and
a memory limit (a big loop's SVG once took 19 GB), and a graph over the size limits
(:mod:`gui.model.drawing.limits`) is not drawn at all. When there is no picture the SVG
says why, in the words the window uses. ``graph.dot`` is the text Graphviz is handed for
that SVG (:func:`~gui.model.drawing.svg.svg_dot`): built without Graphviz, so it is written
for graphs too big to draw as well.

Each file is written atomically (:func:`gui.model.session.file_io.write_atomically`): a
named pipe in a file's place is refused at once (opening it to write blocked until
something read it, for ever), and a symbolic link there is replaced by the file, never
written through (``script.py -> ~/.bashrc`` in a folder unpacked from someone's archive).
"""

from __future__ import annotations

import errno
import json
import re
from html import escape
from pathlib import Path

from gui.model.drawing.layout_process import (
    LayoutProcess,
    LayoutUnavailable,
    shared_layout_process,
)
from gui.model.drawing.limits import too_big
from gui.model.drawing.paint import step_for_graph
from gui.model.drawing.svg import svg_dot
from gui.model.export.result_json import result_document
from gui.model.result import Explanation, RunResult

NO_GRAPH_TEXT = "No autograd graph: the program stopped before making one."
# What Graphviz writes for the app's DOT, and the app's own message SVGs: nothing in it
# loads anything. The layout worker parses the program's labels in native code, so its
# answer is read as warily as the engine's: an SVG with an <image> made QSvgRenderer read
# the file it names into graph.png, in this process, which has no wall (a named pipe there
# blocked the export for ever), and a <use>, <script>, <foreignObject> or an href reaches
# out when graph.svg is opened. Such an answer is neither written nor painted (round 13).
_SVG_ELEMENTS = frozenset(
    {"svg", "g", "title", "desc", "a", "path", "polygon", "polyline", "ellipse", "circle"}
    | {"rect", "line", "text", "tspan", "defs", "linearGradient", "radialGradient", "stop"}
)
_SVG_TAG = re.compile(r"<\s*/?\s*([A-Za-z][\w:.-]*)")
_SVG_LINK = re.compile(r"\s(?:[\w.-]+:)?href\s*=\s*[\"']|<!ENTITY", re.IGNORECASE)
FOREIGN_SVG_TEXT = (
    "The graph's picture was not used: the drawing process answered with an SVG that "
    "loads something (an image or a link), which Graphviz never writes for this app."
)
# The message SVG: wide enough for a sentence per line at this size.
MESSAGE_WIDTH = 640
MESSAGE_CHARS_PER_LINE = 80
# Graphs of more nodes than this get a result.json on one line (see write_export).
INDENTED_JSON_NODES = 2000


def write_export(
    result: RunResult,
    script: str,
    out_dir: Path,
    layouts: LayoutProcess | None = None,
    locked_scale: float | None = None,
    drawn: RunResult | None = None,
) -> str:
    """Write the export files into ``out_dir`` (created if needed); return the SVG text.

    ``layouts`` draws the SVG (default: this process's layout worker); ``locked_scale``
    is the window's locked colour scale, if locked. The SVG is returned so that the PNG
    of the graph is drawn from the very text written (:mod:`gui.picture_export`).
    ``drawn``: the result with its graph as the window draws it (collapsed modules folded,
    :meth:`~gui.model.drawing.collapse.Grouping.result`) for the pictures; the JSON keeps
    every node.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    _keep_sessions(out_dir)
    document = result_document(result)
    # Indented for a person to read; a big graph's is written flat: Python's encoder is
    # pure Python once it indents (5 s of a 15,000-node export), and flat it runs in C.
    nodes = 0 if result.graph is None else len(result.graph.nodes)
    indent = 2 if nodes <= INDENTED_JSON_NODES else None
    _write(out_dir / "result.json", json.dumps(document, indent=indent, allow_nan=False) + "\n")
    _write(out_dir / "script.py", script)
    picture = drawn if drawn is not None else result
    svg = graph_svg(picture, layouts, locked_scale)
    _write(out_dir / "graph.svg", svg)
    _write(out_dir / "graph.dot", graph_dot(picture, locked_scale))
    return svg


def _keep_sessions(out_dir: Path) -> None:
    """Refuse to export over a session file (``OSError``, before anything is written).

    An export replaces its own earlier files, but a file of one of their names may be the
    user's work: ``autograd-explorer result.json --export .`` (or File > Export into the
    folder of a session saved as ``result.json``) replaced the very session it exported
    with the result document (red team, round 14)."""
    from gui.model.session.file_format import SessionFileError, load_session
    from gui.model.session.file_io import EXPORT_FILES, PICTURE_FILES

    for name in (*EXPORT_FILES, *PICTURE_FILES):
        target = out_dir / name
        if not target.is_file():
            continue
        try:
            load_session(target)  # a regular file, at most a session's size, read once
        except SessionFileError:
            continue  # an earlier export's file, or anything that is not a session
        raise FileExistsError(
            errno.EEXIST, f"{name} there is a session file; export into another folder"
        )


def _write(path: Path, text: str) -> None:
    write_export_file(path, text.encode("utf-8"))


def write_export_file(path: Path, data: bytes) -> None:
    """Replace the file ``path`` with ``data``, atomically; raises ``OSError``
    (:class:`~gui.model.session.file_io.NotARegularFile` for a pipe, folder or device).

    ``write_atomically`` follows links, as saving a session through one should; an export
    makes new files, so a link in one's place goes first and its target stays as it is.
    """
    # Here, not at the top: gui.model.session imports this module (Session.export).
    from gui.model.session.file_io import write_atomically

    if path.is_symlink():
        path.unlink()
    write_atomically(path, data)


def graph_svg(
    result: RunResult, layouts: LayoutProcess | None = None, locked_scale: float | None = None
) -> str:
    """The SVG of ``result``'s graph, or one that says why there is no picture."""
    graph = result.graph
    if graph is None:
        return message_svg([NO_GRAPH_TEXT])
    # The SVG shows saved tensors beside their owners: measured with them.
    refusal = too_big(graph, show_saved=True)
    if refusal is not None:
        return explanation_svg(refusal)
    grads = {name: result.tensors[name].grad for name in result.leaves}
    last = result.steps[-1] if result.steps else None
    process = layouts if layouts is not None else shared_layout_process()
    try:
        svg = process.svg(graph, step_for_graph(result), grads, last, locked_scale=locked_scale)
    except LayoutUnavailable as unavailable:
        return explanation_svg(unavailable.explanation)
    return message_svg([FOREIGN_SVG_TEXT]) if reaches_out(svg) else svg


def reaches_out(svg: str) -> bool:
    """Whether ``svg`` holds an element Graphviz does not write for the app (an image,
    a script...), a link or an entity: something that loads what it names."""
    return _SVG_LINK.search(svg) is not None or not set(_SVG_TAG.findall(svg)) <= _SVG_ELEMENTS


def graph_dot(result: RunResult, locked_scale: float | None = None) -> str:
    """The DOT text of ``result``'s graph as :func:`graph_svg` draws it (same labels,
    colours and legend), or a graph whose label says why there is none."""
    graph = result.graph
    if graph is None:
        return message_dot(NO_GRAPH_TEXT)
    grads = {name: result.tensors[name].grad for name in result.leaves}
    last = result.steps[-1] if result.steps else None
    return svg_dot(graph, step_for_graph(result), grads, last, locked_scale) + "\n"


def message_dot(text: str) -> str:
    """A DOT graph with no nodes whose label is ``text``."""
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'digraph autograd {{\nlabel="{quoted}";\n}}\n'


def explanation_svg(explanation: Explanation) -> str:
    """An SVG that says why the graph is not drawn: the message, then the explanation."""
    return message_svg([explanation.message, explanation.explanation])


def message_svg(paragraphs: list[str]) -> str:
    """A small SVG document holding ``paragraphs`` as wrapped lines of text."""
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += [*_wrapped(paragraph), ""]
    lines = lines[:-1]
    line_height = 20
    height = 24 + line_height * len(lines)
    # One <text> per line at its own y: SVG Tiny renderers (Qt's, which draws graph.png)
    # ignore a <tspan>'s x and dy and would run the lines together.
    texts = "".join(
        f'<text x="12" y="{30 + i * line_height}" font-family="sans-serif" font-size="14">'
        f"{escape(line)}</text>"
        for i, line in enumerate(lines)
        if line
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{MESSAGE_WIDTH}" height="{height}" '
        f'viewBox="0 0 {MESSAGE_WIDTH} {height}">{texts}</svg>\n'
    )


def _wrapped(text: str) -> list[str]:
    out: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > MESSAGE_CHARS_PER_LINE:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*out, line] if line else out
