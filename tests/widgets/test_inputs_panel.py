"""The inputs panel: sliders, number boxes, tables and range editors drive leaf values, and
the gradients shown equal plain torch."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QScrollArea,
    QScrollBar,
    QSlider,
    QWidget,
)
from pytestqt.qtbot import QtBot

from gui.model.session import InputRange, Session, Snapshot
from gui.model.tensor_format import format_number
from gui.widgets.grad_swatch import GradSwatch
from gui.widgets.inputs_panel import InputsPanel
from gui.widgets.number_box import NumberBox
from gui.widgets.selectable_text import SelectableText
from gui.widgets.value_slider import ValueSlider
from tests.fixtures import SessionSpy, drag_slider, load_lesson, show_panel, type_into


def panel_for(qtbot: QtBot, session: Session) -> InputsPanel:
    return show_panel(qtbot, InputsPanel(session), 420, 650)


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> InputsPanel:
    """The panel on lesson 1 (``x = [3., 4., 10.]``, ``y = sum(x**2)``), which most tests
    start from."""
    load_lesson(session, 1)
    return panel_for(qtbot, session)


def lesson1_grad(values: list[float]) -> list[float]:
    """y = sum(x**2) (Python's sum, as in lesson 1), y.backward(): x.grad."""
    x = torch.tensor(values).requires_grad_()
    y = sum(x**2)
    assert isinstance(y, torch.Tensor)
    y.backward()
    assert x.grad is not None
    return x.grad.tolist()


def row(panel: InputsPanel, leaf: str, index: int) -> ValueSlider:
    editor = panel.groups[leaf].editor
    assert editor is not None
    return editor.sliders[index]


def test_lesson1_shows_x_and_its_grad(panel: InputsPanel) -> None:
    assert list(panel.groups) == ["x"]
    rows = panel.groups["x"].editor.sliders  # type: ignore[union-attr]
    assert [r.label.text() for r in rows] == ["x[0]", "x[1]", "x[2]"]
    assert [r.value() for r in rows] == [3.0, 4.0, 10.0]
    assert [r.swatch.text() for r in rows] == ["6.", "8.", "20."]
    assert panel.groups["x"].grad_label.text() == "x.grad = [6., 8., 20.]"


def test_dragging_a_slider_sets_x_and_grad_follows_torch(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    drag_slider(qtbot, row(panel, "x", 1).slider, 10, 25, 40)
    values = session.snapshot.values["x"]
    assert values[1] > 4.0
    assert values[0] == 3.0 and values[2] == 10.0
    assert row(panel, "x", 1).value() == values[1]
    grad = session.snapshot.leaf_grads["x"]
    assert grad is not None
    assert grad.values == pytest.approx(lesson1_grad(values))
    assert row(panel, "x", 1).swatch.text() == format_number(grad.values[1])


def test_arrow_keys_step_and_page_keys_jump_ten_steps(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    step = session.snapshot.range_for("x").step
    slider = row(panel, "x", 0).slider
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert session.snapshot.values["x"][0] == pytest.approx(3.0 + step)
    qtbot.keyClick(slider, Qt.Key.Key_PageUp)
    x0 = session.snapshot.values["x"][0]
    assert x0 == pytest.approx(3.0 + 11 * step)
    grad = session.snapshot.leaf_grads["x"]
    assert grad is not None
    assert grad.values == pytest.approx(lesson1_grad(session.snapshot.values["x"]))


def test_typing_a_number_sets_the_element(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    type_into(qtbot, row(panel, "x", 0).box, "7.25")
    assert session.snapshot.values["x"] == [7.25, 4.0, 10.0]
    grad = session.snapshot.leaf_grads["x"]
    assert grad is not None and grad.values == pytest.approx(lesson1_grad([7.25, 4.0, 10.0]))
    assert row(panel, "x", 0).swatch.text() == "14.50"


def test_session_changes_show_without_echo(
    emitted: list[Snapshot], spy: SessionSpy, panel: InputsPanel
) -> None:
    emitted.clear()
    spy.direct("set_input", "x", 2, -2.5)
    # One snapshot for the change (the inline run adds its own "result" snapshot).
    assert len([s for s in emitted if s.changes != {"result"}]) == 1
    assert row(panel, "x", 2).value() == -2.5
    assert row(panel, "x", 2).box.text() == "-2.50"
    assert row(panel, "x", 2).swatch.text() == "-5."
    emitted.clear()
    spy.direct("set_range", "x", InputRange(-3.0, 3.0, 0.5))
    assert len(emitted) == 1
    assert panel.groups["x"].range_editor.toggle.text() == "Range -3 to 3, step 0.5"
    assert row(panel, "x", 2).slider.maximum() == 12
    emitted.clear()
    spy.direct("reset_input", "x")
    assert len([s for s in emitted if s.changes != {"result"}]) == 1
    assert [r.value() for r in panel.groups["x"].editor.sliders] == [3.0, 4.0, 10.0]  # type: ignore[union-attr]
    assert not panel.groups["x"].reset.isEnabled()
    assert spy.calls == []


def test_value_outside_the_range_is_shown_not_clamped(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    session.set_range("x", InputRange(-20.0, 20.0, 0.05))
    session.set_input("x", 0, 250.0)
    r = row(panel, "x", 0)
    assert r.box.text() == "250.00"
    assert r.slider.value() == r.slider.maximum()
    assert session.snapshot.values["x"][0] == 250.0
    session.set_input("x", 0, -1e-4)
    assert r.box.text() == "-0.0001"  # more decimals than the step's when the value has them
    type_into(qtbot, r.box, "-75")  # typing may go past the slider's ends
    assert session.snapshot.values["x"][0] == -75.0
    assert r.slider.value() == 0 and r.box.text() == "-75.00"


def test_default_range_grows_to_hold_a_value_set_elsewhere(
    session: Session, panel: InputsPanel
) -> None:
    session.set_input("x", 0, 250.0)
    r = row(panel, "x", 0)
    assert r.box.text() == "250.0"
    assert r.slider.minimum() < r.slider.value() < r.slider.maximum()
    assert panel.groups["x"].range_editor.value_range() == session.snapshot.range_for("x")


def test_reset_button_brings_back_the_codes_value(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    reset = panel.groups["x"].reset
    assert not reset.isEnabled()
    type_into(qtbot, row(panel, "x", 1).box, "1")
    assert reset.isEnabled()
    qtbot.mouseClick(reset, Qt.MouseButton.LeftButton)
    assert "x" not in session.snapshot.values
    assert row(panel, "x", 1).value() == 4.0


def test_range_editor_applies_a_valid_range(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    editor = panel.groups["x"].range_editor
    qtbot.mouseClick(editor.toggle, Qt.MouseButton.LeftButton)
    assert editor.boxes.isVisible()
    type_into(qtbot, editor.step, "0.5")
    type_into(qtbot, editor.low, "0")
    type_into(qtbot, editor.high, "12")
    assert session.snapshot.ranges["x"] == InputRange(0.0, 12.0, 0.5)
    assert not editor.message.isVisible()
    r = row(panel, "x", 2)
    assert r.slider.maximum() == 24 and r.slider.value() == 20  # 10 = 0 + 20 * 0.5
    r.slider.setFocus()
    qtbot.keyClick(r.slider, Qt.Key.Key_Right)
    assert session.snapshot.values["x"][2] == 10.5


def test_range_editor_refuses_an_invalid_range_in_words(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    editor = panel.groups["x"].range_editor
    before = session.snapshot.range_for("x")
    qtbot.mouseClick(editor.toggle, Qt.MouseButton.LeftButton)
    type_into(qtbot, editor.low, "50")
    assert editor.message.isVisible()
    assert "must be below" in editor.message.text()
    assert session.snapshot.range_for("x") == before
    assert row(panel, "x", 0).slider.maximum() > 0
    type_into(qtbot, editor.step, "0")
    assert editor.message.isVisible()
    assert session.snapshot.range_for("x") == before
    type_into(qtbot, editor.low, "-1")
    type_into(qtbot, editor.step, "0.25")
    assert not editor.message.isVisible()
    assert session.snapshot.ranges["x"] == InputRange(-1.0, before.high, 0.25)


def test_default_range_holds_still_while_dragging(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    # The session's default range grows with the value; the slider must not rescale
    # under the mouse (which would run the value away).
    r = row(panel, "x", 2)
    maximum = r.slider.maximum()
    r.slider.setFocus()
    for _ in range(30):
        qtbot.keyClick(r.slider, Qt.Key.Key_PageUp)
    assert r.slider.maximum() == maximum
    assert session.snapshot.values["x"][2] == pytest.approx(r.value())


def test_big_leaf_is_a_table_whose_cells_edit_the_session(qtbot: QtBot, session: Session) -> None:
    session.set_code("w = torch.randn(10, 10, requires_grad=True)\nloss = (w**2).sum()\n")
    panel = panel_for(qtbot, session)
    editor = panel.groups["w"].editor
    assert editor is not None and editor.table is not None and not editor.sliders
    table = editor.table
    assert (table.rowCount(), table.columnCount()) == (10, 10)
    item = table.item(2, 3)
    assert item is not None
    table.scrollToItem(item)
    rect = table.visualItemRect(item)
    # A user's double click: QTest's mouseDClick sends only the second press.
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    line = table.viewport().findChild(QLineEdit)
    assert line is not None
    line.selectAll()
    qtbot.keyClicks(line, "0.25")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "w" in session.snapshot.values)  # the delegate commits queued
    values = session.snapshot.values["w"]
    assert values[2][3] == 0.25
    w = torch.tensor(values, requires_grad=True)
    (w**2).sum().backward()
    grad = session.snapshot.leaf_grads["w"]
    assert w.grad is not None and grad is not None
    assert torch.allclose(torch.tensor(grad.values), w.grad)
    assert table.cell_text(23) == "0.2500"
    assert table.tooltip_for(23) == "w[2, 3] = 0.2500, .grad = 0.5000"


def test_table_refuses_text_that_is_not_a_number(qtbot: QtBot, session: Session) -> None:
    session.set_code("w = torch.randn(10, 10, requires_grad=True)\nloss = (w**2).sum()\n")
    panel = panel_for(qtbot, session)
    table = panel.groups["w"].editor.table  # type: ignore[union-attr]
    assert table is not None
    before = table.cell_text(0)
    item = table.item(0, 0)
    assert item is not None
    item.setText("abc")
    assert item.text() == before
    assert "w" not in session.snapshot.values


def test_leaf_too_large_shows_a_summary(qtbot: QtBot, session: Session) -> None:
    session.set_code("b = torch.randn(100, 100, requires_grad=True)\nloss = (b**2).sum()\n")
    panel = panel_for(qtbot, session)
    group = panel.groups["b"]
    assert group.editor is None
    assert "Too large to edit" in group.note.text()
    assert "shape 100x100" in group.note.text()


def test_rows_are_rebuilt_only_when_leaves_change(session: Session, panel: InputsPanel) -> None:
    group = panel.groups["x"]
    first = row(panel, "x", 0)
    session.set_input("x", 0, 1.0)
    assert panel.groups["x"] is group and row(panel, "x", 0) is first
    session.set_code(
        "x = torch.tensor([1., 2.], requires_grad=True)\nc = torch.ones(2)\ny = (x * c).sum()\n"
    )
    assert panel.groups["x"] is not group
    assert len(panel.groups["x"].editor.sliders) == 2  # type: ignore[union-attr]
    assert panel.constants.text() == "Constants (no grad): c"


def test_no_leaves_says_how_to_make_one(qtbot: QtBot, session: Session) -> None:
    session.set_code("a = torch.ones(3)\n")
    panel = panel_for(qtbot, session)
    assert panel.groups == {}
    assert panel.empty.isVisible()
    assert "requires_grad=True" in panel.empty.text()


def wheel(widget: QWidget, notches: int) -> None:
    center = QPointF(widget.rect().center())
    event = QWheelEvent(
        center,
        QPointF(widget.mapToGlobal(widget.rect().center())),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_wheel_scrolls_the_panel_until_a_slider_has_focus(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    r = row(panel, "x", 0)
    wheel(r.slider, 3)
    wheel(r.box, 3)
    assert "x" not in session.snapshot.values
    panel.activateWindow()
    r.slider.setFocus()
    qtbot.waitUntil(r.slider.hasFocus)
    wheel(r.slider, 1)
    assert session.snapshot.values["x"][0] != 3.0


def test_live_off_marks_the_grad_as_old(qtbot: QtBot, session: Session, panel: InputsPanel) -> None:
    session.set_live(False)
    type_into(qtbot, row(panel, "x", 0).box, "5")
    assert session.snapshot.stale
    assert "live is off" in panel.groups["x"].grad_label.text()
    assert row(panel, "x", 0).swatch.text() == "6."
    session.run_now()
    assert row(panel, "x", 0).swatch.text() == "10."


def test_screenshots(qtbot: QtBot, session: Session) -> None:
    panel = panel_for(qtbot, session)
    for number in (1, 4, 5):
        load_lesson(session, number)
        qtbot.wait(10)
        panel.grab().save(f"/tmp/inputs_panel_lesson{number}.png")


def scroll_bar(panel: InputsPanel) -> QScrollBar:
    area = panel.findChild(QScrollArea)
    assert area is not None
    return area.verticalScrollBar()


def test_reset_keeps_the_panels_scroll_position(qtbot: QtBot, session: Session) -> None:
    load_lesson(session, 0)  # x and w: more than a short panel shows
    panel = show_panel(qtbot, InputsPanel(session), 420, 120)
    panel.activateWindow()
    group = panel.groups["w"]
    session.set_input("w", 0, 0.25)
    assert group.reset.isEnabled()
    bar = scroll_bar(panel)
    area = panel.findChild(QScrollArea)
    assert area is not None
    # The reset button at the bottom of the view, the rows after it (where the focus
    # would go) out of sight below.
    top = group.reset.mapTo(area.widget(), QPoint(0, 0)).y()
    bar.setValue(top + group.reset.height() - area.viewport().height() + 2)
    before = bar.value()
    assert 0 < before < bar.maximum()
    qtbot.mouseClick(group.reset, Qt.MouseButton.LeftButton)
    qtbot.wait(20)
    assert "w" not in session.snapshot.values, "the click reset w"
    assert bar.value() == before


def test_the_panel_is_never_narrower_than_a_slider_row(qtbot: QtBot, session: Session) -> None:
    load_lesson(session, 5)
    panel = show_panel(qtbot, InputsPanel(session), 420, 400)
    area = panel.findChild(QScrollArea)
    assert area is not None and area.widget() is not None
    least = area.widget().minimumSizeHint().width()
    qtbot.waitUntil(lambda: panel.minimumSizeHint().width() >= least)
    panel.resize(120, 400)  # a layout gives no widget less than its minimum
    qtbot.wait(10)
    assert area.widget().width() <= area.viewport().width()


# -- a slider tick does only what changed --------------------------------------------------


class LayoutRequests(QObject):
    """Counts the layout requests that reach any widget inside ``panel`` (a relayout)."""

    def __init__(self, panel: QWidget) -> None:
        super().__init__()
        self.count = 0
        self.where: list[str] = []
        self._panel = panel
        QApplication.instance().installEventFilter(self)  # type: ignore[union-attr]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        inside = isinstance(watched, QWidget) and (
            watched is self._panel or self._panel.isAncestorOf(watched)
        )
        if event.type() == QEvent.Type.LayoutRequest and inside:
            self.count += 1
            self.where.append(f"{type(watched).__name__} {watched.objectName()}")
        return False

    def close(self) -> None:
        QApplication.instance().removeEventFilter(self)  # type: ignore[union-attr]


def settle(panel: QWidget) -> None:
    """Let the layouts that showing the panel started finish (a scroll area takes a few
    rounds of the event loop to settle, however long each one takes)."""
    requests = LayoutRequests(panel)
    try:
        quiet = 0
        for _ in range(500):
            seen = requests.count
            QApplication.processEvents()
            quiet = quiet + 1 if requests.count == seen else 0
            if quiet == 5:
                return
    finally:
        requests.close()


def geometries(panel: InputsPanel) -> list[QRect]:
    """Where every part of every slider row is, in the panel's coordinates."""
    out = []
    for group in panel.groups.values():
        out.append(QRect(group.grad_label.mapTo(panel, QPoint(0, 0)), group.grad_label.size()))
        for r in group.editor.sliders if group.editor else ():
            for part in (r.label, r.slider, r.box, r.swatch):
                out.append(QRect(part.mapTo(panel, QPoint(0, 0)), part.size()))
    return out


def test_dragging_across_the_whole_range_relayouts_nothing_and_moves_nothing(
    qtbot: QtBot, session: Session
) -> None:
    # Lesson 0: two leaves whose .grad lines and swatches change on every tick, with
    # numbers of every width (the range is -5 to 5: "-5.000" to "0.005").
    load_lesson(session, 0)
    panel = panel_for(qtbot, session)
    slider = row(panel, "x", 0).slider
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Home)
    settle(panel)
    before = geometries(panel)
    label_width = row(panel, "x", 0).label.width()
    requests = LayoutRequests(panel)
    try:
        for _ in range(12):
            qtbot.keyClick(slider, Qt.Key.Key_PageUp)
            QApplication.processEvents()
        qtbot.keyClick(slider, Qt.Key.Key_End)
        QApplication.processEvents()
    finally:
        requests.close()
    assert session.snapshot.values["x"][0] == session.snapshot.range_for("x").high
    assert requests.count == 0, requests.where
    assert geometries(panel) == before
    assert row(panel, "x", 0).label.width() == label_width


class Calls:
    """Counts calls of some methods (wrapping them on their class for one test)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *methods: tuple[type, str]) -> None:
        self.count: dict[str, int] = {}
        for owner, name in methods:
            self._wrap(monkeypatch, owner, name)

    def _wrap(self, monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> None:
        original = getattr(owner, name)
        key = f"{owner.__name__}.{name}"
        self.count[key] = 0

        def counted(this: object, *args: object) -> object:
            self.count[key] += 1
            return original(this, *args)

        monkeypatch.setattr(owner, name, counted)

    def total(self) -> int:
        return sum(self.count.values())


def test_a_snapshot_that_changes_nothing_shown_touches_no_widget(
    monkeypatch: pytest.MonkeyPatch, session: Session, panel: InputsPanel
) -> None:
    calls = Calls(
        monkeypatch,
        (QLabel, "setText"),
        (SelectableText, "setText"),
        (GradSwatch, "update"),
        (NumberBox, "setValue"),
        (NumberBox, "setSpecialValueText"),
        (QSlider, "setValue"),
        (QWidget, "setEnabled"),
    )
    snapshot = session.snapshot
    panel.render(dataclasses.replace(snapshot, changes=frozenset({"view"})))
    assert calls.total() == 0, calls.count
    # With live off a tick is only its change: the new value, which the row shows already
    # (the user put it there). The first one also says the .grad is old and enables
    # "Reset to code"; the next ones have nothing else to show.
    session.set_live(False)
    r = row(panel, "x", 1)
    r.slider.triggerAction(QSlider.SliderAction.SliderSingleStepAdd)
    assert "live is off" in panel.groups["x"].grad_label.text()
    calls.count = dict.fromkeys(calls.count, 0)
    r.slider.triggerAction(QSlider.SliderAction.SliderSingleStepAdd)
    assert session.snapshot.values["x"][1] == r.value() > 4.0
    assert calls.count["NumberBox.setValue"] == 1  # the row's own box, once
    assert calls.total() == 1, calls.count


def test_a_result_updates_only_what_changed(
    monkeypatch: pytest.MonkeyPatch, session: Session, panel: InputsPanel
) -> None:
    calls = Calls(monkeypatch, (GradSwatch, "update"), (NumberBox, "setValue"))
    # y = sum(x**2): moving x[1] changes x.grad[1] alone.
    session.set_input("x", 1, 5.0)
    assert [r.swatch.text() for r in panel.groups["x"].editor.sliders] == ["6.", "10.", "20."]  # type: ignore[union-attr]
    assert calls.count == {"GradSwatch.update": 1, "NumberBox.setValue": 1}


def test_the_first_snapshot_of_a_tick_reports_before_the_row_shows_it(
    qtbot: QtBot, session: Session, panel: InputsPanel
) -> None:
    r = row(panel, "x", 0)
    before = r.box.text()
    seen: list[str] = []
    r.valueEdited.connect(lambda _value: seen.append(r.box.text()))
    r.slider.triggerAction(QSlider.SliderAction.SliderSingleStepAdd)
    # The session (and the engine's run) came first; the box shows the value after.
    assert seen == [before]
    assert r.value() > 3.0
    assert r.box.text() == r.box.textFromValue(r.value()) != before
