"""The lesson browser: lessons by number and title, the chosen one's explanation, its
"Try this" prompts and steps, and Open (through the window's own opener)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog
from pytestqt.qtbot import QtBot

from gui.widgets.lesson_browser import LessonBrowser

GOOD = {
    "format": "autograd-explorer/1",
    "title": "Scaling <b>v</b>",
    "notes": "**∂z/∂x = 24x²** and `x.grad`",
    "code": "x = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\n",
    "prompts": ["Drag the sliders for x", "Press Backward twice"],
    "steps": [{"note": "one"}, {"note": "two"}],
}


def write(folder: Path, name: str, data: object) -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def make(qtbot: QtBot, tmp_path: Path, opened: list[Path], answer: bool = True) -> LessonBrowser:
    paths = [
        write(tmp_path, "01-scaling.json", GOOD),
        write(tmp_path, "02-broken.json", {**GOOD, "steps": [{"view": "nowhere"}]}),
        write(tmp_path, "welcome.json", {**GOOD, "title": None, "prompts": [], "steps": None}),
    ]

    def open_lesson(path: Path) -> bool:
        opened.append(path)
        return answer

    browser = LessonBrowser(paths, open_lesson)
    qtbot.addWidget(browser)
    browser.show()
    qtbot.waitExposed(browser)
    return browser


def test_lists_lessons_by_number_and_title_and_shows_the_first(
    qtbot: QtBot, tmp_path: Path
) -> None:
    browser = make(qtbot, tmp_path, [])
    labels = [browser.list.item(i).text() for i in range(browser.list.count())]
    assert labels == ["1  Scaling <b>v</b>", "2  02-broken", "welcome"]
    page = browser.page.toPlainText()
    assert "Scaling <b>v</b>" in page, "a title is shown as written, never as markup"
    assert "∂z/∂x = 24x²" in page and "**" not in page
    assert "Try this" in page and "Press Backward twice" in page
    assert "2 steps" in page
    assert browser.open_button.isEnabled()


def test_a_broken_lesson_shows_its_problem_and_cannot_be_opened(
    qtbot: QtBot, tmp_path: Path
) -> None:
    opened: list[Path] = []
    browser = make(qtbot, tmp_path, opened)
    browser.list.setCurrentRow(1)
    assert "steps[0].view: 'nowhere' is not a view" in browser.page.toPlainText()
    assert not browser.open_button.isEnabled()
    qtbot.keyClick(browser.list, Qt.Key.Key_Return)
    assert opened == []
    browser.list.setCurrentRow(2)
    assert (
        "Try this" not in browser.page.toPlainText() and "steps" not in browser.page.toPlainText()
    )


def test_open_opens_the_chosen_lesson_and_closes(qtbot: QtBot, tmp_path: Path) -> None:
    opened: list[Path] = []
    browser = make(qtbot, tmp_path, opened)
    browser.select_path(tmp_path / "welcome.json")
    assert browser.chosen == tmp_path / "welcome.json"
    qtbot.mouseClick(browser.open_button, Qt.MouseButton.LeftButton)
    assert opened == [tmp_path / "welcome.json"]
    assert browser.result() == QDialog.DialogCode.Accepted and not browser.isVisible()


def test_a_declined_open_keeps_the_browser(qtbot: QtBot, tmp_path: Path) -> None:
    opened: list[Path] = []
    browser = make(qtbot, tmp_path, opened, answer=False)
    qtbot.mouseClick(browser.open_button, Qt.MouseButton.LeftButton)
    assert opened == [tmp_path / "01-scaling.json"] and browser.isVisible()
