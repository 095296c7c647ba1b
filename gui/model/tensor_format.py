"""Numbers and tensors as short human-readable text: the one number format of the app.

Three rules, used by every view (graph boxes, tables, details, swatches, plots, the SVG, the
lesson notes):

- a number the app computed (a value, a gradient) has 4 significant digits, torch style:
  :func:`format_number` (``35.11``, ``-2.419``, ``0.5000``, ``125.``, ``1.234e-04``);
- a round number the app chose (an axis tick, a locked scale, an exponent) is written the
  same way without trailing zeros: :func:`format_short` (``0.5``, ``40``);
- a number the user set (a slider's box) is shown as set: :func:`format_input`.

Also how wide such text is (:func:`text_width`), so boxes can be sized without a font engine.

The style follows torch's own printing closely enough that a learner recognises the numbers
from their terminal (``125.``, ``[6., 8., 20.]``, ``1.234e-04``) but uses 4 *significant*
digits per number instead of torch's 4 decimals, because a graph box has no room for
``tensor([43.4000,  0.0000])``-style padding.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import lru_cache

from gui.model.result import NestedValues, TensorData, TensorSummary

SIGNIFICANT_DIGITS = 4
# Below this magnitude fixed notation would need more than 4 characters of leading zeros.
_SCI_BELOW = 1e-3
# From here on, 4 significant digits of a non-integral number would print as ``1234.``,
# which reads as an exact integer; scientific notation says it is rounded.
_SCI_FROM = 1e3
# Integral floats print as ``12345.`` up to here, then switch to scientific notation.
_INTEGRAL_UP_TO = 1e6

# The widest text format_number produces for a float ("-8.888e+88": "+" is wider than "-"
# in every common font). Views size boxes with it by *shape* alone, so the layout never
# moves when values change.
WIDEST_NUMBER = -8.888e88
# The most decimals an input (a slider's value) is shown with.
INPUT_MAX_DECIMALS = 6


# format_number's answers for floats (nonzero: 0.0 and -0.0 are equal keys but print
# differently); a slider tick on a big graph formats the same few hundred numbers for
# boxes, edges and tables. Bounded: emptied when full.
_FORMATTED: dict[float, str] = {}
_FORMATTED_MAX = 16384


def format_number(v: object) -> str:
    """Format one number with 4 significant digits, torch style (see :func:`_format_number`)."""
    if type(v) is float and v:
        text = _FORMATTED.get(v)
        if text is None:
            if len(_FORMATTED) >= _FORMATTED_MAX:
                _FORMATTED.clear()
            text = _FORMATTED[v] = _format_number(v)
        return text
    return _format_number(v)


def _format_number(v: object) -> str:
    """Format one number with 4 significant digits, torch style.

    Parameters
    ----------
    v
        A Python number as found in ``tensor.tolist()`` (float, int, bool or complex).
        Anything else is returned as ``str(v)``.

    Returns
    -------
    str
        ``35.11``, ``-14.15``, ``125.`` (integral float), ``125`` (int), ``1.234e-04``,
        ``nan``, ``inf``, ``-inf``.
    """
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, complex):
        sign = "-" if v.imag < 0 or (v.imag == 0 and math.copysign(1, v.imag) < 0) else "+"
        return f"{format_number(v.real)}{sign}{format_number(abs(v.imag))}j"
    if not isinstance(v, float):
        return str(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "-0." if math.copysign(1, v) < 0 else "0."
    magnitude = abs(v)
    if v.is_integer() and magnitude < _INTEGRAL_UP_TO:
        return f"{int(v)}."
    # Round to 4 significant digits first so 9.9996 becomes 10.00, not "10.000".
    rounded = float(f"{v:.{SIGNIFICANT_DIGITS - 1}e}")
    magnitude = abs(rounded)
    if magnitude < _SCI_BELOW or magnitude >= _SCI_FROM:
        return f"{v:.{SIGNIFICANT_DIGITS - 1}e}"
    decimals = max(0, SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(magnitude)))
    text = f"{rounded:.{decimals}f}"
    return text if "." in text else f"{text}."


def format_short(v: float) -> str:
    """A round number (an axis tick, a scale's end, a constant such as an exponent): the
    rules of :func:`format_number` without its trailing zeros, which would claim digits a
    round number does not have: ``0.5``, ``2.5``, ``40``, ``-20``, ``1.5e+04``, ``5e-04``.
    """
    text = format_number(float(v))
    mantissa, e, exponent = text.partition("e")
    if "." in mantissa:
        # Nor torch's trailing dot of a whole float: an axis reads 40, 20, 0, not "40.".
        mantissa = mantissa.rstrip("0").removesuffix(".")
    return f"{mantissa}{e}{exponent}"


# Where two numbers are compared digit by digit (autograd's slope beside a finite
# difference), four digits hide how they differ: float32 keeps about seven.
PRECISE_DIGITS = 7


def format_precise(v: float) -> str:
    """A number with :data:`PRECISE_DIGITS` significant digits, for comparing two of them
    (``6.750001`` against ``6.75``); everywhere else numbers show as :func:`format_number`."""
    return f"{v:.{PRECISE_DIGITS}g}"


def format_input(value: float, decimals: int) -> str:
    """A value the user sets (a slider's number box): with ``decimals`` decimals (its
    slider's grid), or more when fewer would change it. Inputs are never rounded to 4
    significant digits: a box that showed ``-1.209`` for the ``-1.2095`` a lesson sets would
    change the value on the next edit."""
    text = f"{value:.{decimals}f}"
    if abs(float(text) - value) <= 1e-6 * max(1.0, abs(value)):
        return text
    full = f"{value:.{INPUT_MAX_DECIMALS}f}".rstrip("0")
    head, _, tail = full.partition(".")
    return f"{head}.{tail.ljust(decimals, '0')}" if tail or decimals else head


def format_shape(shape: Sequence[int]) -> str:
    """``"scalar"`` for 0-d, else the tuple as Python writes it: ``"(3,)"``, ``"(2, 2)"``."""
    if type(shape) is tuple:  # a result's shapes: the same few on every slider tick
        return _shape_text(shape)
    return _shape_text(tuple(shape))


@lru_cache(maxsize=1024)
def _shape_text(shape: tuple[int, ...]) -> str:
    if len(shape) == 0:
        return "scalar"
    return str(tuple(int(d) for d in shape))


def iter_values(values: NestedValues) -> Iterator[object]:
    """Every element of a nested ``tolist()`` value, in row-major order (no recursion limit
    issues: depth is the tensor's ndim)."""
    if isinstance(values, list | tuple):
        for item in values:
            yield from iter_values(item)
    else:
        yield values


def _nested(values: NestedValues) -> str:
    if isinstance(values, list | tuple):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return format_number(values)


def _real_stats(t: TensorData) -> tuple[float, float, float] | None:
    """(min, max, mean) of the real part, from the values when present else the summary."""
    if t.values is None:
        if t.summary is None:
            return None
        return t.summary.minimum, t.summary.maximum, t.summary.mean
    numbers = [
        float(v.real if isinstance(v, complex) else v)
        for v in iter_values(t.values)
        if isinstance(v, int | float | complex)
    ]
    if not numbers:
        return None
    finite = [v for v in numbers if math.isfinite(v)]
    if len(finite) < len(numbers):
        # Keep nan/inf visible in the mean (as torch's mean would) but not in min/max, which
        # then still say something about the finite part.
        mean = sum(numbers) / len(numbers)
        if not finite:
            return mean, mean, mean
        return min(finite), max(finite), mean
    return min(finite), max(finite), math.fsum(finite) / len(finite)


def format_summary(t: TensorData, with_shape: bool = True) -> str:
    """``"shape 10x10 · min -1.2 · max 3.4 · mean 0.1"`` for a tensor too big to list.

    ``with_shape=False`` drops the shape part, for views that show the shape elsewhere.
    """
    parts = [f"shape {'x'.join(str(d) for d in t.shape)}"] if with_shape else []
    stats = _real_stats(t)
    if stats is None:
        parts.append(f"{t.numel} elements")
    else:
        low, high, mean = stats
        parts += [
            f"min {format_number(low)}",
            f"max {format_number(high)}",
            f"mean {format_number(mean)}",
        ]
    return " · ".join(parts)


def format_tensor(t: TensorData | None, max_elements: int = 6) -> str:
    """A tensor as one line of text.

    Parameters
    ----------
    t
        The tensor's detached numbers; ``None`` prints as ``"None"`` (what ``x.grad`` says
        before any backward).
    max_elements
        Tensors with at most this many elements are printed in full as nested brackets;
        larger ones as a one-line summary (shape, min, max, mean).

    Returns
    -------
    str
        ``"125."``, ``"[6., 8., 20.]"``, ``"[[43.40, 0.], [5.405, 0.]]"`` or
        ``"shape 10x10 · min -1.2 · max 3.4 · mean 0.1"``.
    """
    if t is None:
        return "None"
    if t.values is None or t.numel > max_elements:
        return format_summary(t)
    return _nested(t.values)


def widest_like(t: TensorData) -> TensorData:
    """A tensor of ``t``'s shape whose every number prints as wide as any number can.

    Formatting this instead of ``t`` gives the text width a box needs for *any* values of
    this shape, which is what keeps layouts stable while sliders move.
    """
    values: NestedValues = None
    if t.values is not None:  # else only the summary shows: no lists the tensor's size
        values = WIDEST_NUMBER
        for dim in reversed(t.shape):
            values = [values] * dim
    return TensorData(
        shape=t.shape,
        dtype=t.dtype,
        values=values,
        summary=TensorSummary(WIDEST_NUMBER, WIDEST_NUMBER, WIDEST_NUMBER, WIDEST_NUMBER),
    )


# Advance widths (em) of DejaVu Sans, read from the font file.
# fmt: off
_EM_WIDTHS = {
    0.278: "ijl'", 0.295: "IJ", 0.318: " .,·!", 0.337: ":;/|\\", 0.352: "f", 0.361: "-",
    0.39: "()[]", 0.392: "t", 0.411: "r", 0.5: '_*"', 0.521: "s", 0.525: "z", 0.55: "c",
    0.557: "L", 0.575: "F", 0.579: "k", 0.592: "vxy", 0.603: "P", 0.611: "TY", 0.612: "o",
    0.613: "a", 0.615: "e", 0.632: "E", 0.634: "hnu", 0.635: "bdgpqS",
    0.636: "0123456789{}#$?", 0.656: "K", 0.685: "AVXZ", 0.686: "B", 0.695: "R", 0.698: "C",
    0.732: "U", 0.752: "HN", 0.775: "DG", 0.787: "OQ", 0.818: "w", 0.838: "+=×<>~^",
    0.863: "M", 0.974: "m", 0.989: "W", 1.0: "…—%@&",
}
# fmt: on
_CHAR_EM = {c: w for w, chars in _EM_WIDTHS.items() for c in chars}
_UNKNOWN_EM = 0.7
_BOLD_FACTOR = 1.12


def text_width(text: str, font_size: float = 10.0, bold: bool = False) -> float:
    """Width in points of ``text`` set in DejaVu Sans (an upper bound for Helvetica/Arial).

    Views size boxes with it before any font is loaded (the layout runs without Qt), so it
    is a table of the font's advance widths, not a font engine: no kerning, bold estimated.
    """
    return _em_width(text) * font_size * (_BOLD_FACTOR if bold else 1.0)


@lru_cache(maxsize=8192)
def _em_width(text: str) -> float:
    # Remembered: a big graph's boxes repeat a few titles and shapes thousands of times.
    return sum(_CHAR_EM.get(c, _UNKNOWN_EM) for c in text)
