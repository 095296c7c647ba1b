"""A program that uses forward-mode AD only gets no automatic ``backward()``: the
"Forward-mode Automatic Differentiation" tutorial ends on a (16, 5) tensor, and an added
call on it would show a non-scalar error the learner never asked for. Every other program
keeps its automatic call; pressing Backward adds exactly one call."""

from __future__ import annotations

import warnings

import torch
import torch.autograd.forward_ad as fwAD

from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import Session
from gui.model.views.backward import gradient_note, output_note
from gui.model.views.status import status_bar_text

FORWARD_ONLY = (
    "import torch.autograd.forward_ad as fwAD\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "x = torch.tensor([[3.0, 4.0], [5.0, 6.0]])\n"
    "with fwAD.dual_level():\n"
    "    out = fwAD.make_dual(x, torch.ones(2, 2)) * w\n"
    "    jvp = fwAD.unpack_dual(out).tangent\n"
)


def run(code: str, **fields: object) -> RunResult:
    return run_program(RunRequest(Program(code=code, **fields), time_limit=30))  # type: ignore[arg-type]


def plain_jvp() -> list[list[float]]:
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.tensor([[3.0, 4.0], [5.0, 6.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's first forward AD: torch.jit's deprecation
        with fwAD.dual_level():
            out = fwAD.make_dual(x, torch.ones(2, 2)) * w
            return fwAD.unpack_dual(out).tangent.tolist()


def test_forward_ad_only_gets_no_added_backward() -> None:
    result = run(FORWARD_ONLY)
    assert result.error is None, result.error
    assert result.steps == ()  # no call: torch would have raised for the (2, 2) output
    assert result.no_added_backward == "forward-ad"
    assert result.output == "jvp"  # still the graph of the last tensor with a grad_fn
    assert result.graph is not None
    assert result.tensors["jvp"].value.values == plain_jvp()
    assert result.tensors["w"].grad is None  # as in plain torch: nobody called backward


def test_other_programs_keep_their_automatic_backward() -> None:
    plain = run("x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * 3).sum()\n")
    assert plain.no_added_backward is None
    assert [s.source for s in plain.steps] == ["session"]
    assert plain.tensors["x"].grad is not None and plain.tensors["x"].grad.values == [3.0, 3.0]
    # Forward AD and the code's own backward: its call is the one that runs, as before.
    both = run(FORWARD_ONLY + "loss = (w * 3).sum()\nloss.backward()\n")
    assert both.no_added_backward is None
    assert [s.source for s in both.steps] == ["code"]
    # A dual_level without make_dual (nothing forward-mode computed): the usual call.
    entered = run(
        "import torch.autograd.forward_ad as fwAD\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "with fwAD.dual_level():\n"
        "    y = (x * 2).sum()\n"
    )
    assert entered.no_added_backward is None and len(entered.steps) == 1


def test_a_chosen_output_or_session_calls_still_run() -> None:
    chosen = run(FORWARD_ONLY + "s = (w * 2).sum()\n", output="s")
    assert chosen.no_added_backward is None
    assert [s.source for s in chosen.steps] == ["session"]
    assert chosen.tensors["w"].grad is not None
    assert chosen.tensors["w"].grad.values == [2.0, 2.0]


def test_the_window_says_no_backward_and_backward_adds_one_call() -> None:
    session = Session(run_program)
    session.set_code(FORWARD_ONLY + "s = (w * 2).sum()\n")
    snap = session.snapshot
    assert snap.error is None, snap.error
    assert "forward-mode AD only" in status_bar_text(snap)
    assert "adds none" in output_note(snap)
    assert snap.adds_no_backward
    session.backward()  # one press, one call (not the automatic one plus another)
    snap = session.snapshot
    assert snap.error is None, snap.error
    assert snap.steps is not None and len(snap.steps) == 1
    assert snap.result is not None and len(snap.result.steps) == 1
    assert snap.leaf_grads["w"] is not None and snap.leaf_grads["w"].values == [2.0, 2.0]
    session.clear_steps()  # back to none
    snap = session.snapshot
    assert snap.steps is None and snap.result is not None and snap.result.steps == ()


def test_a_non_scalar_forward_ad_output_asks_for_v_only_when_backward_is_pressed() -> None:
    session = Session(run_program)
    session.set_code(FORWARD_ONLY)
    snap = session.snapshot
    assert snap.error is None, snap.error
    assert gradient_note(snap, None).startswith("No backward call runs")
    session.backward()  # pressed without v: torch's own error, as asked for
    snap = session.snapshot
    assert snap.error is not None and snap.error.kind == "non-scalar-backward"


def test_forward_ad_only_behind_the_walls() -> None:
    engine = EngineProcess()
    engine.start()
    try:
        for _ in range(2):  # the first run (a warm process), then a tick of the same program
            result = engine.run(RunRequest(Program(code=FORWARD_ONLY), time_limit=30))
            assert result.error is None, result.error
            assert result.no_added_backward == "forward-ad" and result.steps == ()
            assert result.tensors["jvp"].value.values == plain_jvp()
    finally:
        engine.close()
