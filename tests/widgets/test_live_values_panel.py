"""Explore mode's values tab: the live graph's leaves and their .grad, read-only, following
the session (one Backward press more: the text shows the added-up gradient)."""

from __future__ import annotations

import torch
from pytestqt.qtbot import QtBot
from torch import nn

from gui.model.engine.live import LiveGraph
from gui.model.engine.live_names import named_sources
from gui.model.request import BackwardStep, Program
from gui.model.session import Document, Session
from gui.model.views.live_values import READ_ONLY_REASON, values_text
from gui.widgets.live_values_panel import LiveValuesPanel
from tests.fixtures import show_panel


def test_the_panel_shows_each_leaf_and_follows_backward_presses(qtbot: QtBot) -> None:
    torch.manual_seed(5)
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    loss = model(torch.randn(3, 2)).sum()
    graph = LiveGraph(loss, "loss", named_sources(None, model, None))
    session = Session(graph.run)
    panel = show_panel(qtbot, LiveValuesPanel(session), 420, 500)
    session.load(Document(Program(code="# explored", steps=(BackwardStep(),))))
    text = panel.text.toPlainText()
    assert text == values_text(session.snapshot.result)
    assert text.startswith("0.weight   (2, 2)  float32\n  value  [[")
    assert panel.reason.text() == READ_ONLY_REASON and panel.text.isReadOnly()
    (expected,) = torch.autograd.grad(loss, model[2].bias, retain_graph=True)
    first = session.snapshot.leaf_grads["2.bias"]
    assert first is not None and torch.allclose(torch.tensor(first.values), expected)
    session.backward()  # a second call: 2.bias.grad doubles
    after = panel.text.toPlainText()
    assert after == values_text(session.snapshot.result) and after != text
    grad = session.snapshot.leaf_grads["2.bias"]
    assert grad is not None and torch.allclose(torch.tensor(grad.values), 2 * expected)
