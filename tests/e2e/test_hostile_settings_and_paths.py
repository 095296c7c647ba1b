"""The window against what it reads besides code: its settings file (plain INI text anyone
may have edited), the paths it writes to (a named pipe where a file goes), damaged
autosaves, and the command line.

Anything that could block runs where a regression fails instead of hanging the suite: in a
child process with a time limit, or with a watchdog that reads the named pipe (which lets a
blocked writer go) after a generous wait.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6 import QtGui
from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from gui.model.session.autosave import FORMAT as AUTOSAVE_FORMAT
from gui.model.session.autosave import Autosave, find_unsaved
from gui.model.session.file_format import FORMAT
from gui.widgets.main_window import MainWindow
from tests.e2e.conftest import Explorer, open_lesson, settle

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
GONE = 4_194_999  # no process has this id (above Linux's pid_max)
Button = QMessageBox.StandardButton
fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def run_child(
    script: str, env: dict[str, str] | None = None, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """``script`` in a fresh interpreter (offscreen Qt); a hang fails after ``timeout``."""
    try:
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})},
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout:g} seconds: it hangs")


@pytest.fixture
def pipe_watchdog() -> Iterator[Callable[[Path], None]]:
    """``watch(fifo)``: if the test has not finished after a while, read ``fifo`` so a
    writer blocked on it goes on (and the test fails on what it wrote, not by hanging)."""
    done = threading.Event()
    fired: list[Path] = []

    def watch(fifo: Path) -> None:
        def drain() -> None:
            if done.wait(30):
                return
            fired.append(fifo)
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            try:
                done.wait(5)
            finally:
                os.close(fd)

        threading.Thread(target=drain, daemon=True).start()

    yield watch
    done.set()
    assert not fired, f"a writer blocked on the named pipe {fired[0]}"


# -- the settings file ---------------------------------------------------------------------

SETTINGS_CHILD = """
    import sys, time
    from gui.window_app import application, user_settings
    app = application()
    started = time.monotonic()
    settings = user_settings()
    settings.value("geometry")
    settings.setValue("time_limit", 3.0)
    settings.sync()  # what the window does when it closes (Qt also syncs on its own)
    print(settings.fileName())
    print(time.monotonic() - started < 30)
"""


def settings_file(config: Path) -> Path:
    return config / "AutogradExplorer" / "Autograd Explorer.conf"


def test_the_settings_are_the_file_qt_would_use(tmp_path: Path) -> None:
    child = run_child(
        """
        from PySide6.QtCore import QSettings
        from gui.window_app import application, user_settings
        application()
        print(QSettings().fileName())
        print(user_settings().fileName())
        """,
        env={"XDG_CONFIG_HOME": str(tmp_path)},
    )
    assert child.returncode == 0, child.stderr
    native, ours = child.stdout.split("\n")[:2]
    assert native == ours == str(settings_file(tmp_path))


@fifo_only
@pytest.mark.parametrize(
    "make",
    [
        "pipe",  # Qt read it when the settings were made: the window never appeared
        "pipe-lock",  # Qt's lock file, taken on every write: the window froze for ever
        "folder-lock",
        "device-lock",
        "huge",  # read whole: 1 GiB took seconds and 2 GiB of memory
        "huge-lock",  # read whole on every write: 1 GiB took 37 seconds
    ],
)
def test_a_settings_file_that_would_hang_or_flood_qt_is_set_aside(
    tmp_path: Path, make: str
) -> None:
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    lock = path.with_name(path.name + ".lock")
    if make == "pipe":
        os.mkfifo(path)
    elif make == "pipe-lock":
        os.mkfifo(lock)
    elif make == "folder-lock":
        lock.mkdir()
    elif make == "device-lock":
        lock.symlink_to("/dev/zero")
    else:
        with (path if make == "huge" else lock).open("wb") as big:
            big.truncate(64 * 1024 * 1024)  # sparse: costs no disk
    child = run_child(SETTINGS_CHILD, env={"XDG_CONFIG_HOME": str(tmp_path)}, timeout=60)
    assert child.returncode == 0, child.stderr
    used, fast = child.stdout.split("\n")[:2]
    assert used != str(path) and fast == "True"
    assert f"warning: the settings in {path} are not used" in child.stderr


def test_usual_settings_are_read_and_kept(tmp_path: Path) -> None:
    path = settings_file(tmp_path)
    child = run_child(SETTINGS_CHILD, env={"XDG_CONFIG_HOME": str(tmp_path)}, timeout=60)
    assert child.returncode == 0, child.stderr
    assert child.stdout.split("\n")[0] == str(path)
    assert "time_limit=3" in path.read_text()


def write_settings(path: Path, values: dict[str, object]) -> None:
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    for key, value in values.items():
        settings.setValue(key, value)
    settings.sync()


def test_garbage_geometry_and_splitter_states_start_as_a_first_start_does(
    make_explorer: Callable[..., Explorer], tmp_path: Path
) -> None:
    fresh = make_explorer(settings_path=tmp_path / "fresh.ini", size=None)
    expected = fresh.window.size()
    path = tmp_path / "garbage.ini"
    noise = QByteArray(bytes(range(256)) * 2)
    write_settings(
        path,
        {
            "geometry": noise,
            **{f"splitters/{name}": noise for name in ("columns", "left", "right")},
            "presentation": ["true"],
            "show_saved": {"a": 1},
            "time_limit": "nan",
        },
    )
    explorer = make_explorer(settings_path=path, size=None)
    # restoreGeometry refused the bytes and left Qt's default size (613x533 here), and
    # the splitters kept their construction sizes instead of the first show's shares.
    assert explorer.window.size() == expected
    sizes = {name: s.sizes() for name, s in explorer.window._splitters.items()}
    assert sizes == {name: s.sizes() for name, s in fresh.window._splitters.items()}
    assert not explorer.window.commands["presentation"].isChecked()


@fifo_only
def test_a_last_folder_that_is_not_a_folder_falls_back_to_home(
    explorer: Explorer, tmp_path: Path
) -> None:
    # The file dialogs start there: a list, a named pipe or a device is no folder.
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    (tmp_path / "file").write_text("")
    kept_values: list[object] = [["a", "b"], str(pipe), str(tmp_path / "file"), "/dev/zero", 7]
    for i, kept in enumerate([*kept_values, "no/such", str(tmp_path)]):
        path = tmp_path / f"s{i}.ini"
        write_settings(path, {"last_dir": kept})
        explorer.window._settings = QSettings(str(path), QSettings.Format.IniFormat)
        expected = str(tmp_path) if kept == str(tmp_path) else str(Path.home())
        assert explorer.window._last_dir() == expected, kept


# -- writing where a file goes ---------------------------------------------------------------


@fifo_only
def test_a_screenshot_onto_a_named_pipe_is_refused(
    tmp_path: Path, pipe_watchdog: Callable[[Path], None]
) -> None:
    from gui.window_app import save_image

    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    fifo = tmp_path / "shot.png"
    os.mkfifo(fifo)
    pipe_watchdog(fifo)
    assert save_image(image, str(fifo)) == f"cannot write {fifo}: it is a named pipe, not a file"
    assert (
        save_image(image, str(tmp_path)) == f"cannot write {tmp_path}: it is a folder, not a file"
    )
    assert save_image(image, str(tmp_path / "a.png")) is None
    assert QImage(str(tmp_path / "a.png")).size() == image.size()
    assert save_image(image, str(tmp_path / "a.nope")) == (
        f"cannot write {tmp_path / 'a.nope'}: NOPE is not an image format this app can write"
    )


@fifo_only
def test_exporting_into_a_folder_with_a_pipe_for_a_file_is_refused(
    qtbot: QtBot,
    explorer: Explorer,
    tmp_path: Path,
    pipe_watchdog: Callable[[Path], None],
) -> None:
    open_lesson(qtbot, explorer, "01-why-sum")
    folder = tmp_path / "shared"
    folder.mkdir()
    os.mkfifo(folder / "script.py")
    pipe_watchdog(folder / "script.py")
    assert not explorer.window.export_to(folder)
    assert explorer.errors == [
        ("Cannot export", f"{folder}: script.py: it is a named pipe, not a file")
    ]
    assert not (folder / "result.json").exists(), "nothing written"


@fifo_only
def test_the_command_line_export_refuses_such_a_folder_before_running(tmp_path: Path) -> None:
    session = tmp_path / "s.json"
    session.write_text(json.dumps({"format": FORMAT, "code": CODE}))
    folder = tmp_path / "out"
    folder.mkdir()
    os.mkfifo(folder / "result.json")
    (tmp_path / "a-file").write_text("")
    for out, reason in [
        (folder, "result.json: it is a named pipe, not a file"),
        (tmp_path / "a-file", "it is a file, not a folder"),
        (tmp_path / "a-file" / "sub", "a folder on its path is a file"),
    ]:
        child = run_child(
            f"""
            import sys
            from gui.app import main
            sys.exit(main([{str(session)!r}, "--export", {str(out)!r}]))
            """,
            timeout=60,
        )
        assert child.returncode == 1, child.stderr
        assert child.stderr.strip().splitlines()[-1] == f"error: cannot write to {out}: {reason}"


# -- damaged autosaves -------------------------------------------------------------------------


@pytest.fixture
def autosaved(make_explorer: Callable[..., Explorer], tmp_path: Path) -> tuple[Explorer, Autosave]:
    autosave = Autosave(tmp_path / "data", pid=GONE)
    return make_explorer(autosave=autosave), autosave


@pytest.mark.parametrize(
    ("saved_at", "path"),
    [("NaN", None), ("1e308", None), ("1767225600.0", "a\u0000b.json"), ("0", "\ud800.json")],
)
def test_a_damaged_copy_is_still_offered_and_restores_the_work(
    qtbot: QtBot,
    autosaved: tuple[Explorer, Autosave],
    saved_at: str,
    path: str | None,
) -> None:
    # Before: the restore dialog's text raised (time.localtime(nan)) or the first render
    # did (Path.resolve of a NUL), on every start while the copy was there.
    explorer, autosave = autosaved
    autosave.folder.mkdir(parents=True)
    session = json.dumps({"format": FORMAT, "code": CODE, "title": "Mine"})
    (autosave.folder / f"autosave-{GONE + 1}.json").write_text(
        f'{{"format": "{AUTOSAVE_FORMAT}", "path": {json.dumps(path)}, '
        f'"saved_at": {saved_at}, "session": {session}}}'
    )
    explorer.answer = Button.Yes
    assert explorer.window.offer_restore(find_unsaved(autosave.folder))
    assert "the unsaved work on Mine (copied " in explorer.questions[0]
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.code == CODE and snapshot.path is None
    assert explorer.window.isWindowModified(), "restored work is not saved yet"


def test_a_copy_belonging_to_a_loop_of_links_restores_and_saves_elsewhere(
    qtbot: QtBot,
    autosaved: tuple[Explorer, Autosave],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Path.resolve raises RuntimeError on a loop of links (Python 3.11): the window's
    # "is this a lesson?" check failed in every render, and restoring such a copy failed
    # the start.
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    explorer, autosave = autosaved
    autosave.folder.mkdir(parents=True)
    session = json.dumps({"format": FORMAT, "code": CODE})
    (autosave.folder / f"autosave-{GONE + 1}.json").write_text(
        f'{{"format": "{AUTOSAVE_FORMAT}", "path": {json.dumps(str(loop))}, '
        f'"saved_at": 1767225600.0, "session": {session}}}'
    )
    explorer.answer = Button.Yes
    assert explorer.window.offer_restore(find_unsaved(autosave.folder))
    # Since round 14 a copy keeps its path only if a session file (or nothing) is there:
    # restored untitled, so Save asks where (autosave._session_path).
    assert settle(qtbot, explorer.session).path is None
    assert not explorer.window.save_to(loop)
    assert explorer.errors[-1][0] == "Cannot save the session"
    assert explorer.snapshot.code == CODE and explorer.window.isWindowModified()


# -- messages that quote a stranger's file -----------------------------------------------------

# A message box takes text that looks like HTML as HTML (Qt::mightBeRichText, on the first
# line): with "/dev/zero" as the source, Qt read the device until memory ran out and the
# app aborted (std::bad_alloc); with a named pipe it waited for ever. The tests point at a
# file that is not there, so a regression fails instead of crashing the suite.
IMG = '<img src="/nonexistent/x.png">'


def shown_as(text: str) -> str:
    """What a QMessageBox given ``text`` shows, as plain text."""
    if not QtGui.Qt.mightBeRichText(text):
        return text
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText().replace("\u2029", "\n")


def test_an_error_quoting_markup_from_a_file_shows_it_as_text(
    explorer: Explorer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "from-a-student.json"
    path.write_text(json.dumps({"format": IMG, "code": CODE}))
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: shown.append(a[2]))
    assert not explorer.window.open_path(path)
    ((_, text),) = explorer.errors  # what the window asked to show
    MainWindow.show_error(explorer.window, "Cannot open this session", text)
    assert shown_as(shown[0]) == text
    assert f"format: {IMG!a} is not supported" in text


def test_a_restore_offer_quoting_markup_from_a_title_shows_it_as_text(
    autosaved: tuple[Explorer, Autosave],
) -> None:
    explorer, autosave = autosaved
    autosave.folder.mkdir(parents=True)
    session = json.dumps({"format": FORMAT, "code": CODE, "title": f"{IMG} Mine"})
    (autosave.folder / f"autosave-{GONE + 1}.json").write_text(
        f'{{"format": "{AUTOSAVE_FORMAT}", "path": null, '
        f'"saved_at": 1767225600.0, "session": {session}}}'
    )
    explorer.answer = Button.Discard
    assert not explorer.window.offer_restore(find_unsaved(autosave.folder))
    (question,) = explorer.questions
    assert f"Restore the unsaved work on {IMG} Mine (copied " in shown_as(question)


# -- the terminal ------------------------------------------------------------------------------


def test_a_report_prints_no_terminal_controls_and_no_line_it_did_not_write(
    tmp_path: Path,
) -> None:
    # --report is how a teacher reads a student's numbers without a window. What the code
    # printed went to the terminal as it was: "\x1b[2K\r" erased the line before it, an
    # OSC sequence retitled the terminal, and an embedded newline started a line of the
    # student's own ("    x.grad = [999.]") that read like the report's.
    import io

    from gui.headless import summarize

    code = (
        "x = torch.tensor([1.0], requires_grad=True)\ny = (x * 2).sum()\n"
        'print("\\x1b[2K\\rok\\x1b]0;owned\\x07\\n    x.grad = [999.]\\u202e")\n'
    )
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": FORMAT, "code": code, "title": "T"}))
    out, err = io.StringIO(), io.StringIO()
    assert summarize(str(path), stdout=out, stderr=err) == 0, err.getvalue()
    text = out.getvalue()
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text
    assert "\u202e" not in text
    printed = [line for line in text.splitlines() if "999" in line or "ok" in line]
    assert printed == [
        "printed (line 3): \\x1b[2K\\rok\\x1b]0;owned\\x07",
        "printed (line 3):     x.grad = [999.]\\u202e",
    ]


# -- saving where it cannot (these held; kept as guards) ---------------------------------------


@fifo_only
def test_a_save_that_cannot_be_made_keeps_the_work_and_the_old_file(
    qtbot: QtBot, explorer: Explorer, tmp_path: Path, pipe_watchdog: Callable[[Path], None]
) -> None:
    mine = tmp_path / "mine.json"
    explorer.session.set_code(CODE)
    assert explorer.window.save_to(mine)
    before = mine.read_bytes()
    explorer.session.set_code(CODE + "z = y * 2\n")
    settle(qtbot, explorer.session)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    pipe_watchdog(pipe)
    (tmp_path / "a-file").write_text("")
    link_to_pipe = tmp_path / "link.json"
    link_to_pipe.symlink_to(pipe)
    targets = [tmp_path, pipe, link_to_pipe, tmp_path / "a-file" / "x.json", Path("/dev/null")]
    for target in targets:
        assert not explorer.window.save_to(target), target
    assert [title for title, _ in explorer.errors] == ["Cannot save the session"] * len(targets)
    assert explorer.snapshot.modified and explorer.snapshot.path == str(mine)
    assert explorer.snapshot.code == CODE + "z = y * 2\n"
    assert mine.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a-file",
        "link.json",
        "mine.json",
        "pipe.json",
        "s.ini",
    ], "no temporary file left"


# -- a document the window cannot show -------------------------------------------------------

# A gradient of 1e308 is a valid float64; the slider's tick for it overflowed and every
# render raised. That is fixed (tests/widgets/test_hostile_text_and_numbers.py), so the
# `unshowable` fixture puts the old failure back: whatever panel a valid file trips, the
# start and the Open go on, on the welcome lesson.
UNSHOWABLE = {
    "format": FORMAT,
    "code": "x = torch.tensor([1.0, 2.0], requires_grad=True)\nz = x * x\n",
    "backward": [{"gradient": [1e308, -1e308]}],
}


@pytest.fixture
def unshowable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slider that cannot show 1e308 again (``round(inf)``, as it was)."""
    from gui.widgets.value_slider import ValueSlider

    tick_of = ValueSlider._tick_of

    def overflowing(self: ValueSlider, value: float) -> int:
        if abs(value) > 1e300:
            raise OverflowError("cannot convert float infinity to integer")
        return tick_of(self, value)

    monkeypatch.setattr(ValueSlider, "_tick_of", overflowing)


def test_a_file_the_window_cannot_show_does_not_end_the_start(
    qtbot: QtBot, explorer: Explorer, tmp_path: Path, unshowable: None
) -> None:
    from gui.window_app import _open_first

    path = tmp_path / "unshowable.json"
    path.write_text(json.dumps(UNSHOWABLE))
    error = _open_first(explorer.session, str(path))
    assert error is not None and error.startswith(f"{path}: the window cannot show this session")
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.path is not None and snapshot.path.endswith(".json")
    assert snapshot.path != str(path), "the welcome lesson instead"


def test_opening_a_file_the_window_cannot_show_is_reported(
    qtbot: QtBot, explorer: Explorer, tmp_path: Path, unshowable: None
) -> None:
    path = tmp_path / "unshowable.json"
    path.write_text(json.dumps(UNSHOWABLE))
    assert not explorer.window.open_path(path)
    ((title, text),) = explorer.errors
    assert title == "Cannot open this session"
    assert text.startswith(f"{path}: the window cannot show this session")
    snapshot = settle(qtbot, explorer.session)
    assert snapshot.path != str(path)


def test_a_copy_the_window_cannot_show_is_kept_and_reported(
    qtbot: QtBot, autosaved: tuple[Explorer, Autosave], unshowable: None
) -> None:
    explorer, autosave = autosaved
    autosave.folder.mkdir(parents=True)
    copy = autosave.folder / f"autosave-{GONE + 1}.json"
    copy.write_text(
        f'{{"format": "{AUTOSAVE_FORMAT}", "path": null, "saved_at": 1767225600.0, '
        f'"session": {json.dumps(UNSHOWABLE)}}}'
    )
    explorer.answer = Button.Yes
    assert not explorer.window.offer_restore(find_unsaved(autosave.folder))
    ((title, text),) = explorer.errors
    assert title == "Cannot restore the unsaved work"
    assert str(copy) in text and "the window cannot show this session" in text
    assert copy.exists(), "the copy stays: the work is in it"
    settle(qtbot, explorer.session)
