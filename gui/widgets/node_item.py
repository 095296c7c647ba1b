"""A box of the graph: a node in its kind's style, with its text lines, outlined when selected.

Created once per graph structure and then only told new numbers; it repaints only what
really changed, and draws its text itself (one item per box, not one text item per line),
which keeps a 200-node graph cheap to update and to paint.

What a box shows is made from its *source* (the node, its flow, the gradient it shows and
the colour scale) by the same helpers as the SVG export. A box off screen is only told its
new source: the text is made when the box is next painted or read, so a slider tick on a
big graph formats only the boxes in view.

A tick usually changes a value line, a grad line and the cells, not the title, the shape
or the fill: then only those rows and the strip are repainted, on the plain fill, and the
rounded border is drawn again only where an edge that changed meets it. Each line keeps
its row (the rows depend on the number of lines only), and painting uses shared fonts,
pens and brushes: nothing is built while painting.

Styles follow the SVG export (:mod:`gui.model.drawing.svg`) so the window and an exported
report look alike: border widths and dash styles per node kind.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QFont, QFontMetrics, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from gui.model.drawing.colors import CELLS_BORDER, KIND_BORDER, KIND_FILL, text_color_on
from gui.model.drawing.layout import (
    CELLS_FONT_SIZE,
    CELLS_GAP,
    FONT_SIZE,
    LINE_HEIGHT,
    NodeBox,
    cells_rect,
    node_lines,
    text_top,
)
from gui.model.drawing.paint import CellStrip, box_fill, element_cells
from gui.model.result import GraphNode, NodeFlow, TensorData
from gui.widgets.scene_style import (
    ALIGN_CENTER,
    LEGIBLE_TEXT_PX,
    NO_BRUSH,
    NO_PEN,
    Z_NODE,
    Z_SELECTED,
    Area,
    overlaps,
    qbrush,
    qcolor,
    qpen,
    shared_font,
    text_advance,
)
from gui.widgets.tick_feed import FedFromBoard, TickFeed

# Zoomed out: a box's title fills at most this share of its width and height, grows at
# most this much, and is drawn only from this many screen pixels tall (smaller is clutter).
OVERVIEW_TITLE_FILL = 0.9
OVERVIEW_TITLE_MAX_GROW = 4.0
OVERVIEW_TITLE_PX = 6.0

# The selected box's outline: purple lies outside both arms of the red/blue gradient scale
# and outside the kind colours, so it never reads as a value.
SELECTION_COLOR = "#7b3294"
SELECTION_WIDTH = 3.0
SELECTION_GAP = 2.5
CORNER_RADIUS = 6.0

# (rounded, border width, dashed) per node kind, as the SVG export's _STYLE.
KIND_STYLE: dict[str, tuple[bool, float, bool]] = {
    "leaf": (True, 2.2, False),
    "function": (True, 1.2, False),
    "constant": (False, 1.0, False),
    "saved": (True, 1.2, True),
    "output": (True, 3.2, False),
    "group": (False, 2.2, False),
}

INTERSECT = Qt.ClipOperation.IntersectClip
ANTIALIASING = QPainter.RenderHint.Antialiasing
ALIGN_RIGHT_MIDDLE = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
# Above this many separate dirty parts on its border, a box is drawn whole, once.
MAX_BORDER_PARTS = 2
# The width of a text not measured yet: as wide as any box's bounds could be.
UNMEASURED = 1e6
# How far a text's ink may reach beyond its advance (a glyph's overhang), in points.
INK_MARGIN = 1.5

# What a box's content is made from: the node, what the shown step saw at it, the gradient
# it shows and the colour scale (0.0 when there is no gradient: the scale changes nothing).
BoxSource = tuple[GraphNode, NodeFlow | None, TensorData | None, float]


class _CellPaint(NamedTuple):
    """A box's cells ready to paint: a rectangle and a brush per cell, the frame around
    them, the "+N" note with its rectangle, and all they cover."""

    rects: list[QRectF]
    brushes: list[QBrush]
    frame: QRectF
    note: tuple[QRectF, str] | None
    area: Area


# Pens and colours every box of a kind shares (read only, never changed): a 7,500-box
# graph made them 7,500 times over when it was built.
@functools.cache
def _border_pen(kind: str) -> QPen:
    _rounded, width, dashed = KIND_STYLE[kind]
    pen = QPen(qcolor(KIND_BORDER[kind]), width)
    if dashed:
        pen.setDashPattern([4.0, 2.0])
    return pen


@functools.cache
def _shared_pens() -> tuple[QPen, QPen]:
    """The selection ring's pen and the element cells' border pen."""
    return QPen(qcolor(SELECTION_COLOR), SELECTION_WIDTH), QPen(qcolor(CELLS_BORDER), 0.8)


@functools.cache
def _text_color_for(fill: str) -> str:
    return text_color_on(fill)


def box_area(box: NodeBox, kind: str) -> Area:
    """What a box of ``kind`` placed at ``box`` can cover: the box, its border and its
    selection ring, in plain numbers (the graph's "is it on screen?" test on every tick,
    and a big graph's index of boxes not made yet)."""
    margin = SELECTION_GAP + SELECTION_WIDTH + KIND_STYLE[kind][1]
    return (
        box.left - margin,
        box.top - margin,
        box.left + box.width + margin,
        box.top + box.height + margin,
    )


class NodeItem(FedFromBoard, QGraphicsItem):
    """One box: a rounded rectangle in its kind's style with its text lines, centred.

    ``lines``, ``fill`` and ``cells`` are what the box shows (tests read them); ``key`` is
    the graph node's key. ``text_scale`` shrinks the text when the available font is wider
    than the one the layout measured (never enlarges it). ``changed_lines`` counts the line
    texts replaced so far: a line whose text did not change is never touched again.
    """

    def __init__(
        self,
        key: str,
        kind: str,
        box: NodeBox,
        text_scale: float = 1.0,
        has_cells: bool = False,
        compact: bool = False,
    ) -> None:
        super().__init__()
        self.key = key
        self.kind = kind
        self.has_cells = has_cells
        self.highlighted = False
        self.changed_lines = 0
        # What the content was last made from, and a newer source not made yet (off screen).
        self.source: BoxSource | None = None
        self._pending: BoxSource | TickFeed | None = None
        self._compact = compact
        self._box = box
        self._lines: list[str] = []
        self._fill = KIND_FILL[kind]
        # The per-element colours under the text (None: none shown now); the box keeps room
        # for them when ``has_cells`` (its layout measured it so).
        self._cells: CellStrip | None = None
        self._text_color = _text_color_for(self._fill)
        # Paint-ready: each line's font, row, text and the row's top; each text's width (where
        # its ink is); the fill's brush, the text's pen and the cells.
        self._placed: list[tuple[QFont, QRectF, str, float]] = []
        # The title and its width, for the zoomed-out view (measured when it changes).
        self._overview: tuple[str, float] = ("", 0.0)
        self._widths: list[float] = []
        self._fill_brush = qbrush(self._fill)
        self._text_pen = qpen(self._text_color)
        self._cell_paint: _CellPaint | None = None
        self._cell_geometry: tuple[tuple[int, int, int], _CellGeometry] | None = None
        self._rect = QRectF(box.left, box.top, box.width, box.height)
        self._centre_x = box.x
        self._text_scale = text_scale
        rounded, width, _dashed = KIND_STYLE[kind]
        self._radius = CORNER_RADIUS if rounded else 0.0
        self._pen = _border_pen(kind)
        grow = SELECTION_GAP + SELECTION_WIDTH / 2 + width / 2
        self._ring = self._rect.adjusted(-grow, -grow, grow, grow)
        self._ring_radius = self._radius + grow
        self._ring_pen, self._cells_pen = _shared_pens()
        # The box, its border and its selection ring: the same numbers the graph's index
        # of a big graph's boxes holds before any box is made (box_area).
        self.area = box_area(box, kind)
        self._bounds = QRectF(QPointF(*self.area[:2]), QPointF(*self.area[2:]))
        # Inside this rounded rectangle the box is its fill and nothing else (the border,
        # antialiased, ends a unit before): a repaint within it needs no border.
        inset = width / 2 + 1.0
        solid = self._rect.adjusted(inset, inset, -inset, -inset)
        self._solid = (solid.left(), solid.top(), solid.right(), solid.bottom())
        self._solid_radius = max(0.0, self._radius - inset)
        self.setZValue(Z_NODE)

    # -- what the box shows --------------------------------------------------------------

    @property
    def lines(self) -> list[str]:
        """The text lines shown, title first."""
        self.settle()
        return self._lines

    @property
    def fill(self) -> str:
        """The box's fill colour."""
        self.settle()
        return self._fill

    @property
    def cells(self) -> CellStrip | None:
        """The element cells under the text (``None``: none)."""
        self.settle()
        return self._cells

    @property
    def text_color(self) -> str:
        """Black or white, whichever reads best on the fill."""
        self.settle()
        return self._text_color

    @property
    def rect(self) -> QRectF:
        """The box in scene coordinates (the layout's points)."""
        return QRectF(self._rect)

    @property
    def pen_width(self) -> float:
        """The border's width, per kind."""
        return self._pen.widthF()

    def refresh(self, source: BoxSource) -> bool:
        """Show what ``source`` makes, now (the box is on screen); repaints only on a real
        change (returns whether)."""
        self._take_board()  # (newer than the board's feed)
        self._pending = None
        if source == self.source:
            return False
        self.source = source
        return self._make(source, repaint=True)

    def defer(self, source: BoxSource) -> None:
        """Take ``source`` without making anything (the box is off screen): the content is
        made when the box is next painted or read."""
        self._take_board()
        self._pending = source

    def settle(self, repaint: bool = False) -> bool:
        """Make the content of a deferred source now (returns whether it changed)."""
        self._take_board()
        source = self._pending
        if source is None:
            return False
        self._pending = None
        if isinstance(source, TickFeed):
            source = source.box(self.key)
            if source is None:  # not in the tick's graph: keeps what it shows
                return False
        if source == self.source:
            return False
        self.source = source
        return self._make(source, repaint)

    def _make(self, source: BoxSource, repaint: bool) -> bool:
        node, flow, grad, scale = source
        fill = box_fill(node, grad, scale)
        cells = element_cells(grad, scale) if self.has_cells else None
        return self.set_content(node_lines(node, flow, grad, self._compact), fill, cells, repaint)

    def set_content(
        self, lines: list[str], fill: str, cells: CellStrip | None = None, repaint: bool = True
    ) -> bool:
        """Show ``lines`` on ``fill`` and ``cells`` under them (in a box that has room for
        them); repaints only on a real change (returns whether), and only what changed:
        with the same fill, the rows of the lines that changed and the cells."""
        if not self.has_cells:
            cells = None
        old_lines = self._lines
        lines_changed = lines != old_lines
        fill_changed = fill != self._fill
        cells_changed = cells != self._cells
        if not (lines_changed or fill_changed or cells_changed):
            return False
        whole = fill_changed or len(lines) != len(old_lines) or self._text_scale != 1.0
        ink: Area | None = None
        if lines_changed:
            ink = self._place(lines, not whole)
        if fill_changed:
            self._fill = fill
            self._fill_brush = qbrush(fill)
            text_color = text_color_on(fill)
            if text_color != self._text_color:
                self._text_color = text_color
                self._text_pen = qpen(text_color)
        if cells_changed:
            old = self._cell_paint
            self._cells = cells
            new = None if cells is None else self._place_cells(cells, len(lines))
            self._cell_paint = new
            if old is None or new is None:
                whole = True
            elif not whole:
                # The strip stays where it is (same count of elements): its own area.
                area = new.area if old.area == new.area else _union([old.area, new.area])
                ink = area if ink is None else _union([ink, area])
        self._lines = lines
        if repaint:
            if whole or ink is None:
                self.update()
            else:
                self.update(QRectF(ink[0], ink[1], ink[2] - ink[0], ink[3] - ink[1]))
        return True

    def _place(self, lines: list[str], measure: bool) -> Area | None:
        """Give each line its font and row: a row three boxes wide, centred on the box, so
        a line that fits is never clipped by it. Rows depend on the number of lines only,
        so a tick replaces the texts of the lines that changed and nothing else. With
        ``measure``, returns where the replaced texts were and are drawn, ``[left, top,
        right, bottom]`` (a text never measured counts as wide as the box's bounds)."""
        old = self._lines
        if len(old) == len(lines):
            placed = self._placed
            widths = self._widths
            centre = self._centre_x
            ink: list[float] | None = None
            for i, line in enumerate(lines):
                if old[i] != line:
                    font, row, _, top = placed[i]
                    placed[i] = (font, row, line, top)
                    self.changed_lines += 1
                    if not measure:
                        widths[i] = UNMEASURED
                        continue
                    width = _text_width(line, i == 0)
                    half = max(width, widths[i]) / 2 + INK_MARGIN
                    widths[i] = width
                    if ink is None:
                        ink = [centre - half, top, centre + half, top + LINE_HEIGHT]
                    else:
                        ink[0] = min(ink[0], centre - half)
                        ink[2] = max(ink[2], centre + half)
                        ink[3] = top + LINE_HEIGHT
            return None if ink is None else (ink[0], ink[1], ink[2], ink[3])
        top = text_top(self._box, len(lines), self.has_cells)
        rect = self._rect
        left, width = rect.left() - rect.width(), rect.width() * 3
        self._placed = [
            (
                shared_font(FONT_SIZE, i == 0),
                QRectF(left, top + i * LINE_HEIGHT, width, LINE_HEIGHT),
                line,
                top + i * LINE_HEIGHT,
            )
            for i, line in enumerate(lines)
        ]
        self._widths = [UNMEASURED] * len(lines)
        self.changed_lines += len(lines)
        if self._cells is not None:
            self._cell_paint = self._place_cells(self._cells, len(lines))
        return None

    def _place_cells(self, cells: CellStrip, lines: int) -> _CellPaint:
        """The cells' colours on their rectangles (laid out once per element count)."""
        colors = cells.colors
        key = (len(colors), cells.more, lines)
        geometry = self._cell_geometry
        if geometry is None or geometry[0] != key:
            geometry = self._cell_geometry = (key, _cells_geometry(self._box, cells, lines))
        rects, frame, note, area = geometry[1]
        return _CellPaint(rects, list(map(qbrush, colors)), frame, note, area)

    def set_highlighted(self, on: bool) -> None:
        """Outline the box as the session's selected node."""
        if on == self.highlighted:
            return
        self.highlighted = on
        self.setZValue(Z_SELECTED if on else Z_NODE)
        self.update()

    # -- Qt overrides ----------------------------------------------------------------------

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        # Clicks and label placement see the box itself, not the room kept for the outline.
        path = QPainterPath()
        path.addRect(self._rect)
        return path

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        if self.pending:  # painted without the view asking first (a render)
            self.settle()
        # Two pixels beyond the bounds: what the view repaints around a dirty box.
        margin = 2.0 / (painter.worldTransform().m11() or 1.0)
        b = self.area
        bounds = (b[0] - margin, b[1] - margin, b[2] + margin, b[3] + margin)
        parts = _parts_of(widget, bounds)
        if parts is None:  # all of it (a render into an image, a newly exposed view)
            exposed = bounds
            self._paint_box(painter)
        else:
            # What a tick usually repaints is a few rows and the cells, inside the box
            # where it is only its fill; the border is drawn again only where an edge
            # that changed meets it (or the fill changed: then the whole box is dirty).
            exposed = _union(parts)
            border = parts
            if not self.highlighted:
                border = [part for part in parts if not self._inside_solid(part)]
            if len(border) == len(parts) or len(border) > MAX_BORDER_PARTS:
                self._paint_box(painter)  # once: each clipped drawing costs a whole one
            else:
                for part in border:
                    painter.save()
                    painter.setClipRect(_rect(part), INTERSECT)
                    self._paint_box(painter)
                    painter.restore()
                # Whole pixels inside the fill are the fill's colour: filled unantialiased,
                # so a part's edge, a rounding error off the pixel grid, is never blended.
                antialiased = painter.testRenderHint(ANTIALIASING)
                painter.setRenderHint(ANTIALIASING, False)
                brush = self._fill_brush
                for part in parts:
                    if part not in border:
                        painter.fillRect(_rect(part), brush)
                painter.setRenderHint(ANTIALIASING, antialiased)
        scale = self._text_scale
        zoom = painter.worldTransform().m11()
        if zoom * FONT_SIZE * scale < LEGIBLE_TEXT_PX:
            # Too small to read line by line: the title alone, as big as the box holds.
            self._paint_overview_title(painter, zoom)
            return
        painter.setPen(self._text_pen)
        if scale != 1.0:
            centre = self._rect.center()
            painter.save()
            painter.translate(centre)
            painter.scale(scale, scale)
            painter.translate(-centre)
            skip_top, skip_bottom = -math.inf, math.inf
        else:
            # Rows whose ink lies outside the repainted part are skipped (ink reaches a
            # little beyond a row: the margin is the font's overhang and more).
            skip_top, skip_bottom = exposed[1] - INK_MARGIN, exposed[3] + INK_MARGIN
        font = None
        for line_font, row, line, top in self._placed:
            if top + LINE_HEIGHT < skip_top or top > skip_bottom:
                continue
            if line_font is not font:
                painter.setFont(line_font)
                font = line_font
            painter.drawText(row, ALIGN_CENTER, line)
        if scale != 1.0:
            painter.restore()
        cells = self._cell_paint
        if cells is not None and overlaps(cells.area, exposed):
            self._paint_cells(painter, cells)

    def _paint_overview_title(self, painter: QPainter, zoom: float) -> None:
        """The box's first line (its name), grown to fill the box, when that makes it
        readable at ``zoom``: a graph fitted to the view still says which box is which
        (``layers.0``, ``MulBackward0``) where its lines of numbers would be a smudge."""
        grow = self._overview_grow(zoom)
        if grow == 0.0:
            return
        font, _, title, _ = self._placed[0]
        painter.save()
        painter.setPen(self._text_pen)
        painter.setFont(font)
        centre = self._rect.center()
        painter.translate(centre)
        painter.scale(grow, grow)
        width = self._rect.width() / grow
        row = QRectF(-width / 2, -LINE_HEIGHT / 2, width, LINE_HEIGHT)
        painter.drawText(row, ALIGN_CENTER, title)
        painter.restore()

    def overview_title_pixels(self, zoom: float) -> float:
        """How tall (in screen pixels) the title alone is drawn at ``zoom``; 0 when it is
        not (the box's lines are readable there, or even the grown title is not)."""
        if zoom * FONT_SIZE * self._text_scale >= LEGIBLE_TEXT_PX:
            return 0.0
        return zoom * FONT_SIZE * self._overview_grow(zoom)

    def _overview_grow(self, zoom: float) -> float:
        """How much the title grows to fill the box (0: not drawn at ``zoom``)."""
        if not self._placed:
            return 0.0
        title = self._placed[0][2]
        if self._overview[0] != title:  # measured once per title, not per paint
            self._overview = (title, text_advance(FONT_SIZE, title, True))
        advance = self._overview[1]
        if advance <= 0.0:
            return 0.0
        rect = self._rect
        grow = min(
            rect.width() * OVERVIEW_TITLE_FILL / advance,
            rect.height() * OVERVIEW_TITLE_FILL / LINE_HEIGHT,
            OVERVIEW_TITLE_MAX_GROW,
        )
        return grow if zoom * FONT_SIZE * grow >= OVERVIEW_TITLE_PX else 0.0

    def _paint_box(self, painter: QPainter) -> None:
        """The outline when selected, the fill and the border."""
        if self.highlighted:
            painter.setPen(self._ring_pen)
            painter.setBrush(NO_BRUSH)
            painter.drawRoundedRect(self._ring, self._ring_radius, self._ring_radius)
        # The fill, then the border over it: what drawRoundedRect does with both set.
        painter.setPen(NO_PEN)
        painter.setBrush(self._fill_brush)
        painter.drawRoundedRect(self._rect, self._radius, self._radius)
        painter.setPen(self._pen)
        painter.setBrush(NO_BRUSH)
        painter.drawRoundedRect(self._rect, self._radius, self._radius)

    def _inside_solid(self, part: Area) -> bool:
        """Whether ``part`` lies where the box is only its fill (see ``_solid``)."""
        left, top, right, bottom = self._solid
        x0, y0, x1, y1 = part
        if x0 < left or y0 < top or x1 > right or y1 > bottom:
            return False
        r = self._solid_radius
        if r == 0.0:
            return True
        # The corners of the part, against the rounded corners of the solid area.
        for x in (x0, x1):
            for y in (y0, y1):
                dx = x - min(max(x, left + r), right - r)
                dy = y - min(max(y, top + r), bottom - r)
                if dx * dx + dy * dy > r * r:
                    return False
        return True

    def _paint_cells(self, painter: QPainter, cells: _CellPaint) -> None:
        """One painted strip, one rectangle per element: cheap enough for every tick."""
        if cells.note is not None:
            painter.setFont(shared_font(CELLS_FONT_SIZE))
            painter.drawText(cells.note[0], ALIGN_RIGHT_MIDDLE, cells.note[1])
        if not cells.rects:
            return
        painter.setPen(NO_PEN)
        for rect, brush in zip(cells.rects, cells.brushes, strict=True):
            painter.setBrush(brush)
            painter.drawRect(rect)
        painter.setBrush(NO_BRUSH)
        painter.setPen(self._cells_pen)
        painter.drawRect(cells.frame)


_CellGeometry = tuple[list[QRectF], QRectF, tuple[QRectF, str] | None, Area]


def _cells_geometry(box: NodeBox, cells: CellStrip, lines: int) -> _CellGeometry:
    """Where a box's cells go: a rectangle per element under the text, the frame around
    them, the "+N" note at their right, and all they cover (the frame's half pen beyond
    the strip; the view adds its own two pixels for antialiasing)."""
    left, top, width, height = cells_rect(box, lines)
    note = cells.more_text
    placed_note = None
    if note:
        # Whole pixels, as QPainter.fontMetrics() measured it when painting did this.
        room = QFontMetrics(shared_font(CELLS_FONT_SIZE)).horizontalAdvance(note) + CELLS_GAP
        placed_note = (QRectF(left + width - room, top - 2, room, height + 4), note)
        width -= room
    count = len(cells.colors)
    step = width / count if count else 0.0
    # Whole-pixel-ish edges overlap a hair so no white seams show between cells.
    rects = [QRectF(left + i * step, top, step + 0.3, height) for i in range(count)]
    frame = QRectF(left, top, step * count, height)
    area = frame
    if rects:
        area = area.united(rects[-1])
    if placed_note is not None:
        area = area.united(placed_note[0])
    area = area.adjusted(-0.5, -0.5, 0.5, 0.5)
    return rects, frame, placed_note, (area.left(), area.top(), area.right(), area.bottom())


def _rect(area: Area) -> QRectF:
    return QRectF(area[0], area[1], area[2] - area[0], area[3] - area[1])


def _union(parts: list[Area]) -> Area:
    """The smallest area covering ``parts`` (at least one)."""
    left, top, right, bottom = parts[0]
    for x0, y0, x1, y1 in parts[1:]:
        if x0 < left:
            left = x0
        if y0 < top:
            top = y0
        if x1 > right:
            right = x1
        if y1 > bottom:
            bottom = y1
    return left, top, right, bottom


def _parts_of(widget: QWidget | None, bounds: Area) -> list[Area] | None:
    """The parts of ``bounds`` this paint really repaints, in scene coordinates, each
    whole pixels: where the view's dirty region (:attr:`GraphView.exposure`) meets
    ``bounds``. ``None`` when that is unknown (a render into an image) or all of it."""
    view = widget.parent() if widget is not None else None
    exposure = getattr(view, "exposure", None)
    if exposure is None:
        return None
    left, top, right, bottom = bounds
    parts = []
    for x0, y0, x1, y1 in exposure:
        if x0 <= left and y0 <= top and x1 >= right and y1 >= bottom:
            return None
        if x0 < right and left < x1 and y0 < bottom and top < y1:
            parts.append((max(x0, left), max(y0, top), min(x1, right), min(y1, bottom)))
    return parts or None


# Widths of box texts by (text, bold), measured once: a tick measures only the lines that
# changed, and the same numbers come back as a slider moves to and fro. Bounded.
_WIDTHS: dict[tuple[str, bool], float] = {}


def _text_width(text: str, bold: bool) -> float:
    width = _WIDTHS.get((text, bold))
    if width is None:
        if len(_WIDTHS) > 8192:
            _WIDTHS.clear()
        width = _WIDTHS[(text, bold)] = text_advance(FONT_SIZE, text, bold)
    return width
