"""A tensor's slider rows: labels that never move the slider beside them, sizes that follow
the font (presentation mode)."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.model.session import InputRange
from gui.widgets.tensor_editor import TensorEditor
from tests.fixtures import show_panel

RANGE = InputRange(-2.0, 2.0, 0.002)


def test_a_label_that_changes_never_moves_the_slider(qtbot: QtBot) -> None:
    # The gradient argument's one slider: "v (implicit 1)" until the first drag
    # makes v explicit and the label "v[0, 0]"; the slider must not jump under the mouse.
    editor = show_panel(qtbot, TensorEditor("v", (1, 1), RANGE), 360, 60)
    editor.set_labels(["v (implicit 1)"])
    qtbot.wait(10)
    slider = editor.sliders[0].slider
    before = slider.geometry()
    editor.set_labels(editor.default_labels())
    qtbot.wait(10)
    assert editor.sliders[0].label.text() == "v[0, 0]"
    assert slider.geometry() == before


def test_labels_and_captions_follow_the_font(qtbot: QtBot, qapp: QApplication) -> None:
    editor = show_panel(qtbot, TensorEditor("x", (3,), RANGE, "x.grad"), 420, 150)
    label = editor.label_width()
    row = editor.sliders[0]
    old = qapp.font()
    big = QFont(old)
    big.setPointSizeF(old.pointSizeF() * 1.45)
    qapp.setFont(big)
    try:
        qtbot.waitUntil(lambda: editor.label_width() > label)
        metrics = row.label.fontMetrics()
        assert editor.label_width() >= metrics.horizontalAdvance("x[0]")
        captions = [c for c, _, _ in editor._captions]
        qtbot.waitUntil(lambda: captions[0].width() == row.box.sizeHint().width())
        assert captions[1].width() == row.swatch.sizeHint().width()
    finally:
        qapp.setFont(old)


def test_a_models_long_names_are_shortened_not_widening_the_rows(qtbot: QtBot) -> None:
    """A qualified name is shortened in the middle (both ends kept, whole on hover); the
    ``.grad`` caption keeps its end; the row's least width stays that of a short name."""
    name = "model.layers.0.self_attn.out_proj.bias"
    short = show_panel(qtbot, TensorEditor("x", (3,), RANGE, "x.grad"), 420, 150)
    long = show_panel(qtbot, TensorEditor(name, (3,), RANGE, f"{name}.grad"), 420, 150)
    row = long.sliders[2]
    assert row.labelText() == f"{name}[2]"
    metrics = row.label.fontMetrics()
    assert long.label_width() < metrics.horizontalAdvance(row.labelText())
    shown = row.label.shown_text()
    assert shown.startswith("model") and shown.endswith("[2]") and "…" in shown
    caption = long._captions[1][0]
    assert caption.text().startswith("…") and caption.text().endswith(".grad")
    grow = long.sliders[0].minimumSizeHint().width() - short.sliders[0].minimumSizeHint().width()
    assert grow <= metrics.horizontalAdvance("x" * 14)


def test_each_rows_label_shows_whole_beside_its_slider_never_under_it(qtbot: QtBot) -> None:
    """The label is shortened only when long: a short one shows whole, and the slider
    starts after it (a label given no room by its layout was painted under the slider)."""
    editor = show_panel(qtbot, TensorEditor("x", (3,), RANGE, "x.grad"), 420, 150)
    for row in editor.sliders:
        label_right = row.label.geometry().right()
        assert row.slider.geometry().left() > label_right
        assert row.label.width() >= row.label.fontMetrics().horizontalAdvance(row.labelText())
        assert row.label.shown_text() == row.labelText()
