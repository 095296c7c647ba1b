"""Round 16's red team, the window and file side: a program's own text reaching the
screen, the places in the run's order a drag tick names its nodes by, and a session
file's code the editor shows otherwise than Python reads it.

1. Round 14 showed a program's printed lines and error texts with Unicode's reordering
   and other controls as escapes (``visible_text``): the printed output and error panels
   and the status bar. Six more places showed the first line of a program's exception
   raw, so ``raise ValueError('Saved to \\u2066/home/u\\u2069 \\u202edone')`` read
   backwards there: the graph panel's empty state ("No graph to draw: the program
   stopped."), its line naming a failed backward step (a hook's exception), the Jacobian
   panel's sentence for a failed call, "Build J row by row"'s reason for stopping, and the
   function view's failed samples. Each now shows the controls as escapes
   (``graph_caption.empty_text``/``failure_text``, ``jacobian._no_jacobian``,
   ``jacobian_recipe._first_line``, ``function_curve._first_line``), and so does the
   tooltip of the code editor's gutter marker on the error's line (``CodeEditor``'s
   ``set_diagnostics``), which showed the same first line raw.
2. (Held) A compromised engine's places in the run's order (``GraphNode.made``, the wire
   column a drag tick names the nodes in view by): negative, all the same, the largest
   64-bit number or booleans go back to the engine in ``Detail.made`` and only leave nodes
   unread; the numbers a tick shows are its own run's. One past 64 bits is refused by the
   reader (``wire_tensors.check_atoms``).
3. A session file's code with a raw U+2028 or U+2029 (or U+FDD0/U+FDD1) in a comment:
   the code editor showed the comment's rest as a line of code Python never runs, and
   ``toPlainText`` hands the text back with a newline there, so the first edit anywhere
   ran it. Such code is refused by the reader, naming the line (``file_format``), and by
   the code check (``safety``); the escape ``'\u2028'`` in a string loads and runs.
4. Qt's text views also break lines at U+FDD0 and U+FDD1 (the frame markers of its
   documents), which ``visible_text`` did not escape: a printed ``'loss 0.5\ufdd0 2 │ all
   tests passed'`` showed as two numbered lines of output. They are escapes now too.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable

import pytest
from PySide6.QtWidgets import QPlainTextEdit

from gui.model.engine.run import run_program
from gui.model.engine.sweep import sweep_program
from gui.model.engine.tensors import NO_NUMBERS
from gui.model.request import Program, RunRequest
from gui.model.session import Session
from gui.model.session.document import Document
from gui.model.session.drag_detail import detail_of
from gui.model.session.file_format import FORMAT, SessionFileError, parse_session
from gui.model.session.jacobian_recipe import cannot_start
from gui.model.views.diagnostics import printed_text
from gui.model.views.function_curve import function_curve
from gui.model.views.graph_caption import empty_text, failure_text
from gui.model.views.jacobian import jacobian_view
from gui.widgets.code_editor import CodeEditor
from tests.fixtures import forged, through_the_wire

# What reads backwards raw: an isolate, an override, and a bell.
HOSTILE = "Saved to \\u2066/home/u\\u2069 \\u202edone\\x07"
RAW = ("\u2066", "\u2069", "\u202e", "\x07")


def _escaped(text: str) -> None:
    assert not any(c in text for c in RAW), repr(text)
    assert "Saved to \\u2066/home/u\\u2069 \\u202edone\\x07" in text, text


def test_the_graph_panel_shows_a_stopped_programs_message_as_written() -> None:
    session = Session(run_program)
    session.set_code(f"raise ValueError('{HOSTILE}')\n")
    _escaped(empty_text(session.snapshot))


HOOKED = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "def check(g):\n"
    "    if g.sum() != 2:\n"
    f"        raise ValueError('{HOSTILE}')\n"
    "    return g\n"
    "y = x * 2\n"
    "y.register_hook(check)\n"
)


def test_a_failed_backward_steps_line_and_jacobian_sentence_show_it_as_written() -> None:
    session = Session(run_program)
    session.set_code(HOOKED + "y.backward(torch.tensor([1.0, 0.0]))\n")
    assert session.snapshot.result is not None and session.snapshot.result.steps
    session.select_step(0)
    _escaped(failure_text(session.snapshot))
    message = jacobian_view(session.snapshot).message
    assert message is not None
    _escaped(message)


def test_build_j_row_by_row_stops_with_the_reason_as_written() -> None:
    session = Session(run_program)
    session.set_code(HOOKED)  # a vector output: the recipe passes v = e_k, which fail
    assert cannot_start(session.snapshot.result) is None
    for _ in range(4):
        session.step_jacobian_recipe()
    recipe = session.snapshot.jacobian_recipe
    assert recipe is not None and recipe.status == "failed"
    _escaped(recipe.problem or "")
    lines = jacobian_view(session.snapshot).lines
    assert lines[0].startswith("Stopped: row 0: ")
    _escaped(lines[0])


def test_the_function_views_failed_samples_show_the_reason_as_written() -> None:
    session = Session(run_program, sweep=sweep_program)
    code = (
        "x = torch.tensor([1.0], requires_grad=True)\n"
        f"if x[0] < 0:\n    raise ValueError('{HOSTILE}')\n"
        "y = x.sum() ** 2\n"
    )
    session.load(Document(Program(code=code)))
    session.set_function_view_shown(True)
    frame = function_curve(session.snapshot)
    notes = [note for note in frame.notes if "Saved to" in note]
    assert notes
    _escaped(notes[0])


# 2. (Held) A compromised engine's places in the run's order (``GraphNode.made``).
DRAGGED = "x = torch.tensor([0.5, 2.0], requires_grad=True)\ny = (x.sin() * x.cos()).exp().sum()\n"
FORGED_PLACES: dict[str, Callable[[int], object]] = {
    "negative": lambda i: -1 - i,
    "all_the_same": lambda i: 0,
    "largest_64_bit": lambda i: 2**63 - 1 - i,
    "booleans": lambda i: i % 2 == 0,
}


@pytest.mark.parametrize("way", sorted(FORGED_PLACES))
def test_forged_places_in_the_order_only_leave_nodes_unread(way: str) -> None:
    """Whatever places the window is sent and sends back, the engine's answer to a tick
    is its own run: the numbers it reads are the run's, the rest are left unread."""
    shown = run_program(RunRequest(Program(code=DRAGGED), time_limit=60))
    assert shown.graph is not None
    place = FORGED_PLACES[way]
    nodes = tuple(
        forged(n, made=place(i)) if n.made is not None else n
        for i, n in enumerate(shown.graph.nodes)
    )
    read = through_the_wire(forged(shown, graph=forged(shown.graph, nodes=nodes)))
    assert read.graph is not None
    keys = tuple(n.key for n in read.graph.nodes if n.kind == "function")
    detail = detail_of(read.graph, keys)
    values = {"x": [0.7, -1.0]}
    tick = run_program(RunRequest(Program(code=DRAGGED, values=values), 60, detail=detail))
    whole = run_program(RunRequest(Program(code=DRAGGED, values=values), time_limit=60))
    assert tick.error is None and tick.tensors == whole.tensors
    assert tick.graph is not None and whole.graph is not None
    theirs = {n.key: n for n in whole.graph.nodes}
    for node in tick.graph.nodes:
        if node.value is not None and node.value.summary is not NO_NUMBERS:
            assert node.value == theirs[node.key].value, node.key


def test_a_place_past_64_bits_is_refused_by_the_reader() -> None:
    shown = run_program(RunRequest(Program(code=DRAGGED), time_limit=60))
    assert shown.graph is not None
    nodes = tuple(forged(n, made=10**30) for n in shown.graph.nodes)
    with pytest.raises(pickle.UnpicklingError):
        through_the_wire(forged(shown, graph=forged(shown.graph, nodes=nodes)))


# 3. A line break only the editor sees.
HIDDEN_LINE = (
    "x = torch.tensor([1.0], requires_grad=True)\n# scale it{char}x = x * 1000\ny = (x * 2).sum()\n"
)
EDITOR_BREAKS = ["\u2028", "\u2029", "\ufdd0", "\ufdd1"]


@pytest.mark.parametrize("char", EDITOR_BREAKS)
def test_the_editor_shows_a_line_python_never_reads(qapp: object, char: str) -> None:
    """What the attack relies on: the editor shows the comment's rest on a line of its
    own, and hands the text back with a newline there (Python then runs that line)."""
    editor = QPlainTextEdit()
    code = HIDDEN_LINE.format(char=char)
    editor.setPlainText(code)
    assert editor.toPlainText() == HIDDEN_LINE.format(char="\n")


@pytest.mark.parametrize("char", EDITOR_BREAKS)
def test_a_session_file_whose_code_holds_one_is_refused(char: str) -> None:
    text = json.dumps({"format": FORMAT, "code": HIDDEN_LINE.format(char=char)})
    with pytest.raises(SessionFileError) as refused:
        parse_session(text)
    assert refused.value.problem.startswith(
        "code: line 2 holds an invisible character the editor shows as a line break"
    )


def test_written_as_an_escape_in_a_string_it_still_loads() -> None:
    code = "x = torch.tensor([1.0], requires_grad=True)\nprint('a\\u2028b')\ny = x.sum()\n"
    loaded = parse_session(json.dumps({"format": FORMAT, "code": code}))
    assert loaded.program.code == code


def test_printed_text_breaks_no_line_at_qts_frame_characters(qapp: object) -> None:
    """``print('loss 0.5\\ufdd0 2 │ all tests passed')``: the printed output panel showed
    a second line, looking like the app's own numbered line, where none was printed."""
    session = Session(run_program)
    session.set_code("print('loss 0.5\\ufdd0 2 │ all tests passed\\ufdd1')\n")
    result = session.snapshot.result
    assert result is not None and result.printed
    text = printed_text(result.printed)
    assert "\ufdd0" not in text and "\ufdd1" not in text
    assert text == "1 │ loss 0.5\\ufdd0 2 │ all tests passed\\ufdd1"
    view = QPlainTextEdit()
    view.setPlainText(text)
    assert view.document().blockCount() == 1


def test_the_code_editors_error_marker_tooltip_shows_it_as_written(qapp: object) -> None:
    code = f"raise ValueError('{HOSTILE}')\n"
    result = run_program(RunRequest(Program(code=code), time_limit=60))
    assert result.error is not None and result.error.line == 1
    editor = CodeEditor()
    editor.setPlainText(code)
    editor.resize(600, 300)
    editor.set_diagnostics(result.error, ())
    y = editor.cursorRect(editor.textCursor()).center().y()
    _escaped(editor.marker_tooltip(y))
