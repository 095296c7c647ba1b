"""The look both gradient plots share: white, dark axes, projector-sized text, and the
colours of the bars' parts (the panel's legend draws its samples with them too)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

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


# Set only inside plot_font_at_least: the least size plots built there are drawn at.
_least_point_size = MIN_FONT_PT


def plot_font() -> QFont:
    """The application font, never below 10 pt (projectors)."""
    font = QFont(QApplication.font())
    font.setPointSizeF(max(_least_point_size, font.pointSizeF()))
    return font


@contextmanager
def plot_font_at_least(point_size: float) -> Iterator[None]:
    """Within: :func:`plot_font` is at least ``point_size``.

    An exported plots picture is drawn at presentation size by plots built and painted
    in here, without changing the application font (which every panel follows).
    """
    global _least_point_size
    before = _least_point_size
    _least_point_size = max(before, point_size)
    try:
        yield
    finally:
        _least_point_size = before
