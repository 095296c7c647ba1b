"""The demo that broke, played on the whole window: Backward pressed again and again.

A teacher opens lesson 5, presses Backward three times (x.grad accumulates, no error),
unticks retain_graph and presses once more (torch's own "second time" error, placed at the
line that made z and naming the call), then clears the calls. And a learner's own
``y.backward()`` on a vector gets the one-click fixes in the Backward tab. Every number is
checked against plain torch written the ordinary way.
"""

from __future__ import annotations

import pytest
import torch
from pytestqt.qtbot import QtBot

from tests.e2e.conftest import Explorer, assert_grad_shown, open_lesson, settle
from tests.fixtures import V1, V2, X5, click, cube_grad, explanation_text, shown, underlines

pytestmark = pytest.mark.slow


def test_backward_again_and_again_then_the_second_time_error_then_clear(
    qtbot: QtBot, explorer: Explorer
) -> None:
    window, session = explorer.window, explorer.session
    panel = window.backward
    snapshot = open_lesson(qtbot, explorer, "05-gradients-accumulate")
    assert shown(cube_grad(X5, V1, V2)) == "[[43.40, 2.052], [5.406, 18.76]]"
    assert_grad_shown(window, snapshot, "x", cube_grad(X5, V1, V2))
    window.controls.setCurrentWidget(panel)
    assert panel.retain_graph.isChecked(), "automatic: kept while another call follows"

    # Three presses: each adds the last v ([[0, 1], [0, 1]]) once more, no error.
    for presses in (1, 2, 3):
        click(qtbot, panel.backward)
        snapshot = settle(qtbot, session)
        assert snapshot.error is None, f"press {presses}"
        expected = cube_grad(X5, V1, *[V2] * (1 + presses))
        assert_grad_shown(window, snapshot, "x", expected)
        assert panel.status.text().startswith(f"Backward calls: {2 + presses} (accumulating)")
        assert panel.clear.isEnabled()

    # Untick retain_graph on the last call: it frees the graph; the next press fails as
    # torch fails, and the message names the place.
    click(qtbot, panel.retain_graph)
    snapshot = settle(qtbot, session)
    assert snapshot.error is None and not panel.retain_graph.isChecked()
    click(qtbot, panel.backward)
    snapshot = settle(qtbot, session)
    x = torch.tensor(X5, requires_grad=True)
    z = (2 * x) ** 3
    for v in (V1, V2, V2, V2):
        z.backward(torch.tensor(v), retain_graph=True)
    z.backward(torch.tensor(V2), retain_graph=False)
    with pytest.raises(RuntimeError) as raised:
        z.backward(torch.tensor(V2), retain_graph=False)
    error = snapshot.error
    assert error is not None and error.kind == "backward-twice"
    assert error.message == str(raised.value)
    assert error.line == 3 and snapshot.code.splitlines()[2] == "z = y ** 3"
    text = explanation_text(window.editor)
    assert "This is the Backward tab's call 6" in text
    assert "call 5 ran with retain_graph=False" in text
    assert error.message.splitlines()[0] in text
    assert any(line == 3 for line, _, _ in underlines(window.editor)), "the line that made z"
    assert x.grad is not None
    assert_grad_shown(window, snapshot, "x", x.grad)
    assert panel.fixes["retain_graph"].isVisible()

    # Clear steps: back to one call with the current v; the error is gone.
    click(qtbot, panel.clear)
    snapshot = settle(qtbot, session)
    assert snapshot.error is None and snapshot.steps is not None and len(snapshot.steps) == 1
    assert_grad_shown(window, snapshot, "x", cube_grad(X5, V2))
    assert not panel.clear.isEnabled()
    assert panel.status.text().startswith("Backward calls: 1")


def test_the_codes_own_backward_on_a_vector_is_fixed_in_one_click(
    qtbot: QtBot, explorer: Explorer
) -> None:
    # learners.md scenario 2 typed the ordinary way: torch refuses y.backward() on a vector.
    window, session = explorer.window, explorer.session
    open_lesson(qtbot, explorer, "02-backward-of-a-vector")
    code = "x = torch.tensor([3., 4., 10.], requires_grad=True)\ny = x**2\ny.backward()\n"
    window.editor.editor().setPlainText(code)  # as a paste does
    # The editor hands its text over after a short pause, then the run starts.
    qtbot.waitUntil(lambda: session.snapshot.code == code, timeout=5_000)
    snapshot = settle(qtbot, session)
    assert snapshot.error is not None and snapshot.error.line == 3
    assert snapshot.error.message == "grad can be implicitly created only for scalar outputs"
    panel = window.backward
    qtbot.waitUntil(lambda: panel.fixes["sum"].isVisible())
    assert panel.fixes["sum"].text() == "Line 3: y.sum().backward()"
    window.controls.setCurrentWidget(panel)
    click(qtbot, panel.fixes["sum"])
    snapshot = settle(qtbot, session)
    assert snapshot.code.endswith("\ny.sum().backward()\n")
    assert window.editor.editor().toPlainText() == snapshot.code
    assert snapshot.error is None
    x = torch.tensor([3.0, 4.0, 10.0], requires_grad=True)
    (x**2).sum().backward()
    assert x.grad is not None
    assert_grad_shown(window, snapshot, "x", x.grad)
