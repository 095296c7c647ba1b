"""One job in the engine's child: the engine's own failures become results, never crashes."""

from __future__ import annotations

import pytest

from gui.model.engine import jobs
from gui.model.request import Program, RunRequest


def test_an_engine_failure_is_reported_as_a_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(request: RunRequest) -> None:
        raise ValueError("boom")

    monkeypatch.setattr("gui.model.engine.run.run_program", broken)
    result = jobs.answer(RunRequest(Program(code="x = 1\n", seed=7)))
    assert result.error is not None and result.error.kind == "engine-error"
    assert "boom" in result.error.message
    assert result.seed == 7
