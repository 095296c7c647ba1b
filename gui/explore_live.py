"""``explore(loss)``: open the window on an autograd graph the user's own code built.

This runs in the user's own process, with their trust: no sandbox and no engine child
process. The engine's code answers the window from the live graph
(:class:`gui.model.engine.live.LiveGraph`), so the panels are the ones typed code gets.
It is the one module outside the engine that reaches torch, lazily (``import gui`` loads
neither torch nor Qt): the caller has torch loaded already, having built the graph.

From a script the window blocks until it is closed; from an interactive shell or a Jupyter
notebook with a Qt event loop (``%gui qt``) it opens and returns at once. ``export=DIR``
writes the files of the command line's ``--export`` without any window.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from gui.model import nested
from gui.model.request import BackwardStep, Program
from gui.model.result import FULL_VALUES_LIMIT
from gui.model.session import Document

if TYPE_CHECKING:
    from gui.widgets.main_window import MainWindow

NOTES = (
    "The autograd graph your own code built, as torch recorded it: every box is a real "
    "grad_fn node, with your parameters under their names.\n\n"
    "- **Values** are read-only: there is no code here to run again.\n"
    "- **Backward** runs on your graph: pick the gradient argument v, press Backward to "
    "watch .grad add up, Run > Step Through Backward (F6) to follow torch node by node.\n"
    "- Your graph and every .grad are left as they were: each call keeps the graph, and "
    "each leaf's .grad is put back after every run."
)


def explore(
    output: Any,
    names: Mapping[str, Any] | None = None,
    *,
    model: Any = None,
    export: str | os.PathLike[str] | None = None,
    block: bool | None = None,
) -> MainWindow | None:
    """Show the autograd graph of ``output`` (e.g. a loss) with values and gradients.

    Parameters
    ----------
    output
        A tensor with a ``grad_fn`` (or a leaf that requires grad).
    names
        Names for tensors in the graph, ``{"w1": model[0].weight}``; a module's parameters
        are named ``name.<qualified name>``.
    model
        An ``nn.Module`` whose parameters get their qualified names (``0.weight``,
        ``encoder.layers.3.bias``). Tensors and modules that are variables of the calling
        code are named after those variables too (explicit names win).
    export
        A folder: write the files ``autograd-explorer --export`` writes (``result.json``,
        ``script.py``, the graph as SVG, DOT and PNG, the plots as PNG) there and return,
        showing no window.
    block
        Wait until the window is closed (``None``: unless a Qt event loop is already
        running, as in Jupyter after ``%gui qt``).

    Returns
    -------
    MainWindow or None
        The open window when it did not block (it is kept alive until closed); else
        ``None``.

    Nothing of the caller's changes: the graph is never freed (every call from the window
    keeps it) and every leaf's ``.grad`` is put back after each run, so ``loss.backward()``
    works afterwards as before.
    """
    from gui.model.engine.live import LiveGraph
    from gui.model.engine.live_names import named_sources

    caller = sys._getframe(1)
    variables = _variables(caller)
    output_name = next(
        (n for n, v in variables.items() if v is output and not n.startswith("_")), None
    )
    graph = LiveGraph(output, output_name, named_sources(names, model, variables))
    where = _where(caller)
    del caller, variables  # the frame must not outlive this call through the window
    source = f"explore({graph.output_name})"
    document = Document(
        Program(code=_code_text(source, where), steps=(_first_call(graph.output),)),
        title=source,
        notes=NOTES,
    )
    if export is not None:
        export_graph(graph.run, document, Path(export), f"{source} in {where}")
        return None
    from gui.explore_window import open_window

    return open_window(graph.run, document, block, f"{source} in {where}")


def _first_call(output: Any) -> BackwardStep:
    """The window's first backward call: ``loss.backward()`` for a single number; for a
    tensor of several, ``backward(torch.ones_like(output))`` (every element counts once),
    so the graph shows gradients at once and ``v`` is there to change. Explicit either way:
    the calls come from the window, never added behind a user's code."""
    count = output.numel()
    if count == 1 or count > FULL_VALUES_LIMIT:
        return BackwardStep()
    return BackwardStep(gradient=nested.full(tuple(output.shape), 1.0))


def export_graph(run: Any, document: Document, out_dir: Path, source: str) -> None:
    """Write the files of ``--export`` for one run of ``document`` by ``run`` into
    ``out_dir``: the same files, with the explored graph's script (:mod:`.explore_script`).

    Raises ``OSError`` when the folder cannot be written. The pictures are drawn with Qt
    (:mod:`gui.picture_export`) without showing anything; where Qt cannot load, the other
    files stand and a warning says so.
    """
    from gui.model.drawing.collapse import drawn_result
    from gui.model.export.explore_script import explore_script
    from gui.model.export.files import write_export
    from gui.model.session.file_io import EXPORT_FILES, PICTURE_FILES, check_targets

    check_targets(out_dir, (*EXPORT_FILES, *PICTURE_FILES))
    result = run(document.request())
    # The pictures as the window first shows them (a big model's modules collapsed).
    drawn = drawn_result(result)
    svg = write_export(result, explore_script(result, source), out_dir, drawn=drawn)
    try:
        from gui.picture_export import PictureError, export_pictures
    except ImportError as exc:
        warnings.warn(f"graph.png and plots.png not written: Qt did not load ({exc})", stacklevel=3)
        return
    from gui.explore_window import has_display

    if has_display():
        # The process's one QApplication, on the real screen: a window explore() opens
        # later must be visible (export_pictures would make an offscreen one).
        from gui.window_app import application

        application()
    try:
        export_pictures(out_dir, svg, document, result)
    except PictureError as exc:
        warnings.warn(f"graph.png and plots.png not written: {exc}", stacklevel=3)


def _variables(frame: FrameType) -> dict[str, Any]:
    """The caller's local variables, then its module's (a script's top level is both)."""
    found = dict(frame.f_locals)
    for name, value in frame.f_globals.items():
        found.setdefault(name, value)
    return found


def _where(frame: FrameType) -> str:
    filename = frame.f_code.co_filename
    if filename.startswith("<") or "ipykernel" in filename:
        return "your notebook or shell"
    return f"{Path(filename).name}, line {frame.f_lineno}"


def _code_text(source: str, where: str) -> str:
    """What the code panel shows: where the graph came from (there is no code to edit)."""
    return (
        f"# {source}\n"
        f"# from {where}:\n"
        "# the graph your code built.\n"
        "# No code to run again here:\n"
        "# values are read-only.\n"
    )
