"""Round 7's red team, the window's side: answers of a sweep shaped to freeze the function
view, hostile lesson steps and Markdown, and program-chosen names in the exported
pictures. Each test is an attack that worked before its fix, or one that held."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from gui.model.engine.run import run_program
from gui.model.engine.sweep import sweep_program
from gui.model.request import Program, SweepRequest
from gui.model.result import SweepResult
from gui.model.session import Session
from gui.model.session.document import Document
from gui.model.session.file_format import parse_session
from gui.model.session.function_view import MISMATCHED_ANSWER
from gui.widgets.function_panel import FunctionPanel
from gui.widgets.lesson_browser import LessonBrowser
from gui.widgets.lesson_step_bar import LessonStepBar
from tests.fixtures import show_panel
from tests.widgets.hostile_text import PipeTripwire, hover_everything, rich_labels

# Offscreen, a tooltip cannot be raised: Qt says so, and that is all it says.
quiet_tooltips = pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)")


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[PipeTripwire]:
    tripwire = PipeTripwire(tmp_path)
    yield tripwire
    tripwire.close()


CODE = "x = torch.tensor(1.0, requires_grad=True)\ny = x * x\n"
MANY = 20_000


def _zigzag(request: SweepRequest) -> SweepResult:
    # What a process past the Python wall could answer: within the pipe's size limit, and
    # every field of the right type, but 20,000 crossing segments to stroke on each paint.
    xs = tuple(float(i % 7) for i in range(MANY))
    ys = tuple(float(i) for i in range(MANY))
    return SweepResult(request.leaf, request.index, xs, ys, ys, ys, done=MANY)


def _ragged(request: SweepRequest) -> SweepResult:
    return SweepResult(request.leaf, request.index, (1.0, 2.0, 3.0), (1.0,), (), done=3)


def _elsewhere(request: SweepRequest) -> SweepResult:
    return SweepResult("other", request.index + 5, (1.0,), (1.0,), (1.0,), done=1)


@pytest.mark.parametrize("sweep", [_zigzag, _ragged, _elsewhere])
def test_a_sweep_answer_not_shaped_as_asked_is_not_drawn(qtbot: QtBot, sweep: object) -> None:
    session = Session(run_program, sweep=sweep)  # type: ignore[arg-type]
    session.load(Document(Program(code=CODE)))
    started = time.perf_counter()
    panel = show_panel(qtbot, FunctionPanel(session), 600, 600)
    panel.grab()
    # Before: the 20,000 points were drawn (1.7 s a paint, again on every resize).
    assert time.perf_counter() - started < 1.0
    assert panel.frame.xs == ()
    assert MISMATCHED_ANSWER in panel.frame.notes


def test_an_honest_answer_is_still_drawn(qtbot: QtBot) -> None:
    def honest(request: SweepRequest) -> SweepResult:
        xs = request.samples
        return SweepResult(request.leaf, request.index, xs, xs, xs, done=len(xs))

    session = Session(run_program, sweep=honest)
    session.load(Document(Program(code=CODE)))
    panel = show_panel(qtbot, FunctionPanel(session), 600, 600)
    assert len(panel.frame.xs) > 2 and panel.frame.values == panel.frame.xs
    assert MISMATCHED_ANSWER not in panel.frame.notes


# -- lesson files: Markdown and HTML that would make Qt load what it names -------------------


def _hostile_lesson(img: str, path: str) -> dict[str, object]:
    variants = [
        img,
        f"**{img}**",
        f"*{img}*",
        f"`{img}`",
        f"- {img}",
        f"<style>p {{ background-image: url({path}) }}</style>",
        f'<link rel="stylesheet" href="{path}">',
        f'<a href="file://{path}">link</a> &lt;img src="{path}"&gt;',
        f"\\*{img}\\`",
    ]
    notes = "\n\n".join(variants)
    return {
        "format": "autograd-explorer/1",
        "title": img,
        "notes": notes,
        "code": "x = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\n",
        "prompts": [img, f"**{img}**", f"`{img}`"],
        "steps": [{"note": v, "select": img[:200]} for v in variants],
    }


@quiet_tooltips
def test_a_hostile_lesson_loads_nothing_in_the_browser_or_the_step_bar(
    qtbot: QtBot, tmp_path: Path, pipe: PipeTripwire, session: Session
) -> None:
    good = tmp_path / "01-hostile.json"
    good.write_text(json.dumps(_hostile_lesson(pipe.img, str(pipe.path))), encoding="utf-8")
    broken = tmp_path / "02-broken.json"
    broken.write_text(
        json.dumps({**_hostile_lesson(pipe.img, str(pipe.path)), "steps": [{"view": pipe.img}]}),
        encoding="utf-8",
    )
    browser = LessonBrowser([good, broken], lambda _path: False)
    qtbot.addWidget(browser)
    browser.show()
    qtbot.waitExposed(browser)
    for row in range(browser.list.count()):
        browser.list.setCurrentRow(row)
        browser.grab()
        hover_everything(browser)
    assert pipe.img in browser.page.toPlainText() or "not a view" in browser.page.toPlainText()
    previous, following = QAction("Previous"), QAction("Next")
    following.triggered.connect(session.next_lesson_step)
    bar = LessonStepBar(previous, following)
    qtbot.addWidget(bar)
    session.changed.connect(bar.render)
    bar.resize(900, 200)
    bar.show()
    qtbot.waitExposed(bar)
    session.load(parse_session(good.read_text(encoding="utf-8")))
    count = 9  # the variants, one step each
    for number in range(count):
        session.go_to_lesson_step(number)
        bar.grab()
        hover_everything(bar)
    assert bar.counter.text() == f"Step {count} of {count}"
    assert pipe.opens() == 0
    assert rich_labels(browser, pipe.img) == [] and rich_labels(bar, pipe.img) == []


@quiet_tooltips
def test_a_samples_error_and_a_parameters_name_show_as_text(
    qtbot: QtBot, pipe: PipeTripwire
) -> None:
    code = (
        "m = torch.nn.Sequential()\n"
        f"m.add_module({pipe.img!r}, torch.nn.Linear(1, 1))\n"
        "y = m(torch.ones(1)).sum()\n"
        "if m[0].weight.item() > 0:\n"
        f"    raise ValueError({pipe.img!r})\n"
    )
    session = Session(run_program, sweep=sweep_program)
    session.load(Document(Program(code=code)))
    panel = show_panel(qtbot, FunctionPanel(session), 600, 600)
    panel.grab()
    hover_everything(panel)
    combo = panel.element_combo
    assert any(pipe.img in combo.itemText(i) for i in range(combo.count()))
    assert any(pipe.img in note for note in panel.frame.notes) or pipe.img in panel.frame.message
    assert pipe.opens() == 0
    assert rich_labels(panel, pipe.img) == []
