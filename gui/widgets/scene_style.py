"""What the graph scene's items share: the layout's font, cached colours, stacking order.

Boxes and labels draw their text in the font the layout measured box widths in
(:func:`gui.model.tensor_format.text_width`), unhinted so it scales exactly with the zoom;
:func:`text_scale_for_font` shrinks it when a fallback font runs wider.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtGui import QColor, QFont, QFontMetricsF

from gui.model.drawing.layout import FONT_SIZE
from gui.model.tensor_format import text_width

# The font the layout measured box widths in (tensor_format.text_width).
FONT_FAMILY = "DejaVu Sans"
# Stacking order: labels over the edges they sit on, boxes over both, the selected box on top.
Z_EDGE, Z_LABEL, Z_NODE, Z_SELECTED = 0.0, 1.0, 2.0, 3.0


@lru_cache(maxsize=512)
def qcolor(hex_color: str) -> QColor:
    """A QColor for ``#rrggbb``, cached: the same few colours come back on every tick."""
    return QColor(hex_color)


def scene_font(pixel_size: float, bold: bool = False) -> QFont:
    """The layout's font at ``pixel_size`` scene units (one unit = one layout point).

    Unhinted, so glyph advances scale exactly with the zoom and text measured for the
    layout keeps fitting its box at every zoom level.
    """
    return QFont(_scene_font(round(pixel_size), bold))  # a copy: callers may change theirs


@lru_cache(maxsize=32)
def _scene_font(pixel_size: int, bold: bool) -> QFont:
    # Cached: setting the hinting preference costs ~40 us in PySide (enum lookups), and a
    # big graph asks for the same few fonts thousands of times when it is built.
    font = QFont(FONT_FAMILY)
    font.setPixelSize(pixel_size)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return font


def text_scale_for_font() -> float:
    """How much to shrink box text so it fits the layout's DejaVu Sans measurements.

    1.0 when DejaVu Sans is installed; a fallback font that runs wider gets scaled down.
    """
    ratio = 1.0
    for bold in (False, True):
        sample = "value [-8.888e+88, 0.5] · AccumulateGrad"
        qt_width = QFontMetricsF(scene_font(FONT_SIZE, bold)).horizontalAdvance(sample)
        ratio = min(ratio, text_width(sample, FONT_SIZE, bold) / qt_width)
    # The box padding absorbs a few percent; only a clearly wider font needs shrinking.
    return 1.0 if ratio >= 0.97 else ratio
