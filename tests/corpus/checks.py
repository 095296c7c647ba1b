"""Checks the real-code tests share: a program through the engine and through plain torch
(a clean process, :mod:`tests.corpus.plain_client`), compared number by number, refused,
or explained at plain torch's error line."""

from __future__ import annotations

from gui.model.result import Explanation
from tests.corpus.harness import differences, run_in_engine, run_plain


def matches(code: str) -> None:
    """The engine runs ``code`` to the end and every number equals plain torch's."""
    result = run_in_engine(code)
    assert result.error is None, result.error
    plain = run_plain(code, result.tensors)
    assert plain.error is None, plain.error
    assert differences(result, plain) == []


def refused(code: str) -> str:
    """The engine refuses ``code``; its one sentence."""
    result = run_in_engine(code)
    assert result.error is not None and result.error.kind == "unsafe-code", result.error
    return result.error.message


def text(error: Explanation) -> str:
    """An explanation's three texts, joined."""
    return " ".join((error.message, error.explanation, error.fix))


def explained(code: str, kind: str) -> str:
    """The engine's explanation of ``code`` (of ``kind``), checked to stop at the line
    plain torch raises at; its three texts joined."""
    result = run_in_engine(code)
    error = result.error
    assert error is not None, "the engine should have stopped with an explanation"
    assert error.kind == kind, error
    plain = run_plain(code)
    assert plain.error is not None, "plain torch should raise"
    assert error.line == plain.error.line
    return text(error)


def runs_plain(code: str) -> None:
    """Plain torch runs ``code`` without an error (a fix the explanation offers)."""
    plain = run_plain(code)
    assert plain.error is None, plain.error
