"""Memory over 1,000 runs of one program: a slider drag, as the window sends it.

Run: ``.venv/bin/python benchmarks/memory_flat.py [--runs N]``. The program makes a 4 MB
intermediate (a million float32s) from a one-element leaf whose value changes on every run,
as dragging its slider does; the same code every time, so the engine's owner process
(``gui/model/engine/fork_server.py``) serves run after run until it retires at
``MAX_RUNS_PER_PROCESS``. Prints the resident memory (VmRSS, from ``/proc``) of this process,
which plays the window's part (and of its layout worker, once the session starts it), and
of each of the engine's processes (its server and the
server's children: the owner running the program and the standby forked ahead of time), at
runs 1, 100, 500 and the last.

Two passes: through :class:`~gui.model.engine_process.EngineProcess` directly, then through
a :class:`~gui.model.session.Session` (``set_input``, as the slider calls it), whose caches
(results, layouts) live on this side.
"""

from __future__ import annotations

import argparse
import gc
import os
from collections.abc import Callable

from gui.model.drawing.layout_process import shared_layout_process
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.session import Session

PROGRAM = (
    "a = torch.tensor([1.0], requires_grad=True)\n"
    "big = a * torch.ones(1024, 1024)  # the 4 MB intermediate\n"
    "y = (big ** 2).mean()\n"
)
REPORT_AT = (1, 100, 500)


def rss_mib(pid: int) -> float | None:
    """Resident memory of process ``pid`` in MiB (``None`` if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (Linux ``/proc``)."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                found += [int(p) for p in listed.read().split()]
        except OSError:
            continue
    return found


def server_pid(engine: EngineProcess) -> int | None:
    """The engine's server process (EngineProcess does not publish it: read its handle)."""
    process = engine._process
    return None if process is None else process.pid


def engine_rss(engine: EngineProcess) -> dict[int, float]:
    """The engine's server and its children, pid -> MiB."""
    server = server_pid(engine)
    if server is None:
        return {}
    pids = [server, *children(server)]
    return {pid: mib for pid in pids if (mib := rss_mib(pid)) is not None}


def report(label: str, run: int, engine: EngineProcess) -> None:
    own = rss_mib(os.getpid())
    parts = engine_rss(engine)
    server = server_pid(engine)
    described = ", ".join(
        f"{'server' if pid == server else f'child {pid}'} {mib:6.1f}" for pid, mib in parts.items()
    )
    layout = shared_layout_process.cache_info().currsize and shared_layout_process().pid
    worker = f" (layout worker {rss_mib(layout) or 0:5.1f})" if layout else ""
    print(f"{label:8} run {run:5}: window side {own:6.1f}{worker} MiB | engine: {described} MiB")


def drag(runs: int, label: str, engine: EngineProcess, one_run: Callable[[int], None]) -> None:
    for run in range(1, runs + 1):
        one_run(run)
        if run in REPORT_AT or run == runs:
            gc.collect()
            report(label, run, engine)


def main(runs: int) -> None:
    engine = EngineProcess()
    engine.start()
    try:

        def direct(run: int) -> None:
            program = Program(code=PROGRAM, values={"a": [1.0 + run * 1e-3]})
            result = engine.run(RunRequest(program, time_limit=5.0))
            assert result.error is None, result.error

        drag(runs, "engine", engine, direct)

        session = Session(engine.run, time_limit=5.0)
        session.set_code(PROGRAM)

        def slider(run: int) -> None:
            session.set_input("a", 0, 1.0 + run * 1e-3)
            assert session.snapshot.error is None, session.snapshot.error

        drag(runs, "session", engine, slider)
    finally:
        engine.close()


if __name__ == "__main__":  # the engine's child is spawned: it imports this file too
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    main(parser.parse_args().runs)
