"""Widgets against what a program or a file can hand them: text that looks like HTML, and
numbers at the ends of the float range (1e308, 5e-324, nan, inf).

Text: Qt takes a string that looks like HTML for rich text in tooltips and labels left at
``Qt::AutoText``, and loads the images it names (``<img src="/dev/zero">`` aborted the
app, a named pipe blocked it). Each widget gets ``<img src="PIPE">`` where a program's text
goes, is painted and hovered all over, and the pipe must never have been opened
(:class:`~tests.widgets.hostile_text.PipeTripwire`: a regression fails, it cannot hang).

Numbers: a tiny or huge axis made plot pixels infinite or NaN and Qt's raster engine
segfaulted (those plots are drawn in a child process, whose exit code is checked); a
value of 1e308 made the slider's tick overflow (OverflowError on every later render).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSignalBlocker
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.model.result import Explanation, PrintedLine, TensorData
from gui.model.session import InputRange, Session
from gui.model.views.grad_bars import BarData
from gui.model.views.grad_history import HistoryData
from gui.widgets.code_editor import CodeEditor
from gui.widgets.diagnostics_tabs import DiagnosticsTabs
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.grad_bars import GradBars
from gui.widgets.grad_history import GradHistory
from gui.widgets.grad_swatch import GradSwatch
from gui.widgets.leaf_group import LeafGroup
from gui.widgets.number_box import BOX_LIMIT, NumberBox
from gui.widgets.pixels import PIXEL_LIMIT, axis_map, clamp_pixel, sane_axis
from gui.widgets.qt_text import SafeTextBrowser, literal_html, plain_label
from gui.widgets.selectable_text import SelectableText
from gui.widgets.tensor_editor import TensorEditor
from gui.widgets.value_slider import MAX_TICKS, ValueSlider
from gui.widgets.value_table import ValueTable
from tests.fixtures import show_panel, type_into
from tests.widgets.hostile_text import (
    PipeTripwire,
    as_plain_text,
    hover_everything,
    rich_labels,
    showing,
)

ROOT = Path(__file__).resolve().parents[2]
TINY = 5e-324  # the smallest float above zero (subnormal)
HUGE = 1.7976931348623157e308  # the largest float
NAN, INF = math.nan, math.inf
# Offscreen, a tooltip cannot be raised: Qt says so, and that is all it says.
quiet_tooltips = pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)")


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[PipeTripwire]:
    tripwire = PipeTripwire(tmp_path)
    yield tripwire
    tripwire.close()


# -- text shown as written -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '<img src="/dev/zero">',
        "error: <b>bold</b> & <i>x</i>",
        "&lt;not a tag&gt;",
        "  indented <img src=x>\n  second   line\r\nthird",
        "<!DOCTYPE html><html><body><img src=/dev/zero></body></html>",
        "plain text",
        "first line plain\n<img src=/dev/zero> on the second",
    ],
)
def test_a_tooltip_or_message_shows_any_text_as_written(text: str) -> None:
    html = literal_html(text)
    assert as_plain_text(html) == text.replace("\r\n", "\n")
    if html != text:  # escaped: no tag of the text is left
        assert "<img" not in html and "<b>" not in html


@pytest.mark.parametrize("text", ["from-\u202enosj.json", "<b>\u2066x</b>\u2069"])
def test_a_tooltip_or_message_shows_reordering_controls_as_escapes(text: str) -> None:
    """A stranger's file name or field in an error box reads as written, not turned around."""
    shown = as_plain_text(literal_html(text))
    assert shown == text.encode("unicode_escape").decode().replace("\\\\", "\\")
    assert not any(c in shown for c in "\u202e\u2066\u2069")


def test_a_plain_label_never_reads_tags(qtbot: QtBot) -> None:
    label = show_panel(qtbot, plain_label("<b>x</b>"), 200, 40)
    assert label.text() == "<b>x</b>" and rich_labels(label.parentWidget() or label, "<b>") == []


def _hostile_widgets(img: str, session: Session) -> dict[str, Callable[[], QWidget]]:
    """Each widget given ``img`` where a program's or a file's text goes."""
    message = f"invalid literal for int(): '{img}'" + " and more" * 30

    def elided() -> QWidget:
        label = ElidedLabel(message)
        label.setMaximumWidth(200)  # shortened: the whole text goes to the tooltip
        return label

    def diagnostics() -> QWidget:
        tabs = DiagnosticsTabs()
        error = Explanation(
            kind="value-error",
            message=message,
            explanation=f"Python raised {img} about `{img}` here.",
            fix=f"Print `{img}` to see it.",
            line=1,
            column=1,
            exception=img,
        )
        warning = Explanation("warning", img, img, img, 1, None, "warning", img)
        tabs.show_diagnostics(error, (warning,))
        tabs.show_printed((PrintedLine(1, img, 0, 0),))
        tabs.needed_height()  # lays out a copy of the explanation
        return tabs

    def editor() -> QWidget:
        code = CodeEditor()
        code.setPlainText("x = int(y)\n")
        code.set_diagnostics(Explanation("value-error", message, "", "", 1, 1, "error"), ())
        return code

    def swatch() -> QWidget:
        box = GradSwatch(f"{img}.grad[0]")
        box.set_gradient(0.5, 1.0)
        return box

    def bars() -> QWidget:
        plot = GradBars(img, (2,))
        plot.show_data(BarData(f"{img}.grad", (0.0, 1.0), (1.0, 1.0), (1.0, 2.0)), 2.0)
        return plot

    def history() -> QWidget:
        plot = GradHistory(img, (2,))
        plot.show_data(HistoryData((1.0, 2.0), ((1.0, 2.0), (3.0, 4.0)), 2, shown=2.0, end=2.0))
        return plot

    def sliders() -> QWidget:
        editor = TensorEditor(img, (2,), InputRange(-5, 5, 0.01), f"{img}.grad")
        editor.set_values([1.0, 2.0])
        editor.set_gradients([0.5, -0.5], 1.0)
        return editor

    def table() -> QWidget:
        grid = ValueTable(img, (70,))
        grid.set_values([1.0] * 70)
        grid.set_gradients([0.5] * 70, 1.0)
        return grid

    def leaf() -> QWidget:
        group = LeafGroup(session, img, TensorData((2,), img, [1.0, 2.0]))
        group.refresh(session.snapshot, 1.0)
        return group

    def big_leaf() -> QWidget:
        return LeafGroup(session, img, TensorData((10**6,), "float32", None))

    return {
        "status bar": elided,
        "selectable": lambda: SelectableText(message),
        "explanation": diagnostics,
        "code editor": editor,
        "swatch": swatch,
        "bars": bars,
        "history": history,
        "sliders": sliders,
        "table": table,
        "leaf": leaf,
        "big leaf": big_leaf,
    }


WIDGETS = [
    "status bar",
    "selectable",
    "explanation",
    "code editor",
    "swatch",
    "bars",
    "history",
    "sliders",
    "table",
    "leaf",
    "big leaf",
]
# Which widgets show the text in a tooltip somewhere (the others in labels or pages).
TOOLTIPS = {"status bar", "code editor", "swatch", "bars", "history", "sliders", "table"}


@quiet_tooltips
@pytest.mark.parametrize("name", WIDGETS)
def test_each_widget_shows_markup_from_a_program_as_text(
    qtbot: QtBot, pipe: PipeTripwire, session: Session, name: str
) -> None:
    widget = _hostile_widgets(pipe.img, session)[name]()
    host = QWidget()
    QVBoxLayout(host).addWidget(widget)
    show_panel(qtbot, host, 460, 320)
    tips = hover_everything(host)
    assert pipe.opens() == 0, f"the {name} loaded the image its text names"
    if name in TOOLTIPS:
        assert showing(tips, pipe.img), f"no tooltip of the {name} showed the text"
    assert rich_labels(host, pipe.img) == []


def test_a_rich_text_view_loads_nothing_its_html_names(qtbot: QtBot, pipe: PipeTripwire) -> None:
    # The second wall, behind escaping: raw HTML naming the pipe in every way Qt loads.
    page = (
        f'<html><head><link rel="stylesheet" href="{pipe.path}"></head>'
        f'<body background="{pipe.path}"><p>{pipe.img}</p>'
        f'<img src="file://{pipe.path}" width="20" height="20">'
        f'<p style="background-image:url({pipe.path})">x</p>'
        f'<table background="{pipe.path}"><tr><td>x</td></tr></table></body></html>'
    )
    browser = show_panel(qtbot, SafeTextBrowser(), 400, 300)
    browser.setHtml(page)
    browser.grab()
    copy = browser.document().clone(browser)
    copy.setTextWidth(200)
    assert copy.size().height() > 0
    assert pipe.opens() == 0


# -- numbers at the ends of the float range --------------------------------------------------


@pytest.mark.parametrize(
    ("low", "high"),
    [
        (-1e-307, 1e-307),
        (-TINY, TINY),
        (0.0, TINY),
        (-HUGE, HUGE),
        (-1.785e308, 1.785e308),
        (1.0, 1.0),
        (2.0, 1.0),
        (NAN, 1.0),
        (-INF, INF),
        (1e300, 1e300 * (1 + 1e-15)),
    ],
)
def test_a_pixel_map_is_finite_for_any_axis(low: float, high: float) -> None:
    scale, offset = axis_map(high, low, 10.0, 200.0)
    assert math.isfinite(scale) and scale != 0 and math.isfinite(offset)
    sane = sane_axis(low, high)
    assert all(math.isfinite(v) for v in sane) and sane[0] < sane[1]
    assert math.isfinite(sane[1] - sane[0])
    for value in (low, high, 0.0, 1.0, -HUGE, HUGE, TINY, INF, -INF, NAN):
        pixel = clamp_pixel(offset + scale * value)
        assert -PIXEL_LIMIT <= pixel <= PIXEL_LIMIT


# Every extreme both plots are asked to draw, in a child process: a segfault there fails the
# test on its exit code instead of taking the test run down.
_PLOTS = """
import math
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gui.model.views.grad_bars import BarData
from gui.model.views.grad_history import HistoryData
from gui.widgets.grad_bars import GradBars
from gui.widgets.grad_history import GradHistory

TINY, HUGE, NAN, INF = 5e-324, 1.7976931348623157e308, math.nan, math.inf
VALUES = [
    (1e-307, -1e-307), (1e-307, 2e-307), (TINY, -TINY), (TINY, 0.0), (1e308, -1e308),
    (HUGE, -HUGE), (1.0, 2.0), (NAN, INF), (-INF, 1e-307), (0.0, 0.0),
]
LOCKS = [None, 1e-307, TINY, 1e-300, 1.0, 1e308, HUGE]
history, bars = GradHistory("x", (2,)), GradBars("x", (2,))
for plot in (history, bars):
    plot.resize(420, 300)
    plot.show()
for a, b in VALUES:
    for lock in LOCKS:
        history.show_data(
            HistoryData((1.0, 2.0, 3.0), ((a, b, a), (b, a, b)), 3, (2.5,), (3.0,), 2.0, 3.0),
            lock,
        )
        bars.show_data(BarData("x.grad", (a, b), (b, a), (a, b)), lock or 1.0, lock is not None)
        for plot in (history, bars):
            plot.grab()
            layout = plot.plot_layout()
            for y, _ in layout.y_ticks:
                assert math.isfinite(y), (a, b, lock)
            plot.tooltip_at(layout.plot.center(), layout)
print("drawn")
"""


@pytest.mark.slow
def test_plots_draw_any_numbers_on_any_axis() -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(_PLOTS)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        )
    except subprocess.TimeoutExpired:
        pytest.fail("drawing the plots still ran after 300 s: it hangs")
    assert done.returncode == 0, f"exit code {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip().endswith("drawn")


@pytest.mark.parametrize(
    ("value", "tick"),
    [
        (1e308, "top"),
        (HUGE, "top"),
        (-1e308, "bottom"),
        (INF, "top"),
        (-INF, "bottom"),
        (NAN, "bottom"),
        (1e-307, "middle"),
        (-TINY, "middle"),
    ],
)
@pytest.mark.parametrize(
    "value_range",
    [InputRange(-5, 5, 0.01), InputRange(-1e308, 1e308, 1.0), InputRange(-1e-300, 1e-300, TINY)],
    ids=["usual", "widest", "tiniest"],
)
def test_a_slider_pins_any_value_and_keeps_it(
    qtbot: QtBot, value: float, tick: str, value_range: InputRange
) -> None:
    row = show_panel(qtbot, ValueSlider("x[0]", value_range), 420, 40)
    row.setValue(value)
    ticks = row.slider.maximum()
    assert 1 <= ticks <= MAX_TICKS
    expected = {"top": ticks, "bottom": 0, "middle": round(ticks / 2)}[tick]
    assert abs(row.slider.value() - expected) <= 1
    assert row.value() == value or (math.isnan(value) and math.isnan(row.value()))
    # A number past what the box holds is written out, never shown as the box's limit.
    if not abs(value) <= BOX_LIMIT:
        assert row.box.text() != row.box.textFromValue(BOX_LIMIT)
    # Every slider position is a finite number of the range.
    for position in (1, 0, ticks // 2, ticks - 1, ticks, 0):
        row.slider.setValue(position)
        assert value_range.low <= row.value() <= value_range.high, position
    row.setRange(InputRange(-1, 1, 0.5))  # and it goes on working
    row.setValue(0.5)
    assert row.slider.value() == 3


def test_a_tiny_range_keeps_its_tiny_values(qtbot: QtBot) -> None:
    row = show_panel(qtbot, ValueSlider("x[0]", InputRange(-1e-12, 1e-12, 1e-15)), 420, 40)
    edited: list[float] = []
    row.valueEdited.connect(edited.append)
    row.slider.setValue(1)
    assert edited and edited[-1] == pytest.approx(-1e-12 + 1e-15, rel=1e-9)


@pytest.mark.parametrize("text", ["1e308", "-1e308", "nan", "inf", "-inf", "1e400", "1e-307"])
def test_a_number_box_takes_only_numbers_it_holds(qtbot: QtBot, text: str) -> None:
    box = show_panel(qtbot, NumberBox(), 120, 30)
    box.setRange(-BOX_LIMIT, BOX_LIMIT)
    with QSignalBlocker(box):
        box.setValue(1.5)
    seen: list[float] = []
    box.valueChanged.connect(seen.append)
    type_into(qtbot, box, text)
    assert all(math.isfinite(v) and abs(v) <= BOX_LIMIT for v in [*seen, box.value()])


@pytest.mark.parametrize(
    ("text", "accepted"),
    [("1e308", 1e308), ("-1e308", -1e308), ("1e-307", 1e-307), ("5e-324", TINY)]
    + [(t, None) for t in ("1e309", "nan", "inf", "-inf", "<img src=x>")],
)
def test_a_table_cell_takes_finite_numbers_only(
    qtbot: QtBot, text: str, accepted: float | None
) -> None:
    grid = show_panel(qtbot, ValueTable("x", (70,)), 400, 200)
    grid.set_values([1.0] * 70)
    edits: list[tuple[int, float]] = []
    grid.elementEdited.connect(lambda i, v: edits.append((i, v)))
    item = grid.item(0, 3)
    assert item is not None
    item.setText(text)
    assert edits == ([] if accepted is None else [(3, accepted)])
    if accepted is None:
        assert item.text() == grid.cell_text(3)  # put back
    grid.set_values([1e308, NAN, INF, -INF, TINY, -HUGE, *[0.0] * 64])
    grid.set_gradients([1e308, NAN, INF, -INF, TINY, -HUGE, *[0.0] * 64], 1e-307)
    grid.grab()


def test_extreme_numbers_in_sliders_and_swatches_paint(qtbot: QtBot) -> None:
    editor = TensorEditor("x", (6,), InputRange(-1e308, 1e308, 1e300), "x.grad", opaque=True)
    show_panel(qtbot, editor, 500, 300)
    extremes = [1e308, NAN, INF, -INF, TINY, -HUGE]
    editor.set_values(extremes)
    for scale in (1e-307, TINY, 1.0, HUGE):
        editor.set_gradients(extremes, scale)
        editor.grab()
    assert [row.value() for row in editor.sliders][:1] == [1e308]
    QApplication.processEvents()
    assert isinstance(editor.sliders[0].label, QLabel)
    assert editor.sliders[0].swatch.mapToGlobal(QPoint(0, 0)) is not None
