"""What the graph scene's items share: the layout's font, cached colours, stacking order.

Boxes and labels draw their text in the font the layout measured box widths in
(:func:`gui.model.tensor_format.text_width`), unhinted so it scales exactly with the zoom;
:func:`text_scale_for_font` shrinks it when a fallback font runs wider.

Everything an item's ``paint`` needs is made once and shared (fonts, their metrics, pens
and brushes by colour, text widths by text): a slider tick repaints dozens of items, and
building a QPen or measuring a string in PySide costs microseconds each.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPen

from gui.model.drawing.layout import FONT_SIZE
from gui.model.tensor_format import text_width

# Level of detail: text smaller than this many screen pixels is a grey smudge (a big graph
# zoomed out to see its shape); boxes and edge labels skip it, which also keeps panning a
# big graph fast.
LEGIBLE_TEXT_PX = 3.5

# The font the layout measured box widths in (tensor_format.text_width).
FONT_FAMILY = "DejaVu Sans"
# Stacking order: labels over the edges they sit on, boxes over both, the selected box on top.
Z_EDGE, Z_LABEL, Z_NODE, Z_SELECTED = 0.0, 1.0, 2.0, 3.0
# A part of the scene, (left, top, right, bottom) in scene units: what the view shows, and
# what each item covers (plain numbers: compared per item on every tick).
Area = tuple[float, float, float, float]
NOWHERE: Area = (math.inf, math.inf, -math.inf, -math.inf)
# Made once: PySide's enum lookups cost more than the painting they configure.
NO_PEN = QPen(Qt.PenStyle.NoPen)
NO_BRUSH = QBrush(Qt.BrushStyle.NoBrush)
ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter

# Text widths by (font pixel size, bold, text): every item of every graph draws in the same
# few fonts, and a tick measures each changed line once. Bounded: emptied when full.
_ADVANCES: dict[tuple[int, bool, str], float] = {}
_ADVANCES_MAX = 16384


def overlaps(a: Area, b: Area) -> bool:
    """Whether areas ``a`` and ``b`` share a point (:data:`NOWHERE` overlaps nothing)."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


@lru_cache(maxsize=512)
def qcolor(hex_color: str) -> QColor:
    """A QColor for ``#rrggbb``, cached: the same few colours come back on every tick."""
    return QColor(hex_color)


@lru_cache(maxsize=512)
def qbrush(hex_color: str) -> QBrush:
    """A solid QBrush of ``#rrggbb``, cached like :func:`qcolor`."""
    return QBrush(qcolor(hex_color))


@lru_cache(maxsize=64)
def qpen(hex_color: str, width: float = 1.0) -> QPen:
    """A solid QPen of ``#rrggbb`` at ``width`` (0 is Qt's one-pixel cosmetic pen)."""
    return QPen(qcolor(hex_color), width)


def scene_font(pixel_size: float, bold: bool = False) -> QFont:
    """The layout's font at ``pixel_size`` scene units (one unit = one layout point).

    Unhinted, so glyph advances scale exactly with the zoom and text measured for the
    layout keeps fitting its box at every zoom level.
    """
    return QFont(_scene_font(round(pixel_size), bold))  # a copy: callers may change theirs


def shared_font(pixel_size: float, bold: bool = False) -> QFont:
    """:func:`scene_font`, the one shared instance: for painting, never to be changed."""
    return _scene_font(round(pixel_size), bold)


@lru_cache(maxsize=32)
def _scene_font(pixel_size: int, bold: bool) -> QFont:
    # Cached: setting the hinting preference costs ~40 us in PySide (enum lookups), and a
    # big graph asks for the same few fonts thousands of times when it is built.
    font = QFont(FONT_FAMILY)
    font.setPixelSize(pixel_size)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return font


@lru_cache(maxsize=32)
def scene_metrics(pixel_size: float, bold: bool = False) -> QFontMetricsF:
    """The metrics of :func:`scene_font` (shared; measuring needs no new object)."""
    return QFontMetricsF(_scene_font(round(pixel_size), bold))


def text_advance(pixel_size: float, text: str, bold: bool = False) -> float:
    """How wide ``text`` is in :func:`scene_font` (cached by font and text)."""
    key = (round(pixel_size), bold, text)
    advance = _ADVANCES.get(key)
    if advance is None:
        if len(_ADVANCES) >= _ADVANCES_MAX:
            _ADVANCES.clear()
        advance = _ADVANCES[key] = scene_metrics(pixel_size, bold).horizontalAdvance(text)
    return advance


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
