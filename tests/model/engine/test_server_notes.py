"""The server reads its spares' notes without trusting them.

A spare's notes pipe stays open while it runs programs, and the server (which forks the
spares) is outside the operating-system wall. A program that got past the Python wall could
write a pickle there that runs a command when unpickled. The server must build nothing but
the notes a spare sends, stop the spare that wrote anything else, and answer for its run.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from gui.model.engine import fork_server
from gui.model.engine.fork_server import MALFORMED, _read_note
from gui.model.os_wall import WallReport
from gui.model.request import Job, Program, RunRequest
from tests.model.engine.fake_owner import FakeOwner

pytestmark = pytest.mark.skipif(
    sys.platform not in ("linux", "darwin"), reason="spares exist only with fork"
)


class RunsACommand:
    """Unpickled with ``pickle``, this runs ``touch`` on its path."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.path}",)


def pipe_with(payload: bytes) -> Connection:
    read, write = multiprocessing.Pipe(duplex=False)
    write.send_bytes(payload)
    write.close()
    return read


def wall_report() -> WallReport:
    return WallReport(
        landlock_abi=4,
        seccomp=True,
        no_new_privs=True,
        rlimits=(("RLIMIT_FSIZE", 0),),
        missing=(),
        seconds=0.01,
    )


@pytest.mark.parametrize(
    "note",
    [
        ("took", 3, 1.5, 0, None),
        ("took", 3, 1.5, 0, Job(3, RunRequest(Program(code="y = 1\n")))),
        ("answering",),
        ("idle",),
        ("retired",),
        ("failed", "OSError: no"),
        ("handoff", Job(4, RunRequest(Program(code="y = 1\n")))),
        ("ready", "report"),
    ],
)
def test_the_notes_a_spare_sends_are_read(note: tuple[object, ...]) -> None:
    if note[0] == "ready":
        note = ("ready", wall_report())
    assert _read_note(pipe_with(pickle.dumps(note))) == note


@pytest.mark.parametrize(
    "note",
    [
        ("took", "3", 1.5, 0, None),
        ("took", 3, 1.5, 0, "job"),
        ("took", 3, 1.5, 0),
        ("handoff", "job"),
        ("idle", 1),
        ("ready", None),
        ["idle"],
        ("owned",),
        (),
    ],
)
def test_notes_of_the_wrong_shape_are_malformed(note: object) -> None:
    assert _read_note(pipe_with(pickle.dumps(note))) is MALFORMED


def test_a_pickle_that_runs_a_command_builds_nothing(tmp_path: Path) -> None:
    target = tmp_path / "owned"
    payload = pickle.dumps(("took", RunsACommand(target), 1.5, 0))
    assert _read_note(pipe_with(payload)) is MALFORMED
    assert _read_note(pipe_with(b"\x80\x04garbage")) is MALFORMED
    assert not target.exists()


def test_a_spare_that_writes_one_is_stopped_and_its_run_answered(tmp_path: Path) -> None:
    """A forked owner in the middle of run 7 writes the command pickle on its notes pipe
    (as a program past the Python wall would): the server runs nothing, kills it and
    answers run 7 as a crash."""
    target = tmp_path / "owned"
    fake = FakeOwner(("took", RunsACommand(target), 1, 0, None))
    fake.spare.run_id, fake.spare.started, fake.spare.time_limit = 7, time.monotonic(), 1.5
    try:
        fake.server._handle(fake.spare.notes)
        assert fake.server._owner is None
        answer = fake.answer()
        assert answer is not None and answer.run_id == 7
        error = answer.result.error
        assert error is not None and error.kind == "engine-crashed", error
        assert "SIGKILL" in error.message + error.explanation
        assert not target.exists(), "the server ran the command in the note"
    finally:
        fake.close()


@pytest.mark.parametrize("cold", [True, False])
def test_a_cold_owner_out_of_time_is_run_again_in_a_warm_process(cold: bool) -> None:
    """The first owner tells its job; out of time, the job goes to a warm process instead
    of being answered as runaway. A warm owner's job is answered as runaway at once."""
    job = Job(7, RunRequest(Program(code="y = 1\n"), time_limit=0.1))
    fake = FakeOwner(("took", 7, 0.1, 0, job if cold else None))
    try:
        fake.server._handle(fake.spare.notes)
        assert fake.spare.run_id == 7
        fake.server._step()  # nothing more comes: the deadline passes
        assert fake.server._owner is None
        if cold:
            assert fake.server._handed_back == job
            assert fake.answer() is None
        else:
            assert fake.server._handed_back is None
            answer = fake.answer()
            assert answer is not None and answer.run_id == 7
            assert answer.result.error is not None
            assert answer.result.error.kind == "runaway-code"
    finally:
        fake.close()


def test_the_server_reads_notes_only_this_way() -> None:
    """Every read of a spare's notes goes through :func:`_read_note`."""
    source = Path(fork_server.__file__).read_text()
    assert source.count("_read_note(") == 2  # the definition and the one call
    assert "_receive(spare.notes)" not in source and ".notes.recv(" not in source
