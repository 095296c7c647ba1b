"""Start-up on a machine that cannot run the app: one line on stderr, status 3, no traceback.

The real command line runs under a low address-space limit (``ulimit -v 400000``), where
torch, Qt or Graphviz fail to load half-way through; and the safety net behind the check
turns any late ``MemoryError`` or failed library load into the same kind of line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gui import app, headless
from gui.app import EXIT_CANNOT_RUN, MIN_ADDRESS_SPACE_BYTES, address_space_problem
from gui.resources import lesson

ROOT = Path(__file__).resolve().parents[1]
# What `ulimit -v 400000` sets: 400,000 KiB.
LOW_LIMIT = 400_000 * 1024
NOISE = ("This plugin does not support", "Fontconfig")


def run_limited(*args: str) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (LOW_LIMIT, LOW_LIMIT))

    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line and not line.startswith(NOISE)]


@pytest.mark.skipif(sys.platform == "win32", reason="ulimit -v is POSIX")
@pytest.mark.parametrize("mode", ["--screenshot", "--export"])
def test_a_low_memory_limit_ends_with_one_clear_line(tmp_path: Path, mode: str) -> None:
    out = tmp_path / ("shot.png" if mode == "--screenshot" else "out")
    done = run_limited(str(lesson("01-why-sum")), mode, str(out))
    assert done.returncode == EXIT_CANNOT_RUN, done.stderr
    assert "Traceback" not in done.stderr
    assert error_lines(done.stderr) == [
        "error: this process may use only 390 MiB of memory (ulimit -v 400000); Autograd "
        "Explorer needs at least 1024 MiB to load PyTorch and Qt, so raise the limit "
        "(ulimit -v unlimited) and start it again"
    ]
    assert not out.exists()


def test_enough_address_space_is_no_problem() -> None:
    assert address_space_problem(MIN_ADDRESS_SPACE_BYTES) is None
    assert address_space_problem(64 * 1024**3) is None
    problem = address_space_problem(MIN_ADDRESS_SPACE_BYTES - 1)
    assert problem is not None and problem.startswith("error: this process may use only 1023 MiB")


@pytest.mark.parametrize(
    ("failure", "start"),
    [
        (MemoryError(), "error: the computer ran out of memory while starting"),
        (
            ImportError("libtorch_cpu.so: failed to map\nsegment from shared object"),
            "error: a library could not be loaded (libtorch_cpu.so: failed to map segment from "
            "shared object); with too little memory",
        ),
    ],
)
def test_failures_while_starting_are_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    failure: BaseException,
    start: str,
) -> None:
    def fail(*args: object, **kwargs: object) -> int:
        raise failure

    monkeypatch.setattr(app, "address_space_problem", lambda: None)
    monkeypatch.setattr(headless, "summarize", fail)
    assert app.main(["--report"]) == EXIT_CANNOT_RUN
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(start), err
