"""The window's careful reader (``gui.model.wire.loads``) on a big graph's answer.

Run: ``.venv/bin/python benchmarks/wire_speed.py [--functions N ...] [--runs R]``.
For each size (default 2,000 and 5,000 function nodes, the unrolled chains of
``torchviz_sizes.py``) it runs the program in this process as the engine's child would,
takes the bytes the child sends (the result pickled by the budget, inside the answer) and
prints, in CPU milliseconds of this process (min and median of ``--runs``): plain
``pickle.loads`` (no checks, for scale), ``wire.loads`` (everything the window does), and
its parts: the field checks and the expanded-size count on the loaded message.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torchviz_sizes

from gui.model import wire
from gui.model.engine.budget import take_pickled
from gui.model.engine.jobs import _answer_bytes, warm_up
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Answer


def answer_bytes(functions: int) -> bytes:
    """What the engine's child writes on the pipe for the chain of ``functions`` nodes."""
    request = RunRequest(Program(code=torchviz_sizes.chain_program(functions)), time_limit=120)
    result = run_program(request)
    pickled = take_pickled(result)
    assert pickled is not None
    return _answer_bytes(Answer(1, result), pickled)


def cpu_ms(work: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append((time.process_time() - start) * 1000)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--functions", nargs="*", type=int, default=[2000, 5000])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    warm_up()
    # As the window does once its first result is in (``FreezeAfterFirstResult``): what
    # lives as long as the process is out of the collector's sight.
    gc.collect()
    gc.freeze()
    print(f"wire.loads on a chain's answer, CPU ms (min / median of {args.runs})")
    print(f"{'functions':>9} {'KB':>6} {'pickle.loads':>15} {'wire.loads':>15} "
          f"{'check_fields':>15} {'check_expanded':>15}")  # fmt: skip
    for functions in args.functions:
        data = answer_bytes(functions)
        cells = " ".join(f"{low:7.1f} / {mid:5.1f}" for low, mid in parts(data, args.runs))
        print(f"{functions:9d} {len(data) // 1024:6d} {cells}", flush=True)


def parts(data: bytes, runs: int) -> list[tuple[float, float]]:
    message = wire.loads(data)
    return [
        cpu_ms(lambda: pickle.loads(data), runs),
        cpu_ms(lambda: wire.loads(data), runs),
        cpu_ms(lambda: wire.check_fields(message), runs),
        cpu_ms(lambda: wire.check_expanded(message), runs),
    ]


if __name__ == "__main__":
    main()
