"""The export's pictures: ``graph.png`` is the exported SVG painted, ``plots.png`` the
window's gradient plots for the same result, both drawn offscreen and written safely."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
import torch
from PySide6.QtGui import QColor, QImage
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QScrollArea
from pytestqt.qtbot import QtBot

from gui.model.session import Session
from gui.picture_export import (
    GRAPH_SCALE,
    MAX_PIXELS,
    PLOTS_POINT_SIZE,
    PLOTS_SIZE,
    PictureError,
    graph_image,
    plots_image,
    png_bytes,
    write_pictures,
)
from gui.widgets.grad_plots_panel import GradPlotsPanel
from gui.widgets.plot_style import plot_font
from tests.fixtures import V1, V2, X5, load_lesson

pytestmark = pytest.mark.slow


def loaded_png(path: Path) -> QImage:
    image = QImage()
    assert image.loadFromData(path.read_bytes(), "PNG"), f"{path.name} is not a PNG"
    return image


def has_ink(image: QImage) -> bool:
    """Some pixel, on a coarse grid, is not white."""
    white = QColor("white").rgb()
    step = max(1, min(image.width(), image.height()) // 40)
    return any(
        image.pixel(x, y) != white
        for x in range(0, image.width(), step)
        for y in range(0, image.height(), step)
    )


def test_the_graph_png_is_the_exported_svg_at_twice_its_size(
    qtbot: QtBot, session: Session, tmp_path: Path
) -> None:
    load_lesson(session, 5)
    svg = session.export(tmp_path)
    assert svg == (tmp_path / "graph.svg").read_text()
    write_pictures(tmp_path, svg, session)
    view = QSvgRenderer(svg.encode("utf-8")).viewBoxF()
    image = loaded_png(tmp_path / "graph.png")
    assert (image.width(), image.height()) == (
        int(view.width() * GRAPH_SCALE),
        int(view.height() * GRAPH_SCALE),
    )
    assert has_ink(image)


def test_a_huge_graph_is_scaled_down_whole(qtbot: QtBot) -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="20000pt" height="9000pt" '
        'viewBox="0 0 20000 9000"><rect x="0" y="0" width="20000" height="9000" '
        'fill="#2166ac"/></svg>'
    )
    image = graph_image(svg)
    assert image.width() * image.height() <= MAX_PIXELS
    assert image.width() / image.height() == pytest.approx(20000 / 9000, rel=1e-3)
    assert QColor(image.pixel(image.width() - 2, image.height() - 2)).name() == "#2166ac"


def test_an_svg_qt_cannot_read_is_a_picture_error(qtbot: QtBot) -> None:
    with pytest.raises(PictureError):
        graph_image("<svg this is not")


def lesson5_grad() -> list[float]:
    """x.grad after lesson 5's two backward calls, the ordinary way."""
    x = torch.tensor(X5, requires_grad=True)
    z = (2 * x) ** 3
    z.backward(torch.tensor(V1), retain_graph=True)
    z.backward(torch.tensor(V2), retain_graph=True)
    assert x.grad is not None
    return x.grad.flatten().tolist()


def test_the_plots_png_is_the_plots_panel_at_presentation_size(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_lesson(session, 5)
    grabbed: list[tuple[list[float], float, tuple[str, ...]]] = []
    grab = GradPlotsPanel.grab

    def spy(panel: GradPlotsPanel, *args: object) -> object:
        bars = panel.bars("x")
        grabbed.append((list(bars.data.after), bars.tick_font().pointSizeF(), panel.shown_leaves()))
        return grab(panel, *args)

    monkeypatch.setattr(GradPlotsPanel, "grab", spy)
    receivers = len(session.changed)
    image = plots_image(session)
    assert (image.width(), image.height()) == (PLOTS_SIZE.width(), PLOTS_SIZE.height())
    assert has_ink(image)
    [(final, point_size, leaves)] = grabbed
    assert leaves == ("x",)
    assert final == pytest.approx(lesson5_grad(), rel=1e-5)
    assert point_size >= PLOTS_POINT_SIZE
    # The window's own fonts and the session's listeners are as they were.
    assert plot_font().pointSizeF() < PLOTS_POINT_SIZE
    assert len(session.changed) == receivers
    png = QImage()
    assert png.loadFromData(png_bytes(image), "PNG") and png.size() == PLOTS_SIZE


def test_a_planted_link_is_replaced_and_its_target_kept(
    qtbot: QtBot, session: Session, tmp_path: Path
) -> None:
    load_lesson(session, 5)
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    folder = tmp_path / "out"
    folder.mkdir()
    for name in ("graph.png", "plots.png"):
        (folder / name).symlink_to(victim)
    write_pictures(folder, session.export(folder), session)
    assert victim.read_text() == "precious\n"
    for name in ("graph.png", "plots.png"):
        assert not (folder / name).is_symlink()
        assert loaded_png(folder / name).width() > 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_in_the_pngs_place_is_refused(
    qtbot: QtBot, session: Session, tmp_path: Path
) -> None:
    load_lesson(session, 5)
    os.mkfifo(tmp_path / "plots.png")
    with pytest.raises(OSError, match="named pipe"):
        write_pictures(tmp_path, session.export(tmp_path), session)
    assert stat.S_ISFIFO(os.lstat(tmp_path / "plots.png").st_mode)


def test_the_svg_and_its_png_show_the_sessions_numbers(
    qtbot: QtBot, session: Session, tmp_path: Path
) -> None:
    load_lesson(session, 5)
    svg = session.export(tmp_path)
    dot = (tmp_path / "graph.dot").read_text()
    grad = lesson5_grad()
    # Graphviz writes a minus sign as &#45; in SVG text.
    for text in (svg.replace("&#45;", "-"), dot):
        shown = re.search(r"x\.grad \[\[([-\d.]+), ([-\d.]+)\], \[([-\d.]+), ([-\d.]+)\]\]", text)
        assert shown is not None
        assert [float(v) for v in shown.groups()] == pytest.approx(grad, rel=2e-3)


def test_three_leaves_make_a_taller_picture_with_nothing_scrolled_away(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    session.set_code(
        "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "b = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "c = torch.tensor(3.0, requires_grad=True)\n"
        "out = (a * b * c).sum()\n"
    )
    hidden: list[int] = []
    grab = GradPlotsPanel.grab

    def spy(panel: GradPlotsPanel, *args: object) -> object:
        image = grab(panel, *args)
        assert panel.shown_leaves() == ("a", "b", "c")
        hidden.append(max(a.verticalScrollBar().maximum() for a in panel.findChildren(QScrollArea)))
        return image

    monkeypatch.setattr(GradPlotsPanel, "grab", spy)
    image = plots_image(session)
    assert image.width() == PLOTS_SIZE.width() and image.height() >= PLOTS_SIZE.height()
    assert hidden[-1] == 0, "a row is cut by the scroll bar"
