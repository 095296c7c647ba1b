"""Random programs: the engine's values and gradients equal plain PyTorch's, exactly.

Hypothesis builds small differentiable programs from a grammar of common ops; each runs
through the engine and, as ordinary Python, straight through torch. Both use the same
float32 arithmetic, so the numbers must match to the bit.
"""

from __future__ import annotations

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest

UNARY = [
    "({}).sin()",
    "({}).cos()",
    "torch.tanh({})",
    "torch.sigmoid({})",
    "({}) ** 2",
    "F.relu({})",
    "({}).exp().clamp(max=50)",
    "torch.abs({})",
]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (1.5 + ({}) ** 2)"]


def expressions(depth: int) -> st.SearchStrategy[str]:
    leaf = st.sampled_from(["x", "w", "torch.tensor(2.0)", "x * w"])
    if depth == 0:
        return leaf
    sub = expressions(depth - 1)
    return st.one_of(
        leaf,
        st.builds(lambda f, a: f.format(a), st.sampled_from(UNARY), sub),
        st.builds(lambda f, a, b: f.format(a, b), st.sampled_from(BINARY), sub, sub),
    )


values = st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=3, max_size=3)


def plain(code: str, x: list[float], w: list[float], v: list[float] | None) -> dict[str, object]:
    namespace: dict[str, object] = {
        "torch": torch,
        "F": torch.nn.functional,
        "tensor": torch.tensor,
    }
    exec(code.replace("XVALUES", repr(x)).replace("WVALUES", repr(w)), namespace)
    y = namespace["y"]
    assert isinstance(y, torch.Tensor)
    y.backward(None if v is None else torch.tensor(v))
    grads = {name: namespace[name].grad for name in ("x", "w")}  # type: ignore[attr-defined]
    return {"y": y.tolist(), **{n: None if g is None else g.tolist() for n, g in grads.items()}}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=expressions(3), x=values, w=values, v=values, reduce=st.booleans())
def test_random_programs_match_plain_torch(
    expr: str, x: list[float], w: list[float], v: list[float], reduce: bool
) -> None:
    body = f"({expr}) * torch.ones(3) + 0.0 * x"  # a vector that needs grad, even for "2.0"
    code = (
        "x = torch.tensor(XVALUES, requires_grad=True)\n"
        "w = torch.tensor(WVALUES, requires_grad=True)\n"
        f"y = {f'({body}).sum()' if reduce else body}\n"
    )
    seed = None if reduce else v
    expected = plain(code, x, w, seed)
    source = code.replace("XVALUES", "[0., 0., 0.]").replace("WVALUES", "[0., 0., 0.]")
    result = run_program(
        RunRequest(
            Program(code=source, values={"x": x, "w": w}, steps=(BackwardStep(gradient=seed),))
        )
    )
    assert result.error is None, (code, result.error)
    assert result.output_value is not None and result.output_value.values == expected["y"]
    for name in ("x", "w"):
        grad = result.tensors[name].grad
        assert (None if grad is None else grad.values) == expected[name], (code, name)
    for check in result.steps[0].jacobians:
        assert check.matches, (code, check)
