"""Coordinates QPainter can take: every number the widgets turn into pixels goes through here.

Qt's raster engine crashes on a NaN coordinate (``drawPolyline`` with a NaN point was a
segfault) and crashes or hangs on coordinates far beyond the screen (about 1e9). Data can
make both: a gradient around 1e-307 on an axis locked at that scale made the pixels per
unit overflow to infinity, and ``inf - inf`` is NaN; a value of 1e308 on an ordinary axis
lands 1e300 pixels away. So a data-to-pixel map is built from an axis range made sane
first (:func:`sane_axis`), and every coordinate it gives is clamped
(:func:`clamp_pixel`): far off the widget is as good as infinitely far for drawing.
"""

from __future__ import annotations

import math

# Farther than any screen, far below where Qt's raster engine breaks (about 1e9).
PIXEL_LIMIT = 1e6
# An axis never runs past these (its span, high - low, stays a finite number) ...
AXIS_FAR = 1e306
# ... and never spans less than this (pixels per unit stay finite: 1e5 px / 1e-300).
AXIS_LEAST_SPAN = 1e-300


def clamp_pixel(value: float, low: float = -PIXEL_LIMIT, high: float = PIXEL_LIMIT) -> float:
    """``value`` within ``[low, high]`` (which must lie within ±:data:`PIXEL_LIMIT`);
    NaN is ``high``, the far end (the bottom of the widget, off a plot's data)."""
    if value < low:
        return low
    if value > high or value != value:
        return high
    return value


def sane_axis(low: float, high: float) -> tuple[float, float]:
    """An axis range a pixel map can be built on: ``(low, high)`` cut to ±:data:`AXIS_FAR`,
    widened around its middle to :data:`AXIS_LEAST_SPAN`, and ``(-1, 1)`` when it is no
    range at all (NaN, or ``low >= high`` after the cut)."""
    low, high = max(low, -AXIS_FAR), min(high, AXIS_FAR)  # max/min keep a NaN first: below
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        return -1.0, 1.0
    if high - low < AXIS_LEAST_SPAN:
        middle = low / 2 + high / 2
        low, high = middle - AXIS_LEAST_SPAN / 2, middle + AXIS_LEAST_SPAN / 2
    return low, high


def axis_map(first: float, last: float, start: float, length: float) -> tuple[float, float]:
    """``(scale, offset)`` such that ``offset + scale * first`` is pixel ``start`` and
    ``offset + scale * last`` is ``start + length`` (``first`` may be the high end: a value
    axis runs up the screen). Both are finite and the scale nonzero whatever the numbers:
    the range is made sane first (see :func:`sane_axis`)."""
    low, high = sane_axis(min(first, last), max(first, last))
    first, last = (high, low) if first > last else (low, high)
    if not (math.isfinite(length) and length != 0):
        length = 1.0
    scale = length / (last - first)
    return scale, start - first * scale
