"""A layout worker that misbehaves when asked to, for tests (started by module name).

It serves like :func:`gui.model.drawing.layout_worker.serve`, except for graphs whose
``structure_key`` names a behaviour: ``"hang"`` never answers, ``"crash"`` dies of a
segmentation fault (as Graphviz's native code can), ``"exit"`` exits, ``"modules"``
answers with the names of every module this process has loaded.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from multiprocessing.connection import Connection

from gui.model.drawing import layout_worker
from gui.model.drawing.layout_worker import JobFailed, LayoutJob, Reply, SvgJob, WorkerReady


def serve(conn: Connection, memory_headroom: int) -> None:
    import pygraphviz  # noqa: F401  - as the real worker does

    conn.send(WorkerReady(os.getpid(), False))
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
        conn.send(Reply(job.job_id, layout_worker.run_job(job)))
