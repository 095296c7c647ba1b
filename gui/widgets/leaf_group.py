"""One leaf tensor in the inputs panel: its header, ``.grad``, range editor, reset button
and number editor (sliders, a table, or only a summary when it is too large to edit)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gui.model.drawing.colors import LEAF_BORDER, LEAF_FILL
from gui.model.result import FULL_VALUES_LIMIT, TensorData
from gui.model.session import InputRange, Session, Snapshot
from gui.model.tensor_format import format_shape, format_summary, format_tensor
from gui.model.views.inputs import flat_numbers
from gui.widgets.qt_text import follow_application_font
from gui.widgets.range_editor import RangeEditor
from gui.widgets.tensor_editor import TensorEditor

_BADGE_STYLE = (
    f"background: {LEAF_FILL}; border: 1px solid {LEAF_BORDER}; border-radius: 4px;"
    " padding: 0px 4px;"
)


class _WrapHost(QWidget):
    """Holds a word-wrapped label, without a layout of its own.

    The ``.grad`` line changes on every slider tick, and ``QLabel.setText`` has its parent's
    layout redone, which redoes every layout up the inputs column (~1 ms a tick). Here the
    label's request reaches this host, which passes it on only when the room the label
    needs changed: another height at this width, or another least width.
    """

    def __init__(self, label: QLabel) -> None:
        super().__init__()
        label.setParent(self)
        self._label = label
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._needs: tuple[int, int] | None = None

    def _room(self) -> tuple[int, int]:
        # The widest word stands for the least width (QLabel's own minimumSizeHint lays the
        # text out again, which cost more than the relayout it would spare).
        metrics = self._label.fontMetrics()
        widest = max((metrics.horizontalAdvance(w) for w in self._label.text().split()), default=0)
        return self._label.heightForWidth(self.width()), widest

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._label.heightForWidth(width)

    def sizeHint(self) -> QSize:
        return self._label.sizeHint()

    def minimumSizeHint(self) -> QSize:
        return self._label.minimumSizeHint()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._label.setGeometry(self.rect())
        self._needs = self._room()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            needs = self._room()
            if needs != self._needs:
                self._needs = needs
                self.updateGeometry()
            return True
        return super().event(event)


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
        self.grad_label = QLabel()
        self.grad_label.setWordWrap(True)
        self.grad_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(_WrapHost(self.grad_label))
        self.editor: TensorEditor | None = None
        self.range_editor = RangeEditor()
        self.reset = QPushButton("Reset to code")
        self.reset.setToolTip(f"Forget the slider values: use the {name} the code makes")
        # A click leaves the focus where it was: the button disables itself, and a focused
        # button that is disabled hands the focus on, which scrolled the panel to whatever
        # took it.
        self.reset.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        if data.values is None:
            note = (
                f"{format_summary(data)}\nToo large to edit here: {data.numel} elements "
                f"(up to {FULL_VALUES_LIMIT} can be edited)."
            )
            self.note = QLabel(note)
            self.note.setWordWrap(True)
            layout.addWidget(self.note)
            return
        controls = QHBoxLayout()
        controls.addWidget(self.range_editor, 1)
        controls.addWidget(self.reset, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(controls)
        first_range = InputRange(-1.0, 1.0, 0.01)  # replaced by the first render
        self.editor = TensorEditor(name, data.shape, first_range, f"{name}.grad")
        layout.addWidget(self.editor)
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
        follow_application_font(badge)
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
        flat = [] if values is None else flat_numbers(values)
        value_range = snapshot.range_for(self.name)
        self.range_editor.setRange(value_range)
        self.editor.set_range(value_range)
        self.editor.set_values(flat)
        grad_flat = None if grad is None or grad.values is None else flat_numbers(grad.values)
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
