"""Autosave, the model side: which work is copied, when the copy goes, what is offered back.

A real session (engine in-process, inline dispatcher) drives an :class:`Autosave` through its
``changed`` signal, as the window wires it; "another process" is a copy written under a
process id that does not exist.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from gui.model.engine.run import run_program
from gui.model.request import Program
from gui.model.session import Document, Session, SessionFileError, save_session
from gui.model.session.autosave import (
    DATA_DIR_VARIABLE,
    FORMAT,
    Autosave,
    Recovered,
    data_dir,
    find_unsaved,
)

CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
# Above any pid_max Linux allows (2**22): never a running process.
GONE = 4_194_999


def wired(folder: Path, pid: int = GONE) -> tuple[Session, Autosave, list[int]]:
    session = Session(run_program)
    autosave = Autosave(folder, pid=pid)
    session.changed.connect(autosave.on_snapshot)
    pendings: list[int] = []
    autosave.pending.connect(lambda: pendings.append(1))
    return session, autosave, pendings


def only(found: list[Recovered]) -> Recovered:
    assert len(found) == 1, found
    return found[0]


def test_an_edit_is_copied_on_flush_with_the_path_it_belongs_to(tmp_path: Path) -> None:
    session, autosave, pendings = wired(tmp_path)
    path = tmp_path / "mine.json"
    save_session(Document(Program(code=CODE)), path)
    session.open(path)
    assert not autosave.file.exists() and pendings == [], "nothing unsaved yet"
    session.set_input("x", 0, 5.0)
    session.set_input("x", 1, 6.0)
    assert pendings == [1], "one signal until the copy is written, however many changes"
    assert not autosave.file.exists(), "written when the window's timer says, not per tick"
    autosave.flush()
    recovered = only(find_unsaved(tmp_path, own_pid=os.getpid()))
    assert recovered.path == str(path) and recovered.file == autosave.file
    assert recovered.document == session.snapshot.state.document
    assert recovered.document.program.values == {"x": [5.0, 6.0]}
    session.set_input("x", 1, 7.0)
    assert pendings == [1, 1]


def test_a_save_removes_the_copy(tmp_path: Path) -> None:
    session, autosave, _ = wired(tmp_path)
    session.set_code(CODE)
    autosave.flush()
    assert autosave.file.exists()
    session.save(tmp_path / "saved.json")
    assert not autosave.file.exists()
    assert find_unsaved(tmp_path, own_pid=os.getpid()) == []


def test_opening_another_file_and_a_clean_exit_remove_the_copy(tmp_path: Path) -> None:
    session, autosave, _ = wired(tmp_path)
    session.set_code(CODE)
    autosave.flush()
    other = tmp_path / "other.json"
    save_session(Document(Program(code="y = 1\n")), other)
    session.open(other)
    assert not autosave.file.exists()
    session.set_code(CODE)
    autosave.flush()
    autosave.close()
    assert not autosave.file.exists()


def test_a_running_process_copy_is_not_offered(tmp_path: Path) -> None:
    session, autosave, _ = wired(tmp_path, pid=os.getppid())  # pytest's parent: alive
    session.set_code(CODE)
    autosave.flush()
    assert find_unsaved(tmp_path, own_pid=os.getpid()) == []


def test_a_copy_under_this_process_id_is_a_dead_process_copy(tmp_path: Path) -> None:
    session, autosave, _ = wired(tmp_path, pid=os.getpid())
    session.set_code(CODE)
    autosave.flush()
    # Looked for at start-up, before this process wrote anything: the id was reused.
    assert only(find_unsaved(tmp_path)).document.program.code == CODE


def test_newest_copy_first_and_broken_copies_skipped(tmp_path: Path) -> None:
    for pid, code in ((GONE, "a = 1\n"), (GONE + 1, "b = 2\n")):
        session, autosave, _ = wired(tmp_path, pid)
        session.set_code(code)
        autosave.flush()
    (tmp_path / "autosave-4195100.json").write_text("{not json")
    (tmp_path / "autosave-4195101.json").write_text(json.dumps({"format": "other"}))
    (tmp_path / "autosave-4195102.json").write_text("[" * 5000)
    (tmp_path / "autosave-4195103.json").symlink_to("/dev/zero")
    (tmp_path / "unrelated.json").write_text("{}")
    found = find_unsaved(tmp_path, own_pid=os.getpid())
    assert [r.document.program.code for r in found] == ["b = 2\n", "a = 1\n"]


def test_restored_work_stays_unsaved_until_saved(tmp_path: Path) -> None:
    session, autosave, _ = wired(tmp_path)
    session.set_code(CODE)
    session.set_input("x", 0, math.inf)  # non-finite numbers survive the copy too
    autosave.flush()
    recovered = only(find_unsaved(tmp_path, own_pid=os.getpid()))

    later, restarted, _ = wired(tmp_path, pid=GONE + 7)
    later.load(recovered.document, recovered.path)
    restarted.adopt(recovered)
    assert restarted.restored and not later.snapshot.modified
    assert not recovered.file.exists() and restarted.file.exists(), "the copy changed hands"
    values = later.snapshot.values["x"]
    assert isinstance(values, list) and values[0] == math.inf
    later.run_now()  # snapshots of the unmodified session keep the copy of restored work
    assert restarted.file.exists() and restarted.restored
    later.save(tmp_path / "kept.json")
    assert not restarted.restored and not restarted.file.exists()


def test_work_past_the_format_limits_is_not_copied_and_keeps_waiting(tmp_path: Path) -> None:
    session, autosave, _ = wired(tmp_path)
    session.set_code("x = 1\n" * 20_000)
    with pytest.raises(SessionFileError, match="code: 120,000 characters is too long"):
        autosave.flush()
    assert autosave.has_pending and not autosave.file.exists()


def test_the_copy_is_private_and_in_the_configured_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "data"))
    assert data_dir() == tmp_path / "data"
    session, autosave, _ = wired(data_dir())
    session.set_code(CODE)
    autosave.flush()
    data = json.loads(autosave.file.read_text())
    assert data["format"] == FORMAT and data["path"] is None and data["session"]["code"] == CODE
    if os.name == "posix":
        assert (tmp_path / "data").stat().st_mode & 0o777 == 0o700


def test_without_the_variable_the_folder_is_the_platform_data_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import platformdirs

    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    assert data_dir() == Path(platformdirs.user_data_dir("autograd-explorer", "AutogradExplorer"))
