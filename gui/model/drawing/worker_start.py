"""The first code the layout worker runs, before anything of it imports numpy.

:class:`~.layout_process.LayoutProcess` starts its worker with ``spawn`` on :func:`start`,
which this module holds alone so that unpickling it in the new process imports nothing
else: the worker walls itself in (:mod:`.layout_worker`) only while it has a single
thread, because Landlock confines just the thread that asks, and numpy's OpenBLAS starts a
pool of threads the moment numpy is imported (the drawing code imports numpy).
"""

from __future__ import annotations

import importlib
import os
from multiprocessing.connection import Connection


def start(entry: str, conn: Connection, memory_headroom: int) -> None:
    """Run the worker module ``entry`` (by name: tests start a misbehaving one)."""
    # One BLAS thread, and so one thread in all until the wall: the worker does no linear
    # algebra worth a pool. Its own environment only, set while nothing else runs here.
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    importlib.import_module(entry).serve(conn, memory_headroom)
