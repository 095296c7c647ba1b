"""Memory stays flat over many runs of one program (a slider drag): in the engine's
processes and on the window's side (the session's results and layouts).

See ``benchmarks/memory_flat.py`` for the figures over 1,000 runs.
"""

from __future__ import annotations

import gc
import os
import tracemalloc

import pytest

from gui.model.engine_process import EngineProcess
from gui.model.session import Session

pytestmark = pytest.mark.slow

# A 4 MB intermediate from a leaf whose value changes on every run.
PROGRAM = (
    "a = torch.tensor([1.0], requires_grad=True)\n"
    "big = a * torch.ones(1024, 1024)\n"
    "y = (big ** 2).mean()\n"
)
RUNS = 300
WARM_UP_RUNS = 100  # allocators and caches settle first (the owner grows ~35 MB, once)
MIB = 1024**2


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(ln.split()[1]) * 1024 for ln in status if ln.startswith("VmRSS:"))


def engine_processes(engine: EngineProcess) -> dict[int, int]:
    """RSS of the engine's server and of its children (the owner and the standby)."""
    server = engine._process.pid  # type: ignore[union-attr]  # not published by EngineProcess
    pids = [server]
    for task in os.listdir(f"/proc/{server}/task"):
        with open(f"/proc/{server}/task/{task}/children") as listed:
            pids += [int(p) for p in listed.read().split()]
    return {pid: rss(pid) for pid in pids}


def test_memory_stays_flat_over_hundreds_of_runs_of_one_program() -> None:
    engine = EngineProcess()
    engine.start()
    session = Session(engine.run, time_limit=5.0)
    try:
        session.set_code(PROGRAM)
        for run in range(1, RUNS + 1):
            session.set_input("a", 0, 1.0 + run * 1e-3)
            assert session.snapshot.error is None
            if run == WARM_UP_RUNS:
                gc.collect()
                engine_before = engine_processes(engine)
                own_before = rss(os.getpid())
                tracemalloc.start()
                traced_before = tracemalloc.get_traced_memory()[0]
        gc.collect()
        traced_after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        own_after = rss(os.getpid())
        engine_after = engine_processes(engine)
    finally:
        tracemalloc.stop()
        engine.close()
    # The same processes served every run (an owner that grew by 512 MB would have retired).
    assert set(engine_after) == set(engine_before)
    for pid, before in engine_before.items():
        grown = engine_after[pid] - before
        # A leak of even a tenth of the 4 MB intermediate per run would be 80 MB over these
        # 200 runs; below that, the allocator's arenas grow in steps of up to 32 MiB on their
        # own schedule (measured: one such step, sometimes after the warm-up).
        assert grown < 48 * MIB, f"engine process {pid} grew by {grown / MIB:.1f} MiB"
    assert own_after - own_before < 16 * MIB
    # Python objects kept on the window's side: results, layouts, snapshots.
    assert traced_after - traced_before < 1 * MIB
