"""A module's attribute read before is handed out again only while the module holds the
same object under that name: what the module holds now is what is judged."""

from __future__ import annotations

import os

import pytest
import torch

from gui.model.engine import guard
from gui.model.engine.refusal import CodeRefusedAtRuntime


def test_a_module_read_is_judged_again_when_the_module_holds_another_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert guard.guarded_getattr(torch, "sin") is torch.sin
    assert guard.guarded_getattr(torch, "sin") is torch.sin  # (handed out as before)
    monkeypatch.setattr(torch, "sin", torch.cos)
    assert guard.guarded_getattr(torch, "sin") is torch.cos
    monkeypatch.setattr(torch, "sin", os.system)
    with pytest.raises(CodeRefusedAtRuntime, match=r"torch\.sin"):
        guard.guarded_getattr(torch, "sin")


def test_a_refused_module_read_stays_refused() -> None:
    for _ in range(2):
        with pytest.raises(CodeRefusedAtRuntime):
            guard.guarded_getattr(torch, "load")


def test_reads_with_effects_of_their_own_are_judged_every_time() -> None:
    assert "apply" in guard._UNCACHED_NAMES and "register_hook" in guard._UNCACHED_NAMES
    guard.guarded_getattr(torch, "ones")
    assert (id(torch), "ones") in guard._MODULE_READS
    guard.forget_verdicts()  # (the allowlist grew: judged again)
    assert (id(torch), "ones") not in guard._MODULE_READS
