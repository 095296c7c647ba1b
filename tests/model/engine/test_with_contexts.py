"""What a `with` block may enter: checked on the object, not on the name the code shows."""

from __future__ import annotations

import pytest

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest


def run(code: str) -> tuple[str | None, int | None, list[str]]:
    result = run_program(RunRequest(Program(code=code)))
    error = result.error
    printed = [p.text for p in result.printed]
    return (None, None, printed) if error is None else (error.message, error.line, printed)


@pytest.mark.parametrize(
    "bound",
    [
        "torch.device('meta')",  # a function mode: every tensor made in the block is meta
        "torch.device('cpu')",
        "torch.ones(1)",
        "(lambda: None)",
    ],
)
def test_a_name_rebound_to_another_object_is_not_entered(bound: str) -> None:
    message, line, printed = run(
        f"no_grad = {bound}\nwith no_grad:\n    x = torch.ones(2)\n    print('inside')\n"
    )
    assert message is not None and message.startswith("`with` is not available on a ")
    assert line == 2 and printed == []


@pytest.mark.parametrize(
    ("context", "grad"),
    [
        ("torch.no_grad()", False),
        ("torch.enable_grad()", True),
        ("torch.set_grad_enabled(False)", False),
        ("torch.inference_mode()", False),
        ("torch.autograd.detect_anomaly()", True),
        ("torch.autograd.graph.disable_saved_tensors_hooks('no hooks here')", True),
        ("torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)", True),
    ],
)
def test_torchs_own_switches_are_entered_as_in_plain_torch(context: str, grad: bool) -> None:
    code = (
        "import torch.autograd.graph\n"
        "x = torch.ones(2, requires_grad=True)\n"
        f"with {context}:\n"
        "    y = x * 2\n"
        "print(y.requires_grad)\n"
    )
    message, _line, printed = run(code)
    assert message is None or "scalar" in message  # the app's own backward on a vector
    assert printed == [str(grad)]


def test_the_programs_own_context_manager_is_entered() -> None:
    code = (
        "class Timer:\n"
        "    def __enter__(self):\n"
        "        print('in')\n"
        "        return self\n"
        "    def __exit__(self, *args):\n"
        "        print('out')\n"
        "no_grad = Timer\n"
        "with no_grad():\n"
        "    print('body')\n"
    )
    message, _line, printed = run(code)
    assert message is None or "grad_fn" in message or "tensor" in message
    assert printed == ["in", "body", "out"]
