"""One run against the next: its builtins stay the checked ones, nothing of it outlives it,
and the next run of the same program sees what a fresh process would."""

from __future__ import annotations

import ast
import gc
import weakref

import pytest

from gui.model.engine import run as run_module
from gui.model.engine.run import BUILTINS_REPLACED, run_program
from gui.model.request import Program, RunRequest

# Python removes the name after `except ... as` at the end of the clause: bound to
# `__builtins__`, that leaves the namespace without it, and exec() then hands the next
# statement the real builtins. The static check refuses the binding; this skips the check,
# as a way round it nobody has found yet would.
DROPS_BUILTINS = (
    "try:\n    1 / 0\nexcept ZeroDivisionError as __builtins__:\n    pass\nopened = open\n"
)


def unchecked(code: str) -> tuple[tuple[object, int], ...]:
    tree = ast.parse(code)
    return tuple(
        (compile(ast.Module(body=[stmt], type_ignores=[]), "<program>", "exec"), stmt.lineno)
        for stmt in tree.body
    )


def test_a_statement_never_runs_once_the_checked_builtins_are_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run_module, "_compiled", unchecked)
    result = run_program(RunRequest(Program(code=DROPS_BUILTINS)))
    assert result.error is not None
    assert result.error.message == BUILTINS_REPLACED
    assert result.error.line == 5, "stopped before the statement that would use them"
    assert "opened" not in result.tensors


def test_the_checks_refuse_the_binding_itself() -> None:
    result = run_program(RunRequest(Program(code=DROPS_BUILTINS)))
    assert result.error is not None and result.error.line == 3


def test_nothing_of_a_run_stays_alive_after_it() -> None:
    """A custom Function and a hook make cycles through torch's C++ nodes, which Python's
    collector cannot free: they must not hold the run's objects."""
    code = (
        "class Square(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * x\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        (x,) = ctx.saved_tensors\n"
        "        return 2 * x * g\n"
        "class Marker:\n"
        "    pass\n"
        "marker = Marker()\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = Square.apply(x)\n"
        "y.register_hook(lambda g: g * 1)\n"
        "out = y.sum()\n"
    )
    seen: list[weakref.ref[object]] = []
    real_execute = run_module._Run.execute

    def execute(self: run_module._Run, statements: object) -> object:
        answer = real_execute(self, statements)  # type: ignore[arg-type]
        seen.append(weakref.ref(self.namespace["marker"]))
        return answer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_module._Run, "execute", execute)
        result = run_program(RunRequest(Program(code=code)))
    assert result.error is None
    gc.collect()
    assert seen and seen[0]() is None, "the run's objects were freed with it"


def test_a_warning_torch_gives_once_per_process_is_shown_on_every_run() -> None:
    """A slider tick runs the program again in the same process: the warning it gave on
    the first run (torch's warn-once kind) must be there on the tenth too."""
    code = "x = torch.tensor([1., 2.], requires_grad=True)\nloss = (x**2).sum()\nv = float(loss)\n"
    kinds = [
        [w.kind for w in run_program(RunRequest(Program(code=code))).warnings] for _ in range(3)
    ]
    assert kinds == [["scalar-conversion"]] * 3
