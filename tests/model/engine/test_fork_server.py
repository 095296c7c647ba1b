"""No program changes the result of another; runaway and crashing runs are answered for.

Each test talks to the real engine process (the session-wide ``engine_process`` fixture):
one server that forks a walled-in process per program.
"""

from __future__ import annotations

import sys
import time

import pytest
import torch

from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import load_session
from gui.resources import lesson
from tests.fixtures import approx

pytestmark = pytest.mark.skipif(
    sys.platform not in ("linux", "darwin"), reason="runs get a fresh process only with fork"
)

# Lesson 3 with its slider value: z = (2x)^3 at x = -1.2095 has x.grad = 35.11.
CHAIN = load_session(lesson("03-chain-rule-leaves-only")).program

# Programs that change (or try to change) process-wide state. Each is run between two runs
# of the chain-rule lesson, which must give identical numbers. Some are refused; the point
# is the same: nothing they do reaches the next program.
STATE_CHANGERS = [
    pytest.param("torch.set_grad_enabled(False)\n", id="grad-off-statement"),
    pytest.param("torch.set_grad_enabled(False)\nx = torch.ones(2)\n", id="grad-off-then-code"),
    pytest.param("torch.manual_seed(123)\nx = torch.randn(3)\n", id="seed"),
    pytest.param("torch.set_printoptions(precision=1)\n", id="print-options"),
    pytest.param("import numpy as np\nnp.seterr(all='raise')\n", id="numpy-errors"),
    pytest.param("import numpy as np\nnp.random.seed(3)\n", id="numpy-seed"),
    pytest.param("torch.set_default_dtype(torch.float64)\n", id="default-dtype"),
    pytest.param("torch.set_autocast_enabled('cpu', True)\n", id="autocast"),
    pytest.param("torch.set_autocast_dtype('cpu', torch.bfloat16)\n", id="autocast-dtype"),
    pytest.param("torch.pi = 3\n", id="module-attribute"),
    pytest.param("torch.Tensor.add = None\n", id="class-attribute"),
    pytest.param("torch.autograd.backward = print\n", id="autograd-attribute"),
    pytest.param("torch.autograd.set_detect_anomaly(True)\n", id="anomaly"),
    pytest.param("x = torch.ones(1000, 1000, requires_grad=True)\ny = (x * 2).sum()\n", id="big"),
    pytest.param("while True:\n    pass\n", id="runaway"),
]


def chain(engine: EngineProcess, x: float = -1.2095) -> RunResult:
    program = Program(code=CHAIN.code, values={"x": [[x]]}, steps=CHAIN.steps, seed=CHAIN.seed)
    return engine.run(RunRequest(program))


def numbers(result: RunResult) -> object:
    """Every number a run shows: tensors, gradients, the graph's values."""
    assert result.error is None, result.error
    graph = result.graph
    assert graph is not None
    return (
        {name: (info.value, info.grad, info.grad_fn) for name, info in result.tensors.items()},
        [(n.key, n.value) for n in graph.nodes],
        [(s.gradient, s.grads_after, s.flows) for s in result.steps],
    )


@pytest.mark.slow
@pytest.mark.parametrize("changer", STATE_CHANGERS)
def test_a_program_leaves_nothing_for_the_next(engine_process: EngineProcess, changer: str) -> None:
    before = chain(engine_process)
    engine_process.run(RunRequest(Program(code=changer), time_limit=0.5))
    after = chain(engine_process)
    assert numbers(after) == numbers(before)
    assert after.tensors["x"].grad is not None
    assert after.tensors["x"].grad.values == approx([[35.11]])


@pytest.mark.slow
def test_runs_of_the_same_program_start_from_the_same_state(
    engine_process: EngineProcess,
) -> None:
    # Gradients off at the end of the program: a slider drag re-runs it in the same
    # process, which must start each run with gradients on again.
    code = (
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = (x ** 2).sum()\n"
        "y.backward()\n"
        "torch.set_grad_enabled(False)\n"
        "import numpy as np\n"
        "np.seterr(all='raise')\n"
    )
    for value in (1.0, 3.0, 5.0):
        result = engine_process.run(RunRequest(Program(code=code, values={"x": [value, 2.0]})))
        assert result.error is None, result.error
        assert result.tensors["x"].grad.values == [2 * value, 4.0]  # type: ignore[union-attr]


@pytest.mark.slow
def test_the_engine_says_which_walls_it_has(engine_process: EngineProcess) -> None:
    engine_process.run(RunRequest(Program(code="x = 1\n")))
    ready = engine_process.ready
    assert ready is not None and ready.isolation == "fork"
    if sys.platform == "linux":
        assert "seccomp" in ready.walls and any(w.startswith("landlock") for w in ready.walls)
        assert "RLIMIT_FSIZE" in ready.walls and "RLIMIT_AS" in ready.walls


@pytest.mark.slow
def test_the_server_stops_a_runaway_and_the_next_program_runs_at_once(
    engine_process: EngineProcess,
) -> None:
    started = time.monotonic()
    stopped = engine_process.run(
        RunRequest(Program(code="while True:\n    pass\n"), time_limit=0.3)
    )
    assert stopped.error is not None and stopped.error.kind == "runaway-code"
    assert "0.3 seconds" in stopped.error.message
    assert time.monotonic() - started < 3
    started = time.monotonic()
    assert chain(engine_process).error is None
    assert time.monotonic() - started < 3  # no torch import: a standby process was waiting


@pytest.mark.slow
def test_memory_is_freed_from_one_program_to_the_next(engine_process: EngineProcess) -> None:
    # 4 MB intermediates; with a fresh process per program nothing accumulates.
    code = "x = torch.ones(1000, 1000, requires_grad=True)\ny = (x * x).sum()\n"
    for value in range(30):
        result = engine_process.run(RunRequest(Program(code=code + f"z = {value}\n")))
        assert result.error is None, result.error


SEEDED = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * x\ny.backward(torch.tensor([1.0, -1.0]))\n"


def warm_engine_with_a_cold_owner() -> EngineProcess:
    """A new engine, ready, whose server has finished warming up (so it keeps the first
    owner's time at once), and whose first owner (forked before that) has run nothing."""
    engine = EngineProcess()
    engine.start()
    with engine._lock:
        engine._wait_ready()
    time.sleep(4)  # the server warms the rest (optimizers, seeded backward) meanwhile
    return engine


@pytest.mark.slow
def test_a_first_program_is_not_charged_for_what_was_left_to_warm() -> None:
    """The first owner is forked before the server warms up what the first result does
    not need (a backward seeded with a given gradient imports sympy, 0.3-0.5 s). A first
    program that needs it and runs out of its time there is run again in a warm process:
    its numbers come back, as plain torch gives them."""
    engine = warm_engine_with_a_cold_owner()
    try:
        result = engine.run(RunRequest(Program(code=SEEDED), time_limit=0.2))
        assert result.error is None, result.error
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * x).backward(torch.tensor([1.0, -1.0]))
        assert result.tensors["x"].grad is not None
        assert result.tensors["x"].grad.values == x.grad.tolist()
    finally:
        engine.close()


@pytest.mark.slow
def test_a_first_program_that_never_ends_is_still_stopped() -> None:
    """Run again in a warm process, a runaway first program runs out of time there too
    and is answered as runaway (within twice its limit), once."""
    engine = warm_engine_with_a_cold_owner()
    try:
        started = time.monotonic()
        stopped = engine.run(RunRequest(Program(code="while True:\n    pass\n"), time_limit=0.3))
        assert stopped.error is not None and stopped.error.kind == "runaway-code"
        assert time.monotonic() - started < 5
        assert chain(engine).error is None
    finally:
        engine.close()
