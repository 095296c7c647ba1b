"""Hostile session, lesson and autosave files, round five: what earlier rounds let through.

Each test is an input a stranger (a student's file, a damaged autosave) can hand the app,
read with the app's own loaders. Anything that could hang runs in a child process with a
generous time limit, so a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gui.model.session import autosave, file_io
from gui.model.session.autosave import FORMAT as AUTOSAVE_FORMAT
from gui.model.session.autosave import find_unsaved
from gui.model.session.file_format import (
    FORMAT,
    MAX_FILE_BYTES,
    SessionFileError,
    load_session,
    parse_session,
)

ROOT = Path(__file__).resolve().parents[3]
CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
# Above any pid_max Linux allows (2**22): never a running process.
GONE = 4_194_999


def doc(**fields: object) -> str:
    return json.dumps({"format": FORMAT, "code": CODE, **fields})


def refused(text: str) -> str:
    with pytest.raises(SessionFileError) as err:
        parse_session(text)
    return err.value.problem


def run_child(script: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter; a hang fails the test after ``timeout``."""
    try:
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout:g} seconds: it hangs")


# -- the reader ------------------------------------------------------------------------------


def test_escaped_quotes_without_an_end_are_measured_in_linear_time(tmp_path: Path) -> None:
    # '"' followed by a million '\"' pairs and no closing quote: the nesting pre-check's
    # string pattern retried from every quote and scanned to the end each time (quadratic,
    # hours for 2 MiB), holding the GIL, so the window froze while "reading in the
    # background" and the command line never answered.
    path = tmp_path / "quotes.json"
    path.write_text('"' + '\\"' * ((MAX_FILE_BYTES - 8) // 2))
    child = run_child(
        f"""
        from gui.model.session.file_format import SessionFileError, load_session
        try:
            load_session({str(path)!r})
        except SessionFileError as exc:
            print(exc.problem)
        """,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("the file is not valid JSON (Unterminated string")


def test_brackets_after_an_unterminated_string_are_not_a_way_around_the_nesting_limit() -> None:
    # An unterminated string hides what follows it from the nesting count; the parser stops
    # at that string all the same, so it never reaches the brackets.
    assert refused('"' + "[" * 100_000).startswith("the file is not valid JSON")
    assert refused("[" * 100_000 + '"').startswith("the JSON nests more than 64 levels")


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"format": "autograd-explorer/1", "code": "x = 1", "code": "y = 2"}', "code"),
        (doc()[:-1] + ', "values": {"x": 1.0, "x": 2.0}}', "values.x"),
        (doc()[:-1] + ', "backward": [{"gradient": 1, "gradient": 2}]}', "backward[0].gradient"),
    ],
)
def test_a_field_written_twice_is_refused_naming_it(text: str, field: str) -> None:
    # json keeps the last of duplicate keys without a word: a text editor (or a review of
    # the file) shows the first "code", the app would run the second.
    assert refused(text) == (
        f"{field}: written twice in the same object; keep one (which one was meant is not clear)"
    )


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ([[1.0, 2.0], [3.0]], "values.x[1]"),
        ([1.0, [2.0]], "values.x[1]"),
        ([[1.0], 2.0], "values.x[1]"),
        ([[], [1.0]], "values.x[1]"),
    ],
)
def test_ragged_values_are_refused_naming_the_row(value: object, where: str) -> None:
    # A ragged list is no tensor: the window took its shape from the first row (a file can
    # make that claim 20,000**32 elements) and its sliders failed on every edit.
    assert refused(doc(values={"x": value})).startswith(f"{where}: rows of different lengths")


def test_a_ragged_gradient_is_refused_naming_the_step() -> None:
    problem = refused(doc(backward=[{"gradient": [1.0]}, {"gradient": [[1.0, 2.0], [3.0]]}]))
    assert problem.startswith("backward[1].gradient[1]: rows of different lengths")


def test_a_ragged_gradient_claiming_an_absurd_shape_is_refused_in_time() -> None:
    # The first row of each level long, the others empty: nested.shape_of (which follows
    # the first row) would report 1001**32 elements.
    g: object = [0.0] * 1000
    for _ in range(31):
        g = [g] + [[]] * 1000
    assert "rows of different lengths" in refused(doc(backward=[{"gradient": g}]))


def test_rectangular_values_of_any_depth_still_load() -> None:
    values = {"a": 1.0, "b": [], "c": [[]], "d": [[1, 2], [3, 4]], "e": [[[1.0]], [["nan"]]]}
    loaded = parse_session(doc(values=values)).program.values
    assert loaded["d"] == [[1, 2], [3, 4]] and math.isnan(loaded["e"][1][0][0])


@pytest.mark.parametrize("char", ["\u202e", "\u202a", "\u2066", "\u2069"])
def test_bidirectional_overrides_in_the_code_are_refused(char: str) -> None:
    # "Trojan Source": a bidirectional override makes the editor show the code in another
    # order than Python reads it; a teacher would review one program and run another.
    problem = refused(doc(code=f"x = 1\ny = 2  # {char} }} if ok: {char}\n"))
    assert problem.startswith("code: line 2 holds an invisible character that reorders text")


@pytest.mark.parametrize("title", ["a\x00b", "a\x1bb", "lesson\u202enosj.exe", "a\x7fb"])
def test_control_characters_in_the_title_are_refused(title: str) -> None:
    # The title becomes the window's title: no terminal escapes, NULs or reordering there.
    assert refused(doc(title=title)).startswith("title: holds an invisible control character")


def test_right_to_left_text_itself_is_fine() -> None:
    document = parse_session(doc(title="דרגות חופש", notes="مرحبا", code="x = 1  # שלום\n"))
    assert document.title == "דרגות חופש"


def test_a_newer_format_says_so() -> None:
    assert refused(doc(format="autograd-explorer/2")) == (
        "format: 'autograd-explorer/2' was written by a newer version of Autograd Explorer; "
        "this version reads 'autograd-explorer/1' (update the app to open it)"
    )
    assert refused(doc(format="autograd-explorer/1.5")).startswith(
        "format: 'autograd-explorer/1.5' is not supported"
    )
    assert refused(doc(format="autograd-explorer/" + "9" * 5000)).startswith("format: ")


# -- the export folder -------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_an_export_folder_holding_a_pipe_or_a_folder_in_place_of_a_file_is_refused(
    tmp_path: Path,
) -> None:
    # Writing result.json into a named pipe blocks until someone reads it: forever.
    os.mkfifo(tmp_path / "result.json")
    (tmp_path / "graph.svg").mkdir()
    with pytest.raises(file_io.NotARegularFile) as err:
        file_io.check_targets(tmp_path, ("result.json", "script.py", "graph.svg"))
    assert str(err.value.strerror) == "result.json: it is a named pipe, not a file"
    file_io.check_targets(tmp_path / "new", ("result.json",))  # a folder yet to be made
    (tmp_path / "afile").write_text("")
    for folder, reason in [
        (tmp_path / "afile", "it is a file, not a folder"),
        (tmp_path / "afile" / "sub", "a folder on its path is a file"),
    ]:
        with pytest.raises(NotADirectoryError) as not_folder:
            file_io.check_targets(folder, ("result.json",))
        assert not_folder.value.strerror == reason


# -- autosave ----------------------------------------------------------------------------------


def autosave_text(saved_at: str = "1767225600.0", path: object = None, code: str = CODE) -> str:
    session = json.dumps({"format": FORMAT, "code": code})
    return (
        f'{{"format": "{AUTOSAVE_FORMAT}", "path": {json.dumps(path)}, '
        f'"saved_at": {saved_at}, "session": {session}}}'
    )


@pytest.mark.parametrize("saved_at", ["NaN", "Infinity", "-Infinity", "1e308", "-1e300", "-1"])
def test_a_copy_with_a_broken_time_is_still_offered_and_described(
    tmp_path: Path, saved_at: str
) -> None:
    # time.localtime(nan) raises: the restore dialog's text failed, and with it every start
    # of the app while the copy was there.
    (tmp_path / f"autosave-{GONE}.json").write_text(autosave_text(saved_at))
    (found,) = find_unsaved(tmp_path)
    assert found.document.program.code == CODE, "the work is kept"
    assert math.isfinite(found.saved_at)
    assert found.describe() == "an untitled session (copied at an unknown time)"


@pytest.mark.parametrize("path", ["a\x00b.json", "\ud800.json", "", "relative.json", 7, ["x"]])
def test_a_copy_with_a_broken_path_keeps_the_work_as_untitled(tmp_path: Path, path: object) -> None:
    # A NUL or a lone surrogate in the path made every later use of it (is it a lesson?
    # the window title, saving) raise; the work itself is fine, so it comes back untitled.
    (tmp_path / f"autosave-{GONE}.json").write_text(autosave_text(path=path))
    (found,) = find_unsaved(tmp_path)
    assert found.path is None
    assert found.document.program.code == CODE


def test_a_path_of_undecodable_bytes_is_kept(tmp_path: Path) -> None:
    # Linux file names are bytes: Python shows the ones that are not UTF-8 as "\udcff".
    # Those are real paths, and stay.
    path = os.fsdecode(os.fsencode(str(tmp_path)) + b"/\xff.json")
    (tmp_path / f"autosave-{GONE}.json").write_text(autosave_text(path=path))
    (found,) = find_unsaved(tmp_path)
    assert found.path == path


def test_many_copies_are_not_all_read_at_start(tmp_path: Path) -> None:
    # Each copy may hold 2 MiB to parse; thousands of them (a folder filled by a loop of
    # crashes, or by anyone) must not keep the window from appearing. The newest files are
    # read; the rest stay on disk for later starts.
    for i in range(autosave.MAX_CANDIDATES + 30):
        file = tmp_path / f"autosave-{GONE + i}.json"
        file.write_text(autosave_text(saved_at=str(1767225600.0 + i), code=f"x = {i}\n"))
        os.utime(file, (1767225600 + i, 1767225600 + i))
    read: list[Path] = []
    original = file_io.read_regular_file

    def counting(path: os.PathLike[str], limit: int) -> bytes:
        read.append(Path(path))
        return original(path, limit)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(file_io, "read_regular_file", counting)
        found = find_unsaved(tmp_path)
    assert len(read) == autosave.MAX_CANDIDATES
    assert found[0].document.program.code == f"x = {autosave.MAX_CANDIDATES + 29}\n", "newest first"
    assert len(list(tmp_path.iterdir())) == autosave.MAX_CANDIDATES + 30, "nothing deleted"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_special_files_among_the_copies_do_not_block_the_start(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / f"autosave-{GONE}.json")
    (tmp_path / f"autosave-{GONE + 1}.json").symlink_to("/dev/zero")
    (tmp_path / f"autosave-{GONE + 2}.json").mkdir()
    (tmp_path / f"autosave-{GONE + 3}.json").write_text(autosave_text())
    child = run_child(
        f"""
        from pathlib import Path
        from gui.model.session.autosave import find_unsaved
        print(len(find_unsaved(Path({str(tmp_path)!r}))))
        """,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "1"


def test_a_lesson_file_is_read_as_strictly_as_any_session(tmp_path: Path) -> None:
    lesson = tmp_path / "lesson.json"
    lesson.write_text('{"format": "autograd-explorer/1", "code": "x = 1", "code": "y = 2"}')
    with pytest.raises(SessionFileError):
        load_session(lesson)


def test_a_dead_process_copy_under_a_reused_process_id_is_not_overwritten(tmp_path: Path) -> None:
    # Only the newest copy is offered at a start. An older one whose process id this
    # process happens to reuse was overwritten by this process's first copy: work lost.
    old = tmp_path / f"autosave-{GONE}.json"
    old.write_text(autosave_text(saved_at="1767225600.0", code="old = 1\n"))
    (tmp_path / f"autosave-{GONE + 1}.json").write_text(
        autosave_text(saved_at="1767229200.0", code="newer = 1\n")
    )
    mine = autosave.Autosave(tmp_path, pid=GONE)  # the id of the older copy's process
    mine._waiting = (parse_session(doc(code="mine = 1\n")), None)
    mine.flush()
    codes = sorted(r.document.program.code for r in find_unsaved(tmp_path, own_pid=GONE + 2))
    assert codes == ["mine = 1\n", "newer = 1\n", "old = 1\n"]
    mine.close()
    codes = sorted(r.document.program.code for r in find_unsaved(tmp_path, own_pid=GONE + 2))
    assert codes == ["newer = 1\n", "old = 1\n"], "a clean exit removes only its own copy"


def test_adopting_the_copy_under_this_process_id_does_not_keep_it_twice(tmp_path: Path) -> None:
    (tmp_path / f"autosave-{GONE}.json").write_text(autosave_text(code="old = 1\n"))
    (recovered,) = find_unsaved(tmp_path, own_pid=GONE)
    mine = autosave.Autosave(tmp_path, pid=GONE)
    mine.adopt(recovered)
    assert [p.name for p in tmp_path.iterdir()] == [f"autosave-{GONE}.json"]


@pytest.mark.parametrize("scale", [5e-324, 1e-307, 1e-101, 1e101, 1e308])
def test_a_locked_scale_the_plots_cannot_draw_is_refused(scale: float) -> None:
    # "locked_scale": 1e-307 (or anything subnormal) made the plots' pixel coordinates
    # infinite, and Qt's raster engine crashed the window (segmentation fault) at the first
    # paint: a file could kill the app that opened it.
    problem = refused(doc(scale_lock=True, locked_scale=scale))
    assert problem.startswith("locked_scale: expected a positive number between 1e-100 and 1e+100")


@pytest.mark.parametrize("scale", [1.4e-45, 1e-100, 40.0, 3.4e38, 1e100])
def test_every_scale_a_float32_gradient_can_lock_at_still_loads(scale: float) -> None:
    assert parse_session(doc(scale_lock=True, locked_scale=scale)).locked_scale == scale


def test_a_copy_named_after_an_impossible_process_id_does_not_stop_the_start(
    tmp_path: Path,
) -> None:
    # os.kill(9999999999, 0) raises OverflowError: a file name alone (the file may be
    # empty) made find_unsaved raise, and the window never started while it was there.
    (tmp_path / "autosave-9999999999.json").write_text("")
    (tmp_path / f"autosave-{2**31}.json").write_text(autosave_text(code="kept = 1\n"))
    (found,) = find_unsaved(tmp_path)
    assert found.document.program.code == "kept = 1\n"
