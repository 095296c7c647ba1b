"""What the sandbox's attack tests share: reading a run's outcome, and a run's end as the
engine's owner process sees it (settings put back, garbage collected)."""

from __future__ import annotations

import gc

from gui.model.engine import pristine
from gui.model.result import RunResult
from tests.corpus.harness import differences, run_in_engine, run_plain


def printed(result: RunResult) -> list[str]:
    return [line.text for line in result.printed]


def assert_refused(result: RunResult, *words: str) -> None:
    """The program was stopped by the Python wall (static check or runtime guard), with a
    message holding each of ``words``."""
    assert result.error is not None, f"not refused; printed: {printed(result)}"
    assert result.error.kind == "unsafe-code", result.error
    for word in words:
        assert word in result.error.message, result.error.message


def assert_same_as_plain(code: str) -> None:
    """The engine's run and plain torch's agree on every number and every printed line."""
    code = "import torch\n" + code
    result = run_in_engine(code)
    assert result.error is None, result.error
    plain = run_plain(code)
    assert plain.error is None, plain.error
    assert differences(result, plain) == []


def between_runs(baseline: pristine.Settings) -> None:
    """What the engine's owner does after answering, before the next run of one program."""
    gc.collect()
    pristine.restore(baseline)
    gc.collect()
