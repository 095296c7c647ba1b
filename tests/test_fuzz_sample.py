"""A small sample of ``benchmarks/fuzz_sessions.py``: the same generators and checks, seconds.

Every generated session file is read as the window reads it, what loads is saved and read
back and run in the engine, two go through the command line; no traceback and no hang.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.fuzz_sessions import Runner, fuzz, generate, report, sentence_problem
from gui.model.engine_process import EngineProcess

pytestmark = pytest.mark.slow


def test_a_sample_of_generated_sessions_gives_no_traceback_and_no_hang(
    tmp_path: Path, engine_process: EngineProcess
) -> None:
    cases = generate(300, seed=1, grammar=10)
    assert len(cases) == 300
    tally = fuzz(cases, tmp_path, Runner(engine_process, time_limit=0.5), cli_sample=2, seed=1)
    text = report(tally, 0.0, 1)
    assert tally.tracebacks == [], text
    assert tally.hangs == [], text
    assert set(tally.by_source) >= {
        "mutated lessons",
        "random JSON",
        "session-shaped JSON",
        "grammar programs",
        "torch programs",
    }
    assert tally.loaded > 50 and tally.refused > 50, text
    assert tally.round_trips == tally.loaded, text
    assert tally.ran_clean + sum(tally.explained.values()) > 50, text
    assert tally.unexplained == 0, text
    assert sum(tally.cli.values()) == 2, text


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ("f.json: values.x: expected a number", None),
        ("values.x: expected a number", "does not start with the file's name"),
        ("f.json: bad\nsecond line", "more than one line"),
        ("f.json: RecursionError: maximum recursion depth", "names a Python exception"),
        ("f.json: bad. Try again", "more than one sentence"),
        ("f.json: " + "x" * 301, "301 characters long"),
    ],
)
def test_the_clear_sentence_check_catches_what_it_should(message: str, problem: str | None) -> None:
    assert sentence_problem(message, "f.json") == problem
