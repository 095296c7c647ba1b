"""Every explanation whose fix is code names the learner's own variables, and the fix, put
in place of the line it is about, makes the error go away (issue 11)."""

from __future__ import annotations

import ast
import re

import pytest

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Explanation


def run(code: str) -> Explanation | None:
    return run_program(RunRequest(Program(code=code, steps=()))).error


def code_snippets(fix: str) -> list[str]:
    """The backticked parts of a fix that are whole Python statements."""
    found = []
    for part in re.findall(r"`([^`]+)`", fix):
        try:
            ast.parse(part)
        except SyntaxError:
            continue
        if any(c in part for c in "(=:"):
            found.append(part)
    return found


# (program, kind, the line the fix replaces: None for the error's own line, -n to put it
# after line n; names the fix must use)
CASES = [
    pytest.param(
        "w = torch.randn(3, requires_grad=True)\nloss = (w * 2).sum()\nloss.backward()\n"
        "w -= 0.1 * w.grad\n",
        "leaf-inplace",
        None,
        ["w"],
        id="leaf-minus-equals",
    ),
    pytest.param(
        "x = torch.ones(2, requires_grad=True)\nz = torch.zeros(2, requires_grad=True)\n"
        "y = (x * 2).sum()\nz += 1\n",
        "leaf-inplace",
        None,
        ["z"],
        id="leaf-plus-equals-z",
    ),
    pytest.param(
        "a = torch.tensor([0.5, 1.0], requires_grad=True)\ntorch.sin_(a)\n",
        "leaf-inplace",
        None,
        ["a"],
        id="torch-sin-underscore",
    ),
    pytest.param(
        "x = torch.ones(2, requires_grad=True)\ndef bump():\n    x.add_(1)\nbump()\n",
        "leaf-inplace",
        None,
        ["x"],
        id="method-in-function",
    ),
    pytest.param(
        "x = torch.randn(4, 2)\nw = torch.randn(2, 1, requires_grad=True)\n"
        "loss = (x @ w).pow(2).mean()\nloss.backward()\nprint(loss.data[0])\n",
        "zero-dim-index",
        None,
        ["loss"],
        id="loss-data-0",
    ),
    pytest.param(
        "x = torch.tensor([1., 2.], requires_grad=True)\nout = x * 3\nout.backward()\n",
        "non-scalar-backward",
        None,
        ["out"],
        id="non-scalar",
    ),
    pytest.param(
        "x = torch.tensor([1., 2.], requires_grad=True)\nq = (x ** 2).sum()\nq.backward()\n"
        "q.backward()\n",
        "backward-twice",
        3,
        ["q"],
        id="backward-twice",
    ),
    pytest.param(
        "x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\nm = x * 2\n"
        "m.backward(torch.tensor([1., 1., 1., 1.]))\n",
        "gradient-shape-mismatch",
        None,
        ["m"],
        id="gradient-shape",
    ),
    pytest.param(
        "x = torch.tensor([1., 2.], requires_grad=True)\nprint(x.numpy())\n",
        "numpy-requires-grad",
        None,
        ["x"],
        id="numpy",
    ),
    pytest.param(
        "dev = 'cuda'\nt = torch.ones(2).to('cuda')\n",
        "no-gpu",
        None,
        [],
        id="to-cuda",
    ),
    pytest.param(
        "a = torch.ones(3, 4)\nb = torch.ones(3, 4)\nc = a @ b\n",
        "matmul-shape",
        None,
        ["a", "b"],
        id="matmul",
    ),
    pytest.param(
        "u = torch.tensor([1., 2.])\nv = (u * 2).sum()\nv.backward()\n",
        "no-grad-to-compute",
        -1,
        ["u", "v"],
        id="no-grad-fn",
    ),
]


@pytest.mark.parametrize(("code", "kind", "patch_line", "names"), CASES)
def test_the_fix_names_your_variables_and_works(
    code: str, kind: str, patch_line: int | None, names: list[str]
) -> None:
    error = run(code)
    assert error is not None and error.kind == kind, error
    assert error.line is not None
    for name in names:
        assert re.search(rf"\b{name}\b", error.fix), (name, error.fix)
    fixes = code_snippets(error.fix)
    assert fixes, f"no code in the fix: {error.fix}"
    lines = code.splitlines()
    if patch_line is not None and patch_line < 0:  # the fix goes after a line
        lines.insert(-patch_line, fixes[0])
    else:
        number = patch_line or error.line
        line = lines[number - 1]
        lines[number - 1] = line[: len(line) - len(line.lstrip())] + fixes[0]
    fixed = "\n".join(lines) + "\n"
    assert run(fixed) is None, (fixed, run(fixed))
