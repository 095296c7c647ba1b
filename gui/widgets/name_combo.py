"""Combo boxes of names a program chose: as wide as a short name, their lists as wide as
the longest.

A combo box sized to its contents (Qt's default) is as wide as its longest item: a
model's qualified names (``model.layers.0.self_attn.out_proj.bias[12]``) made the plots'
leaf chooser 330 pixels wide, which pushed the right column, and the window at 1280x720,
past the screen. These boxes keep room for :data:`SHOWN_CHARACTERS` characters (a longer
current item is elided) while the open list is wide enough to read every item whole.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QStyle

# Room for this many characters of the current item: "model.0.weight", "x[1, 2]".
SHOWN_CHARACTERS = 14
# The open list grows to fit its longest item, up to this many pixels.
LIST_MAX_WIDTH = 640


def bound_to_short_names(combo: QComboBox, characters: int = SHOWN_CHARACTERS) -> QComboBox:
    """Make ``combo`` as wide as ``characters`` characters whatever its items, its open
    list as wide as its longest item (up to :data:`LIST_MAX_WIDTH`); returns it."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(characters)
    model = combo.model()

    def fit_list() -> None:
        view = combo.view()
        widest = max(view.sizeHintForColumn(0), 0)
        bar = combo.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, combo)
        view.setMinimumWidth(min(widest + bar + 8, LIST_MAX_WIDTH))

    model.rowsInserted.connect(fit_list)
    model.rowsRemoved.connect(fit_list)
    model.modelReset.connect(fit_list)
    model.dataChanged.connect(fit_list)
    return combo
