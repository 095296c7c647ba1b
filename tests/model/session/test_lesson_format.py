"""A lesson's ``prompts`` and ``steps`` in session files: read strictly, written back the same.

Every way these fields can be wrong ends in one SessionFileError whose message names the
file and the field's path, as the rest of the format does.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from gui.model.session import SessionFileError, load_session, save_session
from gui.model.session.file_format import parse_session, session_text
from gui.model.session.lesson import MAX_LESSON_STEPS, LessonExtras, LessonStep

CODE = "x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\n"


def lesson(**fields: Any) -> dict[str, Any]:
    return {"format": "autograd-explorer/1", "code": CODE, **fields}


def parse(data: dict[str, Any]) -> Any:
    return parse_session(json.dumps(data), source="lesson.json")


def refusal(data: dict[str, Any] | str) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(SessionFileError) as caught:
        parse_session(text, source="lesson.json")
    message = str(caught.value)
    assert message.startswith("lesson.json: ")
    assert "Traceback" not in message and "\n" not in message
    return message.removeprefix("lesson.json: ")


FULL = lesson(
    title="The gradient argument scales the result",
    notes="**∂z/∂x = 24x²**\n\n- one\n- two",
    values={"x": [[-1.2095]]},
    prompts=["Drag the gradient slider to 0.1", "Press Backward twice"],
    steps=[
        {"note": "With `v = 1`", "select": "x"},
        {"note": "Now v = 0.1", "gradient": [[0.1]], "view": "jacobian"},
        {"backward": True, "view": "plots", "select": None},
        {
            "code": "x = torch.tensor([1., 2.], requires_grad=True)\ny = x * x\n",
            "values": {"x": [3.0, "inf"]},
        },
        {"gradient": None, "view": "replay"},
    ],
)


def test_a_full_lesson_reads_into_prompts_and_steps() -> None:
    document = parse(FULL)
    assert document.lesson.prompts == ("Drag the gradient slider to 0.1", "Press Backward twice")
    steps = document.lesson.steps
    assert steps[0] == LessonStep(note="With `v = 1`", select="x", sets_select=True)
    assert steps[1].gradient == [[0.1]] and steps[1].sets_gradient and steps[1].view == "jacobian"
    assert steps[2].backward and steps[2].sets_select and steps[2].select is None
    assert steps[3].values == {"x": [3.0, math.inf]}
    assert steps[4].sets_gradient and steps[4].gradient is None


def test_a_lesson_round_trips_through_text_and_files(tmp_path: Path) -> None:
    document = parse(FULL)
    assert parse_session(session_text(document)) == document
    path = tmp_path / "lesson.json"
    save_session(document, path)
    assert load_session(path) == document
    written = json.loads(path.read_text())
    assert written["prompts"] == FULL["prompts"]
    assert written["steps"][3]["values"] == {"x": [3.0, "inf"]}  # JSON has no infinity
    assert written["steps"][2] == {"backward": True, "select": None, "view": "plots"}


def test_without_prompts_or_steps_nothing_is_written() -> None:
    document = parse(lesson())
    assert document.lesson == LessonExtras()
    text = session_text(document)
    assert "prompts" not in text and "steps" not in text


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"prompts": "try this"}, "prompts: expected a list of texts, got text"),
        ({"prompts": ["a", "b", "c", "d", "e"]}, "prompts: 5 prompts; a lesson has at most 4"),
        ({"prompts": [3]}, "prompts[0]: expected text, got a number"),
        ({"prompts": ["ok", "two\nlines"]}, "prompts[1]: holds a line break"),
        ({"prompts": ["x" * 301]}, "prompts[0]: 301 characters is too long (at most 300"),
        ({"prompts": ["bell\x07"]}, "prompts[0]: holds a control character"),
        ({"steps": {"note": "a"}}, "steps: expected a list of step objects, got an object"),
        ({"steps": []}, "steps: an empty list"),
        (
            {"steps": [{}] * (MAX_LESSON_STEPS + 1)},
            f"steps: 31 steps; a lesson has at most {MAX_LESSON_STEPS}",
        ),
        ({"steps": ["a slide"]}, "steps[0]: expected an object, got text"),
        ({"steps": [{"nope": 1}]}, "steps[0].nope: unknown field (known: backward, code,"),
        (
            {"steps": [{}, {"view": "jacobain"}]},
            "steps[1].view: 'jacobain' is not a view (views: details, function, jacobian, memory, plots, replay)",
        ),
        ({"steps": [{"view": 3}]}, "steps[0].view: a number is not a view"),
        (
            {"steps": [{"note": "x" * 2001}]},
            "steps[0].note: 2,001 characters is too long (at most 2,000",
        ),
        ({"steps": [{"note": ["a"]}]}, "steps[0].note: expected text, got a list"),
        ({"steps": [{"code": 1}]}, "steps[0].code: expected text, got a number"),
        (
            {"steps": [{"code": "x = 1\ny = 2 \u202e"}]},
            "steps[0].code: line 2 holds an invisible character that reorders text",
        ),
        ({"steps": [{"code": "x" * 100_001}]}, "steps[0].code: 100,001 characters is too long"),
        (
            {"steps": [{"values": [1]}]},
            "steps[0].values: expected an object mapping names to numbers, got a list",
        ),
        (
            {"steps": [{"values": {"x": [1, [2]]}}]},
            "steps[0].values.x[1]: rows of different lengths",
        ),
        (
            {"steps": [{"values": {"not a name": 1}}]},
            "steps[0].values: 'not a name' is not a variable name",
        ),
        ({"steps": [{"values": {"x": "one"}}]}, "steps[0].values.x: expected a number"),
        ({"steps": [{"gradient": [[True]]}]}, "steps[0].gradient[0][0]: expected a number"),
        ({"steps": [{"backward": "yes"}]}, "steps[0].backward: expected true or false, got text"),
        ({"steps": [{"select": 7}]}, "steps[0].select: expected text, got a number"),
        ({"steps": [{"select": ""}]}, "steps[0].select: empty"),
        ({"steps": [{"select": "y\nz"}]}, "steps[0].select: holds a line break"),
    ],
)
def test_each_wrong_field_is_refused_naming_it(fields: dict[str, Any], expected: str) -> None:
    assert refusal(lesson(**fields)).startswith(expected)


def test_a_step_field_written_twice_is_refused_naming_it() -> None:
    text = json.dumps(lesson(steps=[{"note": "a"}])).replace(
        '"note": "a"', '"note": "a", "note": "b"'
    )
    assert refusal(text).startswith("steps[0].note: written twice in the same object")


def test_a_huge_number_in_a_step_is_refused_naming_it() -> None:
    text = json.dumps(lesson(steps=[{"gradient": [[0.5]]}])).replace("0.5", "1e400")
    assert refusal(text).startswith("steps[0].gradient[0][0]: 1e400 does not fit a 64-bit float")


def deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    "hostile",
    [
        lesson(steps=[{"values": {"x": deep(33)}}]),
        lesson(prompts=["\ud800"]),
        lesson(steps=[{"note": "\udfff"}]),
        lesson(steps=[{"select": "x" * 10_000}]),
        lesson(steps=[{"view": None, "select": None, "note": None, "code": None}] * 31),
        lesson(prompts=[None]),
        lesson(steps=[{"values": {"x": 1}, "gradient": {"a": 1}}]),
    ],
)
def test_hostile_lessons_are_refused_without_crashing(hostile: dict[str, Any]) -> None:
    refusal(json.dumps(hostile))  # one sentence naming the file, never a traceback


def test_fuzzed_step_fields_either_load_or_are_refused_cleanly() -> None:
    junk: list[object] = [None, True, 0, -1, 1.5, "", "x", [], [1], {}, {"a": 1}, [[1, 2], [3]]]
    fields = ("note", "code", "values", "gradient", "backward", "select", "view")
    for name in fields:
        for value in junk:
            try:
                parse(lesson(steps=[{name: value}]))
            except SessionFileError as exc:
                assert str(exc).startswith(f"lesson.json: steps[0].{name}"), str(exc)
