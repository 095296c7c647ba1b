"""The one diverging colour scale of the app, and the colours of node kinds.

Every view (SVG export now, Qt widgets later) colours numbers through this module, so a
gradient of ``+20`` is the same red in the graph, the sliders and the exported report.

Why ColorBrewer **RdBu** (9 classes):

- it is a diverging scale built for data with a meaningful zero: sign is hue (blue below
  zero, red/orange above) and size is how far the colour is from the neutral centre;
- ColorBrewer rates it colour-blind safe: red and blue stay distinguishable under
  deuteranopia, protanopia and tritanopia because the two arms also differ in lightness
  steps, unlike red/green scales;
- its centre ``#f7f7f7`` is a near-white neutral grey, so "no gradient" reads as "no ink"
  and black text stays readable on most of the scale.

The 9-class ends (``#2166ac``/``#b2182b``) are used rather than the 11-class ones: the
darkest 11-class shades make white text mandatory and boxes look like holes on a projector.

Non-finite values (nan, inf) get a mid grey: achromatic, so no viewer can confuse it with
either arm, and darker than the near-white zero. Views print "nan"/"inf" next to it anyway.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

from gui.model.result import TensorData
from gui.model.tensor_format import iter_values

# RdBu, 9 classes, from most negative (blue) to most positive (red).
DIVERGING_STOPS: tuple[str, ...] = (
    "#2166ac",
    "#4393c3",
    "#92c5de",
    "#d1e5f0",
    "#f7f7f7",
    "#fddbc7",
    "#f4a582",
    "#d6604d",
    "#b2182b",
)
ZERO_COLOR = DIVERGING_STOPS[4]
NON_FINITE_COLOR = "#a0a0a0"

# A nonzero value is never drawn closer to the centre than this fraction of the scale, so
# the sign of a tiny gradient stays visible; only an exact zero is the neutral grey.
MIN_TINT = 0.08

# Node kinds before any backward (no gradient to colour by). The kind fills sit outside the
# red/blue hues so they can never be mistaken for a gradient; borders and dash styles carry
# the kind as well, for print and for colour-blind viewers.
LEAF_FILL = "#e8f4e4"
LEAF_BORDER = "#1b7837"
FUNCTION_FILL = "#ffffff"
FUNCTION_BORDER = "#404040"
CONSTANT_FILL = "#ededed"
CONSTANT_BORDER = "#8c8c8c"
SAVED_FILL = "#fbfbfb"
SAVED_BORDER = "#8c8c8c"
OUTPUT_FILL = "#fff6c2"
OUTPUT_BORDER = "#000000"
# A collapsed module: a pale violet, away from the gradient scale and the other kinds.
GROUP_FILL = "#f1ecf7"
GROUP_BORDER = "#5e4b8b"

KIND_FILL: dict[str, str] = {
    "leaf": LEAF_FILL,
    "function": FUNCTION_FILL,
    "constant": CONSTANT_FILL,
    "saved": SAVED_FILL,
    "output": OUTPUT_FILL,
    "group": GROUP_FILL,
}
KIND_BORDER: dict[str, str] = {
    "leaf": LEAF_BORDER,
    "function": FUNCTION_BORDER,
    "constant": CONSTANT_BORDER,
    "saved": SAVED_BORDER,
    "output": OUTPUT_BORDER,
    "group": GROUP_BORDER,
}

EDGE_COLOR = "#505050"
LINK_COLOR = "#a0a0a0"  # constant and saved-tensor connectors: context, not data flow
# The outline of a box's element cells: near-white (zero) cells stay visible on a white box.
CELLS_BORDER = "#606060"
TEXT_DARK = "#000000"
TEXT_LIGHT = "#ffffff"


def _rgb(hex_color: str) -> tuple[int, int, int]:
    h = hex_color.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def scale_for(values: Iterable[float]) -> float:
    """The magnitude that maps to the ends of the scale: ``max |v|`` over finite values.

    Parameters
    ----------
    values
        Every number that will be coloured together (e.g. all gradients in one graph), so
        that equal numbers get equal colours across the whole picture. nan and inf are
        ignored: they have their own colour and would otherwise wash everything else out.

    Returns
    -------
    float
        A positive number; ``1.0`` when there is nothing nonzero and finite.
    """
    best = 0.0
    for v in values:
        if isinstance(v, complex):
            v = abs(v)
        try:
            f = abs(float(v))
        except (TypeError, ValueError):
            continue
        if math.isfinite(f) and f > best:
            best = f
    return best if best > 0 else 1.0


# The magnitudes a locked scale is rounded up to (times a power of ten): at most 1.5 times
# the largest value when locking, so the bars have some room to grow, and the legend's ends
# read as round numbers (-40 ... 40).
NICE_STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_scale(magnitude: float) -> float:
    """The smallest round number (:data:`NICE_STEPS` times a power of ten) at least
    ``magnitude``: 35.11 -> 40, 43.40 -> 50, 0.0123 -> 0.015; 1.0 for nothing positive."""
    if not math.isfinite(magnitude) or magnitude <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(magnitude))
    for step in NICE_STEPS:
        # A hair of tolerance: 40.000000001 (a float's noise) still locks at 40.
        if step * power >= magnitude * (1 - 1e-9):
            return float(f"{step * power:.12g}")
    return float(f"{10 * power:.12g}")


# Cached: a pure function of two numbers, asked for hundreds of times per slider tick on a
# big graph (boxes, cells, edges and bars colour the same gradients).
@lru_cache(maxsize=8192)
def diverging_color(value: float, scale: float) -> str:
    """The colour of ``value`` on the shared diverging scale.

    Parameters
    ----------
    value
        The number to colour; values beyond ``±scale`` get the end colours.
    scale
        The magnitude of the ends, normally from :func:`scale_for`.

    Returns
    -------
    str
        ``"#rrggbb"``: blue for negative, near-white grey for zero, orange to red for
        positive; :data:`NON_FINITE_COLOR` for nan and inf.
    """
    if not math.isfinite(value):
        return NON_FINITE_COLOR
    if value == 0 or scale <= 0 or not math.isfinite(scale):
        return ZERO_COLOR
    t = max(-1.0, min(1.0, value / scale))
    t = math.copysign(max(abs(t), MIN_TINT), t)
    # Piecewise-linear between ColorBrewer's stops: they are already perceptually spaced.
    position = (t + 1) / 2 * (len(DIVERGING_STOPS) - 1)
    low = min(int(position), len(DIVERGING_STOPS) - 2)
    frac = position - low
    a, b = _rgb(DIVERGING_STOPS[low]), _rgb(DIVERGING_STOPS[low + 1])
    return _hex(x + (y - x) * frac for x, y in zip(a, b, strict=True))


def _luminance(hex_color: str) -> float:
    """WCAG relative luminance."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in _rgb(hex_color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_color_on(background_hex: str) -> str:
    """Black or white, whichever has the higher WCAG contrast on ``background_hex``."""
    lum = _luminance(background_hex)
    contrast_black = (lum + 0.05) / 0.05
    contrast_white = 1.05 / (lum + 0.05)
    return TEXT_DARK if contrast_black >= contrast_white else TEXT_LIGHT


def dominant_value(t: TensorData | None) -> float | None:
    """The element a single colour should stand for: the one largest in magnitude.

    A mean would fade ``[-5, 5]`` to "no gradient"; the largest element keeps both sign and
    size honest for the box as a whole. Any nan wins (a box hiding a nan would mislead);
    ``None`` when there are no numbers.
    """
    if t is None:
        return None
    if t.values is None:
        if t.summary is None:
            return None
        low, high = t.summary.minimum, t.summary.maximum
        if math.isnan(low) or math.isnan(high):
            return math.nan
        return high if abs(high) >= abs(low) else low
    values = t.values
    # The usual case, a float or a flat list of floats, without the generic walk (a slider
    # tick on a big graph asks this of every gradient two or three times).
    if type(values) is float:
        return values
    if type(values) is list:
        largest: float | None = None
        size = -1.0
        for v in values:
            if type(v) is not float:
                break  # nested, or not floats: the generic walk below
            if v != v:
                return math.nan
            if abs(v) > size:
                largest, size = v, abs(v)
        else:
            return largest
    best: float | None = None
    for v in iter_values(values):
        if isinstance(v, complex):
            v = abs(v)
        if not isinstance(v, int | float):
            continue
        f = float(v)
        if math.isnan(f):
            return math.nan
        if best is None or abs(f) > abs(best):
            best = f
    return best


def tensor_color(t: TensorData | None, scale: float) -> str | None:
    """The fill for a whole tensor (see :func:`dominant_value`); ``None`` without numbers."""
    v = dominant_value(t)
    return None if v is None else diverging_color(v, scale)
