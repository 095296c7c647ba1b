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
import io
import random
import re
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.request import DEFAULT_SEED, Program, RunRequest
from gui.model.result import RunResult, TensorData

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


@dataclass
class PlainRun:
    namespace: dict[str, Any]
    printed: list[str]
    error: BaseException | None


def run_plain(code: str) -> PlainRun:
    """The snippet as a learner's Python runs it: plain torch, same seeds."""
    baseline = pristine.capture()
    namespace: dict[str, Any] = {"__name__": "__main__"}
    out = io.StringIO()
    torch.set_warn_always(True)  # see run_in_engine
    torch.manual_seed(DEFAULT_SEED)
    random.seed(DEFAULT_SEED)
    np.random.seed(DEFAULT_SEED % 2**32)  # as the engine seeds numpy's global generator
    error: BaseException | None = None
    try:
        # In a folder of its own: a refused snippet (torch.save, open) really writes here.
        with (
            tempfile.TemporaryDirectory() as folder,
            contextlib.chdir(folder),
            contextlib.redirect_stdout(out),
            _quiet(),
        ):
            exec(compile(code, "<plain>", "exec"), namespace)
    except Exception as exc:
        error = exc
    finally:
        pristine.restore(baseline)
    return PlainRun(namespace, out.getvalue().splitlines(), error)


def plain_error_line(plain: PlainRun) -> int | None:
    """The snippet's line plain Python raised at (innermost frame of the snippet)."""
    line = None
    if plain.error is not None:
        for frame in traceback.extract_tb(plain.error.__traceback__):
            if frame.filename == "<plain>":
                line = frame.lineno
    return line


def _values(data: TensorData | None) -> Any:
    return None if data is None else data.values


def _plain_values(t: torch.Tensor | None) -> Any:
    if t is None:
        return None
    return t.detach().tolist()


def _same(a: Any, b: Any) -> bool:
    """Exact equality of nested numbers, NaN equal to NaN."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return a == b


def differences(result: RunResult, plain: PlainRun) -> list[str]:
    """Every number (and printed line) the engine and plain Python disagree on."""
    found = []
    for name, info in result.tensors.items():
        theirs = _resolve(plain.namespace, name)
        if not isinstance(theirs, torch.Tensor):
            found.append(f"{name}: not a tensor in plain Python")
            continue
        if info.value.values is not None and not _same(_values(info.value), _plain_values(theirs)):
            found.append(f"{name}: value differs")
        with contextlib.suppress(Exception), _quiet():
            plain_grad = theirs.grad
            if info.value.values is not None and not _same(
                _values(info.grad), _plain_values(plain_grad)
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


def _resolve(namespace: dict[str, Any], name: str) -> Any:
    """``model.fc1.weight`` (a parameter's qualified name) or a plain variable's value."""
    first, *rest = name.split(".")
    value = namespace.get(first)
    for part in rest:
        value = getattr(value, part, None)
    return value


@contextlib.contextmanager
def _quiet() -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
