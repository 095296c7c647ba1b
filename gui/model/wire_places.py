"""What a layout from the layout worker must hold past its fields' types: places.

Part of the window's careful reader (:mod:`gui.model.wire`). The worker parses the
program's labels in native code (Graphviz), so its answer is read as warily as the
engine's. A layout whose places were not numbers (NaN, infinities) made the graph panel
raise on the GUI thread (the labels' placement turns places into grid cells), and places
near 1e308 made it walk cells for ever (red team, round 13). Every place and size must be
a finite number within :data:`MAX_PLACE` points, sizes not negative.

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Iterable
from typing import Any

# Points (1/72 inch). The biggest graph the app lays out (10,000 boxes, a box as wide as
# the longest label a program can make) fits in a few million.
MAX_PLACE = 1e7


def _refuse(what: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(f"the layout worker sent {what}")


def check_places(values: Iterable[float], low: float, what: str) -> None:
    """Every value a finite number in ``[low, MAX_PLACE]`` (``max``, ``min`` in C; NaN
    through ``fsum``, which is NaN or infinite when any value is)."""
    numbers = list(values)
    if not numbers:
        return
    if not math.isfinite(math.fsum(map(abs, numbers))):
        raise _refuse(f"{what} that is not a finite number")
    if max(numbers) > MAX_PLACE or min(numbers) < low:
        raise _refuse(f"{what} past {int(MAX_PLACE):,} points")


def check_boxes(states: list[dict[str, Any]]) -> None:
    """``NodeBox`` fields: a centre within the limit, a size not negative."""
    check_places((s[name] for s in states for name in ("x", "y")), -MAX_PLACE, "a box's place")
    check_places((s[name] for s in states for name in ("width", "height")), 0.0, "a box's size")


def check_layouts(states: list[dict[str, Any]]) -> None:
    """``GraphLayout`` fields: its size, and every point of its edges and arrows."""
    check_places((s[name] for s in states for name in ("width", "height")), 0.0, "a layout's size")
    points = [
        value
        for s in states
        for route in (*s["edges"].values(), *s["arrows"].values())
        for point in (route if route and isinstance(route[0], tuple) else (route,))
        for value in point
    ]
    check_places(points, -MAX_PLACE, "an edge's point")
