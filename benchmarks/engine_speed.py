"""How long the engine takes: per lesson, in-process and through the child process.

Run: ``.venv/bin/python benchmarks/engine_speed.py [--runs N]``. Prints medians and 95th
percentiles in milliseconds:

- "in-process": ``run_program`` called directly, no process boundary;
- "tick": the same program again through the engine's process, as a slider drag does
  (the process that ran it serves it again, its settings put back);
- "new program": a different program each time (an edit), which the engine runs in a
  fresh copy of its pristine process: the cost of the fresh-state design.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

from torchviz_sizes import chain_program

from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.session import load_session
from gui.resources import lesson_paths

CHAIN_200 = (
    "x = torch.tensor([1., 2.], requires_grad=True)\nh = x\n"
    "for i in range(200):\n    h = (h * 1.001).sin()\nout = h.sum()\n"
)
CHAIN_2000 = CHAIN_200.replace("range(200)", "range(1000)")
# The big graph: 5,000 function nodes, the program compare_torchviz.py draws.
CHAIN_5000 = chain_program(5000)
BIG = ("2000", "5000")  # cases measured with fewer runs


def percentiles(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def edited(request: RunRequest, number: int) -> RunRequest:
    """``request`` with its code changed by a comment: another program to the engine."""
    program = dataclasses.replace(
        request.program, code=f"{request.program.code}\n# edit {number}\n"
    )
    return dataclasses.replace(request, program=program)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    cases = [(p.stem, load_session(p).request()) for p in lesson_paths()]
    cases += [
        ("synthetic 400-op chain", RunRequest(Program(code=CHAIN_200))),
        ("synthetic 2000-op chain", RunRequest(Program(code=CHAIN_2000), time_limit=10)),
        ("5000-function chain", RunRequest(Program(code=CHAIN_5000), time_limit=30)),
    ]
    engine = EngineProcess()
    engine.start()
    engine.run(cases[0][1])  # wait for the child's torch import
    header = (
        f"{'case':30} {'in-process p50':>14} {'p95':>7} {'tick p50':>9} {'p95':>7}"
        f" {'new program p50':>16} {'p95':>7}"
    )
    print(f"{header}   (ms, {args.runs} runs)")
    for name, request in cases:
        runs = args.runs if not any(b in name for b in BIG) else max(10, args.runs // 10)
        a50, a95 = percentiles(lambda r=request: run_program(r), runs)
        b50, b95 = percentiles(lambda r=request: engine.run(r), runs)
        edits = iter(range(10**9))
        c50, c95 = percentiles(lambda r=request, e=edits: engine.run(edited(r, next(e))), runs)
        print(f"{name:30} {a50:14.2f} {a95:7.2f} {b50:9.2f} {b95:7.2f} {c50:16.2f} {c95:7.2f}")
    engine.close()


if __name__ == "__main__":
    main()
