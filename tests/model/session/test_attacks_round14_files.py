"""Round 14's red team, the app's own files: the file an autosave copy says it belongs to.

An autosave copy names the session file its work belongs to (``"path"``), and once the
work is restored the window's Save writes there without asking. The copies live in the
per-user data folder, which may be one the user configured that others can write, or
one made before the app made it private (round 12's threat): a copy naming
``~/.bashrc`` (or a report, a thesis) was restored "belonging to" that file, and the
user's next Ctrl+S replaced it with session JSON. Now the path is kept only when it is a
``.json`` name and whatever is there reads as a session file; otherwise the work is
restored untitled (Save asks where). What held: the copy's name taken by a link (round
12), and a path that is a folder, relative, too long or not a path at all.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gui.model.engine.run import run_program
from gui.model.request import Program
from gui.model.session import Document, Session, save_session
from gui.model.session.autosave import FORMAT, find_unsaved

CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
GONE = 4_194_997  # above any pid_max Linux allows: never a running process


def _planted_copy(folder: Path, path: str) -> None:
    """A copy as someone who can write the data folder would leave it."""
    folder.mkdir(parents=True, exist_ok=True)
    session = {"format": "autograd-explorer/1", "code": CODE}
    text = json.dumps({"format": FORMAT, "path": path, "saved_at": 1.7e9, "session": session})
    (folder / f"autosave-{GONE}.json").write_text(text)


def _restored_path(folder: Path) -> str | None:
    found = find_unsaved(folder, own_pid=os.getpid())
    assert len(found) == 1 and found[0].document.program.code == CODE, found
    return found[0].path


@pytest.mark.parametrize("name", ["dot_bashrc", "thesis.tex", "notes.json"])
def test_a_copy_never_makes_save_replace_a_file_that_is_not_a_session(
    tmp_path: Path, name: str
) -> None:
    victim = tmp_path / name
    victim.write_text('{"years": "of work"}\n' if name.endswith(".json") else "years of work\n")
    _planted_copy(tmp_path / "data", str(victim))
    path = _restored_path(tmp_path / "data")
    assert path is None, "restored as belonging to a file that is not a session"
    # What the window does with it: Save goes to Save As for untitled work.
    session = Session(run_program)
    found = find_unsaved(tmp_path / "data", own_pid=os.getpid())[0]
    session.load(found.document, found.path)
    assert session.snapshot.path is None
    assert victim.read_text().endswith('of work"}\n' if name.endswith(".json") else "work\n")


def test_a_copy_still_belongs_to_its_session_file_or_a_new_one(tmp_path: Path) -> None:
    mine = tmp_path / "mine.json"
    save_session(Document(Program(code="a = 1\n")), mine)
    _planted_copy(tmp_path / "data", str(mine))
    assert _restored_path(tmp_path / "data") == str(mine)
    moved = tmp_path / "moved-away.json"  # the file went away since: Save makes it again
    _planted_copy(tmp_path / "data", str(moved))
    assert _restored_path(tmp_path / "data") == str(moved)


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links and named pipes")
@pytest.mark.parametrize("thing", ["dangling_link", "pipe", "folder", "relative"])
def test_a_copy_naming_a_non_file_is_restored_untitled(tmp_path: Path, thing: str) -> None:
    target = tmp_path / "x.json"
    if thing == "dangling_link":
        target.symlink_to(tmp_path / "nowhere" / "x.json")
    elif thing == "pipe":
        os.mkfifo(target)
    elif thing == "folder":
        target.mkdir()
    path = "x.json" if thing == "relative" else str(target)
    _planted_copy(tmp_path / "data", path)
    assert _restored_path(tmp_path / "data") is None  # and the start did not block on a pipe
