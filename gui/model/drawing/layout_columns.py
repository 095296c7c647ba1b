"""A layout on the wire as columns of numbers: a few byte strings instead of an object per
box, edge and point.

The layout worker's answer for a 5,000-function graph is 7,500 boxes and 7,500 edges of
some 50,000 points. Pickled as objects, the window's careful reader (:mod:`gui.model.wire`)
built and then walked every box, tuple and number in Python: 100-200 ms of the first
picture, most of what the layout itself takes. Importing this module makes every
:class:`~.layout.GraphLayout` pickle as columns instead (``copyreg``: :func:`pack_layout`):
the node keys, and the boxes, edge numbers, point counts, points and arrowheads as arrays
of 64-bit numbers, which :func:`unpack_layout` checks a whole array at a time and turns
into the records itself.

:func:`unpack_layout` trusts nothing (the worker lays out a stranger's graph in native
code): every column's type and length, every count against the points there are, every
number finite and within :data:`~gui.model.wire_places.MAX_PLACE` points (sizes not
negative), edge numbers not negative and each once, keys text and each once; anything off
is refused (``pickle.UnpicklingError``).

Kept free of torch and Qt: it runs in the window's process too.
"""

from __future__ import annotations

import copyreg
import itertools
import pickle
from array import array
from typing import Any

from gui.model.drawing.layout import GraphLayout, NodeBox
from gui.model.graph_columns import make_records
from gui.model.wire_places import MAX_PLACE, check_places

Columns = tuple[Any, ...]
# The arrays' item types: 64-bit floats for places and sizes, 64-bit integers for counts
# and edge numbers (the same on every machine the app runs on: C doubles and long longs).
FLOATS = "d"
INTEGERS = "q"


def _packed(kind: str, values: Any) -> bytes:
    return array(kind, values).tobytes()


def pack_layout(layout: GraphLayout) -> Columns:
    """``layout`` as columns (see the module's docstring), in :func:`unpack_layout`'s
    order."""
    keys = tuple(layout.nodes)
    boxes = _packed(
        FLOATS, (v for box in layout.nodes.values() for v in (box.x, box.y, box.width, box.height))
    )
    edges = layout.edges
    counts = _packed(INTEGERS, map(len, edges.values()))
    points = _packed(FLOATS, (v for route in edges.values() for point in route for v in point))
    arrows = _packed(FLOATS, (v for tip in layout.arrows.values() for v in tip))
    return (
        keys,
        boxes,
        _packed(INTEGERS, edges),
        counts,
        points,
        _packed(INTEGERS, layout.arrows),
        arrows,
        (float(layout.width), float(layout.height), layout.compact, layout.fast),
    )


def _refuse(what: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(f"the layout worker sent {what}")


def _array(kind: str, data: object, what: str) -> list[Any]:
    """The numbers of ``data``, bytes holding an array of ``kind``."""
    if type(data) is not bytes:
        raise _refuse(f"{what} that are not bytes")
    numbers = array(kind)
    if len(data) % numbers.itemsize:
        raise _refuse(f"{what} of a broken length")
    numbers.frombytes(data)
    return numbers.tolist()


def _numbers(values: list[int], what: str) -> None:
    """Edge numbers: none negative, each once."""
    if values and (min(values) < 0 or len(set(values)) != len(values)):
        raise _refuse(f"{what} that are negative or repeated")


def _pairs(flat: list[float]) -> list[tuple[float, float]]:
    return list(zip(flat[0::2], flat[1::2], strict=True))


def unpack_layout(*columns: object, most: int | None = None) -> GraphLayout:
    """The layout of ``columns``, every column checked first (else
    ``pickle.UnpicklingError``); ``most``: the most items (as :func:`expanded_size` counts
    them) it may have, refused from the columns' lengths before any number is read."""
    if len(columns) != 8:
        raise _refuse("a layout with other columns")
    keys, boxes, numbers, counts, points, arrow_numbers, arrows, fields = columns
    if most is not None and _size_from_lengths(columns) > most:
        # A 256 MB reply of points is 32 million numbers and 16 million pairs: 3 GB and
        # ten seconds before the count was refused (red team, round 17).
        raise _refuse("a layout that expands too far")
    _check_lengths(keys, boxes, numbers, counts, arrow_numbers, arrows)
    if type(keys) is not tuple or not all(type(key) is str for key in keys):
        raise _refuse("node keys that are not texts")
    if len(set(keys)) != len(keys):
        raise _refuse("a node key twice")
    if type(fields) is not tuple or len(fields) != 4:
        raise _refuse("a layout's fields of another shape")
    width, height, compact, fast = fields
    if type(width) is not float or type(height) is not float:
        raise _refuse("a layout's size that is not a number")
    if type(compact) is not bool or type(fast) is not bool:
        raise _refuse("a layout's kind that is not true or false")
    check_places([width, height], 0.0, "a layout's size")
    box_values = _array(FLOATS, boxes, "boxes")
    if len(box_values) != 4 * len(keys):
        raise _refuse("boxes of another count than the nodes")
    check_places(box_values[0::4] + box_values[1::4], -MAX_PLACE, "a box's place")
    check_places(box_values[2::4] + box_values[3::4], 0.0, "a box's size")
    edge_numbers = _array(INTEGERS, numbers, "edge numbers")
    _numbers(edge_numbers, "edge numbers")
    point_counts = _array(INTEGERS, counts, "point counts")
    flat = _array(FLOATS, points, "points")
    if len(point_counts) != len(edge_numbers) or (point_counts and min(point_counts) < 0):
        raise _refuse("point counts of another shape than the edges")
    if 2 * sum(point_counts) != len(flat):
        raise _refuse("points of another count than their counts say")
    check_places(flat, -MAX_PLACE, "an edge's point")
    tips = _array(FLOATS, arrows, "arrowheads")
    tip_numbers = _array(INTEGERS, arrow_numbers, "arrowhead numbers")
    _numbers(tip_numbers, "arrowhead numbers")
    if 2 * len(tip_numbers) != len(tips):
        raise _refuse("arrowheads of another count than their numbers")
    check_places(tips, -MAX_PLACE, "an arrowhead's point")
    pairs = _pairs(flat)
    ends = itertools.accumulate(point_counts)
    routes = [
        tuple(pairs[end - count : end]) for end, count in zip(ends, point_counts, strict=True)
    ]
    rows = zip(box_values[0::4], box_values[1::4], box_values[2::4], box_values[3::4], strict=True)
    return GraphLayout(
        dict(zip(keys, make_records(NodeBox, rows), strict=True)),
        dict(zip(edge_numbers, routes, strict=True)),
        width,
        height,
        dict(zip(tip_numbers, _pairs(tips), strict=True)),
        compact,
        fast,
    )


def _check_lengths(
    keys: object, boxes: object, numbers: object, counts: object, tips: object, arrows: object
) -> None:
    """Refuse columns whose lengths disagree, before any number is read: a box's four
    numbers for each node, a point count for each edge, two numbers for each arrowhead.
    The counts of nodes, edges and arrowheads bound the layout's size (see
    :func:`_size_from_lengths`); a 128 MB column of boxes for one node was read into 16
    million numbers (1.3 GB, two seconds holding the GIL) before its count was found
    wrong (red team, round 18)."""
    floats, integers = array(FLOATS).itemsize, array(INTEGERS).itemsize

    def disagree(column: object, other: object, per_item: int) -> bool:
        return (
            type(column) is bytes
            and len(column) % floats == 0  # (else refused when read, as broken)
            and type(other) in (bytes, tuple)
            and len(column) != per_item * len(other)  # type: ignore[arg-type]
        )

    if disagree(boxes, keys, 4 * floats):
        raise _refuse("boxes of another count than the nodes")
    if disagree(counts, numbers, 1):  # (both whole numbers, one per edge)
        raise _refuse("point counts of another shape than the edges")
    if disagree(arrows, tips, 2 * floats // integers):
        raise _refuse("arrowheads of another count than their numbers")


def _size_from_lengths(columns: tuple[object, ...]) -> int:
    """:func:`expanded_size` of the layout ``columns`` would make, from their lengths
    (a column of another type counts nothing: it is refused when read)."""
    keys, _, numbers, _, points, arrow_numbers, _, _ = columns

    def count(column: object, size: int) -> int:
        return len(column) // size if type(column) is bytes or type(column) is tuple else 0

    nodes, edges = count(keys, 1), count(numbers, 8)
    return _size(nodes, edges, count(points, 16), count(arrow_numbers, 8))


def _size(nodes: int, edges: int, points: int, arrows: int) -> int:
    return 8 + 6 * nodes + 2 * edges + 3 * points + 4 * arrows


def expanded_size(layout: GraphLayout) -> int:
    """How many items walking ``layout`` reaches, as the careful reader counts a message
    (:func:`gui.model.wire.check_expanded`): its fields, each box with its numbers, each
    route's points and each arrowhead."""
    points = sum(map(len, layout.edges.values()))
    return _size(len(layout.nodes), len(layout.edges), points, len(layout.arrows))


def _layout_reduced(layout: GraphLayout) -> tuple[Any, ...]:
    return unpack_layout, pack_layout(layout)


copyreg.pickle(GraphLayout, _layout_reduced)
