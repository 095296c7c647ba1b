"""The gradient plots: bars split into "already in .grad" and "added by this backward", the
history over backward calls, and step selection, all checked against plain torch."""

from __future__ import annotations

import math

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from gui.model.session import Session, Snapshot
from gui.widgets.grad_bars import GradBars
from gui.widgets.grad_history import GradHistory
from gui.widgets.grad_plots_panel import GradPlotsPanel
from tests.fixtures import V1, V2, X5, curves, final_marks, heights, load_lesson

pytestmark = pytest.mark.slow


def lesson5_grads() -> tuple[list[float], list[float]]:
    """x.grad after the first and after the second backward call, the ordinary way."""
    x = torch.tensor(X5, requires_grad=True)
    z = (2 * x) ** 3
    z.backward(torch.tensor(V1), retain_graph=True)
    first = x.grad.flatten().tolist()
    z.backward(torch.tensor(V2), retain_graph=True)
    second = x.grad.flatten().tolist()
    return first, second


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> GradPlotsPanel:
    widget = GradPlotsPanel(session)
    qtbot.addWidget(widget)
    widget.resize(900, 300)
    return widget


def assert_close(actual: list[float], expected: list[float]) -> None:
    assert actual == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_lesson5_bars_split_the_second_call_from_the_first(
    panel: GradPlotsPanel, session: Session
) -> None:
    load_lesson(session, 5)
    first, second = lesson5_grads()
    assert first == pytest.approx([43.40, 0.0, 5.405, 0.0], abs=1e-2)
    assert second == pytest.approx([43.40, 2.052, 5.405, 18.76], abs=1e-2)
    bars = panel.bars("x")
    before, added, bottoms = heights(bars)
    assert_close(before, first)
    assert_close(added, [b - a for a, b in zip(first, second, strict=True)])
    assert_close(bottoms, first)
    assert_close(final_marks(bars), second)
    assert bars.title() == "x.grad after backward 2 of 2"
    assert bars.message() == ""


def test_lesson5_history_has_a_point_per_call(panel: GradPlotsPanel, session: Session) -> None:
    load_lesson(session, 5)
    first, second = lesson5_grads()
    plotted = curves(panel.history("x"))
    assert len(plotted) == 4  # one line per element of the 2x2 x
    for k, (xs, ys) in enumerate(plotted):
        assert xs == [1.0, 2.0]
        assert_close(ys, [first[k], second[k]])
    assert panel.history("x").data.shown == 2.0


def test_selecting_step_one_shows_its_bars_without_echo(
    panel: GradPlotsPanel, session: Session, emitted: list[Snapshot]
) -> None:
    load_lesson(session, 5)
    emitted.clear()
    first, _ = lesson5_grads()
    session.select_step(0)
    assert len(emitted) == 1  # the panel did not call back into the session
    before, added, bottoms = heights(panel.bars("x"))
    assert_close(before, [0.0] * 4)
    assert_close(bottoms, [0.0] * 4)
    assert_close(added, first)
    assert_close(final_marks(panel.bars("x")), first)
    assert panel.bars("x").title() == "x.grad after backward 1 of 2"
    assert panel.history("x").data.shown == 1.0
    session.select_step(None)
    assert len(emitted) == 2
    assert_close(final_marks(panel.bars("x")), lesson5_grads()[1])


def test_lesson1_single_step(panel: GradPlotsPanel, session: Session) -> None:
    load_lesson(session, 1)
    x = torch.tensor([3.0, 4.0, 10.0], requires_grad=True)
    sum(x**2).backward()
    expected = x.grad.tolist()
    assert expected == [6.0, 8.0, 20.0]
    before, added, _ = heights(panel.bars("x"))
    assert_close(before, [0.0, 0.0, 0.0])
    assert_close(added, expected)
    for k, (xs, ys) in enumerate(curves(panel.history("x"))):
        assert xs == [1.0]
        assert_close(ys, [expected[k]])
    assert panel.bars("x").x_tick_labels() == ("[0]", "[1]", "[2]")
    assert panel.history("x").x_tick_labels() == ("1",)


def test_backward_press_adds_a_history_point(panel: GradPlotsPanel, session: Session) -> None:
    load_lesson(session, 5)
    first, second = lesson5_grads()
    session.backward()  # same v as the last call, graph retained: adds the second column again
    third = [s + (s - f) for f, s in zip(first, second, strict=True)]
    for k, (xs, ys) in enumerate(curves(panel.history("x"))):
        assert xs == [1.0, 2.0, 3.0]
        assert_close(ys, [first[k], second[k], third[k]])
    before, added, _ = heights(panel.bars("x"))
    assert_close(before, second)
    assert_close(added, [t - s for s, t in zip(second, third, strict=True)])


def test_a_failed_backward_is_marked(panel: GradPlotsPanel, session: Session) -> None:
    load_lesson(session, 1)
    session.set_options(retain_graph=False)  # frees the graph: the next call fails
    session.backward()
    data = panel.history("x").data
    assert data.failed == (2.0,)
    bars = panel.bars("x")
    assert "failed" in bars.title()
    _, added, _ = heights(bars)
    assert_close(added, [0.0, 0.0, 0.0])


def test_zero_grad_shows_zero(panel: GradPlotsPanel, session: Session) -> None:
    load_lesson(session, 5)
    session.zero_grad()
    bars = panel.bars("x")
    assert bars.title() == "x.grad zeroed after backward 2"
    assert_close(final_marks(bars), [0.0] * 4)
    data = panel.history("x").data
    assert data.xs == (1.0, 2.0, 2.5)
    assert all(series[-1] == 0.0 for series in data.series)
    assert data.zeroed == (2.5,)
    assert data.shown == 2.5
    # Backward after zeroing starts from zero: the history drops, then rises again.
    session.backward()
    _, second = lesson5_grads()
    data = panel.history("x").data
    assert data.xs == (1.0, 2.0, 2.5, 3.0)
    assert data.zeroed == (2.5,)
    before, added, _ = heights(panel.bars("x"))
    assert_close(before, [0.0] * 4)
    assert_close(added, [0.0, second[1], 0.0, second[3]])


def test_a_leaf_without_grad_says_none(panel: GradPlotsPanel, session: Session) -> None:
    session.set_code(
        "x = torch.tensor([1., 2.], requires_grad=True)\n"
        "w = torch.tensor(3., requires_grad=True)\n"
        "y = (x * 2).sum()\n"
    )
    assert panel.shown_leaves() == ("x", "w")
    assert panel.bars("w").message() == "w.grad is None"
    assert not panel.bars("w").bar_shapes().added and not panel.bars("w").bar_shapes().final
    assert panel.bars("w").y_tick_labels() == ()  # numbers on an axis without bars: none
    assert panel.bars("x").message() == ""
    assert all(len(xs) == 0 for xs, _ in curves(panel.history("w")))


def test_no_backward_yet_says_none(panel: GradPlotsPanel, session: Session) -> None:
    session.set_code("x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\n")
    # A non-scalar output without a gradient argument: the only backward call fails.
    assert panel.bars("x").message() == "x.grad is None"


def test_big_leaf_plots_64_bars_and_the_norm(panel: GradPlotsPanel, session: Session) -> None:
    session.set_code(
        "x = torch.linspace(-3, 3, 100).requires_grad_()\ny = (torch.sin(x) * 2).sum()\n"
    )
    x = torch.linspace(-3, 3, 100).requires_grad_()
    (torch.sin(x) * 2).sum().backward()
    bars = panel.bars("x")
    _, added, _ = heights(bars)
    assert_close(added, x.grad[:64].tolist())
    assert bars.note() == "first 64 of 100 elements"
    ((xs, ys),) = curves(panel.history("x"))
    assert xs == [1.0]
    assert ys == pytest.approx([x.grad.norm().item()], rel=1e-5)
    assert panel.history("x").title() == "‖x.grad‖ after each backward"


def test_summary_only_leaf_shows_its_statistics(panel: GradPlotsPanel, session: Session) -> None:
    session.set_code("x = torch.ones(5000, requires_grad=True)\ny = (3 * x).sum()\n")
    assert panel.bars("x").message().startswith("x.grad has 5000 elements")
    ((xs, ys),) = curves(panel.history("x"))
    assert xs == [1.0]
    assert ys == pytest.approx([3 * math.sqrt(5000)], rel=1e-5)


def test_plots_are_updated_not_rebuilt_on_a_slider_tick(
    panel: GradPlotsPanel, session: Session
) -> None:
    load_lesson(session, 5)
    bars, history = panel.bars("x"), panel.history("x")
    y_range = bars.y_range()
    session.set_input("x", 0, 1.35)
    assert panel.bars("x") is bars
    assert panel.history("x") is history
    assert bars.y_range() == y_range  # a small change keeps the axis still
    x = torch.tensor(X5, requires_grad=True)
    with torch.no_grad():
        x[0, 0] = 1.35
    ((2 * x) ** 3).backward(torch.tensor(V1))
    assert final_marks(bars)[0] == pytest.approx(x.grad[0, 0].item(), rel=1e-5)


def test_a_new_shape_rebuilds_the_plots(panel: GradPlotsPanel, session: Session) -> None:
    load_lesson(session, 5)
    old = panel.bars("x")
    load_lesson(session, 1)
    assert panel.bars("x") is not old
    assert len(panel.bars("x").bar_shapes().final) == 3
    assert panel.bars("x").x_tick_labels() == ("[0]", "[1]", "[2]")


def click_step(qtbot: QtBot, history: GradHistory, x: float) -> None:
    point = history.to_pixel(x, sum(history.y_range()) / 2).toPoint()
    qtbot.mouseClick(history, Qt.MouseButton.LeftButton, pos=point)


def test_clicking_a_step_in_the_history_selects_it(
    qtbot: QtBot, panel: GradPlotsPanel, session: Session
) -> None:
    load_lesson(session, 5)
    panel.show()
    qtbot.waitExposed(panel)
    history = panel.history("x")
    click_step(qtbot, history, 1.1)
    assert session.snapshot.selected_step == 0
    assert history.data.shown == 1.0
    click_step(qtbot, history, 1.9)  # the last step means "the latest"
    assert session.snapshot.selected_step is None


def test_more_leaves_than_rows_get_a_picker(
    qtbot: QtBot, panel: GradPlotsPanel, session: Session, emitted: list[Snapshot]
) -> None:
    session.set_code(
        "a = torch.tensor(1., requires_grad=True)\nb = torch.tensor(2., requires_grad=True)\n"
        "c = torch.tensor(3., requires_grad=True)\nd = torch.tensor(4., requires_grad=True)\n"
        "y = a * b * c * d\n"
    )
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.shown_leaves() == ("a",)
    combo = panel._combo
    assert combo.isVisible()
    emitted.clear()
    combo.setCurrentIndex(2)
    assert panel.shown_leaves() == ("c",)
    assert emitted == []  # which leaf to plot is the panel's own business
    _, added, _ = heights(panel.bars("c"))
    assert added == pytest.approx([1.0 * 2.0 * 4.0])


def test_no_leaves_shows_a_hint(panel: GradPlotsPanel, session: Session) -> None:
    assert panel.shown_leaves() == ()
    session.set_code("y = torch.tensor([1., 2.]) * 2\n")
    assert panel.shown_leaves() == ()


def test_screenshots(qtbot: QtBot, panel: GradPlotsPanel, session: Session) -> None:
    panel.show()
    for number in (1, 5):
        load_lesson(session, number)
        qtbot.waitExposed(panel)
        qtbot.wait(20)
        assert not panel.grab().isNull()
        panel.grab().save(f"/tmp/grad_plots_lesson{number}.png")


def test_zeroing_in_the_code_drops_the_history_between_calls(
    panel: GradPlotsPanel, session: Session
) -> None:
    session.set_code(
        "x = torch.tensor([1., 2.], requires_grad=True)\n"
        "y = (x * 3).sum()\n"
        "y.backward(retain_graph=True)\n"
        "x.grad.zero_()\n"
        "y.backward()\n"
    )
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).sum()
    y.backward(retain_graph=True)
    first = x.grad.tolist()
    x.grad.zero_()
    y.backward()
    second = x.grad.tolist()
    data = panel.history("x").data
    assert data.xs == (1.0, 1.5, 2.0)
    assert data.zeroed == (1.5,)
    for k, series in enumerate(data.series):
        assert_close(list(series), [first[k], 0.0, second[k]])
    before, added, _ = heights(panel.bars("x"))
    assert_close(before, [0.0, 0.0])
    assert_close(added, second)


def test_text_is_projector_sized(panel: GradPlotsPanel, session: Session) -> None:
    load_lesson(session, 5)
    for plot in (panel.bars("x"), panel.history("x")):
        assert plot.tick_font().pointSizeF() >= 10


def test_an_empty_leaf_draws_no_bars_and_breaks_nothing(qtbot: QtBot, session: Session) -> None:
    panel = GradPlotsPanel(session)
    qtbot.addWidget(panel)
    session.set_code("x = torch.zeros(0, requires_grad=True)\ny = x.sum()\n")
    assert session.snapshot.error is None
    assert panel.bars("x").bar_shapes().added == []
    assert panel.bars("x").x_tick_labels() == ()
    session.set_code("x = torch.tensor([2., 3.], requires_grad=True)\ny = (x * x).sum()\n")
    assert heights(panel.bars("x"))[1] == pytest.approx([4.0, 6.0])


def test_presentation_mode_enlarges_axes_ticks_titles_and_the_legend(
    qtbot: QtBot, panel: GradPlotsPanel, session: Session, qapp: QApplication
) -> None:
    load_lesson(session, 5)

    def tick_size() -> float:
        return float(panel.bars("x").tick_font().pointSizeF())

    def legend_size() -> float:
        labels = panel.findChild(QWidget, "gradPlotsLegend").findChildren(QLabel)
        return max(label.font().pointSizeF() for label in labels)

    normal, legend = tick_size(), legend_size()
    old = qapp.font()
    big = QFont(old)
    big.setPointSizeF(max(old.pointSizeF(), 11) * 1.45)
    qapp.setFont(big)
    try:
        qtbot.waitUntil(lambda: tick_size() >= normal * 1.3)
        assert legend_size() >= legend * 1.3
        assert panel.bars("x").title() == "x.grad after backward 2 of 2"
        assert panel.history("x").tick_font().pointSizeF() >= normal * 1.3
    finally:
        qapp.setFont(old)


def test_a_title_too_long_for_its_plot_ends_in_an_ellipsis(qtbot: QtBot) -> None:
    plot = GradBars("x", (2, 2))
    qtbot.addWidget(plot)
    plot.resize(150, 200)
    plot.show()
    plot.set_title("x.grad after backward 2 of 2")
    assert plot.shown_title().endswith("…")
    assert plot.title() == "x.grad after backward 2 of 2", "the whole title is kept"
    assert QFontMetricsF(plot.tick_font()).horizontalAdvance(plot.shown_title()) <= plot.width()
    plot.resize(600, 200)  # room again: the whole title
    assert plot.shown_title() == "x.grad after backward 2 of 2"
