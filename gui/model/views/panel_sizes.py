"""How the window shares its width and height among the panels (plain numbers, no Qt).

The window starts (and "Reset Panel Sizes" goes back) with each splitter's panels at fixed
shares of the room there is, so a 1024-pixel window is the 1280 one scaled down rather than
the same side panels around a thumbnail of a graph. A panel never gets less than its
minimum (the content that must not be cut off: a slider row with its number and ``.grad``);
the others give up the difference in proportion to their shares.
"""

from __future__ import annotations

from collections.abc import Sequence

# Splitters by settings key: the share of the room each of their panels starts with.
# The graph, what a class looks at, gets the biggest share.
SHARES: dict[str, tuple[float, ...]] = {
    "columns": (0.31, 0.47, 0.22),  # code and controls | graph | plots and details
    "left": (0.48, 0.52),  # code and its explanation | inputs and backward tabs
    "right": (0.6, 0.4),  # gradient plots | node details
}


def split(total: int, shares: Sequence[float], minimums: Sequence[int]) -> list[int]:
    """``total`` pixels shared by ``shares``, no part below its minimum.

    A part that would get less than its minimum gets the minimum, and the rest is shared
    among the others by their shares again; when even the minimums do not fit, each part
    gets its minimum (the splitter then overflows as Qt decides). The parts add up to
    ``total`` whenever the minimums fit.
    """
    if len(shares) != len(minimums):
        raise ValueError("one minimum per share")
    fixed: dict[int, int] = {}
    while True:
        free = [i for i in range(len(shares)) if i not in fixed]
        room = total - sum(fixed.values())
        weight = sum(shares[i] for i in free)
        if not free or weight <= 0:
            break
        sizes = {i: room * shares[i] / weight for i in free}
        short = [i for i in free if sizes[i] < minimums[i]]
        if not short:
            fixed.update({i: int(sizes[i]) for i in free})
            break
        fixed.update({i: minimums[i] for i in short})
    parts = [fixed.get(i, minimums[i]) for i in range(len(shares))]
    leftover = total - sum(parts)
    if leftover > 0:  # rounding down left a few pixels: the biggest share takes them
        biggest = max(range(len(shares)), key=lambda i: shares[i])
        parts[biggest] += leftover
    return parts
