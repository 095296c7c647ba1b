"""A layered layout of our own for graphs too big for Graphviz: thousands of boxes in a second.

Why not Graphviz here: ``dot`` is the library made for this job, and the app keeps it for
every graph it lays out quickly (every lesson looks exactly as before). But its cost grows
faster than the graph (see :mod:`.limits`): a plain 5,000-box chain takes it 2.4 s here,
the whole of the 3 s in which the window must show a 5,000-node graph, and an RNN whose
shared weights send an edge past every later row takes it minutes from 80 steps on (this
layout: 0.25 s and 0.05 s, ``benchmarks/big_layout.py``). Its network-simplex ranking,
its crossing minimisation over a virtual node per row an edge crosses, and its spline
router are what cost; a learner exploring a big model needs the shape and a box to click,
not dot's polish. So this is the classic layered recipe (Sugiyama) cut to what stays
linear:

- **ranks**: the output at the bottom, every box right above its highest user (so a leaf,
  a weight, sits right above its first use, as ``dot`` puts it); saved tensors and
  constants sit on their owner's rank beside it (constants left, saved tensors right), as
  with ``dot``; then a box with more edges up to computed inputs than down to users moves
  up right under them (a running total under each step, not packed at the bottom);
- **order** within a rank: a few barycenter sweeps down and up. Edges spanning a few rows
  get a chain of thin virtual nodes (so they bend around boxes); longer ones (an RNN's
  weights, used in every step) take no part: a virtual node per row they cross is exactly
  what makes ``dot`` explode. They run down lanes right of the boxes instead (:func:`_lanes`);
- **x**: each box pulled towards its neighbours on the longest path through it in
  alternating sweeps, the order kept and boxes apart (see :func:`_positions`);
- **edges**: cubic Béziers leaving a box's bottom and arriving at the top of the next,
  vertical at both ends, through the virtual nodes' places.

It produces the very :class:`~.layout.GraphLayout` the ``dot`` path does (same box sizes,
Bézier points and arrow tips), so the graph panel and the SVG export draw it unchanged.
Pure Python, no Qt: it runs in the layout worker like ``dot``.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from gui.model.result import Graph

# Spacing as the dot path's (nodesep 0.3 in, ranksep 0.4 in), in points.
NODE_GAP = 21.6
RANK_GAP = 28.8
MARGIN = 4.0
# Between a saved tensor or constant and its owner on the same rank.
MEMBER_GAP = 10.0
# dot's arrowhead at arrowsize 0.7: the spline stops this far before the tip.
ARROW_LENGTH = 7.0
# Edges spanning up to this many rows bend around the boxes between (one virtual node per
# row crossed); longer ones run down a lane right of the boxes (see _lanes).
MAX_ROUTED_SPAN = 6
VIRTUAL_WIDTH = 6.0
# Between the lanes long edges run down, right of the boxes (see _lanes).
LANE_GAP = 6.0
ORDER_SWEEPS = 4
POSITION_SWEEPS = 4

Point = tuple[float, float]


@dataclass(frozen=True)
class FastPlacement:
    """Box centres and edge curves in points, y down; the graph's width and height."""

    centres: dict[str, Point]
    edges: dict[int, tuple[Point, ...]]
    arrows: dict[int, Point]
    width: float
    height: float


class _Units:
    """Each box with the saved tensors and constants beside it: one unit to rank and order."""

    def __init__(self, graph: Graph, sizes: Mapping[str, tuple[float, float]]) -> None:
        keys = [n.key for n in graph.nodes]
        present = set(keys)
        owner = {n.key: n.owner for n in graph.nodes if n.owner in present and n.owner != n.key}
        self.index: dict[str, int] = {}
        self.members: list[list[str]] = []
        for key in keys:
            if key not in owner:
                self.index[key] = len(self.members)
                self.members.append([key])
        kinds = {n.key: n.kind for n in graph.nodes}
        left: dict[int, list[str]] = {}
        right: dict[int, list[str]] = {}
        for key, head in owner.items():
            seen = {key}
            while head in owner and head not in seen:  # a member's member: the outermost
                seen.add(head)
                head = owner[head]
            if head in seen:  # owners in a ring (never from torch): a unit of its own
                self.index[key] = len(self.members)
                self.members.append([key])
                continue
            unit = self.index[head]
            (right if kinds[key] == "saved" else left).setdefault(unit, []).append(key)
            self.index[key] = unit
        for unit, keys_left in left.items():
            self.members[unit] = keys_left + self.members[unit]
        for unit, keys_right in right.items():
            self.members[unit] = self.members[unit] + keys_right
        self.widths = [
            sum(sizes[k][0] for k in ms) + MEMBER_GAP * (len(ms) - 1) for ms in self.members
        ]
        self.heights = [max(sizes[k][1] for k in ms) for ms in self.members]


def _ranks(count: int, links: list[tuple[int, int]]) -> list[int]:
    """Every unit as low as its users allow: the output at the bottom, each other unit one
    row above its highest user (the longest path to the output, counted from the bottom).

    Ranked from the inputs instead, work that needs no earlier result (``U @ x_t`` of every
    step of an RNN) would all sit in the second row, one wide row of hundreds of boxes with
    an edge from each down to its step. From the output, it sits right above its use, and
    a leaf (a weight) right above its first use, as ``dot`` puts them. A cycle (never in
    autograd graphs) is broken by ranking what is left in order above.
    """
    users: list[list[int]] = [[] for _ in range(count)]
    inputs: list[list[int]] = [[] for _ in range(count)]
    for s, t in links:
        users[s].append(t)
        inputs[t].append(s)
    height = [0] * count  # rows above the bottom
    waiting = [len(users[u]) for u in range(count)]
    order = [u for u in range(count) if waiting[u] == 0]
    for u in order:  # Kahn's order from the sinks up; grows while it is walked
        for v in inputs[u]:
            height[v] = max(height[v], height[u] + 1)
            waiting[v] -= 1
            if waiting[v] == 0:
                order.append(v)
    if len(order) < count:
        seen = set(order)
        top = max(height, default=0)
        for u in range(count):
            if u not in seen:
                top += 1
                height[u] = top
    bottom = max(height, default=0)
    rank = [bottom - h for h in height]
    _pull_up(rank, inputs, users)
    return rank


def _pull_up(rank: list[int], inputs: list[list[int]], users: list[list[int]]) -> None:
    """Move a box up to right under its inputs when more of its edges go up to computed
    inputs than down to users, so those edges get short.

    Ranked from the output alone, a running total (``loss = loss + (h * h).sum()`` in every
    step of an RNN) is packed at the bottom: two rows a step against the hidden state's
    four, so each step's term reached further down than the last, hundreds of long edges
    in lanes beside the picture. Pulled up, each term sits under its step. An edge from a
    leaf does not pull (``U @ x_t`` of every step would all go up under ``U``, one wide
    row); a box with as many users as inputs goes up too, so a chain under it can follow.
    Top to bottom, so a box's inputs are where they end up; a box never passes its inputs
    nor goes below where it was, so every edge still points down.
    """
    for v in sorted(range(len(rank)), key=rank.__getitem__):
        computed = sum(1 for s in inputs[v] if inputs[s])
        if computed and computed >= len(users[v]):
            highest = max(rank[s] for s in inputs[v]) + 1
            if highest < rank[v]:
                rank[v] = highest


def fast_placement(graph: Graph, sizes: Mapping[str, tuple[float, float]]) -> FastPlacement:
    """Place ``graph``'s boxes (of ``sizes``, width and height in points) in layers.

    Linear in the boxes and edges, times the few sweeps (see the module docs).
    """
    units = _Units(graph, sizes)
    count = len(units.members)
    links: list[tuple[int, int]] = []
    edge_units: dict[int, tuple[int, int]] = {}
    for i, e in enumerate(graph.edges):
        s, t = units.index.get(e.source), units.index.get(e.target)
        if s is None or t is None:
            continue
        edge_units[i] = (s, t)
        if s != t:
            links.append((s, t))
    rank = _ranks(count, links)
    widths = list(units.widths)
    rank_of = list(rank)
    up: list[list[int]] = [[] for _ in range(count)]
    down: list[list[int]] = [[] for _ in range(count)]
    routes: dict[int, list[int]] = {}  # edge index -> its virtual nodes, top to bottom

    def new_virtual(r: int) -> int:
        widths.append(VIRTUAL_WIDTH)
        rank_of.append(r)
        up.append([])
        down.append([])
        return len(widths) - 1

    for i, (s, t) in edge_units.items():
        span = rank[t] - rank[s]
        if span < 1 or s == t:
            continue
        if span == 1:
            down[s].append(t)
            up[t].append(s)
        elif span <= MAX_ROUTED_SPAN:
            chain = [s] + [new_virtual(rank[s] + k) for k in range(1, span)] + [t]
            for a, b in itertools.pairwise(chain):
                down[a].append(b)
                up[b].append(a)
            routes[i] = chain[1:-1]
    layers: list[list[int]] = [[] for _ in range(max(rank_of, default=0) + 1)]
    for v in range(len(widths)):
        layers[rank_of[v]].append(v)
    _order(layers, up, down)
    xs = _positions(layers, widths, up, down)
    left = min((xs[v] - widths[v] / 2 for v in range(len(widths))), default=0.0)
    xs = [x - left + MARGIN for x in xs]
    rank_heights = [0.0] * len(layers)
    for u in range(count):
        rank_heights[rank[u]] = max(rank_heights[rank[u]], units.heights[u])
    centre_y, top = [], MARGIN
    for h in rank_heights:
        centre_y.append(top + h / 2)
        top += h + RANK_GAP
    centres: dict[str, Point] = {}
    for u, keys in enumerate(units.members):
        x = xs[u] - units.widths[u] / 2
        for key in keys:
            w = sizes[key][0]
            centres[key] = (x + w / 2, centre_y[rank[u]])
            x += w + MEMBER_GAP
    right = max((c[0] + sizes[k][0] / 2 for k, c in centres.items()), default=0.0)
    gap_below = [c + h / 2 + RANK_GAP / 2 for c, h in zip(centre_y, rank_heights, strict=True)]
    long = {i: st for i, st in edge_units.items() if rank[st[1]] - rank[st[0]] > MAX_ROUTED_SPAN}
    lanes = _lanes(long, rank, right + LANE_GAP)
    edges, arrows = {}, {}
    for i, (s, t) in edge_units.items():
        e = graph.edges[i]
        if i in long:
            lane = lanes[s]
            via = [(lane, gap_below[rank[s]]), (lane, gap_below[rank[t] - 1])]
        else:
            # Straight down through each crossed row where its virtual node kept room,
            # bending only in the gaps between rows (never across a box).
            via = []
            for v in routes.get(i, []):
                half = rank_heights[rank_of[v]] / 2
                via += [(xs[v], centre_y[rank_of[v]] - half), (xs[v], centre_y[rank_of[v]] + half)]
        source, target = centres[e.source], centres[e.target]
        edges[i], arrows[i] = _curve(source, sizes[e.source], target, sizes[e.target], via)
    width = max([right, *lanes.values()]) + MARGIN
    height = max(top - RANK_GAP + MARGIN, MARGIN * 2)
    return FastPlacement(centres, edges, arrows, width, height)


def _lanes(long: dict[int, tuple[int, int]], rank: list[int], first: float) -> dict[int, float]:
    """The x of the lane each source's long edges run down in, right of every box.

    A long edge (an RNN's weight to every step) goes sideways into its source's lane in
    the gap under the source, straight down it, and sideways again to its target in the gap
    above that: it crosses no box, and a straight line is cheap to paint however tall
    (Qt strokes a curve in pieces along its whole length, off screen too). Sources whose
    rows do not overlap share a lane (greedy interval colouring, by first row).
    """
    spans: dict[int, list[int]] = {}
    for s, t in long.values():
        top, bottom = spans.setdefault(s, [rank[s], rank[t]])
        spans[s] = [min(top, rank[s]), max(bottom, rank[t])]
    lane_ends: list[int] = []
    lanes: dict[int, float] = {}
    for s, (top, bottom) in sorted(spans.items(), key=lambda item: item[1][0]):
        for k, end in enumerate(lane_ends):
            if end < top:
                lane_ends[k] = bottom
                break
        else:
            k = len(lane_ends)
            lane_ends.append(bottom)
        lanes[s] = first + k * LANE_GAP
    return lanes


def _order(layers: list[list[int]], up: list[list[int]], down: list[list[int]]) -> None:
    """Barycenter sweeps: each rank sorted by its neighbours' mean place in the rank above
    (going down) or below (going up); a node without such neighbours keeps its place."""
    place = [0.0] * len(up)
    for layer in layers:
        for i, v in enumerate(layer):
            place[v] = float(i)
    for sweep in range(ORDER_SWEEPS):
        going_down = sweep % 2 == 0
        sequence = layers[1:] if going_down else layers[-2::-1]
        for layer in sequence:
            near = up if going_down else down
            keyed = []
            for v in layer:
                others = near[v]
                b = sum(place[o] for o in others) / len(others) if others else place[v]
                keyed.append((b, place[v], v))
            keyed.sort()
            layer[:] = [v for _, _, v in keyed]
            for i, v in enumerate(layer):
                place[v] = float(i)


def _positions(
    layers: list[list[int]], widths: list[float], up: list[list[int]], down: list[list[int]]
) -> list[float]:
    """Centre x of every node: packed first, then pulled towards neighbours in sweeps.

    A node follows its neighbours on the longest path through it (the spine of the graph:
    an RNN's hidden state, step after step) and, when several tie, their mean. Where two
    want the same place the one on the longer path gets it and the other moves aside
    (:func:`_settle_layer`). Plain means, shared equally, let the spine slide sideways a
    little at every step, which over hundreds of steps drew the graph as a long diagonal.
    """
    count = len(widths)
    from_top, from_bottom = [0] * count, [0] * count
    for layer in layers:
        for v in layer:
            from_top[v] = max((from_top[u] + 1 for u in up[v]), default=0)
    for layer in reversed(layers):
        for v in layer:
            from_bottom[v] = max((from_bottom[u] + 1 for u in down[v]), default=0)
    path = [a + b for a, b in zip(from_top, from_bottom, strict=True)]
    xs = [0.0] * count
    for layer in layers:
        x = 0.0
        for v in layer:
            xs[v] = x + widths[v] / 2
            x += widths[v] + NODE_GAP
    still = 0  # sweeps in a row that moved nothing
    for sweep in range(POSITION_SWEEPS * 2):
        if still == 2:  # a fixed point of both directions: every later sweep is the same
            break
        going_down = sweep % 2 == 0
        near = up if going_down else down
        moved = False
        for layer in layers if going_down else layers[::-1]:
            wanted = []
            for v in layer:
                others = near[v]
                if len(others) == 1:  # most nodes of a long chain: its one neighbour
                    wanted.append(xs[others[0]])
                elif others:
                    longest = max(path[o] for o in others)
                    spine = [xs[o] for o in others if path[o] == longest]
                    wanted.append(sum(spine) / len(spine))
                else:
                    wanted.append(xs[v])
            placed = _settle_layer(wanted, [widths[v] for v in layer], [path[v] for v in layer])
            for v, x in zip(layer, placed, strict=True):
                if xs[v] != x:
                    xs[v] = x
                    moved = True
        still = 0 if moved else still + 1
    return xs


def _settle_layer(wanted: list[float], widths: list[float], priority: list[int]) -> list[float]:
    """Places as close to ``wanted`` as boxes in this order allow, the highest ``priority``
    placed first and the others fitted between (the priority method of Sugiyama et al.)."""
    n = len(wanted)
    if n == 1:  # alone in its rank (a chain's): nothing to make room for
        return wanted
    packed = [0.0] * n  # least distance from the first box's centre, boxes in order
    for i in range(1, n):
        packed[i] = packed[i - 1] + (widths[i - 1] + widths[i]) / 2 + NODE_GAP
    xs = [0.0] * n
    fixed: list[int] = []  # indices placed so far, sorted
    for i in sorted(range(n), key=lambda j: -priority[j]):
        at = bisect.bisect_left(fixed, i)
        x = wanted[i]
        if at > 0:
            j = fixed[at - 1]
            x = max(x, xs[j] + packed[i] - packed[j])
        if at < len(fixed):
            k = fixed[at]
            x = min(x, xs[k] - (packed[k] - packed[i]))
        xs[i] = x
        fixed.insert(at, i)
    return xs


def _curve(
    source: Point,
    source_size: tuple[float, float],
    target: Point,
    target_size: tuple[float, float],
    via: list[Point],
) -> tuple[tuple[Point, ...], Point]:
    """Bézier points (``1 + 3k``) from ``source``'s box to ``target``'s, through ``via``, and
    the arrow's tip on the target's border (the curve stops :data:`ARROW_LENGTH` before)."""
    (sx, sy), (sw, sh) = source, source_size
    (tx, ty), (tw, th) = target, target_size
    if abs(sy - ty) < 1e-6:  # same rank: side to side (a constant into its owner)
        step = 1.0 if tx >= sx else -1.0
        start = (sx + step * sw / 2, sy)
        tip = (tx - step * tw / 2, ty)
        end = (tip[0] - step * ARROW_LENGTH, ty)
        return _straight(start, end), tip
    step = 1.0 if ty > sy else -1.0
    start = (sx, sy + step * sh / 2)
    tip = (tx, ty - step * th / 2)
    end = (tx, tip[1] - step * ARROW_LENGTH)
    points = [start]
    for a, b in zip([start, *via], [*via, end], strict=True):
        half = (b[1] - a[1]) / 2
        points += [(a[0], a[1] + half), (b[0], b[1] - half), b]
    return tuple(points), tip


def _straight(a: Point, b: Point) -> tuple[Point, ...]:
    return (
        a,
        (a[0] + (b[0] - a[0]) / 3, a[1] + (b[1] - a[1]) / 3),
        (a[0] + 2 * (b[0] - a[0]) / 3, a[1] + 2 * (b[1] - a[1]) / 3),
        b,
    )
