"""Session files: the JSON format documented in ``docs/session-format.md``.

A session file may come from anyone (a teacher opens what students send), so reading it is
strict and bounded: every way a file can be wrong ends in one :class:`SessionFileError`
whose message is one sentence naming the file, the field and what to do, never a traceback
and never a hang. In order:

- the file is opened without blocking and must be a regular file of at most
  :data:`MAX_FILE_BYTES` (:mod:`.file_io`), in UTF-8 (a byte-order mark is accepted);
- the text may nest at most :data:`MAX_NESTING` levels, checked *before* ``json`` parses it:
  deeper files would overflow the parser's recursion (about 1,000 levels) or, a little
  shallower, pickling when the values cross to the engine;
- numbers must fit 64 bits: an integer outside int64 or a float beyond float64 (``1e400``,
  which ``json`` would silently make infinite) is refused naming its field;
- fields have their types and sane sizes (:data:`MAX_DIMENSIONS`, :data:`MAX_NAME_CHARS`...);
- no object names a key twice (``json`` would keep the last without a word), values and
  gradients are rectangular (no ragged rows), the code holds no bidirectional override
  that would make it read in another order than it runs, and the title no control
  character.

Non-finite numbers are written as the strings ``"nan"``, ``"inf"`` and ``"-inf"`` where a
number goes (as in ``result.json``), and read back; JSON has no literal for them.

Writing is atomic and keeps links and permissions (:func:`.file_io.write_atomically`), and
only writes what :func:`parse_session` accepts, so a saved file always opens again.
"""

from __future__ import annotations

import errno
import json
import keyword
import math
import os
import re
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from gui.model.request import DEFAULT_SEED, BackwardStep, Program
from gui.model.result import NestedValues
from gui.model.session import file_io, lesson_format
from gui.model.session.document import Document
from gui.model.session.lesson import LessonExtras
from gui.model.visible_text import EDITOR_LINE_BREAKS, INDENT_RESETS, REORDERING_CONTROLS

FORMAT = "autograd-explorer/1"
APP_NAME = "Autograd Explorer"
MAX_FILE_BYTES = 2 * 1024 * 1024
# JSON nesting, counted over the whole file. The deepest a valid session goes is a gradient:
# object > backward list > step > MAX_DIMENSIONS lists; 64 leaves room for a clear
# per-field message below the parser's and pickle's recursion limits (about 1,000).
MAX_NESTING = 64
# A tensor of more dimensions is not a teaching example (torch itself stops at 64).
MAX_DIMENSIONS = 32
MAX_NAME_CHARS = 100
MAX_TITLE_CHARS = 200
MAX_NOTES_CHARS = 20_000
MAX_CODE_CHARS = 100_000
MAX_NAMES = 1_000
MAX_STEPS = 10_000
# How long the window (and the command line) waits for a file before giving up on it: a
# file on an unreachable network folder can block a read for minutes.
READ_TIMEOUT_SECONDS = 10.0
# A locked colour scale: every magnitude a float32 gradient has (1.4e-45 to 3.4e38) with
# room to spare. Far below it (1e-307, subnormals) the plots' pixel coordinates became
# infinite and Qt crashed the window at the first paint.
LOCKED_SCALE_RANGE = (1e-100, 1e100)
INT64 = (-(2**63), 2**63 - 1)
NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
# What Python's own json.dump writes for them: accepted too, files made by scripts load.
NON_FINITE_CONSTANTS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}

_TOP_FIELDS = {
    "format",
    "title",
    "notes",
    "code",
    "values",
    "output",
    "backward",
    "seed",
    "retain_grad",
    "scale_lock",
    "locked_scale",
    *lesson_format.FIELDS,
}
_STEP_FIELDS = {"gradient", "retain_graph", "zero_grad", "create_graph"}
# A JSON string (escapes included), to skip brackets inside strings when measuring nesting.
# The closing quote is optional: a string that never ends runs to the end of the text (as
# the parser reads it too). Required, an unterminated string made the pattern fail after
# scanning to the end and start again at the next quote: '"' + '\\"' * 10**6 took hours,
# holding the GIL (the window froze while "reading in the background").
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")
_SURROGATE = re.compile("[\ud800-\udfff]")
# What a one-line title must not hold: C0/C1 controls (NUL, terminal escapes) and the
# reordering controls (visible_text; a title "lesson\u202enosj.exe" reads "lessonexe.json").
_TITLE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NEWER_FORMAT = re.compile(r"autograd-explorer/([0-9]{1,6})")
_LINE_BREAK = re.compile(r"[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
T = TypeVar("T")


class SessionFileError(ValueError):
    """A session file that cannot be used.

    ``problem`` says what is wrong (starting with the field's path when a field is) and,
    where it is not obvious, what to do; ``source`` names the file. ``str()`` is the one
    sentence a person reads: ``"lesson.json: backward[1].retain_graph: expected true or
    false, got a string"``.
    """

    def __init__(self, problem: str, source: str | None = None) -> None:
        super().__init__(f"{source}: {problem}" if source else problem)
        self.problem = problem
        self.source = source


@dataclass(frozen=True)
class _TooBig:
    """A number as written in the file that does not fit 64 bits (decided by its field)."""

    text: str
    integer: bool

    def describe(self) -> str:
        digits = self.text.lstrip("-")
        if self.integer and len(digits) > 20:
            return f"the {len(digits)}-digit integer {self.text[:12]}…"
        return self.text if len(self.text) <= 24 else f"{self.text[:20]}…"


# -- reading ---------------------------------------------------------------------------------


def load_session(path: str | os.PathLike[str]) -> Document:
    """Read and validate a session file; raise :class:`SessionFileError` if unusable.

    Never blocks on a special file (pipe, device) and never reads more than
    :data:`MAX_FILE_BYTES`; see :func:`load_session_within` for paths that may not answer.
    """
    source = os.fspath(path)
    try:
        raw = file_io.read_regular_file(path, MAX_FILE_BYTES)
    except file_io.NotARegularFile as exc:
        raise SessionFileError(
            f"cannot open it: it is {exc.kind}, not a session file (choose a .json file)",
            source,
        ) from None
    except file_io.FileTooLarge:
        raise SessionFileError(
            f"the file holds more than {_size(MAX_FILE_BYTES)}, the most a session file may "
            "hold (is it really a session file?)",
            source,
        ) from None
    except OSError as exc:
        raise SessionFileError(f"cannot read it: {_os_reason(exc)}", source) from None
    except MemoryError:
        raise SessionFileError(
            "there is not enough memory to read it; close other programs and try again", source
        ) from None
    try:
        text = raw.decode("utf-8-sig")  # "-sig": a byte-order mark from Windows editors is fine
    except UnicodeDecodeError as exc:
        raise SessionFileError(
            f"the file is not UTF-8 text (byte {exc.start} is not valid); save it as UTF-8",
            source,
        ) from None
    return parse_session(text, source=source)


def load_session_within(
    path: str | os.PathLike[str], timeout: float = READ_TIMEOUT_SECONDS
) -> Document:
    """:func:`load_session` on a background thread, given up after ``timeout`` seconds.

    For a path that may never answer (a network folder that went away): the caller gets a
    :class:`SessionFileError` in time, and the stuck read ends (or not) on its own thread.
    """
    return wait_for(file_io.read_in_background(lambda: load_session(path)), path, timeout)


def wait_for(
    future: Future[T], path: str | os.PathLike[str], timeout: float = READ_TIMEOUT_SECONDS
) -> T:
    """The value of a background read of ``path``; a refusal if it takes over ``timeout``."""
    try:
        return future.result(timeout)
    except FutureTimeout:
        raise not_answering(path, timeout) from None


def not_answering(path: str | os.PathLike[str], timeout: float) -> SessionFileError:
    """The refusal for a file that did not answer in ``timeout`` seconds."""
    return SessionFileError(
        f"the file did not answer within {timeout:g} seconds (a network folder that is "
        "not reachable?); copy it to this computer and open the copy",
        os.fspath(path),
    )


def parse_session(text: str, source: str | None = None) -> Document:
    """Validate the JSON text of a session; raise :class:`SessionFileError` if unusable.

    ``source`` (the file's name) starts every message; without it a message starts with
    the field's path.
    """
    data = parse_json(text, source)
    if not isinstance(data, dict):
        raise SessionFileError(
            f"a session file is a JSON object ({{...}}), not {_kind(data)}", source
        )
    try:
        return session_from_dict(data)
    except SessionFileError as exc:
        raise SessionFileError(exc.problem, source) from None


def parse_json(text: str, source: str | None = None) -> Any:
    """JSON text to Python values, bounded: nesting checked first, 64-bit numbers only.

    Numbers that do not fit 64 bits come back as placeholders that the field checks refuse
    by name (``json`` alone would turn ``1e400`` into infinity and spend seconds on a
    100,000-digit integer).
    """
    text = text.removeprefix("\ufeff")
    depth = nesting_depth(text, MAX_NESTING)
    if depth > MAX_NESTING:
        raise SessionFileError(
            f"the JSON nests more than {MAX_NESTING} levels deep; a session file needs far "
            f"fewer (a value has at most {MAX_DIMENSIONS} dimensions)",
            source,
        )
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=NON_FINITE_CONSTANTS.__getitem__,
            object_pairs_hook=_object_without_duplicates,
        )
    except json.JSONDecodeError as exc:
        raise SessionFileError(
            f"the file is not valid JSON ({exc.msg.removesuffix(' at')}: line {exc.lineno}, "
            f"column {exc.colno})",
            source,
        ) from None
    except (RecursionError, MemoryError):
        raise SessionFileError(
            "the file is too complex to read; a session file is a small JSON object", source
        ) from None


class _Duplicate(dict[str, Any]):
    """An object that named a key twice: ``key`` is the first repeated one.

    Refused by the field checks (which know the path to it), never used: ``json`` alone
    keeps the last value without a word, so a reviewer reading the file (or an editor
    folding it) sees one ``"code"`` and the app runs another.
    """

    def __init__(self, pairs: list[tuple[str, Any]], key: str) -> None:
        super().__init__(pairs)
        self.key = key


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return _Duplicate(pairs, key)
        seen.add(key)
    return dict(pairs)


def _refuse_duplicate(value: object, where: str) -> None:
    """Refuse an object that named a key twice; ``where`` is the object's own path."""
    if isinstance(value, _Duplicate):
        field = _field(value.key)
        raise SessionFileError(
            f"{f'{where}.' if where else ''}{field}: written twice in the same object; keep one "
            "(which one was meant is not clear)"
        )


def nesting_depth(text: str, limit: int) -> int:
    """How deep ``text``'s brackets nest (outside strings), as far as ``limit`` matters.

    At most ``limit`` when the text nests no deeper (then it may be a bound, not the exact
    depth: a text with few brackets is not measured further); above ``limit`` as soon as
    the text nests deeper. Malformed text is measured all the same: the parser refuses it
    later, but only if it gets that far without overflowing.
    """
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if len(brackets) <= limit:  # the usual case: cannot be deeper than the openers it has
        return len(brackets)
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        else:
            depth -= 1
    return deepest


def _parse_int(text: str) -> int | _TooBig:
    # Longer than any int64 (19 digits and a sign): never handed to int(), which is slow on
    # huge inputs and refuses over 4300 digits with a message about Python internals.
    if len(text) > 20:
        return _TooBig(text, integer=True)
    value = int(text)
    return value if INT64[0] <= value <= INT64[1] else _TooBig(text, integer=True)


def _parse_float(text: str) -> float | _TooBig:
    value = float(text)
    return _TooBig(text, integer=False) if math.isinf(value) else value


# -- validating ------------------------------------------------------------------------------


def session_from_dict(data: dict[str, Any]) -> Document:
    """Validate an already-parsed session object (numbers as :func:`parse_json` makes them)."""
    _refuse_duplicate(data, "")
    unknown = sorted(set(data) - _TOP_FIELDS, key=str)
    if unknown:
        raise SessionFileError(
            f"{_field(unknown[0])}: unknown field (known fields: {', '.join(sorted(_TOP_FIELDS))})"
        )
    if "format" not in data:
        raise SessionFileError(f'format: missing; a session file starts with "format": "{FORMAT}"')
    if data["format"] != FORMAT:
        newer = _NEWER_FORMAT.fullmatch(data["format"]) if isinstance(data["format"], str) else None
        if newer is not None and int(newer.group(1)) > int(FORMAT.rsplit("/", 1)[1]):
            raise SessionFileError(
                f"format: {_shown(data['format'])} was written by a newer version of "
                f"{APP_NAME}; this version reads {FORMAT!r} (update the app to open it)"
            )
        raise SessionFileError(
            f"format: {_shown(data['format'])} is not supported (expected {FORMAT!r})"
        )
    if "code" not in data:
        raise SessionFileError("code: missing; the session's program is required")
    code = _readable_code(_text(data, "code", MAX_CODE_CHARS), "code")
    values = _values(data.get("values", {}))
    output = data.get("output")
    if output is not None:
        _name(output, "output")
    seed = data.get("seed", DEFAULT_SEED)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= INT64[1]:
        raise SessionFileError(
            f"seed: expected a whole number between 0 and 2**63 - 1, got {_shown(seed)}"
        )
    retain = data.get("retain_grad", [])
    if not isinstance(retain, list):
        raise SessionFileError(f"retain_grad: expected a list of tensor names, got {_kind(retain)}")
    if len(retain) > MAX_NAMES:
        raise SessionFileError(f"retain_grad: {len(retain)} names; at most {MAX_NAMES}")
    for i, name in enumerate(retain):
        _name(name, f"retain_grad[{i}]")
    title = _optional_text(data, "title", MAX_TITLE_CHARS)
    if title is not None and _LINE_BREAK.search(title):
        raise SessionFileError("title: a title is one line; put longer text in notes")
    bad = _TITLE_CONTROL.search(title or "")
    if bad is not None:
        raise SessionFileError(
            f"title: holds an invisible control character ({bad.group()!a}); retype the title"
        )
    program = Program(
        code=code,
        values=values,
        output=output,
        steps=_steps(data["backward"]) if "backward" in data else None,
        seed=seed,
        retain_grad=tuple(retain),
    )
    scale_lock, locked_scale = _scale_lock(data)
    return Document(
        program,
        title,
        _optional_text(data, "notes", MAX_NOTES_CHARS),
        scale_lock,
        locked_scale,
        _lesson(data),
    )


def _readable_code(code: str, where: str) -> str:
    """``code``, refused when an invisible character makes it read otherwise than it runs
    (the error names ``where``: ``code``, ``steps[2].code``)."""
    for pattern, what in _MISREAD:
        bad = pattern.search(code)
        if bad is not None:
            line = code.count("\n", 0, bad.start()) + 1
            raise SessionFileError(
                f"{where}: line {line} holds an invisible character {what} "
                f"({bad.group()[-1]!a}), so the code would not run as it reads; delete it"
            )
    return code


# What makes code read otherwise than it runs, and how the refusal says it.
_MISREAD = (
    (REORDERING_CONTROLS, "that reorders text"),
    (EDITOR_LINE_BREAKS, "the editor shows as a line break"),
    (INDENT_RESETS, "that ends the indentation Python reads before it"),
)


def _lesson(data: dict[str, Any]) -> LessonExtras:
    """A lesson's prompts and steps, checked with this module's own field checks."""
    checks = lesson_format.FieldChecks(
        numbers=_numbers,
        name=_name,
        duplicate=_refuse_duplicate,
        kind=_kind,
        shown=_shown,
        code=_readable_code,
        max_code_chars=MAX_CODE_CHARS,
    )
    try:
        return lesson_format.lesson_from_dict(data, checks)
    except lesson_format.LessonFieldError as exc:
        raise SessionFileError(str(exc)) from None


def _scale_lock(data: dict[str, Any]) -> tuple[bool, float | None]:
    lock = data.get("scale_lock", False)
    if not isinstance(lock, bool):
        raise SessionFileError(f"scale_lock: expected true or false, got {_kind(lock)}")
    scale = data.get("locked_scale")
    if scale is None:
        return lock, None
    if (
        isinstance(scale, bool)
        or not isinstance(scale, int | float)
        or not LOCKED_SCALE_RANGE[0] <= scale <= LOCKED_SCALE_RANGE[1]
    ):
        low, high = LOCKED_SCALE_RANGE
        raise SessionFileError(
            f"locked_scale: expected a positive number between {low:g} and {high:g} (the "
            f"magnitude drawn darkest), got {_shown(scale)}"
        )
    if not lock:
        raise SessionFileError(
            'locked_scale: only with "scale_lock": true (remove it, or lock the scale)'
        )
    return lock, float(scale)


def _text(data: dict[str, Any], field: str, limit: int) -> str:
    value = data[field]
    if not isinstance(value, str):
        raise SessionFileError(f"{field}: expected text, got {_kind(value)}")
    if len(value) > limit:
        raise SessionFileError(
            f"{field}: {len(value):,} characters is too long (at most {limit:,})"
        )
    bad = _SURROGATE.search(value)
    if bad is not None:
        line = value.count("\n", 0, bad.start()) + 1
        raise SessionFileError(
            f"{field}: line {line} holds a broken character ({bad.group()!a}); retype it"
        )
    return value


def _optional_text(data: dict[str, Any], field: str, limit: int) -> str | None:
    return None if data.get(field) is None else _text(data, field, limit)


def _name(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise SessionFileError(f"{where}: expected a tensor's name, got {_kind(value)}")
    if len(value) > MAX_NAME_CHARS:
        raise SessionFileError(
            f"{where}: a name of {len(value):,} characters is too long (at most {MAX_NAME_CHARS})"
        )
    variable, *parts = value.split(".")
    # A module's parameter is named after the variable and its qualified name:
    # ``model.fc1.weight``, ``net.0.bias`` (see "How a session runs" in session-format.md).
    if (
        not variable.isidentifier()
        or keyword.iskeyword(variable)
        or not all(p.isdigit() or (p.isidentifier() and p.isascii()) for p in parts)
    ):
        raise SessionFileError(f"{where}: {_shown(value)} is not a variable name")
    return value


def _values(raw: object) -> dict[str, NestedValues]:
    if not isinstance(raw, dict):
        raise SessionFileError(
            f"values: expected an object mapping names to numbers, got {_kind(raw)}"
        )
    if len(raw) > MAX_NAMES:
        raise SessionFileError(f"values: {len(raw)} names; at most {MAX_NAMES}")
    _refuse_duplicate(raw, "values")
    out: dict[str, NestedValues] = {}
    for name, value in raw.items():
        _name(name, "values")
        out[name] = _numbers(value, f"values.{name}")
    return out


def _steps(raw: object) -> tuple[BackwardStep, ...]:
    if not isinstance(raw, list):
        raise SessionFileError(f"backward: expected a list of steps, got {_kind(raw)}")
    if len(raw) > MAX_STEPS:
        raise SessionFileError(f"backward: {len(raw):,} steps; at most {MAX_STEPS:,}")
    steps = []
    for i, step in enumerate(raw):
        where = f"backward[{i}]"
        if not isinstance(step, dict):
            raise SessionFileError(f"{where}: expected an object, got {_kind(step)}")
        _refuse_duplicate(step, where)
        unknown = sorted(set(step) - _STEP_FIELDS, key=str)
        if unknown:
            raise SessionFileError(
                f"{where}.{_field(unknown[0])}: unknown field "
                f"(known: {', '.join(sorted(_STEP_FIELDS))})"
            )
        gradient = step.get("gradient")
        if gradient is not None:
            gradient = _numbers(gradient, f"{where}.gradient")
        flags: dict[str, bool | None] = {}
        for flag in ("retain_graph", "zero_grad", "create_graph"):
            value = step.get(flag, None if flag == "retain_graph" else False)
            if not isinstance(value, bool) and not (flag == "retain_graph" and value is None):
                raise SessionFileError(
                    f"{where}.{flag}: expected true or false, got {_kind(value)}"
                )
            flags[flag] = value
        steps.append(
            BackwardStep(
                gradient=gradient,
                retain_graph=flags["retain_graph"],
                zero_grad=bool(flags["zero_grad"]),
                create_graph=bool(flags["create_graph"]),
            )
        )
    return _last_false_is_automatic(tuple(steps))


def _last_false_is_automatic(steps: tuple[BackwardStep, ...]) -> tuple[BackwardStep, ...]:
    """``retain_graph: false`` on the last step read as automatic (``None``).

    Files written before "automatic" existed say ``false`` on every step: it was the
    default. On the last call it changes nothing in the run (nothing follows to need the
    graph), so it meant "default", and read as such a Backward press after it accumulates
    instead of failing. On an earlier call it made the next one fail, and that stays: the
    file shows the same error it always did.
    """
    if steps and steps[-1].retain_graph is False:
        return (*steps[:-1], replace(steps[-1], retain_graph=None))
    return steps


def _numbers(value: object, where: str, depth: int = 0) -> NestedValues:
    """A number or nested lists of numbers, with ``"nan"``/``"inf"``/``"-inf"`` made floats.

    Ragged lists are refused here (see :func:`_refuse_ragged`). Recursion is safe:
    :data:`MAX_NESTING` was checked before parsing, and :data:`MAX_DIMENSIONS` is checked here.
    """
    if isinstance(value, list):
        if depth == MAX_DIMENSIONS:
            raise SessionFileError(
                f"{where}: more than {MAX_DIMENSIONS} levels of nested lists; a value has at "
                f"most {MAX_DIMENSIONS} dimensions"
            )
        rows = [_numbers(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
        _refuse_ragged(rows, where)  # after the items: a wrong item is named first
        return rows
    if isinstance(value, _TooBig):
        kind = "64-bit integer" if value.integer else "64-bit float (at most about 1.8e308)"
        raise SessionFileError(
            f"{where}: {value.describe()} does not fit a {kind}; "
            'write a smaller number, or "inf" for infinity'
        )
    if isinstance(value, str) and value in NON_FINITE:
        return NON_FINITE[value]
    if isinstance(value, bool) or not isinstance(value, int | float):
        got = f"the string {_shown(value)}" if isinstance(value, str) else _kind(value)
        raise SessionFileError(
            f'{where}: expected a number (or "nan", "inf", "-inf") or a list of numbers, got {got}'
        )
    return value


def _refuse_ragged(rows: list[Any], where: str) -> None:
    """Refuse a list whose items are not all numbers or all lists of one length.

    A ragged list is no tensor. Torch would refuse it in the engine, but the window reads
    a value's shape from its first row (``nested.shape_of``) first: a file could claim
    1001**32 elements that way, and every slider edit of a ragged value failed. Checked
    level by level as :func:`_numbers` builds the lists, so the whole check is linear.
    """
    if not rows:
        return
    first = rows[0]
    length = len(first) if isinstance(first, list) else None
    for i, row in enumerate(rows):
        if (len(row) if isinstance(row, list) else None) != length:
            raise SessionFileError(
                f"{where}[{i}]: rows of different lengths ({_row(row)} after {_row(first)}); "
                "a tensor's rows all have the same length"
            )


def _row(value: object) -> str:
    if not isinstance(value, list):
        return "a number"
    return f"{len(value)} item{'s' if len(value) != 1 else ''}"


def _kind(value: object) -> str:
    if isinstance(value, _TooBig):
        return "a number"
    if isinstance(value, dict):  # _Duplicate too
        return "an object"
    return {
        dict: "an object",
        list: "a list",
        str: "text",
        bool: "true/false",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _shown(value: object) -> str:
    """A value from the file as a message quotes it: one line, at most about 40 characters."""
    if isinstance(value, _TooBig):
        return value.describe()
    if isinstance(value, str):
        text = ascii(value[:40])
        return text if len(value) <= 40 else f"{text[:-1]}…{text[-1]}"
    if isinstance(value, int | float | bool) or value is None:
        return json.dumps(value)
    return _kind(value)


def _field(name: str) -> str:
    """A field's name from the file as a path part: plain names as they are, others quoted."""
    return name if _PLAIN_NAME.fullmatch(name) else _shown(name)


def _size(count: int) -> str:
    mib = count / 1024 / 1024
    return f"{mib:g} MiB ({count:,} bytes)" if count >= 1024 * 1024 else f"{count:,} bytes"


def _os_reason(exc: OSError) -> str:
    """Why the system would not read a file, as a person says it."""
    reasons = {
        "ENOENT": "there is no such file",
        "EACCES": "you are not allowed to read it",
        "EPERM": "you are not allowed to read it",
        "ELOOP": "it is a loop of symbolic links",
        "ENAMETOOLONG": "the name is too long",
        "ENOTDIR": "a folder on its path is a file",
        "EISDIR": "it is a folder, not a session file",
    }
    for code, reason in reasons.items():
        if exc.errno == getattr(errno, code, None):
            return reason
    return (exc.strerror or str(exc) or type(exc).__name__).rstrip(".").lower()


# -- writing ---------------------------------------------------------------------------------


def session_to_dict(document: Document) -> dict[str, Any]:
    """The JSON object for ``document``, with only the fields that differ from defaults.

    Non-finite numbers become ``"nan"``, ``"inf"``, ``"-inf"`` (JSON has none).
    """
    data: dict[str, Any] = {"format": FORMAT}
    program = document.program
    if document.title is not None:
        data["title"] = document.title
    if document.notes is not None:
        data["notes"] = document.notes
    data["code"] = program.code
    if program.values:
        data["values"] = {name: encode_numbers(v) for name, v in program.values.items()}
    if program.output is not None:
        data["output"] = program.output
    if program.steps is not None:
        data["backward"] = [_step_to_dict(s) for s in program.steps]
    data["seed"] = program.seed
    if program.retain_grad:
        data["retain_grad"] = list(program.retain_grad)
    if document.scale_lock:
        data["scale_lock"] = True
        if document.locked_scale is not None:
            data["locked_scale"] = document.locked_scale
    data.update(lesson_format.lesson_to_dict(document.lesson, encode_numbers))
    return data


def _step_to_dict(step: BackwardStep) -> dict[str, Any]:
    """One step's object; ``retain_graph`` only when chosen (absent: automatic)."""
    data: dict[str, Any] = {
        "gradient": None if step.gradient is None else encode_numbers(step.gradient)
    }
    if step.retain_graph is not None:
        data["retain_graph"] = step.retain_graph
    data["zero_grad"] = step.zero_grad
    data["create_graph"] = step.create_graph
    return data


def encode_numbers(value: NestedValues) -> Any:
    """``value`` for JSON: nested lists as they are, non-finite floats as strings."""
    if isinstance(value, list):
        return [encode_numbers(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def session_text(document: Document) -> str:
    """The file's text for ``document``; :class:`SessionFileError` if it would not load.

    Checked by reading it back: a save that succeeded must open again, so a document past
    a limit (a 200,000-character program) is refused here, before any file is touched.
    """
    text = json.dumps(session_to_dict(document), indent=2, allow_nan=False) + "\n"
    parse_session(text)
    return text


def save_session(document: Document, path: str | os.PathLike[str]) -> None:
    """Write ``document`` to ``path`` atomically (see :func:`.file_io.write_atomically`).

    Raises :class:`SessionFileError` (nothing written) when the document could not be read
    back, and ``OSError`` when the file cannot be written; the old file is intact either way.
    """
    write_text_atomically(path, session_text(document))


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    """UTF-8 ``text`` to ``path`` atomically, keeping a link a link and the file's mode."""
    file_io.write_atomically(path, text.encode("utf-8"))


def read_json_file(path: str | os.PathLike[str], check: Callable[[Any], T]) -> T:
    """A small JSON file of ours (the autosave), read as safely as a session file.

    ``check`` validates the parsed value; refusals are :class:`SessionFileError` naming
    ``path``.
    """
    source = os.fspath(path)
    try:
        raw = file_io.read_regular_file(path, MAX_FILE_BYTES + 64 * 1024)
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, MemoryError) as exc:
        raise SessionFileError(f"cannot read it ({type(exc).__name__})", source) from None
    data = parse_json(text, source)
    try:
        return check(data)
    except SessionFileError as exc:
        raise SessionFileError(exc.problem, source) from None
