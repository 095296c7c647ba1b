"""The inputs panel: a slider per element of every leaf tensor, with its ``.grad``.

A leaf is a tensor the program made with ``requires_grad=True``: the numbers gradients are
taken with respect to. Each gets a :class:`~gui.widgets.leaf_group.LeafGroup` (name, shape,
dtype, its ``.grad``, a range editor, a reset button and sliders; a table beyond
:data:`~gui.widgets.tensor_editor.MAX_SLIDERS` elements; only a summary beyond the engine's
full-values limit). Groups are rebuilt only when the set of leaves or their shapes change
(:func:`gui.model.views.inputs.structure`); every other snapshot just updates numbers,
and only those that changed (a slider tick renders twice: the change, then its result).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from gui.model.session import Session, Snapshot
from gui.model.views.inputs import Structure, constants, structure
from gui.widgets.content_width_guard import ContentWidthGuard
from gui.widgets.leaf_group import LeafGroup
from gui.widgets.qt_text import plain_label

_EMPTY_TEXT = (
    "No inputs yet. A tensor made with requires_grad=True (or .requires_grad_()) appears "
    "here with a slider for each of its numbers."
)


class InputsPanel(QWidget):
    """Sliders for every leaf tensor's numbers (``session.set_input``), with each element's
    ``.grad`` coloured on the window's one diverging scale."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._structure: Structure | None = None
        self._result: object = None  # the result the structure and constants are from
        self._scale = 1.0
        self._scale_of: tuple[int | None, float | None] | None = None
        self.groups: dict[str, LeafGroup] = {}
        self.empty = QLabel(_EMPTY_TEXT)
        self.empty.setWordWrap(True)
        self.constants = plain_label()  # the program's names
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
        self._width_guard = ContentWidthGuard(scroll)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # The panel protocol's render(snapshot) shadows QWidget.render(painter...) on purpose.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Update to ``snapshot``: rebuild groups only if the leaves or shapes changed."""
        result = snapshot.result
        new_result = result is not self._result or self._structure is None
        if new_result:
            self._result = result
            leaves = structure(result)
            if leaves != self._structure:
                self._rebuild(snapshot, leaves)
        # The one colour scale depends on the result, the step shown and the lock only.
        step, locked = snapshot.selected_step, snapshot.locked_scale
        if new_result or (step, locked) != self._scale_of:
            self._scale_of = (step, locked)
            self._scale = snapshot.colour_scale
        scale = self._scale
        for group in self.groups.values():
            group.refresh(snapshot, scale)
        if new_result:
            names = constants(result)
            text = f"Constants (no grad): {', '.join(names)}" if names else ""
            if text != self.constants.text():
                self.constants.setText(text)
                self.constants.setVisible(bool(text))

    def _rebuild(self, snapshot: Snapshot, leaves: Structure) -> None:
        self._structure = leaves
        for group in self.groups.values():
            self._rows.removeWidget(group)
            group.hide()  # deleteLater waits for the event loop; never show two versions
            group.deleteLater()
        self.groups = {}
        assert snapshot.result is not None or not leaves
        for position, (name, _shape, _has_values) in enumerate(leaves):
            info = snapshot.result.tensors[name] if snapshot.result is not None else None
            assert info is not None
            group = LeafGroup(self._session, name, info.value)
            self._rows.insertWidget(1 + position, group)
            self.groups[name] = group
        self.empty.setVisible(not leaves)
