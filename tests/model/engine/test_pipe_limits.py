"""What the window and the engine's server read from a pipe is bounded in size and time.

A process past the Python wall writes what it likes on its pipes: a length of gigabytes,
or half a message and then nothing. The window must not allocate the gigabytes, nor wait
forever for the other half; the server must not either, for a spare's notes.
"""

from __future__ import annotations

import multiprocessing
import os
import struct
import threading
import time
from multiprocessing.connection import Connection

import pytest

from gui.model.engine.fork_server import MALFORMED, _read_note
from gui.model.engine_process import MAX_MESSAGE_BYTES, EngineProcess, ReadWatchdog
from gui.model.request import Program, RunRequest
from gui.model.result import EngineReady


class ChildThatWrites:
    """The engine's child played by a thread: for each job it writes ``raw`` bytes on the
    pipe as they are, then waits. Killing it closes its end, as the process's death does."""

    def __init__(self, raw: bytes) -> None:
        self.killed = threading.Event()
        self._kill_lock = threading.Lock()
        parent, self._child = multiprocessing.Pipe()
        self.engine = EngineProcess()
        self.engine._conn, self.engine._process = parent, self  # type: ignore[assignment]
        self.engine._ready = EngineReady("reset")  # no server: this side keeps the time
        threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: bytes) -> None:
        try:
            self._child.recv_bytes()
            os.write(self._child.fileno(), raw)
        except OSError:
            return
        self.killed.wait(60)

    def is_alive(self) -> bool:
        return not self.killed.is_set()

    def kill(self) -> None:
        # Once: the window's watchdog thread and its reader may both kill the engine, and
        # two closes of one descriptor race (the second fails with EBADF).
        with self._kill_lock:
            if self.killed.is_set():
                return
            self.killed.set()
            self._child.close()

    def join(self, timeout: float | None = None) -> None:
        pass


def header(length: int) -> bytes:
    """A message's length as ``Connection`` frames it (a -1 marker and 8 bytes past 2 GiB)."""
    if length > 0x7FFFFFFF:
        return struct.pack("!i", -1) + struct.pack("!Q", length)
    return struct.pack("!i", length)


@pytest.mark.parametrize("length", [MAX_MESSAGE_BYTES + 1, 2**40])
def test_a_message_longer_than_any_answer_is_not_read(length: int) -> None:
    child = ChildThatWrites(header(length))
    started = time.monotonic()
    result = child.engine.run(RunRequest(Program(code="x = 1\n")))
    assert time.monotonic() - started < 5
    assert result.error is not None and result.error.kind == "engine-crashed", result.error
    assert child.killed.is_set(), "the engine was not stopped after a broken message"


def test_half_a_message_does_not_hold_the_window_forever() -> None:
    """Ten bytes of a claimed hundred, then silence: the watchdog kills the engine and the
    read ends, answered as a crash (the window restarts the engine)."""
    child = ChildThatWrites(header(100) + b"\x80\x04" + b"x" * 8)
    child.engine._watchdog.limit = 0.5
    started = time.monotonic()
    result = child.engine.run(RunRequest(Program(code="x = 1\n"), time_limit=30))
    assert time.monotonic() - started < 5, "the window waited for the rest of the message"
    assert result.error is not None and result.error.kind == "engine-crashed", result.error


def test_a_note_longer_than_any_note_is_not_read() -> None:
    read, write = os.pipe()
    os.write(write, header(2**40))
    assert _read_note(Connection(read, writable=False)) is MALFORMED
    os.close(write)


def test_the_watchdog_watches_again_after_a_stop() -> None:
    """An engine closed and used again (the window restarts it) is watched again; a read
    that ended in time kills nothing."""
    killed: list[str] = []

    class Process:
        def kill(self) -> None:
            killed.append("killed")

    dog = ReadWatchdog(0.2)
    dog.watch(Process())  # type: ignore[arg-type]
    dog.watch(None)
    time.sleep(0.5)
    assert killed == []
    dog.stop()
    dog.watch(Process())  # type: ignore[arg-type]
    deadline = time.monotonic() + 5
    while not killed and time.monotonic() < deadline:
        time.sleep(0.05)
    dog.stop()
    assert killed
