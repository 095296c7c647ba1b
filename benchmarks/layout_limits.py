"""What ``dot`` costs for real programs, next to the two numbers the app limits layouts by.

Run: ``.venv/bin/python benchmarks/layout_limits.py``. Each program runs through the engine
in this process; its graph is measured (:func:`gui.model.drawing.limits.layout_size`: the
boxes, and the rows that long edges cross in all) and laid out by the layout worker (the
window's path), which stops at the time limit. The table in ``gui/model/drawing/limits.py``
comes from this script; "drawn" says whether the app would lay the graph out at all.
"""

from __future__ import annotations

import time

from gui.model.drawing.layout_process import LayoutProcess, LayoutUnavailable
from gui.model.drawing.limits import layout_size, too_big
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest


def mlp(layers: int) -> str:
    lines = ["x = torch.randn(3)", "h = x"]
    for i in range(layers):
        lines += [f"W{i} = torch.randn(3, 3, requires_grad=True)", f"h = torch.relu(W{i} @ h)"]
    return "\n".join([*lines, "loss = h.sum()"]) + "\n"


def loop(iterations: int) -> str:
    return (
        "w = torch.tensor([0.5, -0.3, 0.2], requires_grad=True)\n"
        "b = torch.tensor([0.1, 0.1, 0.1], requires_grad=True)\n"
        "h = torch.zeros(3)\n"
        f"for i in range({iterations}):\n"
        "    h = torch.tanh(w * h + b) * 0.9 + h ** 2 * 0.01\n"
        "loss = h.sum()\n"
    )


def rnn(steps: int) -> str:
    return (
        "W = torch.randn(4, 4, requires_grad=True)\n"
        "b = torch.randn(4, requires_grad=True)\n"
        "h = torch.zeros(4)\n"
        f"for i in range({steps}):\n"
        "    h = torch.tanh(W @ h + b)\n"
        "loss = h.sum()\n"
    )


CASES = (
    [(f"{n}-layer MLP", mlp(n), show) for n in (20, 100) for show in (False, True)]
    + [(f"loop of {n}, shared w, b", loop(n), False) for n in (8, 12, 14, 16, 18, 20)]
    + [(f"RNN of {n} steps", rnn(n), False) for n in (10, 20, 30, 40)]
)


def main() -> None:
    worker = LayoutProcess(time_limit=30.0)
    warm_up = run_program(RunRequest(Program(code=mlp(1)))).graph
    assert warm_up is not None
    worker.layout(warm_up, False)  # the worker's start is not part of any layout
    print(f"{'program':28} {'saved':>5} {'boxes':>6} {'rows':>7} {'drawn':>6} {'dot ms':>8}")
    try:
        for label, code, show_saved in CASES:
            graph = run_program(RunRequest(Program(code=code), time_limit=60.0)).graph
            assert graph is not None, label
            size = layout_size(graph, show_saved)
            drawn = "yes" if too_big(graph, show_saved) is None else "no"
            started = time.perf_counter()
            try:
                worker.layout(graph, show_saved)
                took = f"{(time.perf_counter() - started) * 1e3:8.0f}"
            except LayoutUnavailable:
                took = "  > 30 s"
            print(
                f"{label:28} {'yes' if show_saved else 'no':>5} {size.boxes:>6} "
                f"{size.rows_crossed:>7} {drawn:>6} {took}"
            )
    finally:
        worker.close()


if __name__ == "__main__":  # the layout worker is spawned: it imports this file too
    main()
