"""Reading and writing a lesson's ``prompts`` and ``steps`` (see :mod:`.lesson`).

Part of the session file format (``docs/session-format.md``, "Lessons: prompts and
steps"), held to the same standard as :mod:`.file_format`: a file may come from anyone, so
every way these fields can be wrong is refused with one sentence naming the field's path
(``steps[2].view: "jacobain" is not a view ...``), never a traceback.

The checks of numbers and names are :mod:`.file_format`'s own, handed in as
:class:`FieldChecks` (that module calls this one, so this one cannot import it): a value in
a step is refused exactly as the same value at the top of the file is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gui.model.result import NestedValues
from gui.model.session.lesson import (
    MAX_LESSON_STEPS,
    MAX_PROMPT_CHARS,
    MAX_PROMPTS,
    MAX_SELECT_CHARS,
    MAX_STEP_NOTE_CHARS,
    VIEWS,
    LessonExtras,
    LessonStep,
)

FIELDS = ("prompts", "steps")
STEP_FIELDS = ("note", "code", "values", "gradient", "backward", "select", "view")
MAX_VALUE_NAMES = 1_000
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Controls (reordering ones included) have no place in a one-line text.
_LINE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


class LessonFieldError(ValueError):
    """A lesson field that cannot be used; ``str()`` starts with the field's path."""


@dataclass(frozen=True)
class FieldChecks:
    """The session format's checks this module reuses (see the module docstring).

    Each raises the format's own error naming ``where``: ``numbers(value, where)`` a
    number or nested lists; ``name(value, where)`` a tensor name; ``duplicate(obj,
    where)`` an object that named a key twice; ``code(text, where)`` the program's text
    beyond its length. ``kind(value)`` says what a value is (``"a list"``) and
    ``shown(value)`` quotes it briefly.
    """

    numbers: Callable[[object, str], NestedValues]
    name: Callable[[object, str], str]
    duplicate: Callable[[object, str], None]
    kind: Callable[[object], str]
    shown: Callable[[object], str]
    code: Callable[[str, str], str]
    max_code_chars: int


def lesson_from_dict(data: dict[str, Any], checks: FieldChecks) -> LessonExtras:
    """The ``prompts`` and ``steps`` of a session object (absent: none)."""
    # null is "none", as for the format's other optional fields.
    prompts = () if data.get("prompts") is None else _prompts(data["prompts"], checks)
    steps: tuple[LessonStep, ...] = ()
    if data.get("steps") is not None:
        steps = _steps(data["steps"], checks)
    return LessonExtras(prompts, steps)


def lesson_to_dict(lesson: LessonExtras, encode: Callable[[NestedValues], Any]) -> dict[str, Any]:
    """The fields to write for ``lesson``: only those that are not empty. ``encode`` makes
    numbers JSON's (the format's own ``encode_numbers``: non-finite ones as strings)."""
    data: dict[str, Any] = {}
    if lesson.prompts:
        data["prompts"] = list(lesson.prompts)
    if lesson.steps:
        data["steps"] = [_step_to_dict(step, encode) for step in lesson.steps]
    return data


# -- reading ---------------------------------------------------------------------------------


def _prompts(raw: object, checks: FieldChecks) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise LessonFieldError(f"prompts: expected a list of texts, got {checks.kind(raw)}")
    if len(raw) > MAX_PROMPTS:
        raise LessonFieldError(
            f"prompts: {len(raw):,} prompts; a lesson has at most {MAX_PROMPTS} "
            "(a class tries two to four things)"
        )
    return tuple(
        _line(prompt, f"prompts[{i}]", MAX_PROMPT_CHARS, checks) for i, prompt in enumerate(raw)
    )


def _steps(raw: object, checks: FieldChecks) -> tuple[LessonStep, ...]:
    if not isinstance(raw, list):
        raise LessonFieldError(f"steps: expected a list of step objects, got {checks.kind(raw)}")
    if not raw:
        raise LessonFieldError("steps: an empty list; remove the field or add a step")
    if len(raw) > MAX_LESSON_STEPS:
        raise LessonFieldError(
            f"steps: {len(raw):,} steps; a lesson has at most {MAX_LESSON_STEPS} "
            "(split it into two lessons)"
        )
    return tuple(_step(step, f"steps[{i}]", checks) for i, step in enumerate(raw))


def _step(raw: object, where: str, checks: FieldChecks) -> LessonStep:
    if not isinstance(raw, dict):
        raise LessonFieldError(f"{where}: expected an object, got {checks.kind(raw)}")
    checks.duplicate(raw, where)
    unknown = sorted(str(key) for key in raw if key not in STEP_FIELDS)
    if unknown:
        key = unknown[0] if _PLAIN_NAME.fullmatch(unknown[0]) else checks.shown(unknown[0])
        raise LessonFieldError(
            f"{where}.{key}: unknown field (known: {', '.join(sorted(STEP_FIELDS))})"
        )
    note = None if raw.get("note") is None else _text(raw["note"], f"{where}.note", checks)
    if note is not None and len(note) > MAX_STEP_NOTE_CHARS:
        raise LessonFieldError(
            f"{where}.note: {len(note):,} characters is too long (at most "
            f"{MAX_STEP_NOTE_CHARS:,}; a step's note is a few sentences)"
        )
    code = None
    if raw.get("code") is not None:
        code = _code(raw["code"], f"{where}.code", checks)
    values = None if raw.get("values") is None else _values(raw["values"], where, checks)
    gradient = None
    if raw.get("gradient") is not None:
        gradient = checks.numbers(raw["gradient"], f"{where}.gradient")
    backward = raw.get("backward", False)
    if not isinstance(backward, bool):
        raise LessonFieldError(
            f"{where}.backward: expected true or false, got {checks.kind(backward)}"
        )
    select = None
    if raw.get("select") is not None:
        select = _line(raw["select"], f"{where}.select", MAX_SELECT_CHARS, checks)
        if not select.strip():
            raise LessonFieldError(f"{where}.select: empty; name a variable, or write null")
    return LessonStep(
        note=note,
        code=code,
        values=values,
        gradient=gradient,
        sets_gradient="gradient" in raw,
        backward=backward,
        select=select,
        sets_select="select" in raw,
        view=_view(raw.get("view"), f"{where}.view", checks),
    )


def _view(raw: object, where: str, checks: FieldChecks) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or raw not in VIEWS:
        shown = checks.shown(raw) if isinstance(raw, str) else checks.kind(raw)
        raise LessonFieldError(
            f"{where}: {shown} is not a view (views: {', '.join(sorted(VIEWS))})"
        )
    return raw


def _values(raw: object, where: str, checks: FieldChecks) -> dict[str, NestedValues]:
    if not isinstance(raw, dict):
        raise LessonFieldError(
            f"{where}.values: expected an object mapping names to numbers, got {checks.kind(raw)}"
        )
    if len(raw) > MAX_VALUE_NAMES:
        raise LessonFieldError(f"{where}.values: {len(raw):,} names; at most {MAX_VALUE_NAMES:,}")
    checks.duplicate(raw, f"{where}.values")
    out: dict[str, NestedValues] = {}
    for name, value in raw.items():
        checks.name(name, f"{where}.values")
        out[name] = checks.numbers(value, f"{where}.values.{name}")
    return out


def _text(raw: object, where: str, checks: FieldChecks) -> str:
    if not isinstance(raw, str):
        raise LessonFieldError(f"{where}: expected text, got {checks.kind(raw)}")
    bad = _SURROGATE.search(raw)
    if bad is not None:
        line = raw.count("\n", 0, bad.start()) + 1
        raise LessonFieldError(f"{where}: line {line} holds a broken character; retype it")
    return raw


def _code(raw: object, where: str, checks: FieldChecks) -> str:
    code = _text(raw, where, checks)
    if len(code) > checks.max_code_chars:
        raise LessonFieldError(
            f"{where}: {len(code):,} characters is too long (at most {checks.max_code_chars:,})"
        )
    return checks.code(code, where)


def _line(raw: object, where: str, limit: int, checks: FieldChecks) -> str:
    """One line of text: no line breaks or control characters, at most ``limit`` long."""
    text = _text(raw, where, checks)
    if len(text) > limit:
        raise LessonFieldError(
            f"{where}: {len(text):,} characters is too long (at most {limit:,}, one line)"
        )
    bad = _LINE_CONTROL.search(text)
    if bad is not None:
        what = "a line break" if bad.group() in "\r\n\u2028\u2029" else "a control character"
        raise LessonFieldError(
            f"{where}: holds {what} ({bad.group()!a}); it is one line of plain text"
        )
    return text


# -- writing ---------------------------------------------------------------------------------


def _step_to_dict(step: LessonStep, encode: Callable[[NestedValues], Any]) -> dict[str, Any]:
    """One step's object, only the fields it sets (in the order they apply)."""
    data: dict[str, Any] = {}
    if step.note is not None:
        data["note"] = step.note
    if step.code is not None:
        data["code"] = step.code
    if step.values is not None:
        data["values"] = {name: encode(v) for name, v in step.values.items()}
    if step.sets_gradient:
        data["gradient"] = None if step.gradient is None else encode(step.gradient)
    if step.backward:
        data["backward"] = True
    if step.sets_select:
        data["select"] = step.select
    if step.view is not None:
        data["view"] = step.view
    return data
