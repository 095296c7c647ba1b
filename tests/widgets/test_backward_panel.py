"""The backward panel: output choice, the gradient argument, presets, fixes, options and
the buttons drive the session, and the gradients that result equal plain torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from gui.model.session import GRADIENT_RANGE, InputRange, Session, Snapshot
from gui.model.views.backward import IMPLICIT_LABEL
from gui.widgets.backward_panel import BackwardPanel
from gui.widgets.value_slider import ValueSlider
from tests.fixtures import (
    CUBE_FUNCTION_CODE,
    SessionSpy,
    click,
    cube_grad,
    handle_center,
    load_lesson,
    show_panel,
    type_into,
)

NON_SCALAR = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2\n"
SCALAR = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x**2).sum()\n"
LEFT = Qt.MouseButton.LeftButton
# Opening a combo box's list offscreen logs these; they say nothing about the app.
POPUP_NOISE = pytest.mark.qt_log_ignore(
    r"This plugin does not support raise\(\)", "This plugin does not support grabbing"
)


def panel_for(qtbot: QtBot, session: Session) -> BackwardPanel:
    return show_panel(qtbot, BackwardPanel(session), 420, 650)


def sliders(panel: BackwardPanel) -> list[ValueSlider]:
    assert panel.editor is not None
    return panel.editor.sliders


def choose(qtbot: QtBot, combo: QComboBox, text: str) -> None:
    """Pick an entry the way a user does: open the list, click the item."""
    index = combo.findText(text)
    assert index >= 0, [combo.itemText(i) for i in range(combo.count())]
    combo.showPopup()
    view = combo.view()
    rect = view.visualRect(view.model().index(index, 0))
    qtbot.mouseClick(view.viewport(), LEFT, pos=rect.center())
    qtbot.waitUntil(lambda: not view.isVisible())


def x_grad(session: Session) -> Any:
    grad = session.snapshot.leaf_grads["x"]
    assert grad is not None and grad.values is not None
    return grad.values


def same(values: object, expected: torch.Tensor) -> bool:
    return torch.allclose(torch.tensor(values), expected, rtol=1e-5, atol=1e-6)


def near(values: object, rounded: list[list[float]]) -> bool:
    """Equal to the 4-digit numbers quoted in learners.md."""
    return torch.allclose(torch.tensor(values), torch.tensor(rounded), atol=0.01)


def test_implicit_gradient_slider_scales_x_grad(qtbot: QtBot, session: Session) -> None:
    # learners.md scenario 4: z.backward(tensor([[0.1]])) gives a tenth of backward(1).
    load_lesson(session, 4)
    session.set_gradient(None)
    panel = panel_for(qtbot, session)
    x = session.snapshot.values["x"]
    (row,) = sliders(panel)
    assert row.label.text() == IMPLICIT_LABEL and row.value() == 1.0
    assert not row.label.is_elided()  # read whole, in class
    assert x_grad(session)[0][0] == pytest.approx(35.11, abs=0.01)
    type_into(qtbot, row.box, "0.1")
    assert session.snapshot.current_step.gradient == [[0.1]]
    assert x_grad(session)[0][0] == pytest.approx(3.511, abs=0.001)
    assert same(x_grad(session), cube_grad(x, [[0.1]]))
    assert sliders(panel)[0] is row and row.label.text() == "v[0, 0]"


def test_dragging_the_implicit_slider_keeps_dragging(qtbot: QtBot, session: Session) -> None:
    load_lesson(session, 4)
    session.set_gradient(None)
    panel = panel_for(qtbot, session)
    slider = sliders(panel)[0].slider
    start = handle_center(slider)
    qtbot.mousePress(slider, LEFT, pos=start)
    qtbot.mouseMove(slider, start - QPoint(30, 0))
    first = session.snapshot.current_step.gradient
    assert first is not None and first[0][0] < 1.0
    # The first move made the gradient explicit; the same slider must keep following.
    qtbot.mouseMove(slider, start - QPoint(60, 0))
    qtbot.mouseRelease(slider, LEFT, pos=start - QPoint(60, 0))
    second = session.snapshot.current_step.gradient
    assert second is not None and second[0][0] < first[0][0]
    assert sliders(panel)[0].value() == second[0][0]
    assert same(x_grad(session), cube_grad(session.snapshot.values["x"], second))


def test_presets_and_backward_reproduce_accumulation(qtbot: QtBot, session: Session) -> None:
    # learners.md scenario 5, built from the panel: v = [[1, 0], [1, 0]], then a second
    # backward with v = [[0, 1], [0, 1]] without zeroing.
    load_lesson(session, 5)
    panel = panel_for(qtbot, session)
    x = session.snapshot.values["x"]
    click(qtbot, panel.clear)
    assert session.snapshot.steps is not None and len(session.snapshot.steps) == 1
    click(qtbot, panel.zeros)
    assert session.snapshot.current_step.gradient == [[0.0, 0.0], [0.0, 0.0]]
    type_into(qtbot, sliders(panel)[0].box, "1")
    type_into(qtbot, sliders(panel)[2].box, "1")
    first = [[1.0, 0.0], [1.0, 0.0]]
    assert session.snapshot.current_step.gradient == first
    assert near(x_grad(session), [[43.40, 0.0], [5.405, 0.0]])
    assert same(x_grad(session), cube_grad(x, first))
    click(qtbot, panel.backward)
    for index, text in enumerate(("0", "1", "0", "1")):
        type_into(qtbot, sliders(panel)[index].box, text)
    second = [[0.0, 1.0], [0.0, 1.0]]
    assert session.snapshot.current_step.gradient == second
    assert near(x_grad(session), [[43.40, 2.052], [5.405, 18.76]])
    assert same(x_grad(session), cube_grad(x, first, second))
    assert panel.status.text().startswith("Backward calls: 2 (accumulating)")


@POPUP_NOISE
def test_one_hot_scale_and_ones_presets(qtbot: QtBot, session: Session) -> None:
    load_lesson(session, 5)
    panel = panel_for(qtbot, session)
    x = session.snapshot.values["x"]
    click(qtbot, panel.clear)
    assert [panel.one_hot_index.itemText(i) for i in range(4)] == [
        "[0, 0]",
        "[0, 1]",
        "[1, 0]",
        "[1, 1]",
    ]
    choose(qtbot, panel.one_hot_index, "[1, 1]")
    click(qtbot, panel.one_hot)
    e11 = [[0.0, 0.0], [0.0, 1.0]]
    assert session.snapshot.current_step.gradient == e11
    assert [s.value() for s in sliders(panel)] == [0.0, 0.0, 0.0, 1.0]
    # One-hot v picks one output element: here d z[1,1] / d x, i.e. 24 x[1,1]^2.
    assert near(x_grad(session), [[0.0, 0.0], [0.0, 18.76]])
    assert same(x_grad(session), cube_grad(x, e11))
    assert panel.factor.value() == 0.5
    click(qtbot, panel.scale)
    assert session.snapshot.current_step.gradient == [[0.0, 0.0], [0.0, 0.5]]
    assert same(x_grad(session), cube_grad(x, [[0.0, 0.0], [0.0, 0.5]]))
    click(qtbot, panel.ones)
    assert same(x_grad(session), cube_grad(x, [[1.0, 1.0], [1.0, 1.0]]))


def test_non_scalar_output_offers_fixes_ones_like(qtbot: QtBot, session: Session) -> None:
    session.set_code(NON_SCALAR)
    panel = panel_for(qtbot, session)
    assert panel.note.isVisible()
    assert "The last call failed" in panel.status.text()
    assert "No gradient given: torch needs one for a non-scalar output" in panel.note.text()
    assert panel.editor is None
    shown = {kind: b.text() for kind, b in panel.fixes.items() if b.isVisible()}
    assert shown == {
        "sum": "Use y.sum()",
        "mean": "Use y.mean()",
        "ones_like": "gradient = torch.ones_like(y)",
    }
    click(qtbot, panel.fixes["ones_like"])
    assert session.snapshot.error is None
    assert session.snapshot.current_step.gradient == [1.0, 1.0]
    assert x_grad(session) == [2.0, 2.0]
    assert not any(b.isVisible() for b in panel.fixes.values())
    assert "failed" not in panel.status.text()
    assert [s.label.text() for s in sliders(panel)] == ["v[0]", "v[1]"]
    assert not panel.note.isVisible()


@pytest.mark.parametrize(("kind", "expected"), [("sum", [2.0, 2.0]), ("mean", [1.0, 1.0])])
def test_reduce_fixes_add_a_loss_line(
    qtbot: QtBot, session: Session, kind: str, expected: list[float]
) -> None:
    session.set_code(NON_SCALAR)
    panel = panel_for(qtbot, session)
    click(qtbot, panel.fixes[kind])  # type: ignore[index]
    assert session.snapshot.code.endswith(f"loss = y.{kind}()\n")
    assert session.snapshot.output == "loss" and session.snapshot.error is None
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    getattr(x * 2, kind)().backward()
    assert x.grad is not None and x_grad(session) == x.grad.tolist() == expected
    assert panel.output.currentText() == "loss  scalar"
    assert sliders(panel)[0].label.text() == IMPLICIT_LABEL


def test_backward_twice_keeps_the_graph_automatically_then_zero_grad(
    qtbot: QtBot, session: Session
) -> None:
    session.set_code(SCALAR)
    panel = panel_for(qtbot, session)
    assert x_grad(session) == [2.0, 4.0]
    assert panel.retain_graph.isChecked(), "automatic: kept for another call"
    assert panel.retain_note.text().startswith("Automatic")
    click(qtbot, panel.backward)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x**2).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    assert session.snapshot.error is None
    assert x.grad is not None and x_grad(session) == x.grad.tolist() == [4.0, 8.0]
    assert panel.status.text().startswith("Backward calls: 2 (accumulating)")
    assert panel.clear.isEnabled()
    click(qtbot, panel.zero_grad)
    x.grad.zero_()
    assert x_grad(session) == x.grad.tolist() == [0.0, 0.0]
    assert ".grad zeroed" in panel.status.text()
    assert not panel.zero_grad.isEnabled()
    click(qtbot, panel.backward)
    y.backward()
    assert x_grad(session) == x.grad.tolist() == [2.0, 4.0]


def test_unticking_retain_graph_then_backward_offers_the_fix(
    qtbot: QtBot, session: Session
) -> None:
    session.set_code(SCALAR)
    panel = panel_for(qtbot, session)
    click(qtbot, panel.retain_graph)
    assert session.snapshot.current_step.retain_graph is False, "set explicitly"
    assert not panel.retain_graph.isChecked()
    assert "unticked" in panel.retain_note.text()
    assert session.snapshot.error is None, "the last call may free its graph"
    click(qtbot, panel.backward)
    error = session.snapshot.error
    assert error is not None and error.kind == "backward-twice"
    assert error.line == 2 and "the Backward tab's call 2" in error.explanation
    fix = panel.fixes["retain_graph"]
    assert fix.isVisible() and fix.text() == "Keep the graph (retain_graph=True)"
    click(qtbot, fix)
    assert session.snapshot.error is None
    assert x_grad(session) == [4.0, 8.0]
    assert not fix.isVisible()
    assert panel.retain_graph.isChecked()
    click(qtbot, panel.retain_graph)
    click(qtbot, panel.retain_graph)
    assert session.snapshot.current_step.retain_graph is True, "ticked: explicit"


def test_clear_steps_is_enabled_for_more_than_one_call_or_a_pending_zero(
    qtbot: QtBot, session: Session
) -> None:
    session.set_code(SCALAR)
    panel = panel_for(qtbot, session)
    assert not panel.clear.isEnabled()
    click(qtbot, panel.zero_grad)
    assert panel.clear.isEnabled(), "a pending zero"
    click(qtbot, panel.clear)
    assert not panel.clear.isEnabled() and x_grad(session) == [2.0, 4.0]
    click(qtbot, panel.backward)
    assert panel.clear.isEnabled()
    click(qtbot, panel.clear)
    assert not panel.clear.isEnabled() and session.snapshot.steps is not None
    assert len(session.snapshot.steps) == 1
    session.set_code(SCALAR + "y.backward(retain_graph=True)\n")
    assert not panel.clear.isEnabled(), "only the code's own call"
    click(qtbot, panel.backward)
    assert panel.clear.isEnabled(), "the code's call and the session's"
    click(qtbot, panel.clear)
    assert session.snapshot.steps is None and not panel.clear.isEnabled()


def test_the_codes_own_backward_gets_the_fixes_in_the_panel(qtbot: QtBot, session: Session) -> None:
    # learners.md scenario 2, typed the ordinary way: y = x**2; y.backward().
    session.set_code(
        "x = torch.tensor([3., 4., 10.], requires_grad=True)\ny = x**2\ny.backward()\n"
    )
    panel = panel_for(qtbot, session)
    shown = {kind: b.text() for kind, b in panel.fixes.items() if b.isVisible()}
    assert shown == {
        "sum": "Line 3: y.sum().backward()",
        "mean": "Line 3: y.mean().backward()",
        "ones_like": "Line 3: y.backward(torch.ones_like(y))",
    }
    assert panel.note.text().startswith("Your code's backward (line 3) gives no gradient")
    click(qtbot, panel.fixes["ones_like"])
    assert session.snapshot.code.endswith("\ny.backward(torch.ones_like(y))\n")
    assert session.snapshot.error is None
    x = torch.tensor([3.0, 4.0, 10.0], requires_grad=True)
    (x**2).sum().backward()
    assert x.grad is not None and x_grad(session) == x.grad.tolist() == [6.0, 8.0, 20.0]
    assert not any(b.isVisible() for b in panel.fixes.values())


def test_live_off_waits_for_run_now(qtbot: QtBot, session: Session) -> None:
    session.set_code(SCALAR)
    panel = panel_for(qtbot, session)
    click(qtbot, panel.live)
    assert not session.snapshot.live
    session.set_input("x", 0, 3.0)
    assert session.snapshot.stale
    assert x_grad(session) == [2.0, 4.0]
    assert "live is off" in panel.status.text()
    session.run_now()
    assert not session.snapshot.stale
    assert x_grad(session) == [6.0, 4.0]
    assert "live is off" not in panel.status.text()
    click(qtbot, panel.live)
    assert session.snapshot.live


def test_retain_grad_checkbox_keeps_an_intermediates_grad(qtbot: QtBot, session: Session) -> None:
    load_lesson(session, 4)
    panel = panel_for(qtbot, session)
    assert list(panel.retain) == ["y", "z"]
    result = session.snapshot.result
    assert result is not None and result.tensors["y"].grad is None
    click(qtbot, panel.retain["y"])
    assert session.snapshot.retain_grad == ("y",)
    result = session.snapshot.result
    assert result is not None
    grad = result.tensors["y"].grad
    assert grad is not None
    x = torch.tensor(session.snapshot.values["x"], requires_grad=True)
    y = 2 * x
    y.retain_grad()
    (y**3).backward(torch.tensor([[0.1]]))
    assert y.grad is not None and same(grad.values, y.grad)
    assert ".grad = " in panel.retain["y"].text()
    click(qtbot, panel.retain["y"])
    assert session.snapshot.retain_grad == ()


@POPUP_NOISE
def test_output_choice_sets_the_tensor_to_differentiate(qtbot: QtBot, session: Session) -> None:
    session.set_code(NON_SCALAR + "z = y.sum()\n")
    panel = panel_for(qtbot, session)
    texts = [panel.output.itemText(i) for i in range(panel.output.count())]
    assert texts == ["automatic: z  scalar", "x  (2,)", "y  (2,)", "z  scalar"]
    choose(qtbot, panel.output, "y  (2,)")
    assert session.snapshot.output == "y"
    assert "non-scalar" in panel.note.text()
    assert panel.output.itemText(0) == "automatic: y  (2,)"  # the engine's pick follows
    choose(qtbot, panel.output, "automatic: y  (2,)")
    assert session.snapshot.output is None
    assert session.snapshot.error is None


def test_huge_output_is_set_with_presets_only(qtbot: QtBot, session: Session) -> None:
    session.set_code("x = torch.ones(80, 80, requires_grad=True)\ny = x * 3\n")
    panel = panel_for(qtbot, session)
    assert panel.editor is None and "non-scalar" in panel.note.text()
    click(qtbot, panel.ones)
    assert session.snapshot.error is None
    assert panel.editor is None
    assert panel.note.text() == "Too many elements to edit one by one: use the presets."
    grad = session.snapshot.leaf_grads["x"]
    assert grad is not None and grad.summary is not None
    assert (grad.summary.minimum, grad.summary.maximum) == (3.0, 3.0)


def test_code_that_calls_backward_is_named(qtbot: QtBot, session: Session) -> None:
    session.set_code(SCALAR + "y.backward()\n")
    panel = panel_for(qtbot, session)
    assert "Your code calls backward itself (line 3)." in panel.status.text()


def test_gradient_range_editor(qtbot: QtBot, session: Session) -> None:
    load_lesson(session, 4)
    panel = panel_for(qtbot, session)
    qtbot.mouseClick(panel.range_editor.toggle, LEFT)
    type_into(qtbot, panel.range_editor.step, "0.05")
    type_into(qtbot, panel.range_editor.high, "0.5")
    type_into(qtbot, panel.range_editor.low, "0")
    assert session.snapshot.ranges[GRADIENT_RANGE] == InputRange(0.0, 0.5, 0.05)
    slider = sliders(panel)[0].slider
    assert (slider.maximum(), slider.value()) == (10, 2)  # v = 0.1
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert session.snapshot.current_step.gradient == [[0.15]]
    type_into(qtbot, panel.range_editor.low, "1")
    assert panel.range_editor.message.isVisible()
    assert session.snapshot.ranges[GRADIENT_RANGE] == InputRange(0.0, 0.5, 0.05)


def test_session_changes_show_without_echo(
    qtbot: QtBot, session: Session, emitted: list[Snapshot], spy: SessionSpy
) -> None:
    load_lesson(session, 4)
    panel = panel_for(qtbot, session)

    def changed(method: str, *args: object, **kwargs: object) -> list[Snapshot]:
        emitted.clear()
        spy.direct(method, *args, **kwargs)
        return [s for s in emitted if s.changes != {"result"}]

    assert len(changed("set_options", retain_graph=True, create_graph=True, zero_grad=False)) == 1
    assert panel.retain_graph.isChecked() and panel.create_graph.isChecked()
    assert not panel.zero_first.isChecked()
    assert len(changed("set_gradient", [[0.5]])) == 1
    assert sliders(panel)[0].value() == 0.5 and sliders(panel)[0].box.text() == "0.500"
    assert len(changed("set_retain_grad", "z", True)) == 1
    assert panel.retain["z"].isChecked()
    assert len(changed("set_range", GRADIENT_RANGE, InputRange(-1.0, 1.0, 0.25))) == 1
    assert sliders(panel)[0].slider.maximum() == 8
    assert len(changed("set_output", "y")) == 1
    assert panel.output.currentText() == "y  (1, 1)"
    assert len(changed("set_live", False)) == 1
    assert not panel.live.isChecked()
    assert spy.calls == []


def test_screenshots(qtbot: QtBot, session: Session) -> None:
    panel = panel_for(qtbot, session)
    for number in (1, 4, 5):
        load_lesson(session, number)
        qtbot.wait(10)
        panel.grab().save(f"/tmp/backward_panel_lesson{number}.png")
    session.set_code(NON_SCALAR)
    session.set_gradient(None)  # the lesson's v has another shape
    qtbot.wait(10)
    panel.grab().save("/tmp/backward_panel_fixes.png")


# -- a slider tick on the inputs costs this panel nothing ---------------------------------

SECTIONS = (
    "_render_output",
    "_render_gradient",
    "_render_fixes",
    "_render_presets",
    "_render_options",
    "_render_retain",
)


def count_sections(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = dict.fromkeys(SECTIONS, 0)
    for name in SECTIONS:
        original = getattr(BackwardPanel, name)

        def counted(
            panel: BackwardPanel, snapshot: Snapshot, _o: Any = original, _n: str = name
        ) -> Any:
            calls[_n] += 1
            return _o(panel, snapshot)

        monkeypatch.setattr(BackwardPanel, name, counted)
    return calls


def test_an_inputs_tick_redraws_nothing_here(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_lesson(session, 3)
    panel = panel_for(qtbot, session)
    calls = count_sections(monkeypatch)
    status = panel.status.text()
    for value in (-1.0, 0.5, 2.0):  # its change, then its result (new numbers only)
        session.set_input("x", 0, value)
    assert calls == dict.fromkeys(SECTIONS, 0)
    assert panel.status.text() == status
    # What the panel shows of a result still follows it: a kept .grad, a new call.
    click(qtbot, panel.retain["y"])
    text = panel.retain["y"].text()
    session.set_input("x", 0, 1.0)  # z = (2x)^3: y.grad = 3y^2 = 12x^2
    assert panel.retain["y"].text() != text
    assert panel.retain["y"].text().endswith(".grad = [[12.]]")
    panel.backward.click()
    assert panel.status.text().startswith("Backward calls: 2")


def test_dragging_v_redraws_the_rows_for_its_change_only(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_lesson(session, 4)
    panel = panel_for(qtbot, session)
    calls = count_sections(monkeypatch)
    slider = sliders(panel)[0].slider
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    # One render for the change (v is new); its result changes only numbers shown
    # elsewhere.
    assert calls["_render_gradient"] == 1
    assert calls["_render_output"] == calls["_render_retain"] == 0


def test_no_fix_button_shows_while_none_is_offered(qtbot: QtBot, session: Session) -> None:
    load_lesson(session, 3)
    panel = panel_for(qtbot, session)
    assert session.snapshot.fixes == ()
    assert not any(button.isVisible() for button in panel.fixes.values())
    session.set_code(NON_SCALAR)
    assert any(button.isVisible() for button in panel.fixes.values())
    load_lesson(session, 3)
    assert not any(button.isVisible() for button in panel.fixes.values())


def test_building_j_row_by_row_says_which_e_k_backward_really_gets(
    qtbot: QtBot, session: Session
) -> None:
    """While the recipe builds, the panel's own v is not what the engine calls: the note
    names the one-hot row instead, and goes away (v untouched) when the recipe stops."""
    panel = panel_for(qtbot, session)
    session.set_code(CUBE_FUNCTION_CODE)
    session.set_gradient([1.0, 2.0, 3.0])
    session.step_jacobian_recipe()
    session.step_jacobian_recipe()
    qtbot.waitUntil(lambda: "backward(e_1)" in panel.note.text())
    note = panel.note.text()
    assert "y[1]" in note and "row 2 of 3" in note and "zeroes every .grad" in note
    session.stop_jacobian_recipe()
    qtbot.waitUntil(lambda: "Building J" not in panel.note.text())
    assert session.snapshot.state.program.steps[-1].gradient == [1.0, 2.0, 3.0]
