"""One leaf tensor in the inputs panel: its header, ``.grad``, range editor, reset button
and number editor (sliders, a table, or only a summary when it is too large to edit).

A group is refreshed twice per slider tick (the change, then its result): each part is
touched only when what it shows changed, so the change costs next to nothing and the
result only what its new numbers need.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
)

from gui.model.drawing.colors import LEAF_BORDER, LEAF_FILL
from gui.model.result import FULL_VALUES_LIMIT, TensorData
from gui.model.session import InputRange, Session, Snapshot
from gui.model.tensor_format import (
    WIDEST_NUMBER,
    format_number,
    format_shape,
    format_summary,
    format_tensor,
)
from gui.model.views.inputs import flat_numbers, grad_text
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.qt_text import follow_application_font, plain_label, set_tooltip
from gui.widgets.range_editor import RangeEditor
from gui.widgets.selectable_text import SelectableText
from gui.widgets.tensor_editor import TensorEditor

_UNSET = object()  # what a group showed before its first refresh
# Names up to this long share a line with the shape, dtype and badge; longer ones (a
# model's model.layers.0.self_attn.in_proj_weight) get a line of their own.
NAME_BESIDE_SHAPE = 12

_BADGE_STYLE = (
    f"background: {LEAF_FILL}; border: 1px solid {LEAF_BORDER}; border-radius: 4px;"
    " padding: 0px 4px;"
)


class LeafGroup(QFrame):
    """One leaf: header, ``.grad`` line, range and reset row, and its number editor.

    Compact on purpose (the range toggle and the reset button share a row, margins are
    narrow): the welcome lesson's two leaves must fit a 1280x720 window's inputs tab whole.
    """

    def __init__(self, session: Session, name: str, data: TensorData) -> None:
        super().__init__()
        self._session = session
        self.name = name
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 6)
        layout.setSpacing(3)
        layout.addLayout(self._header(data))
        # The .grad line changes on every slider tick: a label cheap to change, which asks
        # for no new layout unless its text needs another height (see SelectableText),
        # with room from the start for the widest number.
        dims = len(data.shape)
        widest = "[" * dims + format_number(WIDEST_NUMBER) + "]" * dims + ","
        self.grad_label = SelectableText(least_words=(widest,), break_long_words=True)
        # Opaque (the group's background is the window's): new text repaints the line alone.
        self.grad_label.setAutoFillBackground(True)
        layout.addWidget(self.grad_label)
        # What the last refresh showed: the .grad (by identity: results are frozen), whether
        # it said "live is off", the leaf's numbers (by identity), range, scale, editable.
        self._shown_grad: object = _UNSET
        self._shown_stale = False
        self._shown_values: object = _UNSET
        self._shown_count = -1
        self._shown_range: InputRange | None = None
        self._shown_scale = math.nan
        self._shown_editable: bool | None = None
        self.editor: TensorEditor | None = None
        self.range_editor = RangeEditor()
        self.reset = QPushButton("Reset to code")
        set_tooltip(self.reset, f"Forget the slider values: use the {name} the code makes")
        # A click leaves the focus where it was: the button disables itself, and a focused
        # button that is disabled hands the focus on, which scrolled the panel to whatever
        # took it.
        self.reset.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        if data.values is None:
            note = (
                f"{format_summary(data)}\nToo large to edit here: {data.numel} elements "
                f"(up to {FULL_VALUES_LIMIT} can be edited)."
            )
            self.note = plain_label(note)
            self.note.setWordWrap(True)
            layout.addWidget(self.note)
            return
        if data.dtype.startswith("complex"):
            # A slider moves along one real line: a complex number is edited in the code.
            note = (
                f"{name} = {format_tensor(data)}\nComplex numbers: change them in the code "
                "(a slider edits one real number)."
            )
            self.note = plain_label(note)
            self.note.setWordWrap(True)
            layout.addWidget(self.note)
            return
        controls = QHBoxLayout()
        controls.addWidget(self.range_editor, 1)
        controls.addWidget(self.reset, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(controls)
        first_range = InputRange(-1.0, 1.0, 0.01)  # replaced by the first render
        self.editor = TensorEditor(name, data.shape, first_range, f"{name}.grad", opaque=True)
        layout.addWidget(self.editor)
        self.range_editor.rangeEdited.connect(self._on_view_range)
        self.reset.clicked.connect(self._on_view_reset)
        self.editor.elementEdited.connect(self._on_view_element)
        self.editor.dragging.connect(self._on_view_dragging)

    def _header(self, data: TensorData) -> QVBoxLayout:
        header, row = QVBoxLayout(), QHBoxLayout()
        # The name is the program's text, shown as written; a model's qualified name longer
        # than the column is shortened in the middle (whole on hover) rather than widening
        # the window. Bold by weight alone: a font with only the weight set still takes its
        # size from the application's (presentation mode).
        title = ElidedLabel(self.name, mode=Qt.TextElideMode.ElideMiddle)
        bold = QFont()
        bold.setBold(True)
        title.setFont(bold)
        title.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        shape = plain_label(f" {format_shape(data.shape)} ")
        dtype = plain_label(data.dtype)
        badge = QLabel("requires_grad=True")
        badge.setStyleSheet(_BADGE_STYLE)
        follow_application_font(badge)
        badge.setToolTip("A leaf: backward() stores its gradient in .grad")
        beside: list[QLabel] = [shape, dtype, badge]
        if len(self.name) > NAME_BESIDE_SHAPE:  # a model's qualified name: a line of its own
            header.addWidget(title)
        else:
            beside.insert(0, title)
        for widget in beside:
            row.addWidget(widget)
        row.addStretch(1)
        header.addLayout(row)
        return header

    def refresh(self, snapshot: Snapshot, scale: float) -> None:
        """Show this leaf's numbers and gradient from ``snapshot`` (only what changed)."""
        grad = snapshot.leaf_grads.get(self.name)
        stale = not snapshot.live and snapshot.stale
        new_grad = grad is not self._shown_grad
        if new_grad or stale != self._shown_stale:
            self._shown_stale = stale
            self.grad_label.setText(grad_text(self.name, grad, stale))
        if self.editor is None:
            self._shown_grad = grad
            return
        value_range = snapshot.range_for(self.name)
        if value_range != self._shown_range:
            self._shown_range = value_range
            self.range_editor.setRange(value_range)
            self.editor.set_range(value_range)
        values = snapshot.leaf_value(self.name)
        if values is not self._shown_values:
            self._shown_values = values
            flat = [] if values is None else flat_numbers(values)
            self.editor.set_values(flat)
            new_grad = new_grad or len(flat) != self._shown_count
            self._shown_count = len(flat)
        if new_grad or scale != self._shown_scale:
            self._shown_grad, self._shown_scale = grad, scale
            self.editor.set_gradients(self._grad_numbers(grad), scale)
        editable = self.name in snapshot.values
        if editable != self._shown_editable:
            self._shown_editable = editable
            self.reset.setEnabled(editable)

    def _grad_numbers(self, grad: TensorData | None) -> list[float] | None:
        """``grad``'s numbers, one per slider (``None``: no gradient to show)."""
        if grad is None or grad.values is None:
            return None
        flat = flat_numbers(grad.values)
        return flat if len(flat) == self._shown_count else None

    def _on_view_element(self, index: int, value: float) -> None:
        self._session.set_input(self.name, index, value)

    def _on_view_dragging(self, dragging: bool) -> None:
        self._session.set_dragging(dragging)

    def _on_view_range(self, value_range: InputRange) -> None:
        self._session.set_range(self.name, value_range)

    def _on_view_reset(self) -> None:
        self._session.reset_input(self.name)
