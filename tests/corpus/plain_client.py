"""The test process's end of :mod:`tests.corpus.plain_worker`: one worker per test session,
started on first use, started again if it ends, stopped when the session ends.

Requests are answered asynchronously (:meth:`PlainSide.submit` returns a future), so the
corpus test can have the plain side of the next snippets run while the engine runs this
one: the suite's time stays about what the engine side alone takes.
"""

from __future__ import annotations

import atexit
import itertools
import os
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

from tests.corpus.plain_worker import read_message, write_message

WORKER = Path(__file__).with_name("plain_worker.py")
AT_ONCE = 2  # snippets the worker runs at the same time


class WorkerEnded(Exception):
    """The worker process ended before it answered."""


class PlainSide:
    """Sends snippets to the plain worker; its replies resolve the futures."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._pending: dict[int, Future[dict[str, Any]]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()
        atexit.register(self.stop)

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        """The worker's reply to ``request``, ahead of what is waiting (a worker that
        ended is replaced once)."""
        for attempt in range(2):
            try:
                return self.submit({**request, "urgent": True}).result()
            except WorkerEnded:
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def submit(self, request: dict[str, Any]) -> Future[dict[str, Any]]:
        """A future of the worker's reply to ``request``."""
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            process = self._started()
            request_id = next(self._ids)
            self._pending[request_id] = future
            try:
                assert process.stdin is not None
                write_message(process.stdin, (request_id, request))
            except OSError:
                del self._pending[request_id]
                future.set_exception(WorkerEnded(self._last_words()))
        return future

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._stop_locked()
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (the worker writes it)
            # `-I`: isolated (no user site, no PYTHON* variables, not even the script's
            # folder on the path): nothing of the app's can be imported by accident.
            # OpenMP's threads sleep rather than spin while they wait: the same numbers,
            # without a fork's idle threads taking the CPU the engine side needs.
            environment = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ}
            self._process = subprocess.Popen(
                [sys.executable, "-I", str(WORKER), str(AT_ONCE)],
                env=environment,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
            )
            threading.Thread(target=self._read_replies, args=(self._process,), daemon=True).start()
        return self._process

    def _read_replies(self, process: subprocess.Popen[bytes]) -> None:
        """Resolve each future as its reply comes; fail those left when the worker ends."""
        try:
            assert process.stdout is not None
            while (message := read_message(process.stdout)) is not None:
                request_id, reply = message
                with self._lock:
                    future = self._pending.pop(request_id, None)
                if future is not None:
                    future.set_result(reply)
        except Exception:  # a closed pipe while stopping: the futures below say so
            pass
        with self._lock:
            if self._process is process or self._process is None:
                left = list(self._pending.values())
                self._pending.clear()
            else:
                left = []
        for future in left:
            future.set_exception(WorkerEnded(self._last_words()))

    def _last_words(self) -> str:
        try:
            assert self._stderr is not None
            self._stderr.seek(0)
            return self._stderr.read().decode(errors="replace")[-2000:]
        except Exception:
            return "(no output)"

    def stop(self) -> None:
        """End the worker (it ends by itself when its input closes)."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


plain_side = PlainSide()
