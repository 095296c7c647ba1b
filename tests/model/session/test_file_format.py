"""Session files: valid ones load, bad ones are refused naming the field, saves are atomic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.session import Document
from gui.model.session.file_format import (
    FORMAT,
    SessionFileError,
    load_session,
    parse_session,
    save_session,
    session_to_dict,
)
from gui.resources import lesson_paths


def doc(**fields: object) -> str:
    return json.dumps({"format": FORMAT, "code": "x = tensor(1., requires_grad=True)\n", **fields})


def test_every_lesson_is_a_valid_session() -> None:
    paths = lesson_paths()
    assert len(paths) >= 7
    for path in paths:
        document = load_session(path)
        assert document.title and document.notes and document.program.code


def test_full_session_parses() -> None:
    document = parse_session(
        doc(
            values={"x": 2.5},
            output="x",
            backward=[
                {
                    "gradient": [[1, 0]],
                    "retain_graph": True,
                    "zero_grad": True,
                    "create_graph": False,
                },
                {},
            ],
            seed=3,
            retain_grad=["y"],
            title="t",
            notes="n",
        )
    )
    program = document.program
    assert program.values == {"x": 2.5} and program.output == "x" and program.seed == 3
    assert program.steps == (BackwardStep([[1, 0]], True, True, False), BackwardStep())
    assert program.retain_grad == ("y",)
    assert (document.title, document.notes) == ("t", "n")
    assert document.request(2.0) == RunRequest(program, time_limit=2.0)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (doc(colour="red"), "colour"),
        (json.dumps({"code": "x = 1"}), "format"),
        (json.dumps({"format": "autograd-explorer/9", "code": ""}), "format"),
        (json.dumps({"format": FORMAT}), "code"),
        (doc(code=5), "code"),
        (doc(values=[1, 2]), "values"),
        (doc(values={"x": "big"}), "values.x"),
        (doc(values={"x": [1, [2, True]]}), "values.x[1][1]"),
        (doc(values={"not a name": 1}), "values"),
        (doc(output=3), "output"),
        (doc(backward={"gradient": 1}), "backward"),
        (doc(backward=[5]), "backward[0]"),
        (doc(backward=[{"gradient": "ones"}]), "backward[0].gradient"),
        (doc(backward=[{}, {"retain_graph": "yes"}]), "backward[1].retain_graph"),
        (doc(backward=[{"gradeint": 1}]), "backward[0].gradeint"),
        (doc(seed=-1), "seed"),
        (doc(seed=1.5), "seed"),
        (doc(retain_grad="y"), "retain_grad"),
        (doc(title=["a"]), "title"),
    ],
)
def test_bad_fields_are_refused_by_name(text: str, field: str) -> None:
    with pytest.raises(SessionFileError) as err:
        parse_session(text)
    assert str(err.value).startswith(field), str(err.value)


@pytest.mark.parametrize("text", ["{", "[1, 2]", '{"format": NaN}', ""])
def test_malformed_json_is_refused(text: str) -> None:
    with pytest.raises(SessionFileError):
        parse_session(text)


def test_unreadable_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match="cannot read"):
        load_session(tmp_path / "missing.json")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(SessionFileError, match="UTF-8"):
        load_session(binary)
    with pytest.raises(SessionFileError, match="cannot read"):
        load_session(tmp_path)


def test_save_round_trips_and_keeps_the_old_file_on_failure(tmp_path: Path) -> None:
    document = Document(
        Program(
            code="x = tensor(1., requires_grad=True)\n",
            values={"x": 0.5},
            steps=(BackwardStep(gradient=2.0),),
        ),
        title="mine",
    )
    path = tmp_path / "s.json"
    save_session(document, path)
    assert load_session(path) == document
    before = path.read_text()
    broken = Document(Program(code="x", values={"x": float("nan")}))
    with pytest.raises(ValueError):
        save_session(broken, path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"], "no temporary file left behind"


def test_defaults_are_not_written() -> None:
    data = session_to_dict(Document(Program(code="c")))
    assert data == {"format": FORMAT, "code": "c", "seed": 0}
