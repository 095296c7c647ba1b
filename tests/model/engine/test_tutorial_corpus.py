"""Tutorial code runs as written: every snippet of ``tests/corpus`` through the engine and
through plain Python, every number compared (see ``tests/corpus/harness.py``)."""

from __future__ import annotations

import collections

import pytest

from tests.corpus.harness import Snippet, differences, run_in_engine, run_plain, snippets

SNIPPETS = snippets()
OUTCOMES: collections.Counter[str] = collections.Counter()


def test_the_corpus_is_large_and_varied() -> None:
    assert len(SNIPPETS) >= 45
    assert sum(s.expect == "match" for s in SNIPPETS) >= 0.8 * len(SNIPPETS)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_snippet(snippet: Snippet) -> None:
    result = run_in_engine(snippet.code)
    if snippet.expect == "match":
        assert result.error is None, result.error
        plain = run_plain(snippet.code)
        assert plain.error is None, plain.error
        assert differences(result, plain) == []
        OUTCOMES["ran and matched"] += 1
    elif snippet.expect == "explained":
        assert result.error is not None, "the engine should have stopped with an explanation"
        assert result.error.kind == snippet.kind, result.error
        assert result.error.line is not None
        assert run_plain(snippet.code).error is not None
        OUTCOMES["explained"] += 1
    else:
        assert snippet.expect == "refused"
        assert result.error is not None and result.error.kind == "unsafe-code", result.error
        assert result.error.message.count(". ") <= 1  # one sentence naming what and why
        OUTCOMES["refused"] += 1


def test_zz_count(capsys: pytest.CaptureFixture[str]) -> None:
    """Print the tally (runs last in this module)."""
    with capsys.disabled():
        print(f"\ncorpus: {dict(OUTCOMES)} of {len(SNIPPETS)} snippets")
