"""A forked process posing as the engine server's owner, for tests of the server's side."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from multiprocessing.connection import Connection

from gui.model import wire
from gui.model.engine.fork_server import ForkServer, _Spare
from gui.model.result import Answer


class FakeOwner:
    """A forked process posing as the server's owner: it writes ``note`` on its notes
    pipe, then sleeps until killed. ``window`` is the window's end of the server's pipe."""

    def __init__(self, note: object) -> None:
        self.window, server_end = multiprocessing.Pipe()
        control_read, self.control = multiprocessing.Pipe(duplex=False)
        notes_read, notes_write = os.pipe()
        orders_read, orders_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                notes = Connection(notes_write, readable=False)
                notes.send(note)
                time.sleep(30)  # its notes pipe open, as a running owner's is
                notes.close()
            finally:
                os._exit(0)
        os.close(notes_write)
        os.close(orders_read)
        self.spare = _Spare(
            self.pid,
            Connection(notes_read, writable=False),
            Connection(orders_write, readable=False),
        )
        self.spare.ready = True
        self.server = ForkServer(server_end, control_read)
        self.server._owner = self.spare
        self.server._warm = True
        self.server._broken = "no spares in this test"  # nothing is forked to replace it

    def message(self) -> object | None:
        """The next message the server wrote to the window, read as the window does."""
        if not self.window.poll(2):
            return None
        return wire.loads(self.window.recv_bytes())

    def answer(self) -> Answer | None:
        answer = self.message()
        assert answer is None or isinstance(answer, Answer)
        return answer

    def alive(self) -> bool:
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
