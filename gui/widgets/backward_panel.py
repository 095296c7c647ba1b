"""The backward controls: what to differentiate, the ``gradient`` argument, the options.

``z.backward(v, retain_graph=..., create_graph=...)`` as controls: a choice of tensor, a
slider per element of ``v`` (one "v (implicit 1)" slider for a one-element output), presets
(ones, zeros, one-hot, scale), the one-click fixes for the classic errors, which
intermediates keep their ``.grad``, and the buttons that add backward calls or zero
``.grad``. The controls edit the session's *last* backward call. The notes, status and
choices they show come from :mod:`gui.model.views.backward`.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QEvent, QSignalBlocker, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QStyle,
    QStyleOptionGroupBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.model import nested
from gui.model.result import FULL_VALUES_LIMIT
from gui.model.session import GRADIENT_RANGE, FixKind, InputRange, Session, Snapshot
from gui.model.tensor_format import format_shape, format_tensor
from gui.model.views.backward import (
    FIX_TEXT,
    IMPLICIT_LABEL,
    Shown,
    fix_text,
    fix_tooltip,
    gradient_note,
    intermediates,
    output_choices,
    output_note,
    result_facts,
    retain_graph_note,
    status_text,
)
from gui.model.views.backward import shown as shown_by
from gui.widgets.name_combo import bound_to_short_names
from gui.widgets.number_box import NumberBox
from gui.widgets.qt_text import plain_label, set_tooltip
from gui.widgets.range_editor import RangeEditor
from gui.widgets.tensor_editor import TensorEditor


def _label(text: str = "") -> QLabel:
    label = plain_label(text)  # notes quote the program's names
    label.setWordWrap(True)
    return label


class _GroupBox(QGroupBox):
    """A group box that draws its frame once per size and look, then copies it.

    The style draws a group box's frame by stretching an image, which is slow; the
    gradient argument's box repaints under its slider on every tick of a drag.
    """

    def __init__(self, title: str) -> None:
        super().__init__(title)
        self._frame: QPixmap | None = None
        self._state = 0

    def setTitle(self, title: str) -> None:
        self._frame = None
        super().setTitle(title)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._frame = None
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        self._frame = None  # another font, palette, style, enabled or active state
        super().changeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        option = QStyleOptionGroupBox()
        self.initStyleOption(option)
        state = int(option.state.value)
        if self._frame is None or state != self._state:
            ratio = self.devicePixelRatioF()
            frame = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
            frame.setDevicePixelRatio(ratio)
            frame.fill(Qt.GlobalColor.transparent)
            painter = QPainter(frame)
            self.style().drawComplexControl(
                QStyle.ComplexControl.CC_GroupBox, option, painter, self
            )
            painter.end()
            self._frame, self._state = frame, state
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._frame)
        painter.end()


def _preset_button(text: str) -> QToolButton:
    # Tool buttons size to their text: four presets fit a narrow dock.
    button = QToolButton()
    button.setText(text)
    return button


class BackwardPanel(QWidget):
    """Controls for the session's backward calls; see the module docstring."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._choices: list[tuple[str | None, str]] = []
        self._editor_shape: tuple[int, ...] | None = None
        self._one_hot_shape: tuple[int, ...] | None = None
        self.editor: TensorEditor | None = None
        # What the last render showed (see render): the snapshot's parts, the gradient in
        # the rows, and each widget's text, visibility and enabled state.
        self._shown: Shown | None = None
        self._editor_values: tuple[object, bool] | None = None
        self._offered: tuple[FixKind, ...] | None = None
        self._facts: tuple[object, ...] | None = None
        self._options_key: tuple[object, ...] | None = None
        self._notes: tuple[object, ...] | None = None
        self._checks: tuple[tuple[QCheckBox, bool], ...] = ()
        self._texts: dict[QWidget, str] = {}
        self._visible: dict[QWidget, bool] = {}
        self._enabled: dict[QWidget, bool] = {}
        self.retain: dict[str, QCheckBox] = {}
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addLayout(self._build_output_row())
        layout.addWidget(self._build_gradient_box())
        layout.addWidget(self._build_options_box())
        layout.addWidget(self._build_run_box())
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # -- building ----------------------------------------------------------------------

    def _build_output_row(self) -> QVBoxLayout:
        self.output = bound_to_short_names(QComboBox())
        self.output.setToolTip("The tensor whose backward() the buttons below call")
        self.output.activated.connect(self._on_view_output)
        row = QHBoxLayout()
        row.addWidget(QLabel("Differentiate"))
        row.addWidget(self.output, 1)
        # Which tensor, and whether the app adds the backward call (views.backward.output_note).
        self.output_note = _label()
        self.output_note.setObjectName("outputNote")
        column = QVBoxLayout()
        column.addLayout(row)
        column.addWidget(self.output_note)
        return column

    def _build_gradient_box(self) -> QGroupBox:
        box = self.gradient_box = _GroupBox("Gradient argument v")
        box.setToolTip("x.grad = Jᵀv: each element of v says how much that output element matters")
        layout = QVBoxLayout(box)
        self.note = _label()
        layout.addWidget(self.note)
        self.fixes: dict[FixKind, QPushButton] = {}
        fix_rows = [QHBoxLayout(), QHBoxLayout(), QHBoxLayout()]
        # sum and mean share a row; the longer ones get their own.
        for kind, at in zip(FIX_TEXT, (0, 0, 1, 2), strict=True):
            button = self.fixes[kind] = QPushButton()
            button.clicked.connect(partial(self._on_view_fix, kind))
            fix_rows[at].addWidget(button)
        for row in fix_rows:
            row.addStretch(1)
            layout.addLayout(row)
        self._editor_slot = QVBoxLayout()
        layout.addLayout(self._editor_slot)
        self.range_editor = RangeEditor()
        self.range_editor.rangeEdited.connect(self._on_view_range)
        layout.addWidget(self.range_editor)
        layout.addLayout(self._build_presets())
        return box

    def _build_presets(self) -> QVBoxLayout:
        self.ones, self.zeros = _preset_button("ones"), _preset_button("zeros")
        self.scale, self.factor = _preset_button("scale ×"), NumberBox()
        self.factor.setRange(-1000, 1000)
        self.factor.setSingleStep(0.1)
        self.factor.setValue(0.5)
        self.one_hot, self.one_hot_index = _preset_button("one-hot e_i"), QComboBox()
        self.one_hot_index.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.one_hot_index.setToolTip("i: the output element whose row of the Jacobian to get")
        self.ones.clicked.connect(self._on_view_ones)
        self.zeros.clicked.connect(self._on_view_zeros)
        self.scale.clicked.connect(self._on_view_scale)
        self.one_hot.clicked.connect(self._on_view_one_hot)
        first, second = QHBoxLayout(), QHBoxLayout()
        widget: QWidget
        for widget in (QLabel("Presets:"), self.ones, self.zeros, self.scale, self.factor):
            first.addWidget(widget)
        for widget in (self.one_hot, QLabel("i ="), self.one_hot_index):
            second.addWidget(widget)
        first.addStretch(1)
        second.addStretch(1)
        rows = QVBoxLayout()
        rows.addLayout(first)
        rows.addLayout(second)
        return rows

    def _build_options_box(self) -> QGroupBox:
        box = QGroupBox("Options of this backward call")
        layout = QVBoxLayout(box)
        self.retain_graph = QCheckBox("retain_graph=True")
        self.retain_graph.setToolTip(
            "Keep the graph so backward can be called again. Until you change it, it is "
            "automatic: kept whenever another call follows."
        )
        self.retain_note = _label()
        self.create_graph = QCheckBox("create_graph=True")
        self.create_graph.setToolTip("Record a graph of the gradient too (for 2nd derivatives)")
        self.zero_first = QCheckBox("Zero .grad first (else it accumulates)")
        self.zero_first.setToolTip("Zero every leaf's .grad just before this backward call")
        self.retain_graph.clicked.connect(self._on_view_retain_graph)
        self.create_graph.clicked.connect(self._on_view_create_graph)
        self.zero_first.clicked.connect(self._on_view_zero_first)
        layout.addWidget(self.retain_graph)
        layout.addWidget(self.retain_note)
        for check in (self.create_graph, self.zero_first):
            layout.addWidget(check)
        layout.addWidget(_label("Keep .grad of intermediates (retain_grad):"))
        self._retain_layout = QVBoxLayout()
        self._retain_layout.setContentsMargins(12, 0, 0, 0)
        layout.addLayout(self._retain_layout)
        self._retain_key: tuple[str, ...] | None = None
        return box

    def _build_run_box(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        self.backward = QPushButton("Backward")
        self.backward.setToolTip("Call backward once more: .grad accumulates")
        self.zero_grad = QPushButton("Zero grad")
        self.zero_grad.setToolTip("x.grad.zero_() for every leaf, after the calls so far")
        self.clear = QPushButton("Clear steps")
        self.clear.setToolTip("Back to a single backward call")
        self.live = QCheckBox("Live")
        self.live.setToolTip("Re-run forward and backward on every change")
        self.backward.clicked.connect(self._on_view_backward)
        self.zero_grad.clicked.connect(self._on_view_zero_grad)
        self.clear.clicked.connect(self._on_view_clear)
        self.live.clicked.connect(self._on_view_live)
        buttons = QHBoxLayout()
        for widget in (self.backward, self.zero_grad, self.clear):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addWidget(self.live)
        self.status = _label()
        layout.addWidget(self.status)
        return box

    # -- rendering ---------------------------------------------------------------------

    # The panel protocol's render(snapshot) shadows QWidget.render(painter...) on purpose.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``; rebuilds slider rows only when the gradient's shape changes.

        Nothing is done for a snapshot that changes nothing shown here (a slider tick on
        the inputs, before its result), and otherwise each control is touched only when
        what it shows changed.
        """
        shown = shown_by(snapshot)
        if shown.same_as(self._shown):
            return
        previous, self._shown = self._shown, shown
        new_result = previous is None or shown.result is not previous.result
        facts = result_facts(shown.result) if new_result else self._facts
        if (
            previous is not None
            and facts is not None
            and facts == self._facts
            and shown[1:] == previous[1:]
        ):
            return  # a new result, but only in numbers this panel does not show
        self._facts = facts
        if previous is None or new_result or shown.output != previous.output:
            self._render_output(snapshot)
        # The notes read the calls only for whether there are any (dragging v changes
        # them on every tick).
        steps = shown.steps
        notes = (
            shown.warnings,
            shown.zero_after,
            shown.live,
            shown.stale,
            steps is None,
            not steps,
        )
        if new_result or notes != self._notes:
            self._notes = notes
            self._show_text(self.output_note, output_note(snapshot))
            self._show_text(self.status, status_text(snapshot))
        self._render_gradient(snapshot)
        self._render_fixes(snapshot)
        self._render_presets(snapshot)
        self._render_options(snapshot)
        if previous is None or new_result or shown.retain_grad != previous.retain_grad:
            self._render_retain(snapshot)
        self._show_enabled(self.zero_grad, snapshot.result is not None and not snapshot.zero_after)

    def _show_text(self, widget: QLabel | QCheckBox | QPushButton, text: str) -> None:
        # QLabel.setText relayouts even for the same text; asking a widget for its text
        # costs a call into Qt: remember what each one shows.
        if self._texts.get(widget) != text:
            self._texts[widget] = text
            widget.setText(text)

    def _show_visible(self, widget: QWidget, visible: bool) -> None:
        if self._visible.get(widget) != visible:
            self._visible[widget] = visible
            widget.setVisible(visible)

    def _show_enabled(self, widget: QWidget, enabled: bool) -> None:
        if self._enabled.get(widget) != enabled:
            self._enabled[widget] = enabled
            widget.setEnabled(enabled)

    def _render_output(self, snapshot: Snapshot) -> None:
        choices = output_choices(snapshot.result)
        if all(name != snapshot.output for name, _ in choices):
            choices.append((snapshot.output, f"{snapshot.output}  (not found)"))
        index = [name for name, _ in choices].index(snapshot.output)
        # Qt relayouts a combo box even when nothing changes: touch it only on a change
        # (this ran on every slider tick).
        if choices == self._choices and self.output.currentIndex() == index:
            return
        with QSignalBlocker(self.output):
            if choices != self._choices:
                self._choices = choices
                self.output.clear()
                self.output.addItems([text for _, text in choices])
            self.output.setCurrentIndex(index)

    def _render_gradient(self, snapshot: Snapshot) -> None:
        gradient = snapshot.current_step.gradient
        out_shape = snapshot.output_shape
        implicit = gradient is None and out_shape is not None and nested.numel(out_shape) == 1
        shape: tuple[int, ...] | None = None
        if gradient is not None:
            shape = nested.shape_of(gradient)
        elif implicit and out_shape is not None:
            shape = out_shape
        note = gradient_note(snapshot, shape)
        self._show_text(self.note, note)
        self._show_visible(self.note, bool(note))
        if shape is not None and nested.numel(shape) > FULL_VALUES_LIMIT:
            shape = None
        title = "Gradient argument v"
        if snapshot.result is not None and snapshot.result.output is not None:
            title = f"Gradient argument v: {snapshot.result.output}.backward(v)"
        if self._texts.get(self.gradient_box) != title:
            self._texts[self.gradient_box] = title
            self.gradient_box.setTitle(title)
        new_editor = self._ensure_editor(shape)
        self._show_visible(self.range_editor, self.editor is not None and self.editor.table is None)
        if self.editor is None:
            return
        value_range = snapshot.range_for(GRADIENT_RANGE)
        self.range_editor.setRange(value_range)
        self.editor.set_range(value_range)
        values = (gradient, implicit)
        if new_editor or values != self._editor_values:
            self._editor_values = values
            self.editor.set_labels([IMPLICIT_LABEL] if implicit else self.editor.default_labels())
            self.editor.set_values(nested.flatten(gradient) if gradient is not None else [1.0])

    def _ensure_editor(self, shape: tuple[int, ...] | None) -> bool:
        """Rows for a ``v`` of ``shape``; whether they are new."""
        # Same shape, same rows: going from the implicit 1 to an explicit v mid-drag must
        # not delete the slider under the mouse.
        if shape == self._editor_shape and (shape is None) == (self.editor is None):
            return False
        if self.editor is not None:
            self._editor_slot.removeWidget(self.editor)
            self.editor.hide()
            self.editor.deleteLater()
            self.editor = None
        self._editor_shape = shape
        if shape is None:
            return False
        self.editor = TensorEditor("v", shape, InputRange(-1.0, 1.0, 0.01))
        self.editor.elementEdited.connect(self._on_view_element)
        self.editor.dragging.connect(self._on_view_dragging)
        self._editor_slot.addWidget(self.editor)
        return True

    def _render_fixes(self, snapshot: Snapshot) -> None:
        offered = snapshot.fixes
        if not offered and self._offered == ():
            return  # the usual case: no fix then, none now (all hidden already)
        self._offered = offered
        for kind, button in self.fixes.items():
            shown = kind in offered
            if shown:
                self._show_text(button, fix_text(snapshot, kind))
                set_tooltip(button, fix_tooltip(snapshot, kind))
            self._show_visible(button, shown)

    def _render_presets(self, snapshot: Snapshot) -> None:
        shape = snapshot.output_shape
        for widget in (self.ones, self.zeros, self.scale, self.one_hot, self.one_hot_index):
            self._show_enabled(widget, shape is not None)
        if shape == self._one_hot_shape:
            return
        self._one_hot_shape = shape
        with QSignalBlocker(self.one_hot_index):
            self.one_hot_index.clear()
            if shape is not None:
                count = min(nested.numel(shape), FULL_VALUES_LIMIT)
                labels = [nested.index_label(shape, i) or "0" for i in range(count)]
                self.one_hot_index.addItems(labels)

    def _render_options(self, snapshot: Snapshot) -> None:
        # What the options show depends on how many calls there are and the last one's
        # options (not its gradient), the pending zero, live, and how many calls the code
        # made: work them out again only when one of these changed.
        state = snapshot.state
        steps = state.program.steps
        last = snapshot.current_step
        key = (
            None if steps is None else len(steps),
            last.retain_graph,
            last.create_graph,
            last.zero_grad,
            state.one_off_zero,
            state.zero_after,
            snapshot.live,
            snapshot.code_calls,
        )
        if key != self._options_key:
            self._options_key = key
            self._show_text(self.retain_note, retain_graph_note(snapshot))
            self._show_enabled(self.clear, snapshot.can_clear)
            self._checks = (
                # Ticked when the graph is kept for another call: automatic is.
                (self.retain_graph, snapshot.keeps_graph),
                (self.create_graph, snapshot.current_step.create_graph),
                (self.zero_first, snapshot.zero_each),
                (self.live, snapshot.live),
            )
        for check, value in self._checks:
            # The user may have ticked it: ask the box, not a memory of what was shown.
            if check.isChecked() != value:
                with QSignalBlocker(check):
                    check.setChecked(value)

    def _render_retain(self, snapshot: Snapshot) -> None:
        result = snapshot.result
        names = tuple(intermediates(result))
        if names != self._retain_key:
            self._retain_key = names
            for check in self.retain.values():
                self._retain_layout.removeWidget(check)
                self._texts.pop(check, None)
                check.hide()
                check.deleteLater()
            self.retain = {}
            for name in names:
                check = self.retain[name] = QCheckBox()
                check.clicked.connect(partial(self._on_view_retain_grad, name))
                self._retain_layout.addWidget(check)
        for name, check in self.retain.items():
            info = None if result is None else result.tensors[name]
            text = name if info is None else f"{name}  {format_shape(info.value.shape)}"
            if info is not None and info.grad is not None:
                text += f"   .grad = {format_tensor(info.grad, 4)}"
            self._show_text(check, text)
            if check.isChecked() != (name in snapshot.retain_grad):
                with QSignalBlocker(check):
                    check.setChecked(name in snapshot.retain_grad)

    # -- user actions: one session call each -------------------------------------------

    def _on_view_output(self, index: int) -> None:
        self._session.set_output(self._choices[index][0])

    def _on_view_element(self, index: int, value: float) -> None:
        self._session.set_gradient_element(index, value)

    def _on_view_dragging(self, dragging: bool) -> None:
        self._session.set_dragging(dragging)

    def _on_view_range(self, value_range: InputRange) -> None:
        self._session.set_range(GRADIENT_RANGE, value_range)

    def _on_view_fix(self, kind: FixKind) -> None:
        self._session.apply_fix(kind)

    def _on_view_ones(self) -> None:
        self._session.apply_gradient_preset("ones")

    def _on_view_zeros(self) -> None:
        self._session.apply_gradient_preset("zeros")

    def _on_view_scale(self) -> None:
        self._session.apply_gradient_preset("scale", factor=self.factor.value())

    def _on_view_one_hot(self) -> None:
        self._session.apply_gradient_preset("one_hot", index=self.one_hot_index.currentIndex())

    def _on_view_retain_graph(self, checked: bool) -> None:
        self._session.set_options(retain_graph=checked)

    def _on_view_create_graph(self, checked: bool) -> None:
        self._session.set_options(create_graph=checked)

    def _on_view_zero_first(self, checked: bool) -> None:
        self._session.set_options(zero_grad=checked)

    def _on_view_retain_grad(self, name: str) -> None:
        self._session.set_retain_grad(name, self.retain[name].isChecked())

    def _on_view_backward(self) -> None:
        self._session.backward()

    def _on_view_zero_grad(self) -> None:
        self._session.zero_grad()

    def _on_view_clear(self) -> None:
        self._session.clear_steps()

    def _on_view_live(self, checked: bool) -> None:
        self._session.set_live(checked)
