"""Session files: valid ones load, bad ones are refused naming the field, saves are atomic."""

from __future__ import annotations

import json
import math
import os
import pickle
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.session import Document, file_format
from gui.model.session.file_format import (
    FORMAT,
    MAX_DIMENSIONS,
    MAX_FILE_BYTES,
    MAX_NESTING,
    MAX_TITLE_CHARS,
    SessionFileError,
    load_session,
    load_session_within,
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
    with pytest.raises(SessionFileError, match="cannot read it: there is no such file"):
        load_session(tmp_path / "missing.json")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(SessionFileError, match="not UTF-8 text"):
        load_session(binary)
    with pytest.raises(SessionFileError, match="it is a folder, not a session file"):
        load_session(tmp_path)


def test_save_round_trips_and_keeps_the_old_file_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="No space left"):
        save_session(replace(document, title="other"), path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"], "no temporary file left behind"


def test_defaults_are_not_written() -> None:
    data = session_to_dict(Document(Program(code="c")))
    assert data == {"format": FORMAT, "code": "c", "seed": 0}


# -- hostile files: one sentence naming the file, never a traceback, never a hang -----------


def nested(depth: int, leaf: object = 1.0) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def write(tmp_path: Path, text: str, name: str = "bad.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path) -> str:
    """The message ``load_session`` refuses ``path`` with (within 10 s: a hang fails)."""
    with pytest.raises(SessionFileError) as err:
        load_session_within(path, timeout=10)
    message = str(err.value)
    assert message.startswith(f"{path}: "), message
    assert "\n" not in message and "Traceback" not in message and len(message) < 400, message
    return message.removeprefix(f"{path}: ")


@pytest.mark.parametrize("depth", [1000, 985, 500, 100_000])
def test_deep_nesting_is_refused_before_parsing(tmp_path: Path, depth: int) -> None:
    # 1000 levels overflowed json's recursion; 500-985 parsed but broke pickling later.
    text = doc(values={"x": 0}).replace("0}", "[" * depth + "0" + "]" * depth + "}")
    assert refusal(write(tmp_path, text)).startswith(
        f"the JSON nests more than {MAX_NESTING} levels deep"
    )


def test_unbalanced_deep_nesting_is_refused_too(tmp_path: Path) -> None:
    assert "nests more than" in refusal(write(tmp_path, "[" * 200_000))
    assert "nests more than" in refusal(write(tmp_path, '{"a":' * 5_000))


def test_brackets_inside_strings_do_not_count() -> None:
    code = "x = " + "[" * 300 + "1" + "]" * 300 + '  # "quoted\\" [[['
    assert parse_session(doc(code=code, title="[[[{{{")).program.code == code


def test_values_have_at_most_32_dimensions() -> None:
    ok = parse_session(doc(values={"x": nested(MAX_DIMENSIONS)}))
    assert pickle.loads(pickle.dumps(ok)) == ok, "what loads crosses to the engine"
    with pytest.raises(SessionFileError) as err:
        parse_session(doc(values={"x": nested(MAX_DIMENSIONS + 1)}))
    assert str(err.value).startswith("values.x" + "[0]" * MAX_DIMENSIONS + ": more than 32 levels")
    with pytest.raises(SessionFileError, match=r"^backward\[0\]\.gradient.*32 dimensions"):
        parse_session(doc(backward=[{"gradient": nested(40)}]))


@pytest.mark.parametrize(
    ("number", "field", "words"),
    [
        (
            "1" * 400,
            "values.x[1]",
            "the 400-digit integer 111111111111… does not fit a 64-bit integer",
        ),
        ("-" + "9" * 5000, "values.x[1]", "the 5000-digit integer -99999999999… does not fit"),
        (str(2**63), "values.x[1]", "9223372036854775808 does not fit a 64-bit integer"),
        (str(-(2**63) - 1), "values.x[1]", "does not fit a 64-bit integer"),
        ("1e400", "values.x[1]", "1e400 does not fit a 64-bit float"),
        ("-2.5E+999", "values.x[1]", "-2.5E+999 does not fit a 64-bit float"),
    ],
)
def test_numbers_beyond_64_bits_are_refused_by_field(
    tmp_path: Path, number: str, field: str, words: str
) -> None:
    text = doc(values={"x": [1, 0]}).replace("[1, 0]", f"[1, {number}]")
    message = refusal(write(tmp_path, text))
    assert message.startswith(f"{field}: ") and words in message, message
    gradient = doc(backward=[{"gradient": [0]}]).replace("[0]", f"[{number}]")
    assert refusal(write(tmp_path, gradient)).startswith("backward[0].gradient[0]: ")
    seed = doc().replace('"code"', f'"seed": {number}, "code"')
    assert refusal(write(tmp_path, seed)).startswith("seed: expected a whole number")


def test_numbers_at_the_edges_of_64_bits_load() -> None:
    text = doc(values={"x": [0]}).replace(
        "[0]", f"[{2**63 - 1}, {-(2**63)}, 1.7976931348623157e308, 1e-400]"
    )
    assert parse_session(text).program.values["x"] == [
        2**63 - 1,
        -(2**63),
        1.7976931348623157e308,
        0.0,
    ]
    assert parse_session(doc(seed=2**63 - 1)).program.seed == 2**63 - 1


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + doc(title="t").encode("utf-8"))
    assert load_session(path).title == "t"
    assert parse_session("\ufeff" + doc(title="t")).title == "t"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/random", "/dev/urandom", "/dev/null"])
def test_a_link_to_a_device_is_refused_at_once(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    link = tmp_path / "lesson.json"
    link.symlink_to(device)
    started = time.monotonic()
    assert refusal(link).startswith("cannot open it: it is a device, not a session file")
    assert time.monotonic() - started < 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    link = tmp_path / "link.json"
    link.symlink_to(fifo)
    started = time.monotonic()
    for path in (fifo, link):
        assert refusal(path).startswith("cannot open it: it is a named pipe")
    assert time.monotonic() - started < 2, "opened without waiting for a writer"


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(doc(notes="n" * MAX_FILE_BYTES))
    assert refusal(path) == (
        "the file holds more than 2 MiB (2,097,152 bytes), the most a session file may hold "
        "(is it really a session file?)"
    )


def test_a_read_that_does_not_answer_is_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def stuck(path: object) -> Document:  # a network folder that went away
        release.wait(30)
        raise SessionFileError("late")

    monkeypatch.setattr(file_format, "load_session", stuck)
    started = time.monotonic()
    with pytest.raises(SessionFileError) as err:
        load_session_within(tmp_path / "far.json", timeout=0.3)
    release.set()
    assert time.monotonic() - started < 2
    assert str(err.value) == (
        f"{tmp_path / 'far.json'}: the file did not answer within 0.3 seconds (a network folder "
        "that is not reachable?); copy it to this computer and open the copy"
    )


@pytest.mark.parametrize(
    ("fields", "start"),
    [
        ({"title": "t" * (MAX_TITLE_CHARS + 1)}, "title: 201 characters is too long (at most 200)"),
        ({"title": "two\nlines"}, "title: a title is one line"),
        ({"notes": "n" * 20_001}, "notes: 20,001 characters is too long"),
        ({"code": "x = 1\n" * 20_000}, "code: 120,000 characters is too long (at most 100,000)"),
        ({"values": {"x" * 101: 1}}, "values: a name of 101 characters is too long (at most 100)"),
        ({"values": {"for": 1}}, "values: 'for' is not a variable name"),
        ({"output": "a b"}, "output: 'a b' is not a variable name"),
        ({"output": 3}, "output: expected a tensor's name, got a number"),
        ({"retain_grad": ["y", "1y"]}, "retain_grad[1]: '1y' is not a variable name"),
        ({"retain_grad": ["y"] * 1001}, "retain_grad: 1001 names; at most 1000"),
        ({"backward": [{}] * 10_001}, "backward: 10,001 steps; at most 10,000"),
        (
            {"values": {"x": "big"}},
            'values.x: expected a number (or "nan", "inf", "-inf") or a list of numbers, got the string \'big\'',
        ),
        (
            {"format": "x" * 1000},
            "format: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is not supported",
        ),
        (
            {"\n" * 3 + "y" * 500: 1},
            "'\\n\\n\\nyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy…': unknown field",
        ),
    ],
)
def test_absurd_sizes_and_bad_names_are_refused_in_words(
    tmp_path: Path, fields: dict[str, object], start: str
) -> None:
    message = refusal(write(tmp_path, doc(**fields)))
    assert message.startswith(start), message


def test_a_broken_character_in_the_code_is_refused_naming_the_line(tmp_path: Path) -> None:
    text = doc(code="x = 1\ny = '\ud800'\n")  # json.dumps writes the lone surrogate as \\ud800
    assert (
        refusal(write(tmp_path, text))
        == "code: line 2 holds a broken character ('\\ud800'); retype it"
    )


# -- numbers JSON cannot hold: "nan", "inf", "-inf" ------------------------------------------


def test_non_finite_numbers_are_saved_as_strings_and_load_back(tmp_path: Path) -> None:
    document = Document(
        Program(
            code="x = tensor([1., 2., 3.], requires_grad=True)\ny = x * 2\n",
            values={"x": [math.nan, math.inf, -math.inf]},
            steps=(BackwardStep(gradient=[math.inf, 1.0, -math.inf]), BackwardStep(math.nan)),
        )
    )
    path = tmp_path / "inf.json"
    save_session(document, path)
    data = json.loads(path.read_text())
    assert data["values"] == {"x": ["nan", "inf", "-inf"]}
    assert [s["gradient"] for s in data["backward"]] == [["inf", 1.0, "-inf"], "nan"]
    loaded = load_session(path).program
    x = loaded.values["x"]
    assert isinstance(x, list) and math.isnan(x[0]) and x[1:] == [math.inf, -math.inf]
    assert loaded.steps is not None and loaded.steps[0].gradient == [math.inf, 1.0, -math.inf]
    gradient = loaded.steps[1].gradient
    assert isinstance(gradient, float) and math.isnan(gradient)


def test_python_json_constants_are_read_as_non_finite_numbers() -> None:
    text = doc(values={"x": [0]}).replace("[0]", "[NaN, Infinity, -Infinity]")
    x = parse_session(text).program.values["x"]
    assert isinstance(x, list) and math.isnan(x[0]) and x[1:] == [math.inf, -math.inf]


def test_a_document_that_would_not_load_is_not_saved(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text("old")
    too_long = Document(Program(code="x = 1\n" * 20_000))
    with pytest.raises(SessionFileError, match=r"^code: 120,000 characters is too long"):
        save_session(too_long, path)
    assert path.read_text() == "old"


# -- retain_graph: automatic unless chosen ------------------------------------------------------


def test_retain_graph_is_automatic_unless_the_file_chooses() -> None:
    steps = parse_session(
        doc(backward=[{}, {"retain_graph": True}, {"retain_graph": None}, {}])
    ).program.steps
    assert steps is not None
    assert [s.retain_graph for s in steps] == [None, True, None, None]


def test_an_old_false_reads_as_it_ran() -> None:
    # Old files wrote "retain_graph": false on every step (it was the default). On the last
    # call it changed nothing and means "default"; before another call it made that call
    # fail, and the file keeps showing that error.
    (single,) = parse_session(doc(backward=[{"retain_graph": False}])).program.steps or ()
    assert single.retain_graph is None
    first, last = (
        parse_session(
            doc(backward=[{"retain_graph": False}, {"retain_graph": False}])
        ).program.steps
        or ()
    )
    assert (first.retain_graph, last.retain_graph) == (False, None)


def test_retain_graph_is_written_only_when_chosen() -> None:
    program = Program(
        code="c",
        steps=(BackwardStep(retain_graph=False), BackwardStep(), BackwardStep(retain_graph=True)),
    )
    written = session_to_dict(Document(program))["backward"]
    assert ["retain_graph" in step for step in written] == [True, False, True]
    assert parse_session(json.dumps(session_to_dict(Document(program)))).program == program


def test_the_lessons_leave_retain_graph_automatic() -> None:
    for path in lesson_paths():
        raw = json.loads(path.read_text())
        assert all("retain_graph" not in step for step in raw.get("backward", [])), path.name
