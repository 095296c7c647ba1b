"""The look both gradient plots share: white, dark axes, projector-sized text, and the
colours of the bars' parts (the panel's legend draws its samples with them too)."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

AXIS_COLOR = "#404040"
TEXT_COLOR = "#202020"
# "Already there" is achromatic and hatched, so it can never be read as a gradient's sign
# (and stays apart from the flat grey the scale uses for nan). The bars and the panel's
# legend of them both draw with these.
BEFORE_COLOR = "#7a7a7a"
FINAL_COLOR = "#000000"
ADDED_BORDER = "#404040"
# Behind a message written over a plot ("x.grad is None"): white, a little see-through.
NOTE_FILL = (255, 255, 255, 220)
MIN_FONT_PT = 10.0


def plot_font() -> QFont:
    """The application font, never below 10 pt (projectors)."""
    font = QFont(QApplication.font())
    font.setPointSizeF(max(MIN_FONT_PT, font.pointSizeF()))
    return font
