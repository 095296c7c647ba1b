"""Reading without hanging, writing without loss: the file operations under session files."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from gui.model.request import BackwardStep, Program
from gui.model.session import Document, load_session, save_session
from gui.model.session.file_io import (
    FileTooLarge,
    NotARegularFile,
    read_regular_file,
    write_atomically,
)

posix_only = pytest.mark.skipif(os.name != "posix", reason="permission bits and links are POSIX")
DOCUMENT = Document(Program(code="x = tensor(1., requires_grad=True)\n", values={"x": 2.0}))


@pytest.fixture
def umask() -> Iterator[None]:
    """A known umask (022) for the test, the process's own afterwards."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# -- reading -------------------------------------------------------------------------------


def test_reading_stops_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"0123456789")
    assert read_regular_file(path, 10) == b"0123456789"
    with pytest.raises(FileTooLarge):
        read_regular_file(path, 9)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="Linux's /proc")
def test_the_limit_holds_when_the_size_says_zero() -> None:
    # /proc files are regular files whose st_size is 0 whatever they hold: only counting
    # while reading stops a file that lies about its size (or grows).
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(FileTooLarge):
        read_regular_file("/proc/self/status", 100)
    assert read_regular_file("/proc/self/status", 100_000).startswith(b"Name:")


def test_special_files_are_refused_before_any_read(tmp_path: Path) -> None:
    with pytest.raises(NotARegularFile) as err:
        read_regular_file(tmp_path, 10)
    assert err.value.kind == "a folder"
    if os.path.exists("/dev/zero"):  # endless: a plain read() would never stop
        with pytest.raises(NotARegularFile) as err:
            read_regular_file("/dev/zero", 10)
        assert err.value.kind == "a device"


# -- writing -------------------------------------------------------------------------------


@posix_only
def test_saving_over_a_link_writes_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    folder = tmp_path / "real"
    folder.mkdir()
    target = folder / "lesson.json"
    save_session(Document(Program(code="old")), target)
    first = tmp_path / "link.json"
    first.symlink_to(target)
    second = tmp_path / "link-to-link.json"
    second.symlink_to(first)
    save_session(DOCUMENT, second)
    assert second.is_symlink() and first.is_symlink(), "links stay links"
    assert os.readlink(first) == str(target)
    assert load_session(target) == DOCUMENT
    assert sorted(p.name for p in folder.iterdir()) == ["lesson.json"]


@posix_only
def test_saving_through_a_dangling_link_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    save_session(DOCUMENT, link)
    assert link.is_symlink() and load_session(tmp_path / "new.json") == DOCUMENT


@posix_only
@pytest.mark.parametrize("bits", [0o640, 0o604, 0o600, 0o664])
def test_saving_keeps_the_file_mode(tmp_path: Path, umask: None, bits: int) -> None:
    path = tmp_path / "s.json"
    path.write_text("{}")
    path.chmod(bits)
    save_session(DOCUMENT, path)
    assert mode(path) == bits


@posix_only
@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_a_new_file_gets_the_mode_the_umask_gives(
    tmp_path: Path, umask: None, mask: int, expected: int
) -> None:
    os.umask(mask)
    path = tmp_path / "new.json"
    save_session(DOCUMENT, path)
    assert mode(path) == expected, "not a temporary file's 0600"


def test_the_file_and_its_folder_are_flushed_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        kind = os.fstat(fd).st_mode
        synced.append("folder" if stat.S_ISDIR(kind) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    save_session(DOCUMENT, tmp_path / "s.json")
    expected = ["file", "folder"] if os.name == "posix" else ["file"]
    assert synced == expected


def test_a_long_file_name_saves(tmp_path: Path) -> None:
    # The temporary name used to be ".<name>.<random>.tmp": over the 255-byte limit here.
    path = tmp_path / ("n" * 245 + ".json")
    save_session(DOCUMENT, path)
    assert load_session(path) == DOCUMENT
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(b"old")

    def full(fd: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


@posix_only
def test_saving_over_a_folder_or_a_pipe_is_refused(tmp_path: Path) -> None:
    # A pipe of the test's own, never /dev/null: if this rule broke, a save run as root
    # would replace the system's device with a file.
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(NotARegularFile, match="it is a folder, not a file"):
        save_session(DOCUMENT, tmp_path / "folder.json")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "pipe.json"
    link.symlink_to(fifo)
    with pytest.raises(NotARegularFile, match="it is a named pipe, not a file"):
        save_session(DOCUMENT, link)
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_steps_and_values_round_trip(tmp_path: Path) -> None:
    document = Document(
        Program(code="c", values={"x": [[1.5, -2.0]]}, steps=(BackwardStep([[1, 0]], True),)),
        title="t",
        notes="n",
    )
    save_session(document, tmp_path / "s.json")
    assert load_session(tmp_path / "s.json") == document
