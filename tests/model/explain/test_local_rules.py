"""Local rules: every op's plugged-in numbers equal the engine's gradients and plain torch.

Each case is a small program whose op ``y`` reads leaves ``a`` (and ``b``) once, run
through the engine with ``y.backward(v)``. The op node's recomputed gradients must equal
what torch sent (``flow.leaving``), and that must equal ``a.grad``/``b.grad`` from the same
code run the ordinary way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui.model import nested
from gui.model.engine.run import run_program
from gui.model.explain.local_rules import (
    FAILED_STEP_TEXT,
    NO_STEP_TEXT,
    NodeDescription,
    describe,
    step_contribution,
)
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import GraphNode, RunResult, StepRecord
from gui.model.tensor_format import format_tensor

V3 = "torch.tensor([1.5, -2.0, 3.0], requires_grad=True)"
W3 = "torch.tensor([0.5, 2.0, -1.25], requires_grad=True)"
POS3 = "torch.tensor([0.5, 2.0, 3.0], requires_grad=True)"
M23 = "torch.tensor([[1.0, -2.0, 3.0], [0.5, 2.0, -1.0]], requires_grad=True)"
M32 = "torch.tensor([[1.0, 0.5], [-2.0, 2.0], [3.0, -1.0]], requires_grad=True)"
G3 = [1.0, -0.5, 2.0]
G23 = [[1.0, -0.5, 2.0], [0.25, 3.0, -1.0]]


@dataclass(frozen=True)
class Case:
    node: str  # the class name of the node under test
    a: str
    y: str
    gradient: Any
    b: str | None = None
    rule: str = ""  # a fragment the rule text must contain


CASES = [
    Case("AddBackward0", V3, "a + b", G3, W3, "∂(a + b)/∂b = 1"),
    Case("AddBackward0", M23, "a + b", G23, W3, "summed over the broadcast dims"),
    Case("AddBackward0", V3, "a + 1", G3, rule="grad_a = g"),
    Case("AddBackward0", V3, "torch.add(a, b, alpha=3)", G3, W3, "∂(a + 3·b)/∂b = 3"),
    Case("SubBackward0", V3, "a - b", G3, W3, "∂(a − b)/∂b = -1"),
    Case("SubBackward0", V3, "torch.sub(a, b, alpha=2.5)", G3, W3, "∂(a − 2.5·b)/∂b = -2.5"),
    Case("RsubBackward1", V3, "1 - a", G3, rule="= -1"),
    Case("MulBackward0", V3, "a * b", G3, W3, "∂(a·b)/∂a = b, ∂(a·b)/∂b = a"),
    Case("MulBackward0", M23, "a * b", G23, W3, "grad_b = g · a, summed"),
    Case("MulBackward0", V3, "2 * a", G3, rule="grad_a = g · 2"),
    Case("DivBackward0", V3, "a / b", G3, W3, "∂(a/b)/∂b = −a/b²"),
    Case("DivBackward0", V3, "a / 4", G3, rule="grad_a = g / 4"),
    Case("PowBackward0", V3, "a ** 3", G3, rule="∂(a³)/∂a = 3·a²"),
    Case("PowBackward0", POS3, "a ** 2.5", G3, rule="2.5·a^1.5"),
    Case("PowBackward0", V3, "a ** 0", G3, rule="grad_a = 0 · g"),
    Case("PowBackward0", V3, "a ** -1", G3, rule="∂(a⁻¹)/∂a = -1·a⁻²"),
    Case("PowBackward1", POS3, "a ** b", G3, W3, "ln a"),
    Case("PowBackward1", V3, "a ** b", G3, W3, "ln a"),  # negative base: nan, like torch
    Case(
        "PowBackward1",
        "torch.tensor([0.0, 2.0, 0.0], requires_grad=True)",
        "a ** b",
        G3,
        "torch.tensor([2.0, 1.0, -1.0], requires_grad=True)",
        "b ≥ 0",
    ),
    Case("PowBackward2", V3, "2 ** a", G3, rule="∂(2^a)/∂a = 2^a·ln 2"),
    Case("ExpBackward0", V3, "a.exp()", G3, rule="∂exp(a)/∂a = exp(a)"),
    Case("ExpBackward0", V3, "torch.exp(a)", G3, rule="exp(a)"),
    Case("LogBackward0", POS3, "a.log()", G3, rule="∂ln a/∂a = 1/a"),
    Case("SinBackward0", V3, "a.sin()", G3, rule="cos a"),
    Case("CosBackward0", V3, "torch.cos(a)", G3, rule="−sin a"),
    Case("TanhBackward0", V3, "a.tanh()", G3, rule="1 − tanh²a"),
    Case("SigmoidBackward0", V3, "torch.sigmoid(a)", G3, rule="σ(a)·(1 − σ(a))"),
    Case(
        "ReluBackward0",
        "torch.tensor([1.5, 0.0, -3.0], requires_grad=True)",
        "a.relu()",
        G3,
        rule="1 where a > 0",
    ),
    Case("ReluBackward0", V3, "F.relu(a)", G3, rule="[a > 0]"),
    Case("NegBackward0", V3, "-a", G3, rule="(−1)"),
    Case("SqrtBackward0", POS3, "a.sqrt()", G3, rule="1/(2√a)"),
    Case("ReciprocalBackward0", V3, "1 / a", G3, rule="−1/a²"),
    Case("AbsBackward0", V3, "a.abs()", G3, rule="sign(a)"),
    Case("SumBackward0", V3, "a.sum()", 2.0, rule="= 1 for every element"),
    Case("SumBackward0", M23, "a.sum()", -0.5, rule="copied into shape (2, 3)"),
    Case("SumBackward1", M23, "a.sum(dim=1)", [2.0, -1.0], rule="a.sum(dim=1)"),
    Case("SumBackward1", M23, "a.sum(0, keepdim=True)", [G3], rule="keepdim=True"),
    Case("SumBackward1", M23, "a.sum(-1)", [0.5, 4.0], rule="dim=1"),
    Case("MeanBackward0", M23, "a.mean()", 3.0, rule="= 1/6"),
    Case("MeanBackward1", M23, "a.mean(dim=0)", G3, rule="= 1/2"),
    Case("MeanBackward1", M23, "a.mean(-1, keepdim=True)", [[1.0], [-2.0]], rule="= 1/3"),
    Case("UnbindBackward0", V3, "sum(a)", 1.5, rule="stack([g₀, g₁, g₂], dim=0)"),
    Case("MmBackward0", M23, "a @ b", [[1.0, 2.0], [-1.0, 0.5]], M32, "grad_a = g @ bᵀ"),
    Case("MmBackward0", M23, "torch.mm(a, b)", [[1.0, 2.0], [-1.0, 0.5]], M32, "aᵀ @ g"),
    Case("MvBackward0", M23, "a @ b", [2.0, -1.0], V3, "grad_a = outer(g, b)"),
    Case("DotBackward0", V3, "a @ b", 2.0, W3, "∂(a·b)/∂a = b"),
    Case("MmBackward0", V3, "a @ b", [1.0, -2.0], M32, "@"),  # 1-D @ 2-D: unsqueeze, mm, squeeze
    Case("UnsqueezeBackward0", V3, "a.unsqueeze(0)", [G3], rule="reshaped to (3,)"),
    Case("ViewBackward0", M23, "a.view(6)", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], rule="reshaped"),
    Case("TBackward0", M23, "a.t()", [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], rule="gᵀ"),
    Case("PermuteBackward0", M23, "a.permute(1, 0)", [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    Case("CumsumBackward0", V3, "a.cumsum(0)", G3, rule="Jᵀ·g"),  # no rule of ours: fallback
]


def program(case: Case) -> str:
    lines = [f"a = {case.a}"] + ([f"b = {case.b}"] if case.b else []) + [f"y = {case.y}"]
    return "\n".join(lines) + "\n"


def run(case: Case) -> tuple[RunResult, StepRecord]:
    steps = (BackwardStep(gradient=case.gradient),)
    result = run_program(RunRequest(Program(code=program(case), output="y", steps=steps)))
    assert result.error is None, result.error
    return result, result.steps[-1]


def plain_torch(case: Case) -> dict[str, Any]:
    """The leaves' ``.grad`` from the same code run the ordinary way."""
    namespace: dict[str, Any] = {"torch": torch, "F": torch.nn.functional}
    exec(program(case), namespace)
    namespace["y"].backward(torch.tensor(case.gradient))
    return {n: namespace[n].grad.tolist() for n in ("a", "b") if n in namespace}


def close(x: Any, y: Any, rel: float = 1e-4) -> bool:
    xs, ys = nested.flatten(x), nested.flatten(y)
    if nested.shape_of(x) != nested.shape_of(y):
        return False
    scale = max([1.0, *(abs(v) for v in ys if math.isfinite(v))])
    return all(
        (math.isnan(p) and math.isnan(q))
        or p == q
        or math.isclose(p, q, rel_tol=rel, abs_tol=1e-6 * scale)
        for p, q in zip(xs, ys, strict=True)
    )


def node_named(result: RunResult, step: StepRecord, name: str) -> GraphNode:
    graph = step.graph or result.graph
    assert graph is not None
    return next(n for n in graph.nodes if n.name == name)


def describe_node(case: Case) -> tuple[NodeDescription, RunResult, StepRecord, GraphNode]:
    result, step = run(case)
    node = node_named(result, step, case.node)
    graph = step.graph or result.graph
    assert graph is not None
    return describe(node, step.flows[node.key], graph, step), result, step, node


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.node}:{c.y}")
def test_plugged_in_numbers_equal_torch(case: Case) -> None:
    description, _result, step, node = describe_node(case)
    plain = plain_torch(case)
    flow = step.flows[node.key]
    assert case.node in description.title
    assert case.rule in description.rule
    assert description.checks, "every case has at least one input needing a gradient"
    for check in description.checks:
        torch_grad = flow.leaving[check.input_index]
        assert torch_grad is not None and check.torch == torch_grad
        # The final "= ..." of each gradient is torch's own number, not ours.
        assert "= " + format_tensor(torch_grad, 12) in description.numbers
        if case.node == "CumsumBackward0":
            assert check.recomputed is None and check.matches is None
            continue
        assert check.matches is True, description.numbers
        assert close(check.recomputed, torch_grad.values)
        if check.symbol in plain:  # the input is a leaf: compare with plain torch's .grad
            assert close(torch_grad.values, plain[check.symbol], rel=1e-6)
            assert close(check.recomputed, plain[check.symbol])


def test_every_leaf_in_the_cases_gets_plain_torchs_grad() -> None:
    for case in (c for c in CASES if c.node in ("MulBackward0", "PowBackward1", "MmBackward0")):
        result, step = run(case)
        plain = plain_torch(case)
        graph = step.graph or result.graph
        assert graph is not None
        for leaf in (n for n in graph.nodes if n.kind == "leaf"):
            d = describe(leaf, step.flows[leaf.key], graph, step)
            assert d.title.startswith(f"{leaf.var} — leaf tensor (AccumulateGrad)")
            assert d.numbers.endswith("= " + format_tensor(step.grads_after[leaf.var], 12))
            assert close(step.grads_after[leaf.var].values, plain[leaf.var], rel=1e-6)  # type: ignore[union-attr]


ELEMENTWISE = {
    "MulBackward0": "a * b",
    "DivBackward0": "a / b",
    "SubBackward0": "a - b",
    "PowBackward1": "a.abs() ** b",
    "ExpBackward0": "a.exp() * b",
    "TanhBackward0": "a.tanh() + b",
    "SigmoidBackward0": "a.sigmoid() - b",
    "SinBackward0": "torch.sin(a) * b",
    "SqrtBackward0": "a.abs().sqrt() + b",
    "LogBackward0": "(a.abs() + 0.1).log() * b",
}
finite = st.floats(-4, 4, allow_nan=False, width=32).filter(lambda v: abs(v) > 1e-3)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    op=st.sampled_from(sorted(ELEMENTWISE)),
    a=st.lists(finite, min_size=1, max_size=4),
    seed=st.lists(finite, min_size=4, max_size=4),
)
def test_random_values_agree_with_torch(op: str, a: list[float], seed: list[float]) -> None:
    b = [v / 2 + 0.25 for v in seed[: len(a)]]
    case = Case(op, f"torch.tensor({a}, requires_grad=True)", ELEMENTWISE[op],
                seed[: len(a)], f"torch.tensor({b}, requires_grad=True)")  # fmt: skip
    description, _result, step, node = describe_node(case)
    for check in description.checks:
        assert check.matches is True, description.numbers
        assert close(check.recomputed, step.flows[node.key].leaving[check.input_index].values)  # type: ignore[union-attr]


def lesson_three() -> tuple[RunResult, StepRecord]:
    code = "x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\n"
    result = run_program(RunRequest(Program(code=code, values={"x": [[-1.2095]]})))
    return result, result.steps[-1]


def test_lesson_three_reads_like_the_chain_rule() -> None:
    result, step = lesson_three()
    assert result.graph is not None
    pow_node = node_named(result, step, "PowBackward0")
    d = describe(pow_node, step.flows[pow_node.key], result.graph, step)
    assert d.title == "PowBackward0 — backward of `z = y ** 3`"
    assert d.rule == "∂(y³)/∂y = 3·y²  →  grad_y = g · 3 · y²"
    assert d.numbers.splitlines() == [
        "g = [[1.]]",
        "grad_y = g · 3 · y²",
        "       = [[1.]] · 3 · [[-2.419]]²",
        "       = [[17.55]]",
    ]
    assert ("exponent", "3") in d.saved
    mul = node_named(result, step, "MulBackward0")
    d = describe(mul, step.flows[mul.key], result.graph, step)
    assert d.title == "MulBackward0 — backward of `y = x * 2`"
    assert d.rule == "∂(x·2)/∂x = 2  →  grad_x = g · 2"
    assert d.numbers.splitlines()[-2:] == [
        "       = [[35.11]]",
        "2: no gradient (it does not require grad)",
    ]
    leaf = next(n for n in result.graph.nodes if n.kind == "leaf")
    d = describe(leaf, step.flows[leaf.key], result.graph, step)
    assert "x.grad = x.grad + g" in d.numbers and d.numbers.endswith("= [[35.11]]")
    assert "None + [[35.11]]" in d.numbers


def test_without_a_backward_step_the_rule_stays_and_numbers_wait() -> None:
    result, step = lesson_three()
    assert result.graph is not None
    pow_node = node_named(result, step, "PowBackward0")
    d = describe(pow_node, None, result.graph)
    assert d.rule.startswith("∂(y³)/∂y = 3·y²")
    assert d.numbers == NO_STEP_TEXT
    assert d.checks == ()


def test_constant_saved_and_output_nodes() -> None:
    result, step = lesson_three()
    graph = result.graph
    assert graph is not None
    kinds = {n.kind: n for n in graph.nodes}
    constant = describe(kinds["constant"], None, graph, step)
    assert constant.title == "constant 2 — input of MulBackward0"
    assert "no gradient is computed" in constant.what and constant.numbers == "value = 2"
    saved = describe(kinds["saved"], None, graph, step)
    assert saved.title == "saved self = y — kept by PowBackward0"
    assert "it is your y" in saved.what and saved.numbers == "value = [[-2.419]]"
    output = describe(kinds["output"], None, graph, step)
    assert output.title == "z — the output"
    assert output.numbers.startswith("v = 1   (implicit")


def test_unnamed_inputs_get_placeholders_explained_in_what() -> None:
    result = run_program(
        RunRequest(
            Program(code="x = torch.tensor([1., 2.], requires_grad=True)\nout = (x ** 2).sum()\n")
        )
    )
    step = result.steps[-1]
    assert result.graph is not None
    node = node_named(result, step, "SumBackward0")
    d = describe(node, step.flows[node.key], result.graph, step)
    assert d.title == "SumBackward0 — backward of `out = u.sum()`"
    assert "u is the result of PowBackward0." in d.what


def test_an_input_used_twice_is_pointed_out() -> None:
    result = run_program(
        RunRequest(Program(code="w = torch.tensor([1., 2.], requires_grad=True)\nout = w @ w\n"))
    )
    step = result.steps[-1]
    assert result.graph is not None
    node = node_named(result, step, "DotBackward0")
    d = describe(node, step.flows[node.key], result.graph, step)
    assert "w feeds this node twice" in d.what
    assert [c.matches for c in d.checks] == [True, True]


def test_step_contribution_is_after_minus_before() -> None:
    code = "x = torch.tensor([1., 2.], requires_grad=True)\nout = (x ** 2).sum()\n"
    steps = (BackwardStep(retain_graph=True), BackwardStep())
    result = run_program(RunRequest(Program(code=code, steps=steps)))
    second = result.steps[-1]
    assert second.grads_before["x"].values == [2.0, 4.0]  # type: ignore[union-attr]
    assert step_contribution(second, "x") == [2.0, 4.0]
    assert step_contribution(result.steps[0], "x") == [2.0, 4.0]  # None before counts as 0
    assert step_contribution(second, "nope") is None


def test_a_failed_backward_says_so_instead_of_asking_for_one() -> None:
    code = "x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\nz.backward(torch.tensor([1.]))\n"
    result = run_program(RunRequest(Program(code=code)))
    step = result.steps[0]
    assert step.error is not None and result.graph is not None
    for node in result.graph.nodes:
        if node.kind in ("function", "leaf"):
            d = describe(node, step.flows.get(node.key), result.graph, step)
            assert d.numbers == FAILED_STEP_TEXT


def test_output_of_a_refused_implicit_backward_quotes_torch() -> None:
    result = run_program(
        RunRequest(Program(code="x = torch.tensor([1., 2.], requires_grad=True)\ny = x ** 2\n"))
    )
    step = result.steps[-1]
    assert step.error is not None and result.graph is not None
    output = next(n for n in result.graph.nodes if n.kind == "output")
    d = describe(output, None, result.graph, step)
    assert d.numbers.startswith("v: none given")
    assert "grad can be implicitly created only for scalar outputs" in d.numbers
