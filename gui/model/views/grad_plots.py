"""What the gradient plots panel needs besides the bars and histories: each leaf's shape,
which decides when its plots are built anew, and the axes both plots share.

The axes are plain numbers here, so the widgets only place them in pixels:

- :func:`nice_ticks`: the value axis' ticks, round numbers (1, 2 or 5 times a power of
  ten) at least a given distance apart, written by the widgets with
  :func:`~gui.model.tensor_format.format_short` like every other round number of the app;
- :func:`label_stride`: which category labels (``[0, 1]``, backward call ``3``) get
  written when not all of them fit;
- :class:`StickyRange` and :func:`locked_range`: the value axis' range, still while a
  slider moves (see each).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from gui.model.result import RunResult

# A locked axis runs a little past ±scale, so a bar at exactly the scale stays inside.
LOCKED_MARGIN = 0.05
# The most ticks an axis is ever given, whatever it is asked (a guard, not a look).
MAX_TICKS = 100
# Tick steps are these times a power of ten (as matplotlib's): 20, 25 and 50 read as
# round numbers; 30 or 40 apart would not.
NICE_FACTORS = (1.0, 2.0, 2.5, 5.0, 10.0)
# Beyond this a value axis does not follow numbers (its range must stay a finite span).
FAR = 1e306


def leaf_shape(result: RunResult | None, leaf: str) -> tuple[int, ...]:
    """The shape of ``leaf`` in ``result`` (``()`` when there is no such tensor)."""
    info = None if result is None else result.tensors.get(leaf)
    return () if info is None else tuple(info.value.shape)


def _nice_parts(least: float) -> tuple[float, int]:
    """``(factor, e)``: the smallest ``factor * 10**e`` at least ``least``, ``factor`` one
    of :data:`NICE_FACTORS` (not 10)."""
    e = math.floor(math.log10(least))
    for factor in NICE_FACTORS:
        # A hair of tolerance: 0.30000000000000004 still takes the step 0.5, not 1.
        if _scaled(factor, e) >= least * (1 - 1e-9):
            return (factor, e) if factor < 10 else (1.0, e + 1)
    return 1.0, e + 1  # pragma: no cover - the last factor always fits


def _scaled(mantissa: float, e: int) -> float:
    """``mantissa * 10**e``, the float nearest to it: dividing by an exact power of ten
    gives 0.3 for 3 * 0.1, where multiplying by 0.1 gives 0.30000000000000004."""
    if e >= 0 or e < -300:  # (10.0**-e would overflow: denormal numbers)
        return mantissa * 10.0**e
    return mantissa / 10.0**-e


def nice_step(least: float) -> float:
    """The smallest of ..., 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, ... that is at least
    ``least`` (``least`` > 0 and finite)."""
    return _scaled(*_nice_parts(least))


def nice_ticks(low: float, high: float, least_step: float) -> tuple[float, ...]:
    """The ticks of a value axis from ``low`` to ``high``: every multiple of
    :func:`nice_step` (``least_step``) inside the range, so zero is one whenever the range
    holds it, and neighbours are at least ``least_step`` apart (the widgets ask for about
    two lines of text). ``()`` for a range or step that is not a positive finite number.

    ``nice_ticks(-52.5, 52.5, 16)`` is ``(-40, -20, 0, 20, 40)``.
    """
    span = high - low
    if not (math.isfinite(span) and span > 0 and math.isfinite(least_step) and least_step > 0):
        return ()
    factor, e = _nice_parts(max(least_step, span / MAX_TICKS))
    step = _scaled(factor, e)
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    return tuple(_scaled(k * factor, e) for k in range(first, last + 1))


def nice_stride(least: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50... that is at least ``least``: labels at [0],
    [10], [20] rather than at [0], [7], [14]."""
    base = 1
    while True:
        for factor in (1, 2, 5):
            if base * factor >= least:
                return base * factor
        base *= 10


def label_stride(count: int, widest: float, room: float) -> int:
    """Label every ``k``-th of ``count`` evenly spaced categories so that labels ``widest``
    wide (gap included) fit side by side in ``room``: ``k`` is 1 when they all fit, else
    :func:`nice_stride` of what fits. Unlabelled categories keep their tick mark."""
    if count <= 1:
        return 1
    fits = max(1, int(room // max(widest, 1.0)))
    return nice_stride(math.ceil(count / fits))


def locked_range(scale: float) -> tuple[float, float]:
    """The value range of a plot while the scale is locked at ``scale``: the same for every
    plot and every tick, zero in the middle as on the colour legend."""
    reach = scale * (1 + LOCKED_MARGIN)
    return -reach, reach


class StickyRange:
    """An axis range that moves only when the data leaves it or shrinks a lot.

    Refitting on every slider tick would make the bars jump (and relabel the axis each
    time); instead the range grows with headroom and shrinks once the data needs less than
    a third of it.
    """

    HEADROOM = 0.15
    GROWTH = 0.4  # when the data outgrows the range: room for a slider drag to go on
    MARGIN = 0.08
    SHRINK_BELOW = 1 / 3

    def __init__(self) -> None:
        self.low = 0.0
        self.high = 0.0

    def fit(self, values: Iterable[float]) -> tuple[float, float] | None:
        """The new range for ``values`` (0 always included), or ``None`` to keep it."""
        # Clipped far out, so that span and headroom stay finite numbers (1e308 - -1e308).
        finite = [min(max(v, -FAR), FAR) for v in values if math.isfinite(v)]
        low, high = min([0.0, *finite]), max([0.0, *finite])
        span = high - low
        if span == 0:
            low, high, span = -1.0, 1.0, 2.0
        known = self.high > self.low
        fits = known and self.low <= low and high <= self.high
        if fits and span >= self.SHRINK_BELOW * (self.high - self.low):
            return None
        room = self.GROWTH if known and not fits else self.HEADROOM
        # A sliver below/above zero keeps the zero line and its tick label inside the plot.
        self.low = low - (room if low < 0 else self.MARGIN) * span
        self.high = high + (room if high > 0 else self.MARGIN) * span
        return self.low, self.high
