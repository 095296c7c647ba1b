"""Run a tutorial-style snippet twice, through the engine and through plain Python, and
compare every number.

Each snippet in ``snippets/`` starts with two comments: ``# after: ...`` names the source
style it imitates, ``# expect: ...`` says what must happen:

- ``match``: the engine runs it to the end, and every named tensor's value and ``.grad``,
  the output's value and every printed line equal plain torch's, exactly;
  ``match warns <kind>``: and the engine explains a warning of that kind;
- ``explained <kind>``: the engine ends with an explanation of that kind, and plain Python
  raises an error at the same line;
- ``refused``: the engine refuses it (before it runs, or when it reaches the refused thing)
  with one sentence naming what.

An optional third comment, ``# mentions: a | b``, lists words the explanation (of the
error, the warning or the refusal) must contain: the learner's own names, lines and fix.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.request import DEFAULT_SEED, Program, RunRequest
from gui.model.result import RunResult, TensorData
from tests.corpus.plain_client import WorkerEnded, plain_side

SNIPPETS = Path(__file__).parent / "snippets"


@dataclass(frozen=True)
class Snippet:
    name: str
    code: str
    source: str
    expect: str  # "match", "explained", "refused"
    kind: str | None  # the explanation's kind, for "explained"
    warns: str | None = None  # a warning's kind the engine must explain, for "match"
    mentions: tuple[str, ...] = ()  # words the explanation must contain


HEADER_KEYS = ("after", "expect", "mentions")


def snippets() -> list[Snippet]:
    found = []
    for path in sorted(SNIPPETS.glob("*.py")):
        code = path.read_text()
        header = {}
        for line in code.splitlines()[:4]:
            key, colon, value = line[2:].partition(":")
            if line.startswith("# ") and colon and key in HEADER_KEYS:
                header[key] = value.strip()
        expect, _, kind = header["expect"].partition(" ")
        warns = None
        if expect == "match" and kind:
            word, _, warns = kind.partition(" ")
            assert word == "warns", f"{path.name}: `match warns <kind>` expected"
            kind = ""
        mentions = tuple(m.strip() for m in header.get("mentions", "").split(" | ") if m.strip())
        found.append(
            Snippet(path.stem, code, header["after"], expect, kind or None, warns, mentions)
        )
    return found


def run_in_engine(code: str) -> RunResult:
    """The engine's run, as the window makes it: the code's own calls only (no added step)."""
    baseline = pristine.capture()
    # torch warns some things once per process (TORCH_WARN_ONCE); the app runs each program
    # in a fresh process, this test in a shared one: keep the "once" for the tests after.
    torch.set_warn_always(True)
    try:
        return run_program(RunRequest(Program(code=code, steps=()), time_limit=30.0))
    finally:
        pristine.restore(baseline)


@dataclass(frozen=True)
class PlainTensor:
    """A tensor of the plain run: its numbers (``tolist``) and its ``.grad``'s."""

    values: Any
    grad: Any  # None: no gradient
    grad_readable: bool  # False: reading `.grad` raised
    dtype: str
    shape: tuple[int, ...]

    def tolist(self) -> Any:
        return self.values


class PlainError(Exception):
    """The error the plain run raised: its type's name, its message, the snippet's line."""

    def __init__(self, kind: str, message: str, line: int | None) -> None:
        super().__init__(message)
        self.kind = kind
        self.line = line


@dataclass
class PlainRun:
    code: str
    names: tuple[str, ...]  # the dotted names asked for (`model.fc1.weight`)
    namespace: dict[str, PlainTensor]  # every tensor the run reported, by name
    printed: list[str]
    error: PlainError | None


def run_plain(code: str, names: Iterable[str] = ()) -> PlainRun:
    """The snippet as a learner's Python runs it: plain torch, same seeds, in a process
    that never imported the engine (:mod:`tests.corpus.plain_worker`). ``names`` are the
    dotted names to report besides every top-level tensor and layer parameter."""
    names = tuple(names)
    early = _EARLY.pop(code, None)
    if early is not None:
        with contextlib.suppress(WorkerEnded):
            return _plain_run(code, (), early.result())
    return _plain_run(code, names, plain_side.run(_request(code, names)))


def run_plain_early(code: str) -> None:
    """Have the plain side of ``code`` run now, in the background, for :func:`run_plain`
    to take later (the engine side of another snippet runs meanwhile)."""
    if code not in _EARLY:
        _EARLY[code] = plain_side.submit(_request(code, ()))


_EARLY: dict[str, Future[dict[str, Any]]] = {}


def _request(code: str, names: tuple[str, ...]) -> dict[str, Any]:
    return {"code": code, "names": list(names), "seed": DEFAULT_SEED, "time_limit": 120.0}


def _plain_run(code: str, names: tuple[str, ...], reply: dict[str, Any]) -> PlainRun:
    if "crashed" in reply:
        raise AssertionError(f"the plain run crashed: {reply['crashed']}")
    assert not reply["engine_imported"] and reply["native_getitem"], "the plain side is not plain"
    error = reply["error"]
    return PlainRun(
        code,
        names,
        {name: PlainTensor(**info) for name, info in reply["tensors"].items()},
        reply["printed"],
        None if error is None else PlainError(error["type"], error["message"], error["line"]),
    )


def plain_error_line(plain: PlainRun) -> int | None:
    """The snippet's line plain Python raised at (innermost frame of the snippet)."""
    return None if plain.error is None else plain.error.line


def _values(data: TensorData | None) -> Any:
    return None if data is None else data.values


def _same(a: Any, b: Any) -> bool:
    """Exact equality of nested numbers, NaN equal to NaN."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return a == b


def differences(result: RunResult, plain: PlainRun) -> list[str]:
    """Every number (and printed line) the engine and plain Python disagree on."""
    missing = [name for name in result.tensors if name not in plain.namespace]
    if missing and not set(missing) <= set(plain.names):
        plain = run_plain(plain.code, [*plain.names, *missing])  # a fresh run, same numbers
    found = []
    for name, info in result.tensors.items():
        theirs = plain.namespace.get(name)
        if theirs is None:
            found.append(f"{name}: not a tensor in plain Python")
            continue
        if info.value.values is not None and not _same(_values(info.value), theirs.values):
            found.append(f"{name}: value differs")
        if (
            theirs.grad_readable
            and info.value.values is not None
            and not _same(_values(info.grad), theirs.grad)
        ):
            found.append(f"{name}.grad differs")
    # One chunk per print call, its final newline dropped: compare the words, with the
    # addresses Python prints for objects (`<AddBackward0 object at 0x...>`) left out.
    printed = _words(" ".join(chunk.text for chunk in result.printed))
    theirs_printed = _words(" ".join(plain.printed))
    if printed != theirs_printed:
        found.append(f"printed text differs:\n{printed[:40]}\n{theirs_printed[:40]}")
    return found


def _words(text: str) -> list[str]:
    return re.sub(r" at 0x[0-9a-f]+", "", text).split()
