"""A layout worker that misbehaves when asked to, for tests (started by module name).

It serves like :func:`gui.model.drawing.layout_worker.serve`, except for graphs whose
``structure_key`` names a behaviour: ``"hang"`` never answers, ``"crash"`` dies of a
segmentation fault (as Graphviz's native code can), ``"exit"`` exits, ``"modules"``
answers with the names of every module this process has loaded, and ``"escape <folder>"``
with what :func:`escape_attempts` could do behind the wall (the probe walls itself in as
the real worker does).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

from gui.model.drawing import layout_worker
from gui.model.drawing.layout_worker import JobFailed, LayoutJob, Reply, SvgJob, WorkerReady


def serve(conn: Connection, memory_headroom: int) -> None:
    wall = layout_worker.wall_in(memory_headroom)  # as the real worker does
    conn.send(WorkerReady(os.getpid(), wall.memory_limit_bytes is not None, wall.missing))
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if not isinstance(job, LayoutJob | SvgJob):
            return
        key = job.graph.structure_key
        if key == "hang":
            time.sleep(3600)
        elif key == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif key == "exit":
            os._exit(3)
        elif key == "modules":
            conn.send(Reply(job.job_id, JobFailed(" ".join(sorted(sys.modules)))))
            continue
        elif key.startswith("escape "):
            outcomes = escape_attempts(Path(key.removeprefix("escape ")))
            conn.send(Reply(job.job_id, JobFailed(json.dumps(outcomes))))
            continue
        conn.send(Reply(job.job_id, layout_worker.run_job(job)))


def escape_attempts(folder: Path) -> dict[str, str]:
    """What native code run by a hostile graph could try, here as plain Python behind the
    wall: each is ``"refused: ..."`` or ``"done"``. ``folder`` holds ``secret.txt``."""

    def write() -> object:
        return (folder / "new.txt").write_text("escaped")

    def append() -> object:
        with open(folder / "secret.txt", "a") as file:
            return file.write("escaped")

    def read() -> object:
        return (folder / "secret.txt").read_text()

    def listing() -> object:
        return os.listdir(folder)

    def connect() -> object:
        return socket.socket(socket.AF_INET, socket.SOCK_STREAM)

    def start_process() -> object:
        return subprocess.run(["true"], check=False)

    def signal_parent() -> object:
        return os.kill(os.getppid(), 0)

    attempts = {
        "write": write,
        "append": append,
        "read": read,
        "list": listing,
        "socket": connect,
        "process": start_process,
        "signal the window": signal_parent,
    }
    outcomes = {}
    for name, attempt in attempts.items():
        try:
            attempt()
        except OSError as exc:
            outcomes[name] = f"refused: {type(exc).__name__}"
        else:
            outcomes[name] = "done"
    return outcomes
