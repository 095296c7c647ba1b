"""``benchmarks/torchviz_sizes.py`` still runs: its program and the torchviz side at a
tiny size (the benchmark itself is not a test; the app side needs a window per size)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import torch
from pytestqt.qtbot import QtBot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import torchviz_sizes

pytest.importorskip("torchviz")


def test_the_program_has_the_asked_number_of_function_nodes() -> None:
    names: dict[str, object] = {"torch": torch}
    exec(torchviz_sizes.chain_program(21), names)
    out = names["out"]
    assert isinstance(out, torch.Tensor) and out.grad_fn is not None
    seen, stack = set(), [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(child for child, _ in fn.next_functions)
    functions = [fn for fn in seen if type(fn).__name__ != "AccumulateGrad"]
    assert len(functions) == 21


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs the dot program")
# torchviz's own version check uses distutils (its warning, not ours).
@pytest.mark.filterwarnings("ignore:distutils Version classes:DeprecationWarning")
def test_the_torchviz_side_runs_at_a_small_size(qtbot: QtBot) -> None:
    times = torchviz_sizes.torchviz_times(torchviz_sizes.chain_program(21), runs=1, cap=10)
    assert times.note == ""
    assert times.nodes >= 21
    assert times.first_ms is not None and times.first_ms > 0
    assert times.refresh_ms is not None and times.refresh_ms > 0
