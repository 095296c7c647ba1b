"""The inputs panel: a slider per element of every leaf tensor, with its ``.grad``.

A leaf is a tensor the program made with ``requires_grad=True``: the numbers gradients are
taken with respect to. Each gets a group (name, shape, dtype, its ``.grad``), a range
editor, a reset button and sliders (a table beyond :data:`MAX_SLIDERS` elements; only a
summary beyond the engine's full-values limit). Groups are rebuilt only when the set of
leaves or their shapes change; every other snapshot just updates numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from gui.model import nested
from gui.model.drawing.colors import LEAF_BORDER, LEAF_FILL, scale_for
from gui.model.result import FULL_VALUES_LIMIT, RunResult, TensorData
from gui.model.session.session import Session
from gui.model.session.snapshot import InputRange, Snapshot
from gui.model.tensor_format import format_shape, format_summary, format_tensor
from gui.widgets.range_editor import RangeEditor
from gui.widgets.value_slider import TensorEditor

_BADGE_STYLE = (
    f"background: {LEAF_FILL}; border: 1px solid {LEAF_BORDER}; border-radius: 4px;"
    " padding: 0px 4px;"
)
_EMPTY_TEXT = (
    "No inputs yet. A tensor made with requires_grad=True (or .requires_grad_()) appears "
    "here with a slider for each of its numbers."
)


def _flat_numbers(values: object) -> list[float]:
    return [float(v) for v in nested.flatten(values) if isinstance(v, int | float)]


def gradient_scale(snapshot: Snapshot) -> float:
    """The colour scale of the graph picture, so a gradient is the same colour here."""
    result = snapshot.result
    if result is None:
        return 1.0
    if snapshot.paint is not None:
        return snapshot.paint.scale
    grads = [g for g in snapshot.leaf_grads.values() if g is not None and g.values is not None]
    return scale_for(v for g in grads for v in _flat_numbers(g.values))


class LeafGroup(QFrame):
    """One leaf: header, ``.grad`` line, range and reset row, and its number editor."""

    def __init__(self, session: Session, name: str, data: TensorData) -> None:
        super().__init__()
        self._session = session
        self.name = name
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.addLayout(self._header(data))
        self.grad_label = QLabel()
        self.grad_label.setWordWrap(True)
        self.grad_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.grad_label)
        self.editor: TensorEditor | None = None
        self.range_editor = RangeEditor()
        self.reset = QPushButton("Reset to code's value")
        self.reset.setToolTip(f"Forget the slider values: use the {name} the code makes")
        if data.values is None:
            note = (
                f"{format_summary(data)}\nToo large to edit here: {data.numel} elements "
                f"(up to {FULL_VALUES_LIMIT} can be edited)."
            )
            self.note = QLabel(note)
            self.note.setWordWrap(True)
            layout.addWidget(self.note)
            return
        layout.addWidget(self.range_editor)
        first_range = InputRange(-1.0, 1.0, 0.01)  # replaced by the first render
        self.editor = TensorEditor(name, data.shape, first_range, f"{name}.grad")
        layout.addWidget(self.editor)
        layout.addWidget(self.reset, 0, Qt.AlignmentFlag.AlignRight)
        self.range_editor.rangeEdited.connect(self._on_view_range)
        self.reset.clicked.connect(self._on_view_reset)
        self.editor.elementEdited.connect(self._on_view_element)

    def _header(self, data: TensorData) -> QHBoxLayout:
        row = QHBoxLayout()
        title = QLabel(f"<b>{self.name}</b>&nbsp;&nbsp;{format_shape(data.shape)}&nbsp;&nbsp;")
        title.setTextFormat(Qt.TextFormat.RichText)
        dtype = QLabel(data.dtype)
        badge = QLabel("requires_grad=True")
        badge.setStyleSheet(_BADGE_STYLE)
        badge.setToolTip("A leaf: backward() stores its gradient in .grad")
        for widget in (title, dtype, badge):
            row.addWidget(widget)
        row.addStretch(1)
        return row

    def refresh(self, snapshot: Snapshot, scale: float) -> None:
        """Show this leaf's numbers and gradient from ``snapshot``."""
        grad = snapshot.leaf_grads.get(self.name)
        text = f"{self.name}.grad = {format_tensor(grad)}"
        if not snapshot.live and snapshot.stale:
            text += "  (from the last run: live is off)"
        if text != self.grad_label.text():
            self.grad_label.setText(text)
        if self.editor is None:
            return
        values = snapshot.leaf_value(self.name)
        flat = [] if values is None else _flat_numbers(values)
        value_range = snapshot.range_for(self.name)
        self.range_editor.setRange(value_range)
        self.editor.set_range(value_range)
        self.editor.set_values(flat)
        grad_flat = None if grad is None or grad.values is None else _flat_numbers(grad.values)
        if grad_flat is not None and len(grad_flat) != len(flat):
            grad_flat = None
        self.editor.set_gradients(grad_flat, scale)
        editable = self.name in snapshot.values
        if editable != self.reset.isEnabled():
            self.reset.setEnabled(editable)

    def _on_view_element(self, index: int, value: float) -> None:
        self._session.set_input(self.name, index, value)

    def _on_view_range(self, value_range: InputRange) -> None:
        self._session.set_range(self.name, value_range)

    def _on_view_reset(self) -> None:
        self._session.reset_input(self.name)


def _structure(result: RunResult | None) -> tuple[tuple[str, tuple[int, ...], bool], ...]:
    """What decides the groups: the leaves, their shapes, and whether numbers came back."""
    if result is None:
        return ()
    out = []
    for name in result.leaves:
        info = result.tensors.get(name)
        if info is not None:
            out.append((name, info.value.shape, info.value.values is not None))
    return tuple(out)


def _constants(result: RunResult | None) -> Sequence[str]:
    if result is None:
        return ()
    return [n for n, t in result.tensors.items() if t.is_leaf and not t.requires_grad]


class InputsPanel(QWidget):
    """Sliders for every leaf tensor's numbers (``session.set_input``), with each element's
    ``.grad`` coloured on the graph's diverging scale."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._structure: tuple[tuple[str, tuple[int, ...], bool], ...] | None = None
        self.groups: dict[str, LeafGroup] = {}
        self._scale_key: tuple[RunResult | None, int | None] | None = None
        self._scale = 1.0
        self.empty = QLabel(_EMPTY_TEXT)
        self.empty.setWordWrap(True)
        self.constants = QLabel()
        self.constants.setWordWrap(True)
        self.constants.setVisible(False)
        self._content = QWidget()
        self._rows = QVBoxLayout(self._content)
        self._rows.addWidget(self.empty)
        self._rows.addStretch(1)
        self._rows.addWidget(self.constants)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self._content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # The panel protocol's render(snapshot) shadows QWidget.render(painter...) on purpose.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Update to ``snapshot``: rebuild groups only if the leaves or shapes changed."""
        structure = _structure(snapshot.result)
        if structure != self._structure:
            self._rebuild(snapshot, structure)
        scale = self._gradient_scale(snapshot)
        for group in self.groups.values():
            group.refresh(snapshot, scale)
        constants = _constants(snapshot.result)
        text = f"Constants (no grad): {', '.join(constants)}" if constants else ""
        if text != self.constants.text():
            self.constants.setText(text)
            self.constants.setVisible(bool(text))

    def _gradient_scale(self, snapshot: Snapshot) -> float:
        # The scale walks every gradient in the graph: only redo it for a new result/step.
        key = (snapshot.result, snapshot.selected_step)
        old = self._scale_key
        if old is None or old[0] is not key[0] or old[1] != key[1]:
            self._scale_key = key
            self._scale = gradient_scale(snapshot)
        return self._scale

    def _rebuild(
        self, snapshot: Snapshot, structure: tuple[tuple[str, tuple[int, ...], bool], ...]
    ) -> None:
        self._structure = structure
        for group in self.groups.values():
            self._rows.removeWidget(group)
            group.hide()  # deleteLater waits for the event loop; never show two versions
            group.deleteLater()
        self.groups = {}
        assert snapshot.result is not None or not structure
        for position, (name, _shape, _has_values) in enumerate(structure):
            info = snapshot.result.tensors[name] if snapshot.result is not None else None
            assert info is not None
            group = LeafGroup(self._session, name, info.value)
            self._rows.insertWidget(1 + position, group)
            self.groups[name] = group
        self.empty.setVisible(not structure)
