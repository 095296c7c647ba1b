"""Finding a node by name in the graph panel, and the level of detail of a zoomed-out graph."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from pytestqt.qtbot import QtBot

from gui.model.drawing.layout import FONT_SIZE
from gui.model.result import Graph, GraphNode
from gui.model.session import Session
from gui.model.views.graph_search import find_nodes, search_status
from gui.widgets.graph_panel import GraphPanel
from gui.widgets.node_item import OVERVIEW_TITLE_PX
from gui.widgets.scene_style import LEGIBLE_TEXT_PX
from tests.fixtures import show_panel

CHAIN = (
    "x = torch.tensor([0.5], requires_grad=True)\n"
    "y = x\n"
    "for i in range(40):\n"
    "    y = torch.sin(y) * 1.01 + 0.1\n"
    "loss = (y * 3).sum()\n"
)


def graph_of(*nodes: tuple[str, str, str | None]) -> Graph:
    made = tuple(
        GraphNode(key=key, name=name, label=var or name, kind="function", var=var)
        for key, name, var in nodes
    )
    return Graph(nodes=made, edges=(), root=made[0].key, structure_key="k")


def test_matches_rank_exact_names_then_prefixes_then_the_rest() -> None:
    graph = graph_of(
        ("0", "SumBackward0", "loss"),
        ("1", "MulBackward0", "loss_scaled"),
        ("2", "PowBackward0", "y"),
        ("3", "AccumulateGrad", "my_loss"),
    )
    assert find_nodes(graph, "loss") == ("0", "1", "3")
    assert find_nodes(graph, "  POW ") == ("2",)  # case and spaces do not matter
    assert find_nodes(graph, "backward0") == ("0", "1", "2")
    assert find_nodes(graph, "") == ()
    assert search_status((), None, "nothing") == "no node named 'nothing'"
    assert search_status(("0", "1"), 1, "loss") == "2 of 2"


def test_enter_walks_through_the_matches_and_brings_each_into_readable_view(
    qtbot: QtBot, session: Session
) -> None:
    panel = show_panel(qtbot, GraphPanel(session), 500, 400)
    session.set_code(CHAIN)
    graph = session.snapshot.graph
    assert graph is not None
    panel.view().fit("fit")  # the whole chain: far too small to read
    assert panel.view().transform().m11() < panel.view().readable_scale()
    panel.activateWindow()
    panel.view().setFocus()
    qtbot.waitUntil(panel.view().hasFocus)
    qtbot.keyClick(panel.view(), Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert panel.search.hasFocus()
    qtbot.keyClicks(panel.search, "sin")
    sines = [n.key for n in graph.nodes if n.name == "SinBackward0"]
    assert set(panel.search.matches) == set(sines) and len(sines) == 40
    qtbot.keyClick(panel.search, Qt.Key.Key_Return)
    qtbot.keyClick(panel.search, Qt.Key.Key_Return)
    second = panel.search.matches[1]
    assert session.snapshot.selected_node == second
    assert panel.search.status() == "2 of 40"
    view = panel.view()
    assert view.transform().m11() >= view.readable_scale() * 0.999
    item = panel.node_item(second)
    assert item is not None
    centre = view.mapFromScene(item.sceneBoundingRect().center())
    assert view.viewport().rect().contains(centre)
    qtbot.keyClick(panel.search, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert session.snapshot.selected_node == panel.search.matches[0]


def test_a_name_that_is_not_there_says_so(qtbot: QtBot, session: Session) -> None:
    panel = show_panel(qtbot, GraphPanel(session), 500, 400)
    session.set_code(CHAIN)
    before = session.snapshot.selected_node
    qtbot.keyClicks(panel.search, "weight")
    qtbot.keyClick(panel.search, Qt.Key.Key_Return)
    assert session.snapshot.selected_node == before
    assert panel.search.status() == "no node named 'weight'"


def dark_pixels(image: QImage, rect: QRectF) -> int:
    count = 0
    for x in range(int(rect.left()) + 1, int(rect.right()) - 1):
        for y in range(int(rect.top()) + 1, int(rect.bottom()) - 1):
            if QColor(image.pixel(x, y)).lightness() < 80:
                count += 1
    return count


def _painted(item: Any, zoom: float) -> tuple[QImage, QRectF]:
    """``item`` painted alone at ``zoom``, and the inside of its box in the image."""
    box = item.sceneBoundingRect()
    size = box.size() * zoom
    image = QImage(int(size.width()) + 4, int(size.height()) + 4, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.scale(zoom, zoom)
    painter.translate(-box.topLeft() + QPointF(1, 1))
    item.paint(painter, None, None)
    painter.end()
    inner = QRectF(2 * zoom, 4 * zoom, (box.width() - 4) * zoom, (box.height() - 8) * zoom)
    return image, inner


def test_zoomed_out_a_box_still_shows_its_name(qtbot: QtBot, session: Session) -> None:
    # Past reading its lines, a box draws its title alone, grown to fill it: a fitted graph
    # still says which box is which. Smaller still, nothing (a smudge is clutter).
    panel = show_panel(qtbot, GraphPanel(session), 500, 400)
    # A box wider than its title: its value line is the widest.
    session.set_code("x = torch.tensor([2.5, -1.25, 3.5, 0.75], requires_grad=True)\nq = x * 3\n")
    items = panel.items
    assert items is not None
    item = next(i for i in items.nodes.values() if i.kind == "function")
    zoom = LEGIBLE_TEXT_PX / FONT_SIZE * 0.95  # its lines are too small to read here
    pixels = item.overview_title_pixels(zoom)
    assert pixels >= OVERVIEW_TITLE_PX
    image, inner = _painted(item, zoom)
    assert dark_pixels(image, inner) > 0
    tiny = zoom * OVERVIEW_TITLE_PX / pixels * 0.9  # the grown title under 6 px
    assert item.overview_title_pixels(tiny) == 0.0
    image, inner = _painted(item, tiny)
    assert dark_pixels(image, inner) == 0


def test_text_too_small_to_read_is_not_drawn(qtbot: QtBot, session: Session) -> None:
    panel = show_panel(qtbot, GraphPanel(session), 500, 400)
    session.set_code("x = torch.tensor([2.0], requires_grad=True)\ny = x * x\n")
    items = panel.items
    assert items is not None
    item = next(i for i in items.nodes.values() if i.kind == "function")
    for zoom, text_drawn in ((2.0, True), (LEGIBLE_TEXT_PX / 10.0 * 0.5, False)):
        image, inner = _painted(item, zoom)
        assert (dark_pixels(image, inner) > 0) == text_drawn
