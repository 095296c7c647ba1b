"""Tool bars that take a second row instead of hiding tools in an overflow menu.

A QToolBar too narrow for its tools moves the last ones into a "»" menu. On a projector's
1024-pixel screen the graph column is about 400 pixels wide: the graph toolbar's "Show"
chooser (which backward call the graph shows) went into that menu as soon as a model's
"Groups" button appeared, where no class would ever find it. :class:`ToolRows` keeps one
row while everything fits and moves one bar, whole, to a row of its own when it does not.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QSize, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

# Room beside a line edit's placeholder: its frame, margins and clear button.
_EDIT_CHROME_PX = 36


def _least_width(widget: QWidget) -> int:
    """The width a trailing widget needs: a line edit (the search box) gives up room
    down to its placeholder ("Find node") before a bar moves to a second row."""
    if isinstance(widget, QLineEdit) and widget.placeholderText():
        placeholder = widget.fontMetrics().horizontalAdvance(widget.placeholderText())
        return placeholder + _EDIT_CHROME_PX
    return min(widget.sizeHint().width(), widget.maximumWidth())


class ToolRows(QWidget):
    """``lead`` and ``spill`` side by side, then ``trailing`` at the right end, while the
    row is wide enough for all of them; else ``spill`` on a second row of its own.

    Parameters
    ----------
    lead
        The bar that always stays on the first row.
    spill
        The bar that moves to the second row when the first is too narrow.
    trailing
        Widgets at the first row's right end (a search box): always on the first row.
    parent
        The Qt parent.
    """

    def __init__(
        self,
        lead: QToolBar,
        spill: QToolBar,
        trailing: Sequence[QWidget] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._lead = lead
        self._spill = spill
        self._trailing = list(trailing)
        # The widest each trailing line edit may be (its owner's maximum): it gets less
        # while the bars need the room (see _share_room).
        self._widest = {id(w): w.maximumWidth() for w in self._trailing}
        self._top = QHBoxLayout()
        self._top.setContentsMargins(0, 0, 0, 0)
        self._top.addWidget(lead)
        self._top.addWidget(spill)
        self._top.addStretch(1)
        for widget in self._trailing:
            self._top.addWidget(widget)
        self._bottom = QHBoxLayout()
        self._bottom.setContentsMargins(0, 0, 0, 0)
        self._bottom.addStretch(1)
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(0)
        rows.addLayout(self._top)
        rows.addLayout(self._bottom)
        self._wrapped = False
        self._due = False  # an _arrange is scheduled

    def wrapped(self) -> bool:
        """Whether ``spill`` is on the second row."""
        return self._wrapped

    def one_row_width(self) -> int:
        """The width every tool needs on one row (the bars' full widths, no overflow)."""
        widths = [self._lead.sizeHint().width(), self._spill.sizeHint().width()]
        widths += [_least_width(w) for w in self._trailing if not w.isHidden()]
        margins = self.contentsMargins()
        spacing = max(0, self._top.spacing())
        return sum(widths) + spacing * len(widths) + margins.left() + margins.right()

    def minimumSizeHint(self) -> QSize:
        # As narrow as the wrapped rows can be, even while everything is on one row: a
        # column narrowed later wraps the rows rather than widening the window.
        hint = super().minimumSizeHint()
        if self._wrapped:
            return hint
        spill = self._spill.minimumSizeHint().width()
        margins = self.contentsMargins()
        without = hint.width() - spill - max(0, self._top.spacing())
        return QSize(max(without, spill + margins.left() + margins.right()), hint.height())

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        # A resize, or a tool that appeared or changed size (the "Groups" button, a new
        # font): decide the rows again. Moving a bar asks for one more layout, which
        # then finds the rows as they should be.
        # After this turn of the event loop: moving a bar while a layout is being
        # applied left the first row squeezed to half its height.
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest) and not self._due:
            self._due = True
            QTimer.singleShot(0, self, self._arrange)
        return handled

    def _arrange(self) -> None:
        self._due = False
        self._share_room()
        wrap = self.width() < self.one_row_width()
        if wrap == self._wrapped:
            return
        self._wrapped = wrap
        if wrap:
            self._top.removeWidget(self._spill)
            self._bottom.insertWidget(0, self._spill)
        else:
            self._bottom.removeWidget(self._spill)
            self._top.insertWidget(1, self._spill)

    def _share_room(self) -> None:
        """Give the bars on the first row their whole width and a trailing line edit
        what is left: an Expanding line edit would otherwise squeeze a bar, whose last
        tools then go into its overflow menu. Only maximum widths change, so the row
        never asks for more room than it had (the window never grows)."""
        edits = [w for w in self._trailing if isinstance(w, QLineEdit)]
        if not edits:
            return
        bars = [self._lead] + ([] if self._wrapped else [self._spill])
        others = [w for w in self._trailing if w not in edits and not w.isHidden()]
        used = sum(w.sizeHint().width() for w in [*bars, *others])
        margins = self.contentsMargins()
        spacing = max(0, self._top.spacing())
        count = len(bars) + len(others) + len(edits)
        room = self.width() - used - margins.left() - margins.right() - spacing * count
        each = max(0, room // len(edits))
        for edit in edits:
            widest = min(self._widest[id(edit)], max(each, 0))
            if edit.maximumWidth() != widest:
                edit.setMaximumWidth(widest)
