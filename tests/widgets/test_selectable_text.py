"""The ``.grad`` line: drawn and sized like a selectable word-wrapped QLabel, selectable and
copyable like one, and asking for a new layout only when its text needs another room."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QTabWidget, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.widgets.selectable_text import SelectableText
from tests.fixtures import show_panel

TEXTS = (
    "x.grad = [0.2435, -0.1461, 0.3895]",
    "w.grad = None",
    "weights.grad = shape 10x10 · min -1.234 · max 3.456 · mean 0.1234",
    "x.grad = [[0.1234, -0.5678], [1.234, -5.678]]  (from the last run: live is off)",
    "averyveryverylongnamethatcannotwrap.grad = [1.]",
)
LEFT = Qt.MouseButton.LeftButton


def selectable_label(text: str) -> QLabel:
    """What the .grad line was: a word-wrapped label selectable with the mouse."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


@pytest.mark.parametrize("points", [11.0, 11 * 1.45])  # the app's font, presentation mode
def test_it_looks_and_sizes_as_a_selectable_label(qapp: QApplication, points: float) -> None:
    old = qapp.font()
    font = QFont(old)
    font.setPointSizeF(points)
    qapp.setFont(font)
    try:
        for text in TEXTS:
            label, mine = selectable_label(text), SelectableText(text)
            assert mine.sizeHint() == label.sizeHint()
            assert mine.minimumSizeHint() == label.minimumSizeHint()
            for width in (100, 240, 380, 700):
                height = label.heightForWidth(width)
                assert mine.heightForWidth(width) == height, (text, width)
                for extra in (0, 3):  # a layout may give more room than asked for
                    label.resize(width, height + extra)
                    mine.resize(width, height + extra)
                    assert mine.grab().toImage() == label.grab().toImage(), (text, width)
    finally:
        qapp.setFont(old)


class Requests(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def test_it_asks_for_a_layout_only_when_its_text_needs_another_height(qtbot: QtBot) -> None:
    top = QWidget()
    layout = QVBoxLayout(top)
    line = SelectableText("x.grad = [1., 2.]", least_words=("[-8.888e+88],",))
    layout.addWidget(line)
    layout.addStretch(1)
    show_panel(qtbot, top, 200, 400)
    requests = Requests()
    top.installEventFilter(requests)
    quiet = 0
    while quiet < 5:  # let the layout that showing it started finish
        seen = requests.count
        QApplication.processEvents()
        quiet = quiet + 1 if requests.count == seen else 0
    requests.count = 0
    one_line = line.height()
    for i in range(20):  # new numbers, one line each: nothing to lay out again
        line.setText(f"x.grad = [{i}.125, -{i}.5]")
        QApplication.processEvents()
    assert requests.count == 0
    assert line.height() == one_line
    line.setText("x.grad = " + ", ".join(f"{i}.125" for i in range(40)))
    qtbot.waitUntil(lambda: line.height() > 2 * one_line)
    assert line.height() == line.heightForWidth(line.width())
    line.setText("x.grad = [3., 4.]")
    qtbot.waitUntil(lambda: line.height() == one_line)
    assert requests.count >= 2


def test_its_least_width_makes_room_for_the_widest_number_from_the_start(qtbot: QtBot) -> None:
    line = SelectableText("x.grad = [1.]", least_words=("x.grad", "[-8.888e+88],"))
    least = line.minimumSizeHint().width()
    assert least >= line.fontMetrics().horizontalAdvance("[-8.888e+88],")
    for text in ("x.grad = [-1.234e+05]", "x.grad = [0.5]", "x.grad = [-8.888e+88]"):
        line.setText(text)
        assert line.minimumSizeHint().width() == least


def test_the_mouse_selects_and_the_keys_copy(qtbot: QtBot) -> None:
    line = show_panel(qtbot, SelectableText("x.grad = [0.2435, -0.1461]"), 400, 40)
    line.activateWindow()
    qtbot.waitUntil(line.isActiveWindow)
    y = line.height() // 2
    qtbot.mousePress(line, LEFT, pos=QPoint(1, y))
    qtbot.mouseMove(line, QPoint(line.fontMetrics().horizontalAdvance("x.grad") + 1, y))
    qtbot.mouseRelease(line, LEFT, pos=QPoint(line.fontMetrics().horizontalAdvance("x.grad"), y))
    assert line.selectedText() == "x.grad"
    assert line.hasFocus()
    qtbot.keyClick(line, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "x.grad"
    qtbot.keyClick(line, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert line.selectedText() == line.text()
    word = line.fontMetrics().horizontalAdvance("x.grad = [0.2")
    qtbot.mouseDClick(line, LEFT, pos=QPoint(word, y))
    assert line.selectedText() == "0.2435"
    line.setText("x.grad = [1., 2.]")  # new numbers: the selection goes, as in a label
    assert not line.hasSelectedText()


def test_a_click_elsewhere_drops_the_selection(qtbot: QtBot) -> None:
    top = QWidget()
    layout = QVBoxLayout(top)
    line = SelectableText("x.grad = [0.2435]")
    other = QLabel("elsewhere")
    other.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    layout.addWidget(line)
    layout.addWidget(other)
    show_panel(qtbot, top, 300, 100)
    top.activateWindow()
    qtbot.waitUntil(top.isActiveWindow)
    qtbot.mouseClick(line, LEFT, pos=QPoint(3, line.height() // 2))
    qtbot.mouseDClick(line, LEFT, pos=QPoint(3, line.height() // 2))
    assert line.selectedText() == "x"
    qtbot.waitUntil(line.hasFocus)
    qtbot.mouseClick(other, LEFT)
    qtbot.waitUntil(lambda: not line.hasSelectedText())


@pytest.mark.qt_log_ignore(
    r"This plugin does not support raise\(\)", "This plugin does not support grabbing"
)
def test_its_context_menu_copies_and_selects_all(qtbot: QtBot) -> None:
    line = show_panel(qtbot, SelectableText("x.grad = [0.2435]"), 300, 40)
    line.setSelection(0, 6)
    seen: list[tuple[str, bool]] = []

    def look() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        seen.extend((a.text(), a.isEnabled()) for a in menu.actions() if a.text())
        menu.actions()[0].trigger()  # Copy
        menu.close()

    QTimer.singleShot(50, look)
    line.contextMenuEvent(
        _context_event(line, QPoint(5, 5))  # exec() returns once the menu closes
    )
    assert seen == [("&Copy", True), ("Select All", True)]
    assert QGuiApplication.clipboard().text() == "x.grad"


def _context_event(widget: QWidget, pos: QPoint) -> QEvent:
    from PySide6.QtGui import QContextMenuEvent

    return QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, widget.mapToGlobal(pos))


def test_hidden_it_lays_its_text_out_once_shown(qtbot: QtBot) -> None:
    tabs = QTabWidget()
    page = QWidget()
    layout = QVBoxLayout(page)
    line = SelectableText("x.grad = [1.]")
    layout.addWidget(line)
    layout.addStretch(1)
    tabs.addTab(QLabel("shown"), "first")
    tabs.addTab(page, "second")
    show_panel(qtbot, tabs, 200, 400)
    tabs.setCurrentIndex(1)
    qtbot.waitUntil(line.isVisible)
    one_line = line.height()
    tabs.setCurrentIndex(0)
    qtbot.waitUntil(lambda: not line.isVisible())
    line.setText("x.grad = " + ", ".join(f"{i}.125" for i in range(40)))
    assert not line._layouts  # nothing laid out while nobody sees it
    tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: line.height() > 2 * one_line)
    assert line.height() == line.heightForWidth(line.width())


def test_a_long_name_breaks_at_the_line_end_instead_of_widening_the_panel(qtbot: QtBot) -> None:
    """A model's ``model.layers.0.self_attn.out_proj.weight.grad`` is one word: with
    ``break_long_words`` it breaks where the line ends; the widest number stays whole."""
    text = "model.layers.0.self_attn.out_proj.weight.grad = [-0.1234567, 0.5]"
    kept = SelectableText(text, least_words=("-0.1234567,",), break_long_words=True)
    whole = SelectableText(text, least_words=("-0.1234567,",))
    for widget in (kept, whole):
        show_panel(qtbot, widget, 400, 80)
    metrics = kept.fontMetrics()
    name_width = metrics.horizontalAdvance(text.split()[0])
    assert whole.minimumSizeHint().width() >= name_width
    assert kept.minimumSizeHint().width() < name_width / 2
    assert kept.minimumSizeHint().width() >= metrics.horizontalAdvance("-0.1234567,")
    narrow = name_width // 2
    assert kept.heightForWidth(narrow) >= 3 * metrics.height() - 2  # the name in 2+ lines
