"""A layout's points and tables checked in bulk: every wrong one still refused."""

from __future__ import annotations

import copyreg
import io
import pickle

import pytest

from gui.model import wire
from gui.model.drawing.layout import GraphLayout, NodeBox
from gui.model.drawing.layout_process import LAYOUT_MESSAGES
from gui.model.result import GraphEdge


def layout(edges: object, arrows: object, nodes: object | None = None) -> GraphLayout:
    boxes = {"a": NodeBox(0.0, 0.0, 10.0, 5.0), "b": NodeBox(0.0, 40.0, 10.0, 5.0)}
    return GraphLayout(
        boxes if nodes is None else nodes,  # type: ignore[arg-type]
        edges,  # type: ignore[arg-type]
        10.0,
        45.0,
        arrows,  # type: ignore[arg-type]
    )


GOOD_EDGES = {0: ((0.0, 2.5), (0.0, 10.0), (0.0, 20), (0.0, 37.5)), 1: ()}
GOOD_ARROWS = {0: (0.0, 37.5), 1: (1, 2.0)}


def read(message: object) -> object:
    """``message`` read by the window, pickled one object per record (as a process that
    has not imported :mod:`gui.model.drawing.layout_columns` sends it; the reader still
    takes that form, and must check it)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out)
    pickler.dispatch_table = {
        kind: reduce for kind, reduce in copyreg.dispatch_table.items() if kind is not GraphLayout
    }
    pickler.dump(message)
    data = out.getvalue()
    assert b"layout_columns" not in data
    return wire.loads(data, LAYOUT_MESSAGES)


def test_a_layout_of_numbers_is_read_as_sent() -> None:
    sent = layout(GOOD_EDGES, GOOD_ARROWS)
    assert read(sent) == sent


@pytest.mark.parametrize(
    ("edges", "arrows"),
    [
        ({0: ((0.0, 2.5), (0.0, "10"))}, GOOD_ARROWS),  # a text in a point
        ({0: ((0.0, 2.5), (0.0, 1.0, 2.0))}, GOOD_ARROWS),  # a point of three
        ({0: ((0.0, 2.5), [0.0, 1.0])}, GOOD_ARROWS),  # a list for a point
        ({0: ((0.0, 2.5),), "1": ()}, GOOD_ARROWS),  # a text key
        ({0: [(0.0, 2.5)]}, GOOD_ARROWS),  # a list of points
        ([((0.0, 2.5),)], GOOD_ARROWS),  # no table at all
        (GOOD_EDGES, {0: (0.0,)}),  # an arrow tip of one number
        (GOOD_EDGES, {0: (None, 1.0)}),  # a None in a tip
        (GOOD_EDGES, {0: (GraphEdge("a", "b"), 1.0)}),  # a message object in a tip
    ],
)
def test_a_wrong_point_among_right_ones_is_refused(edges: object, arrows: object) -> None:
    with pytest.raises(pickle.UnpicklingError, match="GraphLayout"):
        read(layout(edges, arrows))


def test_a_wrong_box_in_the_table_is_refused() -> None:
    nodes = {"a": NodeBox(0.0, 0.0, 10.0, 5.0), "b": (0.0, 40.0, 10.0, 5.0)}
    with pytest.raises(pickle.UnpicklingError, match="GraphLayout"):
        read(layout(GOOD_EDGES, GOOD_ARROWS, nodes))
