"""The export's pictures, drawn with Qt: ``graph.png`` and ``plots.png``.

- ``graph.png`` is the exported ``graph.svg`` itself (the text :func:`~gui.model.export.
  files.write_export` wrote and returned) painted by ``QSvgRenderer``, so the picture and
  the SVG cannot disagree; at twice the SVG's size in points (a box's 10 pt text is 20 px
  high, as on a HiDPI screen), less for a graph too big for :data:`MAX_PIXELS`.
- ``plots.png`` is the window's gradient plots panel (:class:`~gui.widgets.grad_plots_panel.
  GradPlotsPanel`) for the same snapshot, built offscreen at :data:`PLOTS_SIZE` with
  presentation-size text and grabbed: the same bars and history as the window's panel
  (taller when its rows need more height: three leaves, nothing scrolled out of sight).

Both work without a window and without a screen: the command line's ``--export`` calls
:func:`export_pictures`, which makes an offscreen ``QApplication`` when there is none.
Files are written as the other export files are (atomically, never through a link:
:func:`~gui.model.export.files.write_export_file`).
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize
from PySide6.QtGui import QColor, QImage, QImageWriter, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from gui.model.export.files import write_export_file
from gui.model.result import RunResult
from gui.model.session import Document, Session
from gui.model.session.layouts import LayoutCache
from gui.widgets.grad_plots_panel import GradPlotsPanel
from gui.widgets.plot_style import plot_font_at_least

GRAPH_PNG = "graph.png"
PLOTS_PNG = "plots.png"
# Pixels per SVG point: 10 pt box text becomes 20 px, readable on any screen or slide.
GRAPH_SCALE = 2.0
# The most pixels a graph picture gets (160 MB of image while it is drawn); a bigger graph
# is scaled down to fit, whole, rather than cut off or refused.
MAX_PIXELS = 40_000_000
# QImage's own limit on a side.
MAX_SIDE = 32_000
PLOTS_SIZE = QSize(900, 600)
# The plots' text in the picture: the window's presentation size (10 pt x 1.45).
PLOTS_POINT_SIZE = 14.5


class PictureError(RuntimeError):
    """A picture could not be drawn (an SVG Qt cannot read, an image too big to make)."""


def graph_image(svg: str, scale: float = GRAPH_SCALE) -> QImage:
    """``svg`` painted on white at ``scale`` pixels per point (less if too big)."""
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    if not renderer.isValid():
        raise PictureError("the graph's SVG could not be read")
    view = renderer.viewBoxF()
    if view.isEmpty():
        view = QRectF(0, 0, renderer.defaultSize().width(), renderer.defaultSize().height())
    if view.width() <= 0 or view.height() <= 0:
        raise PictureError("the graph's SVG is empty")
    scale = min(
        scale,
        math.sqrt(MAX_PIXELS / (view.width() * view.height())),
        MAX_SIDE / view.width(),
        MAX_SIDE / view.height(),
    )
    # Rounded down: never past the limits.
    size = QSize(max(1, int(view.width() * scale)), max(1, int(view.height() * scale)))
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    if image.isNull():
        raise PictureError(f"no memory for a {size.width()}x{size.height()} picture")
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter, QRectF(0, 0, size.width(), size.height()))
    painter.end()
    return image


def plots_image(session: Session, size: QSize = PLOTS_SIZE) -> QImage:
    """The gradient plots panel for ``session``'s snapshot, drawn offscreen at ``size``.

    A panel of its own, not the window's: the window's keeps its size and fonts. It is
    connected to ``session`` only while it is drawn.
    """
    with plot_font_at_least(PLOTS_POINT_SIZE):
        panel = GradPlotsPanel(session)
        try:
            panel.resize(size)
            panel.setStyleSheet("background: white;")
            image = panel.grab().toImage()
            # Rows that do not fit (three leaves at presentation size) would be cut by the
            # panel's scroll bar: the picture grows to show them all instead.
            overflow = _scrolled_out(panel)
            if overflow > 0:
                panel.resize(size.width(), size.height() + overflow)
                image = panel.grab().toImage()
        finally:
            session.changed.disconnect(panel.render)
            panel.deleteLater()
    return image


def _scrolled_out(panel: QWidget) -> int:
    """How many pixels of the panel's scroll areas are out of sight, at most."""
    return max(
        (area.verticalScrollBar().maximum() for area in panel.findChildren(QScrollArea)),
        default=0,
    )


def png_bytes(image: QImage) -> bytes:
    """``image`` encoded as PNG."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"png"))
    if not writer.write(image):
        raise PictureError(f"the picture could not be encoded as PNG: {writer.errorString()}")
    buffer.close()
    return bytes(data.data())


def write_pictures(out_dir: Path, svg: str, session: Session) -> None:
    """Write ``graph.png`` (from ``svg``) and ``plots.png`` (``session``'s plots) into
    ``out_dir``; raises ``OSError`` when a file cannot be written, :class:`PictureError`
    when a picture cannot be drawn."""
    write_export_file(out_dir / GRAPH_PNG, png_bytes(graph_image(svg)))
    write_export_file(out_dir / PLOTS_PNG, png_bytes(plots_image(session)))


class _NoLayouts(LayoutCache):
    """The plots need no graph layout: none is asked of Graphviz for them."""

    def get(self, *_args: object, **_kwargs: object) -> None:
        return None


def offscreen_application() -> QApplication:
    """The process's ``QApplication``, made offscreen when there is none (no screen
    needed, no window shown)."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    if existing is not None:
        raise PictureError("a Qt application without widgets is running here")
    return QApplication(["autograd-explorer", "-platform", "offscreen"])


def export_pictures(out_dir: Path, svg: str, document: Document, result: RunResult) -> None:
    """The pictures of a result run without a window (``--export``): the plots are those
    the window shows when it opens ``document`` and its run gives ``result``."""
    offscreen_application()
    session = Session(run=lambda _request: result, layouts=_NoLayouts())
    session.load(document)
    write_pictures(out_dir, svg, session)
