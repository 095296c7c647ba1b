"""Session files: the JSON format documented in ``docs/session-format.md``.

A session file may come from anyone, so reading it is strict: unknown fields, wrong types
and malformed JSON are refused with a message that names the field (``backward[1].gradient``)
before anything runs. Writing is atomic, so a failed save never destroys the previous file.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from gui.model.request import DEFAULT_SEED, BackwardStep, Program
from gui.model.result import NestedValues
from gui.model.session.document import Document

FORMAT = "autograd-explorer/1"
MAX_FILE_BYTES = 2 * 1024 * 1024

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
}
_STEP_FIELDS = {"gradient", "retain_graph", "zero_grad", "create_graph"}


class SessionFileError(ValueError):
    """A session file that cannot be used; the message says which field and why."""


def load_session(path: str | os.PathLike[str]) -> Document:
    """Read and validate a session file; raise :class:`SessionFileError` if unusable."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SessionFileError(
                f"{p}: the file is {size} bytes; session files are at most {MAX_FILE_BYTES}"
            )
        raw = p.read_bytes()
    except OSError as exc:
        raise SessionFileError(f"{p}: cannot read the file ({exc.strerror or exc})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionFileError(f"{p}: not UTF-8 text (byte {exc.start})") from exc
    return parse_session(text, source=str(p))


def parse_session(text: str, source: str = "session") -> Document:
    """Validate the JSON text of a session; raise :class:`SessionFileError` if unusable."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise SessionFileError(
            f"{source}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from exc
    except ValueError as exc:
        raise SessionFileError(f"{source}: {exc}") from exc
    if not isinstance(data, dict):
        raise SessionFileError(
            f"{source}: a session file is a JSON object ({{...}}), not {_kind(data)}"
        )
    return session_from_dict(data)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in a session file (use a number)")


def session_from_dict(data: dict[str, Any]) -> Document:
    """Validate an already-parsed session object."""
    unknown = sorted(set(data) - _TOP_FIELDS)
    if unknown:
        raise SessionFileError(
            f"{unknown[0]}: unknown field (known fields: {', '.join(sorted(_TOP_FIELDS))})"
        )
    if "format" not in data:
        raise SessionFileError(f'format: missing; a session file starts with "format": "{FORMAT}"')
    if data["format"] != FORMAT:
        raise SessionFileError(f"format: {data['format']!r} is not supported (expected {FORMAT!r})")
    if "code" not in data:
        raise SessionFileError("code: missing; the session's program is required")
    code = _expect(data, "code", str)
    values = _values(data.get("values", {}))
    output = _optional(data, "output", str)
    seed = data.get("seed", DEFAULT_SEED)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise SessionFileError("seed: expected a whole number between 0 and 2**63 - 1")
    retain = data.get("retain_grad", [])
    if not isinstance(retain, list) or not all(isinstance(n, str) for n in retain):
        raise SessionFileError("retain_grad: expected a list of tensor names")
    program = Program(
        code=code,
        values=values,
        output=output,
        steps=_steps(data["backward"]) if "backward" in data else None,
        seed=seed,
        retain_grad=tuple(retain),
    )
    return Document(program, _optional(data, "title", str), _optional(data, "notes", str))


def _expect(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data[name]
    if not isinstance(value, kind):
        raise SessionFileError(f"{name}: expected {kind.__name__}, got {_kind(value)}")
    return value


def _optional(data: dict[str, Any], name: str, kind: type) -> Any:
    if data.get(name) is None:
        return None
    return _expect(data, name, kind)


def _values(raw: object) -> dict[str, NestedValues]:
    if not isinstance(raw, dict):
        raise SessionFileError(
            f"values: expected an object mapping names to numbers, got {_kind(raw)}"
        )
    for name, value in raw.items():
        if not name.isidentifier():
            raise SessionFileError(f"values: {name!r} is not a variable name")
        _check_numbers(value, f"values.{name}")
    return dict(raw)


def _steps(raw: object) -> tuple[BackwardStep, ...]:
    if not isinstance(raw, list):
        raise SessionFileError(f"backward: expected a list of steps, got {_kind(raw)}")
    steps = []
    for i, step in enumerate(raw):
        where = f"backward[{i}]"
        if not isinstance(step, dict):
            raise SessionFileError(f"{where}: expected an object, got {_kind(step)}")
        unknown = sorted(set(step) - _STEP_FIELDS)
        if unknown:
            raise SessionFileError(
                f"{where}.{unknown[0]}: unknown field (known: {', '.join(sorted(_STEP_FIELDS))})"
            )
        gradient = step.get("gradient")
        if gradient is not None:
            _check_numbers(gradient, f"{where}.gradient")
        flags = {}
        for flag in ("retain_graph", "zero_grad", "create_graph"):
            value = step.get(flag, False)
            if not isinstance(value, bool):
                raise SessionFileError(
                    f"{where}.{flag}: expected true or false, got {_kind(value)}"
                )
            flags[flag] = value
        steps.append(BackwardStep(gradient=gradient, **flags))
    return tuple(steps)


def _check_numbers(value: object, where: str) -> None:
    """A number or a (nested) list of numbers; ragged lists are left for torch to refuse."""
    stack = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(item))
        elif isinstance(item, bool) or not isinstance(item, int | float):
            raise SessionFileError(
                f"{path}: expected a number or a list of numbers, got {_kind(item)}"
            )
        elif isinstance(item, float) and not math.isfinite(item):
            raise SessionFileError(f"{path}: expected a finite number")


def _kind(value: object) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "true/false",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def session_to_dict(document: Document) -> dict[str, Any]:
    """The JSON object for ``document``, with only the fields that differ from defaults."""
    data: dict[str, Any] = {"format": FORMAT}
    program = document.program
    if document.title is not None:
        data["title"] = document.title
    if document.notes is not None:
        data["notes"] = document.notes
    data["code"] = program.code
    if program.values:
        data["values"] = program.values
    if program.output is not None:
        data["output"] = program.output
    if program.steps is not None:
        data["backward"] = [
            {
                "gradient": s.gradient,
                "retain_graph": s.retain_graph,
                "zero_grad": s.zero_grad,
                "create_graph": s.create_graph,
            }
            for s in program.steps
        ]
    data["seed"] = program.seed
    if program.retain_grad:
        data["retain_grad"] = list(program.retain_grad)
    return data


def save_session(document: Document, path: str | os.PathLike[str]) -> None:
    """Write ``document`` atomically: the old file stays intact if anything fails."""
    p = Path(path)
    text = json.dumps(session_to_dict(document), indent=2, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
