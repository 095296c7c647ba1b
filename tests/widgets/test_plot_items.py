"""The gradient plots as drawn: each is rendered to an image and the pixels checked where a
bar, a tick, a point, the highlight or a marker line must be; the axes' ranges and labels
(locked scale, the app's number format, labels that fit); the history's click; tooltips.
Also the host that keeps the ``.grad`` line from relayouting the inputs column."""

from __future__ import annotations

import itertools
import math

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.model.drawing.colors import diverging_color
from gui.model.tensor_format import format_short
from gui.model.views.grad_bars import BarData
from gui.model.views.grad_history import HistoryData
from gui.model.views.grad_plots import locked_range
from gui.widgets.grad_bars import GradBars
from gui.widgets.grad_history import (
    CURVE_COLORS,
    CURVE_SYMBOLS,
    FAILED_COLOR,
    SHOWN_COLOR,
    ZEROED_COLOR,
    GradHistory,
    symbol_sprite,
)
from gui.widgets.plot_style import BEFORE_COLOR, FINAL_COLOR, TEXT_COLOR, plot_font

WHITE = "#ffffff"


def shown(qtbot: QtBot, widget: QWidget, width: int = 420, height: int = 300) -> None:
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)


def image(widget: QWidget) -> QImage:
    return widget.grab().toImage()


def color_at(picture: QImage, point: QPointF) -> str:
    return str(picture.pixelColor(point.toPoint()).name())


def colors_near(picture: QImage, point: QPointF, reach: int = 3) -> set[str]:
    x, y = round(point.x()), round(point.y())
    return {
        picture.pixelColor(QPoint(x + dx, y + dy)).name()
        for dx in range(-reach, reach + 1)
        for dy in range(-reach, reach + 1)
    }


# -- the bars ---------------------------------------------------------------------------------

MIXED = BarData(
    "x.grad after backward 2 of 2",
    before=(2.0, 0.0, -1.0),
    added=(1.0, -0.5, 0.0),
    after=(3.0, -0.5, -1.0),
)


def test_bars_are_drawn_hatched_coloured_and_ticked_where_their_numbers_are(
    qtbot: QtBot,
) -> None:
    bars = GradBars("x", (3,))
    shown(qtbot, bars)
    bars.show_data(MIXED, 4.0)
    picture = image(bars)
    # What this call added: on the diverging scale, stacked on what was there.
    assert color_at(picture, bars.to_pixel(0, 2.5)) == diverging_color(1.0, 4.0)
    assert color_at(picture, bars.to_pixel(1, -0.25)) == diverging_color(-0.5, 4.0)
    assert diverging_color(1.0, 4.0) != diverging_color(-0.5, 4.0)
    # What was already there: grey hatching on white, up from zero (and down for -1).
    for point in (bars.to_pixel(0, 1.0), bars.to_pixel(2, -0.5)):
        assert {BEFORE_COLOR, WHITE} <= colors_near(picture, point, 4)
        assert diverging_color(1.0, 4.0) not in colors_near(picture, point, 4)
    # The black tick at the value after the call.
    for i, after in enumerate(MIXED.after):
        assert color_at(picture, bars.to_pixel(i, after)) == FINAL_COLOR
    # Nothing between the bars, nothing above them.
    assert color_at(picture, bars.to_pixel(0.5, 1.0)) == WHITE
    assert color_at(picture, bars.to_pixel(0, 3.6)) == WHITE
    assert bars.x_tick_labels() == ("[0]", "[1]", "[2]")
    assert bars.title() == bars.shown_title() == "x.grad after backward 2 of 2"


def test_the_bars_in_pixels_follow_the_numbers(qtbot: QtBot) -> None:
    bars = GradBars("x", (3,))
    shown(qtbot, bars)
    bars.show_data(MIXED, 4.0)
    shapes = bars.bar_shapes()
    assert len(shapes.before) == 2  # element 1 had nothing before
    assert len(shapes.added) == len(shapes.bordered) == 2  # element 2 got nothing added
    assert len(shapes.final) == 3
    zero, two, three = (bars.to_pixel(0, v).y() for v in (0.0, 2.0, 3.0))
    assert shapes.before[0].top() == pytest.approx(two) and shapes.before[0].bottom() == zero
    rect, _ = shapes.added[0]
    assert rect.top() == pytest.approx(three) and rect.bottom() == pytest.approx(two)
    assert shapes.final[0].y1() == pytest.approx(three)


def test_a_locked_scale_keeps_the_axis_while_the_numbers_move(qtbot: QtBot) -> None:
    bars = GradBars("x", (1, 1))
    shown(qtbot, bars)
    one = BarData("t", before=(0.0,), added=(3.511,), after=(3.511,))
    bars.show_data(one, 40.0, locked=True)
    assert bars.y_range() == locked_range(40.0)
    labels = bars.y_tick_labels()
    assert {"-40", "0", "40"} <= set(labels)
    layout = bars.plot_layout()
    low_tick = bars.to_pixel(0, 3.511).y()
    two = BarData("t", before=(0.0,), added=(7.022,), after=(7.022,))
    bars.show_data(two, 40.0, locked=True)
    assert bars.y_range() == locked_range(40.0) and bars.y_tick_labels() == labels
    assert bars.plot_layout() is layout, "a tick on a locked axis keeps the whole layout"
    zero = bars.to_pixel(0, 0.0).y()
    high_tick = bars.to_pixel(0, 7.022).y()
    assert zero - high_tick == pytest.approx(2 * (zero - low_tick))  # twice the gradient
    assert color_at(image(bars), QPointF(bars.to_pixel(0, 7.022))) == FINAL_COLOR
    # Unlocked, the axis fits the numbers again.
    bars.show_data(two, 7.022)
    assert 7.022 < bars.y_range()[1] < 10


def test_beyond_a_locked_scale_a_bar_runs_off_the_top(qtbot: QtBot) -> None:
    bars = GradBars("x", ())
    shown(qtbot, bars)
    bars.show_data(BarData("t", before=(0.0,), added=(70.0,), after=(70.0,)), 40.0, True)
    picture = image(bars)
    top = bars.plot_rect().top()
    assert color_at(picture, QPointF(bars.to_pixel(0, 0).x(), top + 2)) == diverging_color(
        70.0, 40.0
    )
    # Clipped to the plot: the title's row above stays clear of the bar.
    assert diverging_color(70.0, 40.0) not in colors_near(
        picture, QPointF(bars.to_pixel(0, 0).x(), top - 4), 1
    )


def test_value_labels_are_round_and_in_the_apps_format(qtbot: QtBot) -> None:
    bars = GradBars("w", (2,))
    shown(qtbot, bars)
    bars.show_data(BarData("t", before=(0.0, 0.0), added=(0.4, -0.2), after=(0.4, -0.2)), 1.0)
    labels = bars.y_tick_labels()
    assert "0" in labels and len(labels) >= 3
    values = [float(text) for text in labels]
    assert values == sorted(values)  # from the bottom up
    assert all(format_short(v) == text for v, text in zip(values, labels, strict=True))
    steps = {round(b - a, 9) for a, b in itertools.pairwise(values)}
    assert len(steps) == 1 and steps <= {0.05, 0.1, 0.2, 0.25}
    # Written where their tick is: the text's dark pixels at the label of 0.
    picture = image(bars)
    zero = bars.to_pixel(-0.6, 0.0)
    dark = [
        picture.pixelColor(QPoint(x, round(zero.y()) + dy)).lightness() < 128
        for x in range(0, round(zero.x()) - 4)
        for dy in range(-4, 5)
    ]
    assert any(dark)


def test_a_message_replaces_the_bars_and_the_numbers(qtbot: QtBot) -> None:
    bars = GradBars("w", ())
    shown(qtbot, bars)
    bars.show_data(BarData("w.grad", message="w.grad is None"), 1.0)
    assert bars.message() == "w.grad is None"
    assert bars.y_tick_labels() == () and bars.x_tick_labels() == ()
    shapes = bars.bar_shapes()
    assert not shapes.before and not shapes.added and not shapes.final
    picture = image(bars)
    middle = bars.plot_rect().center()
    row = [picture.pixelColor(QPoint(x, round(middle.y()))) for x in range(bars.width())]
    assert any(color.lightness() < 128 for color in row), "the message is written"
    # Bars come back with numbers.
    bars.show_data(BarData("t", before=(0.0,), added=(1.0,), after=(1.0,)), 1.0)
    assert bars.message() == "" and bars.bar_shapes().final


def test_an_empty_tensor_draws_no_bars_and_a_big_one_labels_round_indices(
    qtbot: QtBot,
) -> None:
    empty = GradBars("e", (0,))
    shown(qtbot, empty)
    empty.show_data(BarData("e.grad"), 1.0)
    assert not empty.bar_shapes().final and empty.x_tick_labels() == ()
    assert not image(empty).isNull()
    big = GradBars("x", (100,))
    shown(qtbot, big, 400)
    values = tuple(math.sin(i / 10) for i in range(64))
    big.show_data(BarData("t", (0.0,) * 64, values, values, note="first 64 of 100 elements"), 1.0)
    assert big.note() == "first 64 of 100 elements"
    labels = big.x_tick_labels()
    assert labels[:2] in (("[0]", "[10]"), ("[0]", "[20]")) and len(labels) >= 3
    assert len(big.bar_shapes().final) == 64


def test_infinities_run_off_the_plot_and_nan_draws_nothing(qtbot: QtBot) -> None:
    bars = GradBars("x", (4,))
    shown(qtbot, bars)
    inf, nan = math.inf, math.nan
    data = BarData("t", (0.0, 0.0, 0.0, 0.0), (inf, -inf, nan, 1e308), (inf, -inf, nan, 1e308))
    bars.show_data(data, 1.0)
    shapes = bars.bar_shapes()
    assert len(shapes.final) == 3  # nan has no tick
    plot = bars.plot_rect()
    for line in shapes.final:
        assert plot.top() - 60 < line.y1() < plot.bottom() + 60
    assert not image(bars).isNull()
    history = GradHistory("x", (2,))
    shown(qtbot, history)
    history.show_data(HistoryData(xs=(1.0,), series=((inf,), (nan,)), steps=1, end=1.0))
    assert history.points() == [([1.0], [inf]), ([], [])]
    assert not image(history).isNull()


def test_bars_tell_their_numbers_on_hover(qtbot: QtBot) -> None:
    bars = GradBars("x", (3,))
    shown(qtbot, bars)
    bars.show_data(MIXED, 4.0)
    text = bars.tooltip_at(bars.to_pixel(0, 1.0), bars.plot_layout())
    assert text.splitlines() == ["x.grad[0]", "before 2.", "added 1.", "after 3."]
    assert bars.tooltip_at(QPointF(1, 1), bars.plot_layout()) == ""


def test_a_bigger_font_relays_the_plot_out(qtbot: QtBot) -> None:
    bars = GradBars("x", (2, 2))
    shown(qtbot, bars, 600)
    bars.show_data(MIXED, 4.0)
    small = bars.plot_rect()
    font = plot_font()
    font.setPointSizeF(font.pointSizeF() * 1.5)
    bars.set_plot_font(font)
    assert bars.tick_font().pointSizeF() == font.pointSizeF()
    big = bars.plot_rect()
    assert big.top() > small.top() and big.left() > small.left()  # bigger title, labels
    assert bars.y_tick_labels() and bars.x_tick_labels()


# -- the history ------------------------------------------------------------------------------

ZEROED = HistoryData(
    xs=(1.0, 2.0, 2.5, 3.0),
    series=((4.0, 8.0, 0.0, 4.0), (1.0, 2.0, 0.0, math.nan)),
    steps=3,
    zeroed=(2.5,),
    failed=(3.0,),
    shown=2.0,
    end=3.0,
)


def test_the_history_draws_points_lines_the_shown_call_and_the_markers(qtbot: QtBot) -> None:
    history = GradHistory("x", (2,))
    shown(qtbot, history, 520)
    history.show_data(ZEROED)
    picture = image(history)
    # A symbol at each point, in its curve's colour; nan leaves no point.
    assert color_at(picture, history.to_pixel(1.0, 4.0)) == CURVE_COLORS[0]
    assert color_at(picture, history.to_pixel(3.0, 4.0)) == CURVE_COLORS[0]
    assert color_at(picture, history.to_pixel(2.0, 2.0)) == CURVE_COLORS[1]
    assert history.points()[1] == ([1.0, 2.0, 2.5], [1.0, 2.0, 0.0])
    # The line between two points.
    assert CURVE_COLORS[0] in colors_near(picture, history.to_pixel(1.5, 6.0), 1)
    # The shown call: a translucent amber band behind the points.
    r, g, b, a = SHOWN_COLOR
    band = picture.pixelColor(history.to_pixel(2.0, 6.5).toPoint())
    expected = QColor(
        *(round(c * a / 255 + 255 * (1 - a / 255)) for c in (r, g, b)),
    )
    assert abs(band.green() - expected.green()) <= 3 and abs(band.blue() - expected.blue()) <= 3
    # Marker lines: zeroed (dashed, grey) at 2.5, failed (red) at 3.
    column = [history.to_pixel(2.5, y) for y in (-0.5, 1.0, 3.0, 5.0, 7.0)]
    assert any(ZEROED_COLOR in colors_near(picture, p, 1) for p in column)
    assert FAILED_COLOR in colors_near(picture, history.to_pixel(3.0, 1.5), 1)
    # The legend beside the plot: each element's colour and name.
    legend = picture.copy(round(history.plot_rect().right()) + 2, 0, 200, history.height())
    found = {legend.pixelColor(x, y).name() for x in range(legend.width()) for y in range(60)}
    assert {CURVE_COLORS[0], CURVE_COLORS[1]} <= found
    assert history.x_tick_labels() == ("1", "2", "3")


def test_clicking_the_history_asks_for_a_call(qtbot: QtBot) -> None:
    history = GradHistory("x", (2,))
    shown(qtbot, history)
    data = HistoryData(xs=(1.0, 2.0), series=((1.0, 2.0), (0.5, 1.0)), steps=2, shown=2.0, end=2.0)
    history.show_data(data)
    middle = sum(history.y_range()) / 2
    asked: list[object] = []
    history.step_clicked.connect(asked.append)
    qtbot.mouseClick(
        history, Qt.MouseButton.LeftButton, pos=history.to_pixel(1.1, middle).toPoint()
    )
    qtbot.mouseClick(
        history, Qt.MouseButton.LeftButton, pos=history.to_pixel(1.9, middle).toPoint()
    )
    assert asked == [0, None]  # the first call; the last means "the latest"
    qtbot.mouseClick(
        history, Qt.MouseButton.RightButton, pos=history.to_pixel(1.1, middle).toPoint()
    )
    qtbot.mouseClick(history, Qt.MouseButton.LeftButton, pos=QPoint(history.width() // 2, 3))
    assert asked == [0, None], "only a left click inside the plot asks"
    assert history.cursor().shape() == Qt.CursorShape.PointingHandCursor


def test_the_history_axis_locks_and_a_norm_starts_at_zero(qtbot: QtBot) -> None:
    history = GradHistory("x", (100,))  # a norm: never negative
    shown(qtbot, history)
    assert history.title() == "‖x.grad‖ after each backward"
    history.show_data(HistoryData(xs=(1.0,), series=((13.0,),), steps=1, shown=1.0, end=1.0), 20.0)
    low, high = history.y_range()
    assert high == locked_range(20.0)[1] and -2 < low < 0
    history.show_data(HistoryData(xs=(1.0,), series=((19.0,),), steps=1, shown=1.0, end=1.0), 20.0)
    assert history.y_range() == (low, high)
    assert history.legend_width(20.0) == 0  # one curve: no legend


def test_the_history_tells_its_numbers_on_hover(qtbot: QtBot) -> None:
    history = GradHistory("x", (2,))
    shown(qtbot, history, 520)
    history.show_data(ZEROED)
    layout = history.plot_layout()
    text = history.tooltip_at(history.to_pixel(2.4, 1.0), layout)
    assert text.splitlines()[:3] == ["x.grad before backward 3 (zeroed)", "[0]  0.", "[1]  0."]
    assert text.splitlines()[-1] == "Click to show this call in the graph"
    assert history.tooltip_at(history.to_pixel(3.0, 1.0), layout).startswith(
        "x.grad after backward 3 (failed)"
    )


@pytest.mark.parametrize("symbol", CURVE_SYMBOLS)
def test_every_symbol_is_drawn_in_its_colour(qtbot: QtBot, symbol: str) -> None:
    sprite = symbol_sprite(symbol, "#0072b2", 9, 1.0).toImage()
    middle = sprite.pixelColor(sprite.width() // 2, sprite.height() // 2)
    assert middle.name() == "#0072b2" and middle.alpha() == 255
    assert sprite.pixelColor(0, 0).alpha() == 0


def test_plot_text_is_dark_on_white(qtbot: QtBot) -> None:
    bars = GradBars("x", (2,))
    shown(qtbot, bars)
    bars.show_data(BarData("t", (0.0, 0.0), (1.0, 2.0), (1.0, 2.0)), 2.0)
    picture = image(bars)
    title_row = [picture.pixelColor(x, y) for x in range(bars.width()) for y in range(4, 20)]
    assert any(c.name() == TEXT_COLOR or c.lightness() < 80 for c in title_row)
    assert picture.pixelColor(2, bars.height() - 2).name() == WHITE
