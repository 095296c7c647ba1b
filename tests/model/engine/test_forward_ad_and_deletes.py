"""Forward-mode AD (``torch.autograd.forward_ad``) and ``del obj.name`` run as written,
as the "Forward-mode Automatic Differentiation" tutorial writes them; the dual level is
process state, put back after every run; deletion follows the rules of assignment."""

from __future__ import annotations

import warnings

import torch
import torch.autograd.forward_ad as fwAD

from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult


def run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code=code), time_limit=10))


def printed(result: RunResult) -> list[str]:
    return [line.text.strip() for line in result.printed]


def test_a_jvp_through_a_dual_level_matches_plain_torch() -> None:
    code = (
        "import torch.autograd.forward_ad as fwAD\n"
        "x = torch.tensor([0.5, -1.0, 2.0])\n"
        "v = torch.tensor([1.0, 2.0, 3.0])\n"
        "with fwAD.dual_level():\n"
        "    y = fwAD.make_dual(x, v).sin() * 3\n"
        "    primal, tangent = fwAD.unpack_dual(y)\n"
        "print(tangent.tolist())\n"
        "print(fwAD.unpack_dual(y).tangent)\n"
    )
    result = run(code)
    assert result.error is None, result.error
    x = torch.tensor([0.5, -1.0, 2.0])
    v = torch.tensor([1.0, 2.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's first forward AD: torch.jit's deprecation
        with fwAD.dual_level():
            expected = fwAD.unpack_dual(fwAD.make_dual(x, v).sin() * 3).tangent.tolist()
    assert printed(result) == [str(expected), "None"]


def test_the_dual_level_is_put_back_after_a_run() -> None:
    baseline = pristine.capture()
    assert baseline.dual_level == -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's first forward AD: torch.jit's deprecation
        fwAD.enter_dual_level()  # as a level left open by a run would be
    assert pristine.capture() != baseline
    pristine.restore(baseline)
    assert pristine.capture() == baseline
    # And the next program enters its own level as if it were first.
    result = run(
        "import torch.autograd.forward_ad as fwAD\n"
        "with fwAD.dual_level():\n"
        "    t = fwAD.unpack_dual(fwAD.make_dual(torch.ones(2), torch.ones(2)) * 2).tangent\n"
        "print(t)\n"
    )
    assert result.error is None and printed(result) == ["tensor([2., 2.])"]


def test_entering_a_level_by_hand_stays_refused() -> None:
    for call in ("fwAD.enter_dual_level()", "fwAD.exit_dual_level()"):
        result = run(f"import torch.autograd.forward_ad as fwAD\n{call}\n")
        assert result.error is not None and result.error.kind == "unsafe-code", call


def test_del_follows_the_rules_of_assignment() -> None:
    allowed = run(
        "class Box:\n    pass\n"
        "b = Box()\nb.v = 1\ndel b.v\nprint(hasattr(b, 'v'))\n"
        "lin = torch.nn.Linear(2, 2)\ndel lin.bias\nlin.bias = None\n"
        "print(lin(torch.ones(1, 2)).shape)\n"
        "x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\ndel x.grad\n"
        "print(x.grad)\n"
    )
    assert allowed.error is None, allowed.error
    assert printed(allowed) == ["False", "torch.Size([1, 2])", "None"]
    for code, named in (
        ("x = [1]\ndel x.append\n", "append"),
        ("del torch.Tensor.add\n", "add"),
        ("del torch.nn.functional.relu\n", "relu"),
        ("t = torch.ones(2)\ndel t.data\n", "data"),
    ):
        refused = run(code)
        assert refused.error is not None and refused.error.kind == "unsafe-code", code
        assert named in refused.error.message, refused.error.message


def test_a_custom_functions_jvp_may_delete_what_it_kept_on_ctx() -> None:
    code = (
        "import torch.autograd.forward_ad as fwAD\n"
        "class Fn(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, foo):\n"
        "        result = torch.exp(foo)\n"
        "        ctx.result = result\n"
        "        return result\n"
        "    @staticmethod\n"
        "    def jvp(ctx, gI):\n"
        "        gO = gI * ctx.result\n"
        "        del ctx.result\n"
        "        return gO\n"
        "x = torch.tensor([0.0, 1.0], dtype=torch.double)\n"
        "with fwAD.dual_level():\n"
        "    out = Fn.apply(fwAD.make_dual(x, torch.ones(2, dtype=torch.double)))\n"
        "    print(fwAD.unpack_dual(out).tangent.tolist())\n"
    )
    result = run(code)
    assert result.error is None, result.error
    assert printed(result) == [str(torch.tensor([0.0, 1.0], dtype=torch.double).exp().tolist())]


def test_forward_ad_behind_the_walls_from_the_first_run() -> None:
    # Its first use loads torch's decompositions, which wants a temporary folder that the
    # operating-system wall leaves none of: done while warming up, and a program that
    # comes first (to the one process forked before that) is handed to a warm one.
    code = (
        "import torch.autograd.forward_ad as fwAD\n"
        "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "with fwAD.dual_level():\n"
        "    out = fwAD.make_dual(torch.tensor([3.0, 4.0]), torch.ones(2)) * w\n"
        "    print(fwAD.unpack_dual(out).tangent)\n"
        "loss = (w * 3).sum()\n"
    )
    engine = EngineProcess()
    engine.start()
    try:
        for _ in range(2):  # the first run, then a tick of the same program
            result = engine.run(RunRequest(Program(code=code), time_limit=30))
            assert result.error is None, result.error
            assert printed(result) == ["tensor([1., 2.], grad_fn=<AddBackward0>)"]  # as torch
    finally:
        engine.close()
