"""Complex tensors (the autograd notes' complex gradients) run behind the engine's wall,
their numbers cross to the window as plain torch made them, and a complex leaf is shown,
not given sliders that move along one real line."""

from __future__ import annotations

import torch
from pytestqt.qtbot import QtBot

from gui.model.session import Session
from gui.widgets.inputs_panel import InputsPanel
from gui.widgets.leaf_group import LeafGroup
from tests.fixtures import show_panel

CODE = (
    "z = torch.tensor([1+2j, 3-1j], requires_grad=True)\n"
    "w = (z * z.conj()).real.sum() + torch.angle(z).sum()\n"
)


def test_complex_numbers_cross_to_the_window_as_torch_made_them(
    qtbot: QtBot, session: Session
) -> None:
    panel = show_panel(qtbot, InputsPanel(session), 420, 400)
    session.set_code(CODE)
    result = session.snapshot.result
    assert result is not None and result.error is None, result and result.error
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    ((z * z.conj()).real.sum() + torch.angle(z).sum()).backward()
    assert z.grad is not None
    shown = result.tensors["z"]
    assert shown.value.dtype == "complex64" and shown.value.values == z.detach().tolist()
    assert shown.grad is not None and shown.grad.values == z.grad.tolist()
    (group,) = panel.findChildren(LeafGroup)
    assert group.editor is None  # no slider for a complex number
    assert "Complex numbers" in group.note.text() and "1.+2.j" in group.note.text()
