"""Round 12's red team, the app's own files: the autosave copy's name taken over.

The copy lives in the per-user data folder (private, 0700), but the folder may be one
the user configured (``AUTOGRAD_EXPLORER_DATA_DIR``) that others can write, or one made
before the app made it private. The copy is written with the atomic save of session
files, which follows a symbolic link and replaces the file it names (right for a file
the user chose). A link put in the copy's place after its first write made the next
autosave replace the linked file: a user's file lost to a JSON copy of the session.
Now a link in the copy's place is removed (not its target) before the copy is written.
What held: a folder, a named pipe or a device in the copy's place stops the write with
an ``OSError`` and the work keeps waiting (nothing else is touched).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gui.model.engine.run import run_program
from gui.model.session import Session
from gui.model.session.autosave import FORMAT, Autosave

CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
GONE = 4_194_998


def _wired(folder: Path) -> tuple[Session, Autosave]:
    session = Session(run_program)
    autosave = Autosave(folder, pid=GONE)
    session.changed.connect(autosave.on_snapshot)
    return session, autosave


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges there")
def test_a_link_in_the_copys_place_never_replaces_the_file_it_names(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    victim = tmp_path / "thesis.tex"
    victim.write_text("years of work\n")
    session, autosave = _wired(folder)
    session.set_code(CODE)
    autosave.flush()
    autosave.file.unlink()
    autosave.file.symlink_to(victim)  # planted after the first write
    session.set_code(CODE + "z = y * 2\n")
    autosave.flush()
    assert victim.read_text() == "years of work\n"
    assert not autosave.file.is_symlink()
    data = json.loads(autosave.file.read_text())
    assert data["format"] == FORMAT and data["session"]["code"] == CODE + "z = y * 2\n"


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes")
@pytest.mark.parametrize("thing", ["folder", "pipe"])
def test_a_non_file_in_the_copys_place_keeps_the_work_waiting(tmp_path: Path, thing: str) -> None:
    session, autosave = _wired(tmp_path)
    session.set_code(CODE)
    autosave.flush()
    autosave.file.unlink()
    if thing == "folder":
        autosave.file.mkdir()
        (autosave.file / "inside.txt").write_text("kept\n")
    else:
        os.mkfifo(autosave.file)
    session.set_code(CODE + "z = 1\n")
    with pytest.raises(OSError):
        autosave.flush()
    assert autosave.has_pending
    if thing == "folder":
        assert (autosave.file / "inside.txt").read_text() == "kept\n"
