"""Where the export files go: a named pipe or a planted link in a file's place.

``write_export`` wrote with ``Path.write_text``: a named pipe named ``result.json`` blocked
it until something read the pipe, for ever (the window froze), and a symbolic link there
(say ``script.py -> ~/.bashrc``, unpacked from a student's archive) had its target
overwritten. Now each file is written atomically (:func:`gui.model.session.file_io.
write_atomically`): a pipe is refused with an ``OSError`` at once, and a link is replaced
by the file, its target untouched.

The pipe tests cannot hang: a watchdog thread opens the pipe for reading after a generous
wait, which lets a blocked writer go on, and the test then fails on what happened.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gui.model.export.files import NO_GRAPH_TEXT, write_export
from gui.model.session.file_io import EXPORT_FILES
from tests.big_graphs import result_with

fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
WATCHDOG_SECONDS = 30.0


@pytest.fixture
def watchdog() -> Iterator[Callable[[Path], list[Path]]]:
    """``watch(fifo)``: if the test has not finished after a while, open ``fifo`` for
    reading so that a writer blocked on it goes on; returns the list of pipes it had to
    release (empty while nothing blocked)."""
    done = threading.Event()
    fired: list[Path] = []

    def watch(fifo: Path) -> list[Path]:
        def release() -> None:
            if done.wait(WATCHDOG_SECONDS):
                return
            fired.append(fifo)
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            try:
                done.wait(5)
            finally:
                os.close(fd)

        threading.Thread(target=release, daemon=True).start()
        return fired

    yield watch
    done.set()


def export(folder: Path) -> None:
    write_export(result_with(None), "print('hi')\n", folder)


@fifo_only
@pytest.mark.parametrize("name", EXPORT_FILES)
def test_a_named_pipe_in_a_files_place_is_refused_at_once(
    tmp_path: Path, name: str, watchdog: Callable[[Path], list[Path]]
) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    fired = watchdog(fifo)
    with pytest.raises(OSError, match="named pipe"):
        export(tmp_path)
    assert fired == [], "writing blocked on the pipe until the watchdog read it"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("name", EXPORT_FILES)
def test_a_planted_link_is_replaced_and_its_target_kept(tmp_path: Path, name: str) -> None:
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / name).symlink_to(victim)
    export(folder)
    assert victim.read_text() == "precious\n"
    assert not (folder / name).is_symlink() and (folder / name).is_file()
    assert json.loads((folder / "result.json").read_text())["leaves"]["w"]["grad"] == [3.0, 4.0]
    assert (folder / "script.py").read_text() == "print('hi')\n"
    assert NO_GRAPH_TEXT in (folder / "graph.svg").read_text()


@fifo_only
def test_a_link_to_a_named_pipe_is_replaced_without_blocking(
    tmp_path: Path, watchdog: Callable[[Path], list[Path]]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    fired = watchdog(fifo)
    (tmp_path / "graph.svg").symlink_to(fifo)
    export(tmp_path)
    assert fired == []
    assert (tmp_path / "graph.svg").is_file() and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_exporting_again_replaces_the_files(tmp_path: Path) -> None:
    export(tmp_path)
    (tmp_path / "script.py").write_text("old\n")
    os.chmod(tmp_path / "script.py", 0o640)
    export(tmp_path)
    assert (tmp_path / "script.py").read_text() == "print('hi')\n"
    assert stat.S_IMODE(os.stat(tmp_path / "script.py").st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(EXPORT_FILES)
