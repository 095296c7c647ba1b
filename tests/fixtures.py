"""Helpers the test tiers share: ``approx`` for nested lists, lessons and learners.md's numbers,
plain torch references, a spy on the session, and the Qt steps a user takes (click, type,
drag) with what the panels show back (texts, underlines, plotted numbers).

The Qt helpers import Qt inside themselves: the pure tier (``tests/model``) imports this
module too, and must never load Qt.
"""

from __future__ import annotations

import ast
import copy
import copyreg
import io
import pickle
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
import torch

from gui.model.export.script import GRADS_HEADER
from gui.model.result import Graph, RunResult, StepRecord, TensorData
from gui.model.session import Session, Snapshot, load_session
from gui.model.tensor_format import format_tensor
from gui.resources import lesson_paths

if TYPE_CHECKING:
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QAbstractButton, QPlainTextEdit, QWidget
    from pytestqt.qtbot import QtBot

    from gui.widgets.code_editor_panel import CodeEditorPanel
    from gui.widgets.grad_bars import GradBars
    from gui.widgets.grad_history import GradHistory
    from gui.widgets.graph_panel import GraphPanel
    from gui.widgets.node_details_panel import NodeDetailsPanel
    from gui.widgets.node_item import NodeItem
    from gui.widgets.number_box import NumberBox

W = TypeVar("W", bound="QWidget")

# learners.md: x of scenarios 3 and 4; x, the first and the second v of scenario 5.
X3 = [[-1.2095]]
X5 = [[1.3448, -0.2924], [-0.4746, 0.8842]]
V1 = [[1.0, 0.0], [1.0, 0.0]]
V2 = [[0.0, 1.0], [0.0, 1.0]]

# Real-code programs for the Jacobian view and its recipe: a two-layer MLP with a loss (a
# scalar output: J is 1 x n per parameter) and a custom autograd.Function (the engine
# computes no J for it: its backward would run twice).
MLP_CODE = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(5, 3)
target = torch.randn(5, 1)
loss = nn.functional.mse_loss(model(x), target)
"""
CUBE_FUNCTION_CODE = """import torch
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * 3 * x ** 2
x = torch.tensor([1., 2., -0.5], requires_grad=True)
y = Cube.apply(x).cumsum(0)
"""


def mlp_reference() -> dict[str, torch.Tensor]:
    """:data:`MLP_CODE` run the ordinary way: each parameter's ``.grad`` after
    ``loss.backward()``."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    x = torch.randn(5, 3)
    target = torch.randn(5, 1)
    torch.nn.functional.mse_loss(model(x), target).backward()
    return {name: p.grad for name, p in model.named_parameters() if p.grad is not None}


def cube_function_jacobian() -> torch.Tensor:
    """The Jacobian of :data:`CUBE_FUNCTION_CODE`'s ``y`` w.r.t. ``x``, from torch."""
    x = torch.tensor([1.0, 2.0, -0.5])
    return torch.autograd.functional.jacobian(lambda t: (t**3).cumsum(0), x)


# -- numbers ------------------------------------------------------------------------------


def _flatten(values: object) -> tuple[list[object], tuple[int, ...]]:
    if not isinstance(values, list):
        return [values], ()
    flat: list[object] = []
    inner: tuple[int, ...] | None = None
    for v in values:
        f, s = _flatten(v)
        flat.extend(f)
        inner = s if inner is None else inner
    return flat, (len(values), *(inner or ()))


class NestedApprox:
    """Equal to a nested list of the same shape whose numbers are close to these."""

    def __init__(self, expected: object, rel: float, abs: float) -> None:
        self.expected = expected
        self.flat, self.shape = _flatten(expected)
        self.rel, self.abs = rel, abs

    def __eq__(self, actual: object) -> bool:
        flat, shape = _flatten(actual)
        return shape == self.shape and flat == pytest.approx(self.flat, rel=self.rel, abs=self.abs)

    def __repr__(self) -> str:
        return f"approx({self.expected!r}, rel={self.rel}, abs={self.abs})"


def approx(expected: object, rel: float = 1e-3, abs: float = 1e-3) -> NestedApprox:
    """``pytest.approx`` for nested lists (it only handles flat sequences)."""
    return NestedApprox(expected, rel, abs)


def cube_grad(x_values: list[list[float]], *gradients: list[list[float]]) -> torch.Tensor:
    """z = (2x)**3, z.backward(v, retain_graph=True) once per v: the accumulated x.grad."""
    x = torch.tensor(x_values, requires_grad=True)
    z = (2 * x) ** 3
    for v in gradients:
        z.backward(torch.tensor(v), retain_graph=True)
    assert x.grad is not None
    return x.grad


def shown(t: torch.Tensor) -> str:
    """How the node details pane writes a tensor torch computed (the same formatter, same
    digits)."""
    return format_tensor(TensorData(tuple(t.shape), "float32", t.detach().tolist()), 12)


# -- sessions -----------------------------------------------------------------------------


def load_lesson(session: Session, number: int) -> Snapshot:
    """Load the lesson whose file name starts with ``number`` (``01-...``); its snapshot."""
    path = next(p for p in lesson_paths() if p.name.startswith(f"{number:02d}-"))
    session.load(load_session(path), str(path))
    return session.snapshot


def leaf_key(snapshot: Snapshot, name: str) -> str:
    """The graph key of the leaf node of the user's variable ``name``."""
    assert snapshot.graph is not None
    return next(n.key for n in snapshot.graph.nodes if n.kind == "leaf" and n.var == name)


# The session methods that change something: a widget's only way into the model.
MUTATORS = (
    "set_input",
    "set_input_values",
    "reset_input",
    "set_range",
    "set_output",
    "set_gradient",
    "set_gradient_element",
    "apply_gradient_preset",
    "set_options",
    "set_retain_grad",
    "backward",
    "zero_grad",
    "clear_steps",
    "apply_fix",
    "set_live",
    "set_scale_lock",
    "rescale",
    "start_replay",
    "step_replay",
    "play_replay",
    "set_replay_speed",
    "stop_replay",
    "step_jacobian_recipe",
    "stop_jacobian_recipe",
    "next_lesson_step",
    "previous_lesson_step",
    "go_to_lesson_step",
    "collapse_module",
    "expand_module",
    "collapse_all_modules",
    "expand_all_modules",
    "collapse_to_depth",
    "reset_module_groups",
)


class SessionSpy:
    """Records the session methods a widget calls (outermost calls only); calls made
    through :meth:`direct` stand for changes from elsewhere and are not recorded."""

    def __init__(self, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        self._session = session
        self._depth = 0
        for name in MUTATORS:
            monkeypatch.setattr(session, name, self._wrap(name, getattr(session, name)))

    def _wrap(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def spy(*args: Any, **kwargs: Any) -> Any:
            if self._depth == 0:
                self.calls.append(name)
            self._depth += 1
            try:
                return original(*args, **kwargs)
            finally:
                self._depth -= 1

        return spy

    def direct(self, name: str, *args: Any, **kwargs: Any) -> None:
        self._depth += 1
        try:
            getattr(self._session, name)(*args, **kwargs)
        finally:
            self._depth -= 1


# -- what a user does ---------------------------------------------------------------------


class HeldDispatcher:
    """A session's dispatcher that keeps submitted work until the test finishes it: a run
    or a layout that takes as long as the test likes, and what runs first."""

    inline = False

    def __init__(self) -> None:
        self.pending: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []

    def submit(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        self.pending.append((work, done))

    def finish_one(self) -> Any:
        """Do the oldest piece of work and hand its value on; returns the value."""
        work, done = self.pending.pop(0)
        value = work()
        done(value)
        return value

    def finish_all(self) -> None:
        while self.pending:
            self.finish_one()


def show_panel(qtbot: QtBot, panel: W, width: int, height: int) -> W:
    """``panel`` at ``width`` x ``height``, shown, exposed and closed after the test."""
    qtbot.addWidget(panel)
    panel.resize(width, height)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    """Click ``button`` where a user would."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtWidgets import QCheckBox

    # A check box reacts to clicks on its box and text, not the empty space beyond them.
    pos = QPoint(8, button.height() // 2) if isinstance(button, QCheckBox) else None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=pos or button.rect().center())


def handle_center(slider: QWidget) -> QPoint:
    """Where a slider's handle is, in the slider's coordinates."""
    from PySide6.QtWidgets import QStyle, QStyleOptionSlider

    option = QStyleOptionSlider()
    slider.initStyleOption(option)  # type: ignore[attr-defined]
    rect = slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, slider
    )
    return rect.center()


def drag_slider(qtbot: QtBot, slider: QWidget, *offsets: int) -> None:
    """Press on the slider's handle, move it right by each of ``offsets`` (pixels from where
    it started; negative: left) in turn, and let go at the last."""
    from PySide6.QtCore import QPoint, Qt

    start = handle_center(slider)
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=start)
    for dx in offsets:
        qtbot.mouseMove(slider, start + QPoint(dx, 0))
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=start + QPoint(offsets[-1], 0))


def type_into(qtbot: QtBot, box: NumberBox, text: str) -> None:
    """Select what the number box holds, type ``text``, press Return."""
    from PySide6.QtCore import Qt

    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), text)
    qtbot.keyClick(box.lineEdit(), Qt.Key.Key_Return)


def type_lines(qtbot: QtBot, editor: QPlainTextEdit, text: str) -> None:
    """Type ``text`` key by key (QTest cannot click a newline character: press Return)."""
    from PySide6.QtCore import Qt

    for i, line in enumerate(text.split("\n")):
        if i:
            qtbot.keyClick(editor, Qt.Key.Key_Return)
        qtbot.keyClicks(editor, line)


def viewport_point(panel: GraphPanel, item: NodeItem) -> QPoint:
    """Where the centre of the box ``item`` is in the graph view's viewport."""
    return panel.view().mapFromScene(item.rect.center())


# -- what the panels show -----------------------------------------------------------------


def explanation_text(panel: CodeEditorPanel) -> str:
    """The code panel's explanation tab as plain text."""
    from PySide6.QtWidgets import QTextBrowser

    return panel.findChild(QTextBrowser, "codeExplanation").toPlainText()


def underlines(panel: CodeEditorPanel) -> list[tuple[int, str, str]]:
    """(1-based line, underlined text, colour) of every wavy underline in the editor."""
    from PySide6.QtGui import QTextCharFormat

    found = []
    for selection in panel.editor().extraSelections():
        fmt = selection.format
        if fmt.underlineStyle() == QTextCharFormat.UnderlineStyle.SpellCheckUnderline:
            cursor = selection.cursor
            found.append(
                (cursor.blockNumber() + 1, cursor.selectedText(), fmt.underlineColor().name())
            )
    return found


def text_of(panel: NodeDetailsPanel) -> str:
    """The pane's text with runs of whitespace (table cells, swatches, alignment) as one space."""
    return re.sub(r"\s+", " ", panel.browser.toPlainText()).strip()


def heights(bars: GradBars) -> tuple[list[float], list[float], list[float]]:
    """(already there, added, bottom of the added bar) as the bars hold them (the bar tests
    in tests/widgets check that they are drawn there)."""
    data = bars.data
    bottoms = [after - added for after, added in zip(data.after, data.added, strict=True)]
    return list(data.before), list(data.added), bottoms


def final_marks(bars: GradBars) -> list[float]:
    """The value after the call, one tick per element."""
    return list(bars.data.after)


def curves(history: GradHistory) -> list[tuple[list[float], list[float]]]:
    """Each curve's (xs, ys) as plotted, missing values left out (both empty when none)."""
    return history.points()


def printed_grads(script: str, tmp_path: Path) -> dict[str, object]:
    """Run an exported script with plain Python (nothing of the app loaded) and read the
    ``.grad`` of every leaf it prints."""
    path = tmp_path / "script.py"
    path.write_text(script)
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    grads = {}
    for line in lines[lines.index(GRADS_HEADER) + 1 :]:
        name, value = line.split(".grad = ", 1)
        grads[name] = ast.literal_eval(value)
    return grads


class _RecordsPickler(pickle.Pickler):
    """Pickles graphs and steps as records, one object each (the default for a dataclass),
    not as the columns their ``__reduce__`` makes: what a child could send instead."""

    def reducer_override(self, obj: object) -> Any:
        if type(obj) in (Graph, StepRecord):
            return copyreg.__newobj__, (type(obj),), dict(vars(obj))
        return NotImplemented


def records_bytes(message: object) -> bytes:
    """``message`` pickled with its graphs and steps as records (see _RecordsPickler)."""
    buffer = io.BytesIO()
    _RecordsPickler(buffer, protocol=5).dump(message)
    return buffer.getvalue()


def forged(record: Any, **fields: Any) -> Any:
    """A copy of the frozen record ``record`` with ``fields`` replaced, no check run: what
    only a process past the Python wall could send the window."""
    changed = copy.copy(record)
    for name, value in fields.items():
        object.__setattr__(changed, name, value)
    return changed


def through_the_wire(result: RunResult) -> RunResult:
    """``result`` as the window reads it from the engine (pickled, then ``wire.loads``)."""
    from gui.model import wire
    from gui.model.result import Answer

    answer = wire.loads(pickle.dumps(Answer(1, result)))
    assert type(answer) is Answer and type(answer.result) is RunResult
    return answer.result
