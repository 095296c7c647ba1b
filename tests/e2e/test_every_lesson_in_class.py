"""Every shipped lesson as a class uses it, at 1280x720 and in presentation mode at
1024x768: sliders dragged fast, Backward pressed twice without waiting, and then the window
shows exactly what plain PyTorch computes.

Plain PyTorch here is the session's own equivalent script (File > Export) run by a fresh
Python with nothing of the app loaded: the values the sliders ended on, the calls the two
presses added, in order. Its printed ``.grad`` of every leaf must equal the window's, to the
bit, and every panel that shows that gradient must show it (see ``assert_grad_shown``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.model.export.script import plain_script
from gui.resources import lesson_paths
from tests.e2e.conftest import Explorer, assert_grad_shown, open_lesson, press, settle
from tests.fixtures import drag_slider, printed_grads

pytestmark = pytest.mark.slow

CTRL = Qt.KeyboardModifier.ControlModifier
# Right and left and right again, far and fast: each move is a new value while the runs of
# the earlier ones are still in flight.
FAST_DRAG = (6, 14, 25, 37, 48, 30, 11, -4, -15, 3, 19)


@pytest.mark.parametrize(
    ("size", "presentation"),
    [((1280, 720), False), ((1024, 768), True)],
    ids=["1280x720", "1024x768-presentation"],
)
@pytest.mark.parametrize("path", lesson_paths(), ids=lambda p: p.stem)
def test_a_lesson_dragged_fast_and_pressed_twice_shows_plain_torchs_numbers(
    qtbot: QtBot,
    make_explorer: Callable[..., Explorer],
    path: Path,
    size: tuple[int, int],
    presentation: bool,
    tmp_path: Path,
) -> None:
    explorer = make_explorer(size=size)
    window, session = explorer.window, explorer.session
    if presentation:
        window.commands["presentation"].trigger()
    first = open_lesson(qtbot, explorer, path.stem)
    window.controls.setCurrentWidget(window.inputs)
    groups = [g for g in window.inputs.groups.values() if g.editor is not None]
    assert groups, "every lesson has a slider to drag"
    for group in groups:
        assert group.editor is not None
        before = session.snapshot.values.get(group.name)
        drag_slider(qtbot, group.editor.sliders[0].slider, *FAST_DRAG)
        after = session.snapshot.values.get(group.name)
        assert after is not None and after != before, "the drag set a value"

    # Two presses, the second before the first one's result is back.
    for _ in range(2):
        press(qtbot, window, Qt.Key.Key_B, CTRL)
    snapshot = settle(qtbot, session)
    assert not snapshot.stale, "the result shown is the one for what the window shows"

    if first.error is not None:
        # A lesson about an error (old tutorial code): still the same error, at its line.
        assert snapshot.error is not None
        assert (snapshot.error.kind, snapshot.error.line) == (first.error.kind, first.error.line)
        return
    assert snapshot.error is None
    result = snapshot.result
    assert result is not None
    sessions_calls = [step for step in result.steps if step.source == "session"]
    first_calls = [step for step in first.result.steps if step.source == "session"]  # type: ignore[union-attr]
    assert len(sessions_calls) == len(first_calls) + 2, "each press adds one backward call"

    request = session.request()
    script = plain_script(request.program, result, request.zero_grad_after)
    grads = printed_grads(script, tmp_path)
    assert set(grads) == set(result.leaves)
    for name, grad in grads.items():
        shown = snapshot.leaf_grads[name]
        if grad is None:
            assert shown is None, name
            continue
        assert shown is not None and shown.values == grad, name
        if name in window.inputs.groups:
            assert_grad_shown(window, snapshot, name, torch.tensor(grad))
