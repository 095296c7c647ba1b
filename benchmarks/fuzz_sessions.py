"""Fuzz the session loader and the engine with generated files and programs; print figures.

Run: ``.venv/bin/python benchmarks/fuzz_sessions.py [--cases 10000] [--seed 0] [--cli 24]``.

Every case is a session file written to a temporary folder (plus a few special files: a
named pipe, links to ``/dev/zero`` and ``/dev/random``, a folder, a file over the size limit).
Each is read with the window's bounded reader; what loads is saved and read back (a save
must always open again) and run in the engine's child process; a sample goes through the
command line (``main.py FILE --export DIR``, which is ``gui.headless.export_session``).

The figures: how many loaded, how many were refused (with the distinct refusal messages,
each checked to be one clear sentence naming the file), what the engine said (clean runs,
errors explained, crashes of its child), and the two that must stay at zero: tracebacks
(an exception other than a refusal, a refusal that is not one clear sentence, a save that
does not read back) and hangs (a read or a run past its time limit plus a margin).

The generators are shared with ``tests/test_fuzz_sample.py``, which runs a small sample:
mutated lessons, random JSON and session-shaped JSON from ``hypothesis`` strategies, Python
programs from the grammar (``hypothesmith``), and programs from a small grammar of torch
statements that mostly pass the safety check, so the engine gets real work.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pickle
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui.model.engine_process import EngineProcess
from gui.model.request import RunRequest
from gui.model.result import RunResult
from gui.model.session import Document, SessionFileError, load_session, save_session
from gui.model.session.file_format import (
    FORMAT,
    MAX_FILE_BYTES,
    load_session_within,
    session_to_dict,
)
from gui.model.session.file_io import read_in_background
from gui.resources import lesson_paths

ROOT = Path(__file__).resolve().parents[1]
READ_TIMEOUT = 10.0
# A run may take its time limit, the engine's own margins (5 + 5 s) and a respawn.
RUN_MARGIN = 30.0
CLI_TIMEOUT = 180.0
NAMES = ["x", "y", "z", "w", "a", "b", "h", "out", "loss", "v"]


@dataclass(frozen=True)
class Case:
    """One generated input: a session file's bytes (``special`` names a non-file instead)."""

    source: str
    data: bytes = b""
    special: str | None = None


@dataclass
class Tally:
    """What happened to every case; the figures the script prints."""

    cases: int = 0
    by_source: collections.Counter[str] = field(default_factory=collections.Counter)
    loaded: int = 0
    refused: int = 0
    refusals: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: dict[str, str] = field(default_factory=dict)
    ran_clean: int = 0
    explained: collections.Counter[str] = field(default_factory=collections.Counter)
    # The first message of each error kind the engine reported (to read what "other" means).
    error_examples: dict[str, str] = field(default_factory=dict)
    unexplained: int = 0
    engine_crashed: int = 0
    engine_bugs: int = 0
    round_trips: int = 0
    cli: collections.Counter[str] = field(default_factory=collections.Counter)
    tracebacks: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)


# -- generators ------------------------------------------------------------------------------


def lesson_texts() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in lesson_paths()]


def mutated_lessons(rng: random.Random, count: int) -> Iterator[Case]:
    """Lessons with one to three mutations each, on the text or on the parsed object."""
    lessons = lesson_texts()
    for _ in range(count):
        text = rng.choice(lessons)
        for _ in range(rng.randint(1, 3)):
            mutate = _mutate_text if rng.random() < 0.5 else _mutate_object
            text = mutate(rng, text)
        data = text.encode("utf-8", "surrogatepass")
        if rng.random() < 0.05:
            data = _mutate_bytes(rng, data)
        yield Case("mutated lessons", data)


def _mutate_text(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    kind = rng.randrange(-1, 11)
    if kind <= 0:  # deep nesting: around a number (valid JSON), or anywhere
        depth = rng.choice([30, 33, 65, 500, 985, 1000, 5000, 100_000])
        if kind < 0:
            wrap = "[" * depth + r"\g<0>" + "]" * depth
            return re.sub(r"-?\d+(\.\d+)?", wrap, text, count=1)
        return text[:at] + "[" * depth + "1" + "]" * depth * rng.randint(0, 1) + text[at:]
    if kind == 1:  # a number that does not fit 64 bits
        huge = rng.choice(
            ["9" * rng.randint(19, 5000), "1e400", "-1e999", str(2**63), "123456789" * 50 + ".5"]
        )
        return re.sub(r"-?\d+(\.\d+)?", huge, text, count=1)
    if kind == 2:
        return "\ufeff" + text
    if kind == 3:
        return text[: rng.randrange(len(text) + 1)]  # truncated
    if kind == 4:
        end = min(len(text), at + rng.randint(1, 40))
        return text[:at] + text[end:]
    if kind == 5:
        return text[:at] + rng.choice(['"', "{", "}", "[", "]", ",", ":", "\\", "\x00"]) + text[at:]
    if kind == 6:
        return (
            text[:at] + rng.choice(["NaN", "Infinity", "-Infinity", '"nan"', '"inf"']) + text[at:]
        )
    if kind == 7:
        return text.replace('"code": "', '"code": "\\ud800', 1)
    if kind == 8:
        return text.replace('"code": "', '"code": "' + "x = 1\\n" * rng.randint(1, 30_000), 1)
    if kind == 9:
        end = min(len(text), at + rng.randint(1, 200))
        return text[:at] + text[at:end] * rng.randint(2, 5) + text[end:]
    char = chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0x3000)]))
    return text[:at] + char * rng.randint(1, 8) + text[at:]


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(4)
    if kind == 0 and data:
        at = rng.randrange(len(data))
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
    if kind == 1:
        return data.decode("utf-8", "replace").encode("utf-16")
    if kind == 2:
        return b"\xef\xbb\xbf" + data
    return data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))


def _mutate_object(rng: random.Random, text: str) -> str:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # a text mutation made it invalid or too deep
        return text
    if not isinstance(data, dict):
        return text
    key = rng.choice([*data, "values", "backward", "seed", "retain_grad", "output", "title"])
    kind = rng.randrange(9)
    if kind == 0:
        data.pop(key, None)
    elif kind == 1:
        data[rng.choice(["colour", "\n\nfield", "x" * 300, "gradient"])] = 1
    elif kind == 2:
        data[key] = random_value(rng, 3)
    elif kind == 3:
        data["values"] = {rng.choice(NAMES): nested_numbers(rng, rng.randint(0, 40))}
    elif kind == 4:
        data["backward"] = [
            {"gradient": nested_numbers(rng, rng.randint(0, 3)), "retain_graph": rng.random() < 0.5}
            for _ in range(rng.choice([0, 1, 2, 3, 10_001]))
        ]
    elif kind == 5:
        data["seed"] = rng.choice([-1, 2**63, 2**64 + 5, 1.5, "0", 10**400, 7])
    elif kind == 6:
        data[rng.choice(["title", "notes", "output"])] = rng.choice(
            ["t" * rng.randint(100, 30_000), "two\nlines", "for", "a b", "x", "\ud800"]
        )
    elif kind == 7:
        data["code"] = torch_program(rng)
    else:
        data["retain_grad"] = rng.choice([["y"], ["y"] * 1001, ["1y"], "y", [3]])
    return json.dumps(data, ensure_ascii=rng.random() < 0.5)


def nested_numbers(rng: random.Random, dims: int) -> Any:
    """A nested list ``dims`` deep, sometimes ragged, with odd numbers in it."""
    if dims == 0:
        return rng.choice(
            [rng.uniform(-3, 3), rng.randint(-5, 5), "nan", "inf", "-inf", 1e308, 0.0, "one", None]
            if rng.random() < 0.2
            else [round(rng.uniform(-3, 3), 4)]
        )
    width = 1 if dims > 4 else rng.randint(0, 3)
    return [nested_numbers(rng, dims - 1) for _ in range(width)]


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(7 if depth > 0 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 2**63, 10**30, rng.randint(-1000, 1000)])
    if kind == 3:
        return rng.uniform(-1e6, 1e6)
    if kind == 4:
        return "".join(rng.choice('ab \n"\\é🙂') for _ in range(rng.randint(0, 12)))
    if kind == 5:
        return [random_value(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(NAMES): random_value(rng, depth - 1) for _ in range(rng.randint(0, 4))}


# Programs from a small grammar of torch statements: mostly allowed by the safety check, so
# they reach the engine; some fail in torch the ways learners' programs do.
_LEAVES = [
    "torch.randn({shape}, requires_grad=True)",
    "torch.tensor({values}, requires_grad=True)",
    "torch.ones({shape}, requires_grad=True)",
    "tensor({values}, requires_grad=True)",
    "Variable(torch.randn({shape}), requires_grad=True)",
    "torch.zeros({shape})",
    "torch.arange(6.).reshape(2, 3).requires_grad_()",
]
_UNARY = [
    "{a}.sin()", "{a}.exp()", "{a}.relu()", "torch.tanh({a})", "torch.sigmoid({a})",
    "{a} ** 2", "-{a}", "{a}.abs()", "{a}.log()", "{a}.sqrt()", "{a}.sum()", "{a}.mean()",
    "{a}.t()", "{a}.view(-1)", "{a}[0]", "{a}.max()", "{a}.clamp(min=0)", "{a}.detach()",
    "{a}.pow(3)", "torch.where({a} > 0, {a}, {a} * 0.1)", "F.softmax({a}, dim=0)",
    "{a}.reshape(-1, 1)", "{a}.cumsum(0)", "{a} * 2 + 1", "math.pi * {a}",
]  # fmt: skip
_BINARY = [
    "{a} + {b}", "{a} * {b}", "{a} - {b}", "{a} / {b}", "{a} @ {b}", "torch.dot({a}, {b})",
    "torch.cat([{a}, {b}])", "torch.stack([{a}, {b}])", "torch.max({a}, {b})",
]  # fmt: skip
_STATEMENTS = [
    "{a}.backward()", "{a}.backward(retain_graph=True)", "{a}.backward(torch.ones_like({a}))",
    "{a}.sum().backward()", "print({a})", "print({a}.grad)", "{a}.retain_grad()",
    "{a}.grad.zero_()", "{a}.data.zero_()", "{a}.add_(1)",
    "with torch.no_grad():\n    {a} *= 2", "for i in range(3):\n    {a} = {a} * 1.1",
    "if {a}.sum() > 0:\n    {a} = {a} * 2\nelse:\n    {a} = {a} + 1",
    "def f(t):\n    return t * 2\n{a} = f({a})", "{a} = [t * 2 for t in [{a}, {a}]][0]",
    "{a} = (lambda t: t ** 2)({a})", "g = torch.autograd.grad({a}.sum(), {b})",
    "{a} = {a}.sum()\n{a}.backward(create_graph=True)", "print(f'{{{a}}}')",
]  # fmt: skip
_RARE = [
    "while True:\n    pass", "h = torch.zeros(100000, 100000)", "undefined_name + 1",
    "import os", "open('x')", "{a}.__class__", "def r(n):\n    return r(n)\nr(1)",
    "for i in range(10**9):\n    pass", "print('x' * 10)\n" * 3,
    "q = " + "(" * 150 + "1" + ")" * 150,
]  # fmt: skip
_SHAPES = ["()", "2", "3", "2, 2", "2, 3", "3, 2", "1, 1, 2", "1"]


def torch_program(rng: random.Random) -> str:
    """A small program of torch statements over a few named tensors."""
    lines = []
    names: list[str] = []
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(NAMES)
        values = json.dumps(nested_numbers(rng, rng.randint(0, 2))).replace('"', "")
        lines.append(
            f"{name} = " + rng.choice(_LEAVES).format(shape=rng.choice(_SHAPES), values=values)
        )
        names.append(name)
    for _ in range(rng.randint(0, 8)):
        a, b = rng.choice(names), rng.choice(names)
        template = rng.choice(_UNARY) if rng.random() < 0.6 else rng.choice(_BINARY)
        name = rng.choice(NAMES)
        lines.append(f"{name} = " + template.format(a=a, b=b))
        names.append(name)
    for _ in range(rng.randint(0, 3)):
        a, b = rng.choice(names), rng.choice(names)
        pool = _RARE if rng.random() < 0.03 else _STATEMENTS
        lines.append(rng.choice(pool).format(a=a, b=b))
    return "\n".join(lines) + "\n"


def torch_sessions(rng: random.Random, count: int) -> Iterator[Case]:
    """Session files around :func:`torch_program`: values, output, steps, odd numbers."""
    for _ in range(count):
        data: dict[str, Any] = {"format": FORMAT, "code": torch_program(rng)}
        if rng.random() < 0.4:
            data["values"] = {rng.choice(NAMES): nested_numbers(rng, rng.randint(0, 2))}
        if rng.random() < 0.3:
            data["output"] = rng.choice(NAMES)
        if rng.random() < 0.4:
            data["backward"] = [
                {
                    "gradient": rng.choice([None, nested_numbers(rng, rng.randint(0, 2))]),
                    "retain_graph": rng.random() < 0.5,
                    "zero_grad": rng.random() < 0.3,
                    "create_graph": rng.random() < 0.2,
                }
                for _ in range(rng.randint(0, 3))
            ]
        if rng.random() < 0.3:
            data["seed"] = rng.randint(0, 2**63 - 1)
        if rng.random() < 0.2:
            data["retain_grad"] = [rng.choice(NAMES)]
        yield Case("torch programs", json.dumps(data).encode())


def hypothesis_examples(strategy: Any, count: int, seed: int) -> list[Any]:
    """Up to ``count`` values drawn from a ``hypothesis`` strategy, reproducibly."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fixed_seed

    drawn: list[Any] = []

    @fixed_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def draw(value: Any) -> None:
        drawn.append(value)

    draw()
    return drawn[:count]


def json_strategy() -> Any:
    from hypothesis import strategies as st

    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.integers(min_value=-(10**40), max_value=10**40)
        | st.floats()
        | st.text(max_size=20)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
        ),
        max_leaves=40,
    )


def session_strategy() -> Any:
    """Objects shaped like sessions: the right fields, with values of any kind in them."""
    from hypothesis import strategies as st

    anything = json_strategy()
    numbers = st.recursive(
        st.floats() | st.integers() | st.sampled_from(["nan", "inf", "-inf", "x"]),
        lambda inner: st.lists(inner, max_size=4),
        max_leaves=20,
    )
    names = st.sampled_from(NAMES) | st.text(max_size=12)
    step = st.fixed_dictionaries(
        {},
        optional={
            "gradient": numbers | st.none() | anything,
            "retain_graph": st.booleans() | anything,
            "zero_grad": st.booleans(),
            "create_graph": st.booleans(),
            "extra": anything,
        },
    )
    return st.fixed_dictionaries(
        {
            "format": st.just(FORMAT) | st.text(max_size=20),
            "code": st.sampled_from(["x = tensor(1., requires_grad=True)\ny = x * x\n", ""])
            | st.text(max_size=60)
            | anything,
        },
        optional={
            "title": st.text(max_size=300) | anything,
            "notes": st.text(max_size=100),
            "values": st.dictionaries(names, numbers | anything, max_size=3) | anything,
            "output": names | anything,
            "backward": st.lists(step, max_size=4) | anything,
            "seed": st.integers() | anything,
            "retain_grad": st.lists(names, max_size=3) | anything,
        },
    )


def random_json(count: int, seed: int) -> Iterator[Case]:
    rng = random.Random(seed)
    for value in hypothesis_examples(json_strategy(), count, seed):
        yield Case(
            "random JSON",
            json.dumps(value, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass"),
        )


def session_shaped_json(count: int, seed: int) -> Iterator[Case]:
    rng = random.Random(seed)
    for value in hypothesis_examples(session_strategy(), count, seed):
        yield Case(
            "session-shaped JSON",
            json.dumps(value, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass"),
        )


def grammar_programs(count: int, seed: int) -> Iterator[Case]:
    """Python programs from the language's grammar (``hypothesmith``), as session code."""
    import hypothesmith

    for source in hypothesis_examples(hypothesmith.from_grammar(), count, seed):
        data = {"format": FORMAT, "code": source}
        yield Case("grammar programs", json.dumps(data).encode("utf-8", "surrogatepass"))


def special_files() -> list[Case]:
    """Paths that are not session files at all, or too big to be one."""
    cases = [Case("special files", special=s) for s in ("fifo", "folder", "missing")]
    cases += [Case("special files", special=d) for d in ("/dev/zero", "/dev/random", "/dev/null")]
    big = json.dumps({"format": FORMAT, "code": "", "notes": "n" * MAX_FILE_BYTES}).encode()
    cases.append(Case("special files", big))
    return cases


def generate(total: int, seed: int, grammar: int | None = None) -> list[Case]:
    """``total`` cases in fixed proportions (``grammar`` programs capped: they are slow)."""
    rng = random.Random(seed)
    specials = special_files() if os.name == "posix" else []
    rest = max(0, total - len(specials))
    grammar_count = min(rest // 10, 500) if grammar is None else grammar
    shares = {
        "mutated": rest * 40 // 100,
        "json": rest * 15 // 100,
        "sessions": rest * 15 // 100,
        "grammar": grammar_count,
    }
    shares["torch"] = rest - sum(shares.values())
    cases = list(specials)
    cases += mutated_lessons(rng, shares["mutated"])
    cases += random_json(shares["json"], seed)
    cases += session_shaped_json(shares["sessions"], seed + 1)
    cases += grammar_programs(shares["grammar"], seed + 2)
    cases += torch_sessions(rng, shares["torch"])
    return cases


# -- checking --------------------------------------------------------------------------------


_EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception)\b")


def sentence_problem(message: str, path: str) -> str | None:
    """What keeps a refusal from being one clear sentence naming the file, or ``None``."""
    if not message.startswith(f"{path}: "):
        return "does not start with the file's name"
    rest = message[len(path) + 2 :]
    if "\n" in message or "\r" in message:
        return "more than one line"
    if len(rest) > 300:
        return f"{len(rest)} characters long"
    if "Traceback" in message or _EXCEPTION_NAME.search(rest):
        return "names a Python exception"
    if re.search(r"[.!?] [A-Z]", rest.replace("e.g. ", "")):
        return "more than one sentence"
    return None


def template(message: str, path: str) -> str:
    """A refusal with the specifics (file, quoted values, numbers) taken out, for counting."""
    text = message.replace(path, "<file>")
    text = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "'…'", text)
    text = re.sub(r"\[\d+\]", "[i]", text)
    text = re.sub(r"\d[\d,.]*(e[+-]?\d+)?", "N", text)
    return re.sub(r"values\.\w+", "values.<name>", text)


def materialize(case: Case, folder: Path, index: int) -> Path:
    """The path to read for ``case``: a written file, or the special thing it names."""
    path = folder / f"case-{index}.json"
    if case.special == "fifo":
        os.mkfifo(path)
    elif case.special == "folder":
        path.mkdir()
    elif case.special == "missing":
        pass
    elif case.special is not None:
        path.symlink_to(case.special)
    else:
        path.write_bytes(case.data)
    return path


def check_load(case: Case, path: Path, tally: Tally) -> Document | None:
    """Read ``path`` as the window does; count the outcome; the document if it loaded."""
    tally.cases += 1
    tally.by_source[case.source] += 1
    started = time.monotonic()
    try:
        document = load_session_within(path, READ_TIMEOUT)
    except SessionFileError as exc:
        message = str(exc)
        if "did not answer within" in message:
            tally.hangs.append(f"read of {case.source} case {path.name}")
            return None
        tally.refused += 1
        problem = sentence_problem(message, str(path))
        if problem is not None:
            tally.tracebacks.append(f"unclear refusal ({problem}): {message[:300]!r}")
        shape = template(message, str(path))
        tally.refusals[shape] += 1
        tally.examples.setdefault(shape, message.replace(str(path), path.name))
        return None
    except BaseException:
        tally.tracebacks.append(f"load of {case.source} {path.name}: {traceback.format_exc()}")
        return None
    if time.monotonic() - started > READ_TIMEOUT:
        tally.hangs.append(f"slow read of {path.name}")
    tally.loaded += 1
    return document


def check_round_trip(document: Document, folder: Path, tally: Tally) -> None:
    """What loaded must save, and what saved must load back the same."""
    path = folder / "round-trip.json"
    try:
        pickle.loads(pickle.dumps(document))  # what crosses to the engine
        save_session(document, path)
        again = load_session(path)
        if json.dumps(session_to_dict(again)) != json.dumps(session_to_dict(document)):
            tally.tracebacks.append(f"round trip changed the document: {path.read_text()[:300]}")
        else:
            tally.round_trips += 1
    except BaseException:
        tally.tracebacks.append(f"save or reload failed: {traceback.format_exc()}")


class Runner:
    """Runs documents in one engine process, each within a deadline; a stuck engine is
    counted as a hang and replaced."""

    def __init__(self, engine: EngineProcess | None = None, time_limit: float = 0.5) -> None:
        self._own = engine is None
        self.engine = engine or EngineProcess()
        self.time_limit = time_limit

    def run(self, document: Document, tally: Tally, name: str) -> None:
        request = RunRequest(document.program, time_limit=self.time_limit)
        future: Future[RunResult] = read_in_background(lambda: self.engine.run(request))
        try:
            result = future.result(self.time_limit + RUN_MARGIN)
        except TimeoutError:
            tally.hangs.append(f"engine run of {name}")
            self.engine = EngineProcess()  # the stuck one is abandoned, not waited for
            self._own = True
            return
        except BaseException:
            tally.tracebacks.append(f"engine run of {name}: {traceback.format_exc()}")
            return
        error = result.error
        if error is not None:
            tally.error_examples.setdefault(error.kind, " ".join(error.message.split())[:160])
        if error is None:
            tally.ran_clean += 1
        elif error.kind == "engine-crashed":
            tally.engine_crashed += 1
        elif error.kind == "engine-error":  # explained as "a bug in the app": worth a look
            tally.engine_bugs += 1
        elif error.explanation and error.fix:
            tally.explained[error.kind] += 1
        else:
            tally.unexplained += 1

    def close(self) -> None:
        if self._own:
            self.engine.close()


def check_cli(path: Path, out: Path, tally: Tally) -> None:
    """``main.py FILE --export DIR``: 0 with the files, or 2 with one ``error:`` line."""
    try:
        done = subprocess.run(
            [sys.executable, str(ROOT / "main.py"), str(path), "--export", str(out)],
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            cwd=ROOT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        tally.hangs.append(f"command line on {path.name}")
        return
    errors = [line for line in done.stderr.splitlines() if not line.startswith("Fontconfig")]
    if "Traceback" in done.stderr:
        tally.tracebacks.append(f"command line on {path.name}: {done.stderr[-2000:]}")
    elif done.returncode == 0 and (out / "result.json").exists():
        tally.cli["exit 0, files written"] += 1
    elif done.returncode == 2 and len(errors) == 1 and errors[0].startswith("error: "):
        tally.cli["exit 2, one error line"] += 1
    else:
        tally.tracebacks.append(
            f"command line on {path.name}: exit {done.returncode}, stderr {done.stderr[-500:]!r}"
        )


def fuzz(
    cases: list[Case],
    folder: Path,
    runner: Runner,
    cli_sample: int = 0,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Tally:
    """Every case through the loader, the save round trip and the engine; a sample through
    the command line."""
    tally = Tally()
    loaded: list[Path] = []
    refused: list[Path] = []
    for index, case in enumerate(cases):
        path = materialize(case, folder, index)
        document = check_load(case, path, tally)
        if document is not None:
            loaded.append(path)
            check_round_trip(document, folder, tally)
            runner.run(document, tally, f"{case.source} {path.name}")
        elif case.special is None:
            refused.append(path)
        if progress is not None:
            progress(index + 1)
    rng = random.Random(seed)
    half = cli_sample // 2
    sample = rng.sample(refused, min(len(refused), cli_sample - half))
    sample += rng.sample(loaded, min(len(loaded), half))
    for number, path in enumerate(sample):
        check_cli(path, folder / f"export-{number}", tally)
    return tally


# -- the report ------------------------------------------------------------------------------


def report(tally: Tally, seconds: float, seed: int) -> str:
    lines = [
        f"fuzz_sessions: {tally.cases:,} cases (seed {seed}) in {seconds:.0f} s",
        "  sources:   " + ", ".join(f"{k} {v:,}" for k, v in tally.by_source.items()),
        f"  loaded:    {tally.loaded:,} (saved and read back the same: {tally.round_trips:,})",
        f"  refused:   {tally.refused:,}, {len(tally.refusals)} distinct messages "
        "(all one sentence naming the file, unless counted as tracebacks below)",
        f"  engine:    ran clean {tally.ran_clean:,}; errors explained "
        f"{sum(tally.explained.values()):,}; unexplained {tally.unexplained:,}; "
        f"child crashed (explained) {tally.engine_crashed:,}; the engine's own bugs "
        f"(explained as such) {tally.engine_bugs:,}",
        "             explained by kind: "
        + ", ".join(f"{k} {v:,}" for k, v in tally.explained.most_common()),
        "  command line sample: "
        + (", ".join(f"{k}: {v}" for k, v in tally.cli.items()) or "none"),
        f"  tracebacks: {len(tally.tracebacks)}",
        f"  hangs:      {len(tally.hangs)}",
        "  refusal messages (count, an example):",
    ]
    for shape, count in tally.refusals.most_common():
        lines.append(f"    {count:6,}  {tally.examples[shape]}")
    lines.append("  engine error kinds (an example message each):")
    for kind, message in sorted(tally.error_examples.items()):
        lines.append(f"    {kind}: {message}")
    for problem in tally.tracebacks[:10] + tally.hangs[:10]:
        lines.append("  PROBLEM: " + problem)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cli", type=int, default=24, help="cases run through main.py --export")
    parser.add_argument("--grammar", type=int, default=None, help="hypothesmith programs")
    parser.add_argument("--time-limit", type=float, default=0.5)
    args = parser.parse_args()
    started = time.monotonic()
    cases = generate(args.cases, args.seed, args.grammar)
    print(f"generated {len(cases):,} cases in {time.monotonic() - started:.0f} s", flush=True)
    runner = Runner(time_limit=args.time_limit)
    runner.engine.start()

    def progress(done: int) -> None:
        if done % 1000 == 0:
            print(f"  {done:,} done after {time.monotonic() - started:.0f} s", flush=True)

    with tempfile.TemporaryDirectory(prefix="fuzz-sessions-") as folder:
        try:
            tally = fuzz(cases, Path(folder), runner, args.cli, args.seed, progress)
        finally:
            runner.close()
    print(report(tally, time.monotonic() - started, args.seed))
    if tally.tracebacks or tally.hangs:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
