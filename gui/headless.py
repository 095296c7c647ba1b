"""The command line without a window: ``--export DIR`` and ``--report``.

Both run one session through the engine process without a window, so they work on a
server or in CI without a display; only the export's two PNGs load Qt (offscreen), after
everything else is written. ``--export`` writes ``result.json``,
``script.py``, ``graph.svg`` and ``graph.dot``, then loads Qt (offscreen) for
``graph.png`` and ``plots.png`` (:mod:`gui.picture_export`); ``--report`` prints the
numbers to the terminal.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from gui.model.drawing.collapse import drawn_result
from gui.model.engine_process import EngineProcess, refusal
from gui.model.export.files import write_export
from gui.model.export.script import plain_script
from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS, Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import Document, SessionFileError, lesson_steps
from gui.model.session.file_format import READ_TIMEOUT_SECONDS, load_session_within
from gui.model.session.file_io import EXPORT_FILES, PICTURE_FILES, check_targets
from gui.model.tensor_format import format_tensor
from gui.model.visible_text import visible_controls
from gui.resources import default_lesson

EXIT_OK = 0
EXIT_CANNOT_WRITE = 1
EXIT_BAD_INPUT = 2
# The app cannot work on this machine as it is (too little memory for the engine's torch).
EXIT_CANNOT_RUN = 3
ENGINE_DID_NOT_START = (
    "error: the engine process could not start (PyTorch did not load: too little memory, "
    "e.g. a low ulimit -v?); nothing was written"
)


class EngineDidNotStart(RuntimeError):
    """The engine's child never said it was ready: no result is the session's."""


def printable(text: str) -> str:
    """``text`` with every terminal control written as its Python escape ("\x1b").

    What must not reach a terminal from a stranger's session: C0 and C1 controls but the
    tab and the newline (escape sequences erase lines, move the cursor, retitle the
    terminal: a report could be made to show numbers it does not hold), DEL, and the
    bidirectional controls that reorder a line (see :mod:`gui.model.visible_text`).
    """
    return visible_controls(text)


def _one_line(message: str, stream: TextIO) -> None:
    """Scripts read the first stderr line: field names from a file may hold newlines."""
    print(printable(" ".join(message.split())), file=stream)


def run_once(document: Document, time_limit: float) -> RunResult:
    """Run ``document`` in an engine process of its own, stopped afterwards.

    Raises :class:`EngineDidNotStart` when the child never came up: its "engine crashed"
    result would describe this machine, not the session, and must not be exported as one.
    Refused code never needs the child, so it is answered whatever the machine.
    """
    engine = EngineProcess()
    try:
        if refusal(document.program.code) is None:
            # An empty program cannot time out or crash: if the child is not ready after
            # it, the child never started.
            engine.run(RunRequest(Program(code="")))
            if engine.ready is None:
                raise EngineDidNotStart()
        return engine.run(document.request(time_limit))
    finally:
        engine.close()


def _read(session_path: str, stderr: TextIO, step: int | None = None) -> Document | None:
    """The session at ``session_path`` as the window shows it at lesson step ``step``
    (``None``: as it opens), or ``None`` after one line on ``stderr``."""
    try:
        document = load_session_within(session_path, READ_TIMEOUT_SECONDS)
        return lesson_steps.document_at(document, step)
    except SessionFileError as exc:
        _one_line(f"error: {exc}", stderr)
    except ValueError as exc:  # a step the lesson does not have
        _one_line(f"error: {session_path}: {exc}", stderr)
    return None


def export_session(
    session_path: str,
    out_dir: str,
    time_limit: float = DEFAULT_TIME_LIMIT_SECONDS,
    stderr: TextIO = sys.stderr,
    step: int | None = None,
) -> int:
    """Run ``session_path`` headless into ``out_dir`` (at lesson step ``step``); return
    the process exit status."""
    document = _read(session_path, stderr, step)
    if document is None:
        return EXIT_BAD_INPUT
    refused = refusal(document.program.code)
    if refused is not None:
        where = f"line {refused.line}" + (f", column {refused.column}" if refused.column else "")
        _one_line(f"error: {session_path}: code refused at {where}: {refused.message}", stderr)
        return EXIT_BAD_INPUT
    try:
        # Before running: a named pipe in a file's place would block the write forever,
        # and a folder there cannot be written either (the run would be wasted).
        check_targets(out_dir, (*EXPORT_FILES, *PICTURE_FILES))
    except OSError as exc:
        print(f"error: cannot write to {out_dir}: {exc.strerror or exc}", file=stderr)
        return EXIT_CANNOT_WRITE
    try:
        result = run_once(document, time_limit)
    except EngineDidNotStart:
        print(ENGINE_DID_NOT_START, file=stderr)
        return EXIT_CANNOT_RUN
    try:
        script = plain_script(document.program, result)
        # The pictures as the window first shows them (a big model's modules collapsed).
        drawn = drawn_result(result)
        svg = write_export(result, script, Path(out_dir), drawn=drawn)
    except OSError as exc:
        print(f"error: cannot write to {out_dir}: {exc.strerror or exc}", file=stderr)
        return EXIT_CANNOT_WRITE
    return _export_pictures(Path(out_dir), svg, document, result, stderr)


def _export_pictures(
    out_dir: Path, svg: str, document: Document, result: RunResult, stderr: TextIO
) -> int:
    """``graph.png`` and ``plots.png``, drawn with Qt offscreen (no screen needed); where
    Qt cannot load, the other files stand and one warning line says so."""
    try:
        # Here, not at the top: --report and the engine's child never load Qt.
        from gui.picture_export import PictureError, export_pictures
    except ImportError as exc:
        _one_line(f"warning: graph.png and plots.png not written: Qt did not load ({exc})", stderr)
        return EXIT_OK
    try:
        export_pictures(out_dir, svg, document, result)
    except PictureError as exc:
        _one_line(f"warning: graph.png and plots.png not written: {exc}", stderr)
    except OSError as exc:
        print(f"error: cannot write to {out_dir}: {exc.strerror or exc}", file=stderr)
        return EXIT_CANNOT_WRITE
    return EXIT_OK


def report(result: RunResult) -> str:
    """Human-readable lines for ``result``: tensors, gradients per step, graph, errors."""
    out = []
    for info in result.tensors.values():
        kind = "leaf" if info.is_leaf else (info.grad_fn or "tensor")
        out.append(f"{info.name} = {format_tensor(info.value)}   ({kind})")
    for line in result.printed:
        # Every line the code printed is marked as printed: a newline inside one text
        # must not start a line that reads like the report's own ("    x.grad = ...").
        out.extend(f"printed (line {line.line}): {part}" for part in line.text.split("\n"))
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
    step: int | None = None,
) -> int:
    """Run the session at ``path`` (default: the welcome lesson; at lesson step ``step``)
    and print :func:`report`."""
    session_path = path or str(default_lesson())
    document = _read(session_path, stderr, step)
    if document is None:
        return EXIT_BAD_INPUT
    try:
        result = run_once(document, time_limit)
    except EngineDidNotStart:
        print(ENGINE_DID_NOT_START, file=stderr)
        return EXIT_CANNOT_RUN
    if document.title:
        print(printable(f"# {document.title}"), file=stdout)
    print(printable(report(result)), file=stdout)
    return EXIT_OK
