"""Tutorial code runs as written: every snippet of ``tests/corpus`` through the engine and
through plain Python, every number compared (see ``tests/corpus/harness.py``)."""

from __future__ import annotations

import collections

import pytest

from gui.model.result import Explanation
from tests.corpus.harness import (
    Snippet,
    differences,
    plain_error_line,
    run_in_engine,
    run_plain,
    run_plain_early,
    snippets,
)

SNIPPETS = snippets()
OUTCOMES: collections.Counter[str] = collections.Counter()
PLAIN_AHEAD = 4


def test_the_corpus_is_large_and_varied() -> None:
    assert len(SNIPPETS) >= 95
    # Snippets 200-260 are learners' mistakes on purpose (autograd's errors, each explained
    # in the learner's names); the rest, the tutorial corpus, is mostly code that runs.
    tutorial = [s for s in SNIPPETS if not 200 <= int(s.name.split("_")[0]) <= 260]
    assert sum(s.expect == "match" for s in tutorial) >= 0.7 * len(tutorial)
    mistakes = [s for s in SNIPPETS if s not in tutorial]
    assert all(s.mentions for s in mistakes), [s.name for s in mistakes if not s.mentions]


def _assert_mentions(snippet: Snippet, explained: Explanation) -> None:
    """The explanation names the learner's own variables, lines and fix."""
    text = " ".join((explained.message, explained.explanation, explained.fix))
    for words in snippet.mentions:
        assert words in text, f"{words!r} not in {text!r}"


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_snippet(snippet: Snippet) -> None:
    # The plain side (a clean process, see tests/corpus/plain_worker.py) of this snippet
    # and the next few runs while the engine runs this one.
    here = SNIPPETS.index(snippet)
    for ahead in SNIPPETS[here : here + PLAIN_AHEAD]:
        if ahead.expect != "refused":
            run_plain_early(ahead.code)
    result = run_in_engine(snippet.code)
    if snippet.expect == "match":
        assert result.error is None, result.error
        plain = run_plain(snippet.code, result.tensors)
        assert plain.error is None, plain.error
        assert differences(result, plain) == []
        if snippet.warns is not None:
            warned = [w for w in result.warnings if w.kind == snippet.warns]
            assert warned, [w.kind for w in result.warnings]
            _assert_mentions(snippet, warned[0])
        else:
            assert not snippet.mentions, "mentions of what? (no warning expected)"
        OUTCOMES["ran and matched"] += 1
    elif snippet.expect == "explained":
        assert result.error is not None, "the engine should have stopped with an explanation"
        assert result.error.kind == snippet.kind, result.error
        plain = run_plain(snippet.code)
        assert plain.error is not None
        assert result.error.line is not None
        assert result.error.line == plain_error_line(plain)
        _assert_mentions(snippet, result.error)
        OUTCOMES["explained"] += 1
    else:
        assert snippet.expect == "refused"
        assert result.error is not None and result.error.kind == "unsafe-code", result.error
        assert result.error.message.count(". ") <= 1  # one sentence naming what and why
        _assert_mentions(snippet, result.error)
        OUTCOMES["refused"] += 1


def test_a_librarys_own_deprecation_is_not_shown() -> None:
    """``torch.func.jacfwd`` warns about ``torch.jit.script``, which it calls itself: the
    learner's Python hides that (DeprecationWarning is shown only for ``__main__``), and so
    does the engine; a deprecation the program's own line triggers would still be shown."""
    code = (
        "import torch\nfrom torch.func import jacfwd\n"
        "print(jacfwd(torch.sin)(torch.ones(3)).shape)\n"
    )
    result = run_in_engine(code)
    assert result.error is None, result.error
    assert [c.text for c in result.printed] == ["torch.Size([3, 3])"]
    assert not [w for w in result.warnings if "deprecated" in w.message]


def test_a_rebound_model_shows_only_the_parameters_it_has() -> None:
    """``model`` rebound to another class's instance: ``model.weights`` of the first one is
    no longer a name the program has, so it is not listed (as in plain Python)."""
    code = (
        "import torch\nfrom torch import nn\n"
        "class A(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.weights = nn.Parameter(torch.ones(2))\n"
        "model = A()\n"
        "loss = model.weights.sum()\n"
        "model = nn.Linear(2, 1)\n"
        "y = model(torch.ones(2)).sum()\n"
    )
    result = run_in_engine(code)
    assert result.error is None, result.error
    assert "model.weights" not in result.tensors
    assert {"model.weight", "model.bias"} <= set(result.tensors)


def test_zz_count(capsys: pytest.CaptureFixture[str]) -> None:
    """Print the tally (runs last in this module)."""
    with capsys.disabled():
        print(f"\ncorpus: {dict(OUTCOMES)} of {len(SNIPPETS)} snippets")
