"""Where a big graph's run goes: the engine's phases for growing chains, in-process.

Run: ``.venv/bin/python benchmarks/engine_phases.py [--sizes 2000 5000] [--runs 7]``.
For each size, ``torchviz_sizes.chain_program(N)`` (N function nodes) is run with
``run_program`` after a warm-up run, everything older frozen out of the collector's sight
(as the engine process does between runs), and the best of ``--runs`` is printed per phase,
in milliseconds of this process's CPU time (the machine may be shared; CPU time is what the
engine spends, wall time is shown for the whole run):

- program: the program's own statements (with the forward recorder);
- walk: reading the graph before backward (values, saved tensors, memory, keys);
- hooks: registering the per-node hooks; backward: torch's backward with the hooks running;
- jacobian: a second backward for the Jacobian, when one is needed (none for a scalar
  output with torch's implicit seed: its one row is read from the call's own gradients);
- result: building the result and pickling it once to measure (and later send) it;
- collect: the full collection the engine process makes after a run, before answering;
- plain torch: the same program run the ordinary way, ``exec`` and ``out.backward()``
  (no recorder, walk or hooks), for scale: what torch itself costs.
"""

from __future__ import annotations

import argparse
import functools
import gc
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from torchviz_sizes import chain_program

import gui.model.engine.backward as backward
import gui.model.engine.budget as budget
import gui.model.engine.run as run
from gui.model.request import Program, RunRequest

PHASES = ("program", "walk", "hooks", "backward", "jacobian", "result", "total", "collect")
PLAIN = ("forward", "backward")
_spent: dict[str, float] = defaultdict(float)


def _timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            _spent[label] += time.process_time() - start

    return timed


def _instrument() -> None:
    backward.walk_detail = _timed("walk", backward.walk_detail)
    backward.compute_jacobians = _timed("jacobian", backward.compute_jacobians)
    backward.FlowHooks.__init__ = _timed("hooks", backward.FlowHooks.__init__)
    run._Run.execute = _timed("program", run._Run.execute)
    run._result = _timed("result", run._result)
    run._REAL_BACKWARD = _timed("backward", run._REAL_BACKWARD)


def phases(size: int, runs: int) -> tuple[dict[str, float], float]:
    """Best CPU milliseconds per phase over ``runs`` runs, and the best wall time."""
    request = RunRequest(Program(code=chain_program(size)), time_limit=600)
    budget.take_pickled(run.run_program(request))
    gc.collect()
    gc.freeze()
    best: dict[str, float] = {}
    wall = float("inf")
    for _ in range(runs):
        _spent.clear()
        started, cpu = time.perf_counter(), time.process_time()
        result = run.run_program(request)
        _spent["total"] = time.process_time() - cpu
        wall = min(wall, time.perf_counter() - started)
        # As the engine's answer does: it takes the bytes the budget measured the result
        # by, so the result is let go of when sent, not when the next run is measured.
        budget.take_pickled(result)
        cpu = time.process_time()
        gc.collect()
        _spent["collect"] = time.process_time() - cpu
        assert result.error is None, result.error
        del result
        gc.collect()
        gc.freeze()
        for label in PHASES:
            best[label] = min(best.get(label, float("inf")), _spent[label] * 1000)
    return best, wall * 1000


def plain_torch(size: int, runs: int) -> dict[str, float]:
    """Best CPU milliseconds of the same program run as plain Python: its statements
    (``forward``) and ``out.backward()`` (``backward``), freeing the graph included."""
    import torch

    code = compile(chain_program(size), "<plain>", "exec")
    best = dict.fromkeys(PLAIN, float("inf"))
    for _ in range(runs + 1):  # the first run warms up
        names: dict[str, Any] = {"torch": torch}
        cpu = time.process_time()
        exec(code, names)
        forward = time.process_time() - cpu
        cpu = time.process_time()
        names["out"].backward()
        backward_time = time.process_time() - cpu
        best["forward"] = min(best["forward"], forward * 1000)
        best["backward"] = min(best["backward"], backward_time * 1000)
        del names
        gc.collect()
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 5000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    _instrument()
    plain = " ".join(f"{'plain ' + p[:4]:>10}" for p in PLAIN)
    print(f"{'functions':>9} " + " ".join(f"{p:>9}" for p in PHASES) + f" {'wall':>9} {plain}")
    for size in args.sizes:
        best, wall = phases(size, args.runs)
        torch_only = plain_torch(size, args.runs)
        cells = " ".join(f"{best[p]:9.1f}" for p in PHASES)
        plain_cells = " ".join(f"{torch_only[p]:10.1f}" for p in PLAIN)
        print(f"{size:9d} {cells} {wall:9.1f} {plain_cells}")
    print(f"(ms, best of {args.runs}; CPU time but wall; plain: the program in plain torch)")


if __name__ == "__main__":
    main()
