"""The engine's records: graph, node flows, Jacobians, overrides, prints, output choice."""

from __future__ import annotations

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import RunResult
from tests.fixtures import V1, V2, approx, cube_grad, shown

CHAIN = "x = torch.randn(2, 2, requires_grad=True)\ny = 2 * x\nz = y ** 3\n"
X = [[1.3448, -0.2924], [-0.4746, 0.8842]]
ONES = [[1.0, 1.0], [1.0, 1.0]]


def plain_chain(v: list[list[float]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x = torch.tensor(X, requires_grad=True)
    y = 2 * x
    z = y**3
    z.backward(torch.tensor(v))
    return x, y, z


def grad_of(result: RunResult, name: str = "x") -> object:
    grad = result.tensors[name].grad
    return None if grad is None else grad.values


def run_chain(x: object, gradient: object = ONES) -> RunResult:
    """``z = (2x)^3`` run with ``x`` and ``z.backward(gradient)``."""
    program = Program(code=CHAIN, values={"x": x}, steps=(BackwardStep(gradient=gradient),))
    return run_program(RunRequest(program))


def test_graph_names_nodes_after_the_users_variables() -> None:
    result = run_chain(X)
    graph = result.graph
    assert graph is not None
    by_name = {n.name: n for n in graph.nodes if n.kind in ("function", "leaf")}
    assert by_name["PowBackward0"].label == "z"
    assert by_name["MulBackward0"].label == "y"
    assert by_name["AccumulateGrad"].label == "x"
    output = graph.node("output")
    assert output.label == "z" and output.kind == "output"
    edges = {(graph.node(e.source).label, graph.node(e.target).label) for e in graph.edges}
    assert ("x", "y") in edges and ("y", "z") in edges and ("z", "z") in edges
    # 2 * x: the 2 is a constant input of the multiplication, shown with its value
    const = next(n for n in graph.nodes if n.kind == "constant")
    assert (
        const.owner == by_name["MulBackward0"].key
        and const.value is not None
        and const.value.values == 2
    )
    # z = y ** 3 saved y itself and the exponent
    saved = {s.name: s for s in by_name["PowBackward0"].saved}
    assert saved["self"].refers_to == "y" and saved["exponent"].value == 3
    assert any(n.kind == "saved" and n.var == "y" for n in graph.nodes)


def test_node_values_are_the_forward_results() -> None:
    result = run_chain(X)
    _, y, z = plain_chain([[1.0, 1.0], [1.0, 1.0]])
    graph = result.graph
    assert graph is not None
    by_label = {n.label: n for n in graph.nodes if n.kind == "function"}
    assert by_label["y"].value is not None and by_label["y"].value.values == y.tolist()
    assert by_label["z"].value is not None and by_label["z"].value.values == z.tolist()


def test_flows_show_the_gradient_arriving_and_leaving_each_node() -> None:
    v = [[1.0, 0.0], [1.0, 0.0]]
    result = run_chain(X, v)
    x, y, _ = plain_chain(v)
    step = result.steps[0]
    graph = step.graph
    assert graph is not None and graph.structure_key == result.graph.structure_key  # type: ignore[union-attr]
    keys = {n.label: n.key for n in graph.nodes if n.kind in ("function", "leaf")}
    pow_flow = step.flows[keys["z"]]
    assert pow_flow.arriving[0] is not None and pow_flow.arriving[0].values == v
    expected_dy = (3 * y.detach() ** 2 * torch.tensor(v)).tolist()
    assert pow_flow.leaving[0] is not None and pow_flow.leaving[0].values == approx(
        expected_dy, rel=1e-6, abs=0
    )
    leaf_flow = step.flows[keys["x"]]
    assert leaf_flow.arriving[0] is not None and leaf_flow.arriving[0].values == x.grad.tolist()
    assert pow_flow.order < step.flows[keys["y"]].order < leaf_flow.order


def test_jacobian_and_the_vjp_check() -> None:
    result = run_program(
        RunRequest(
            Program(
                code="x = tensor([3., 4., 10.], requires_grad=True)\ny = x ** 2\n",
                steps=(BackwardStep(gradient=[1.0, 0.5, 0.0]),),
            )
        )
    )
    (check,) = result.steps[0].jacobians
    assert check.leaf == "x"
    assert check.matrix == [[6.0, 0.0, 0.0], [0.0, 8.0, 0.0], [0.0, 0.0, 20.0]]
    assert check.vjp == [6.0, 4.0, 0.0]
    assert check.contribution == [6.0, 4.0, 0.0]
    assert check.matches


def test_jacobian_check_compares_only_this_steps_contribution() -> None:
    steps = (
        BackwardStep(gradient=[1.0, 1.0], retain_graph=True),
        BackwardStep(gradient=[0.0, 1.0]),
    )
    result = run_program(
        RunRequest(
            Program(code="w = tensor([1., 2.], requires_grad=True)\nq = w * w\n", steps=steps)
        )
    )
    second = result.steps[1]
    assert second.grads_after["w"] is not None and second.grads_after["w"].values == [2.0, 8.0]
    (check,) = second.jacobians
    assert check.contribution == [0.0, 4.0] and check.matches


def test_keys_are_structural_values_do_not_change_them() -> None:
    a = run_chain(X)
    b = run_chain([[5.0, 6.0], [7.0, 8.0]])
    c = run_program(
        RunRequest(
            Program(
                code=CHAIN + "w = z.sin()\n",
                steps=(BackwardStep(gradient=[[1.0, 1.0], [1.0, 1.0]]),),
            )
        )
    )
    assert a.graph is not None and b.graph is not None and c.graph is not None
    assert [n.key for n in a.graph.nodes] == [n.key for n in b.graph.nodes]
    assert a.graph.structure_key == b.graph.structure_key
    assert a.graph.structure_key != c.graph.structure_key


def test_thousands_of_nodes_walk_without_recursion() -> None:
    code = "x = torch.tensor(1.0, requires_grad=True)\nh = x\nfor i in range(3000):\n    h = h * 1.0001\n"
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is None
    assert result.graph is not None
    assert sum(1 for n in result.graph.nodes if n.kind == "function") == 3000
    assert result.tensors["x"].grad is not None
    assert result.tensors["x"].grad.values == pytest.approx(1.0001**3000, rel=1e-3)


def test_override_wins_over_the_code_and_bad_overrides_are_reported() -> None:
    result = run_program(
        RunRequest(
            Program(
                code="x = torch.randn(3, requires_grad=True)\ny = (x * 2).sum()\n",
                values={"x": [1.0, 2.0, 3.0], "q": [1.0], "y": 5.0},
            )
        )
    )
    assert result.tensors["x"].value.values == [1.0, 2.0, 3.0]
    assert result.tensors["x"].grad is not None and result.tensors["x"].grad.values == [
        2.0,
        2.0,
        2.0,
    ]
    messages = " ".join(w.message for w in result.warnings)
    assert "values.q" in messages and "values.y" in messages

    wrong = run_program(
        RunRequest(
            Program(code="x = torch.randn(3, requires_grad=True)\n", values={"x": [1.0, 2.0]})
        )
    )
    assert any("values.x has shape [2]" in w.message for w in wrong.warnings)


def test_random_leaves_are_reproducible_from_the_seed() -> None:
    code = "x = torch.randn(4, requires_grad=True)\ny = x.sum()\n"
    a, b, c = (run_program(RunRequest(Program(code=code, seed=s))) for s in (7, 7, 8))
    assert a.tensors["x"].value == b.tensors["x"].value != c.tensors["x"].value
    torch.manual_seed(7)
    assert a.tensors["x"].value.values == torch.randn(4).tolist()


def test_default_output_is_the_last_tensor_backward_ran_on() -> None:
    code = "x = tensor([1., 2.], requires_grad=True)\nloss = (x ** 2).sum()\nloss.backward()\nextra = x * 3\n"
    result = run_program(RunRequest(Program(code=code)))
    assert result.output == "loss"
    assert len(result.steps) == 1, "the code called backward itself: no extra implicit step"


def test_default_output_is_the_last_assigned_tensor_with_a_grad_fn() -> None:
    result = run_program(
        RunRequest(
            Program(
                code="x = tensor([1., 2.], requires_grad=True)\na = (x * 2).sum()\nb = torch.ones(2)\n"
            )
        )
    )
    assert result.output == "a"


def test_named_output_and_unknown_output() -> None:
    code = "x = tensor([1., 2.], requires_grad=True)\na = (x * 2).sum()\nb = (x ** 3).sum()\n"
    result = run_program(RunRequest(Program(code=code, output="a")))
    assert result.output == "a" and result.tensors["x"].grad is not None
    assert result.tensors["x"].grad.values == [2.0, 2.0]
    missing = run_program(RunRequest(Program(code=code, output="nope")))
    assert missing.error is not None and missing.error.kind == "unknown-output"


def test_create_graph_allows_second_derivatives() -> None:
    code = "x = tensor(3., requires_grad=True)\ny = x ** 3\n"
    result = run_program(RunRequest(Program(code=code, steps=(BackwardStep(create_graph=True),))))
    assert result.tensors["x"].grad is not None and result.tensors["x"].grad.values == 27.0
    code2 = code + "y.backward(create_graph=True)\ng = x.grad\nx.grad = None\ng.backward()\n"
    second = run_program(RunRequest(Program(code=code2, steps=())))
    assert second.error is None
    assert second.tensors["x"].grad is not None and second.tensors["x"].grad.values == 18.0


def test_errors_point_at_the_line_inside_a_helper_function() -> None:
    code = "x = tensor([1., 2.], requires_grad=True)\ndef f(q):\n    return q @ torch.ones(3)\ny = f(x)\n"
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is not None and result.error.line == 3
    assert result.error.exception == "RuntimeError"


def test_classic_errors_are_explained_with_their_lines() -> None:
    cases = {
        "x = tensor([1., 2.], requires_grad=True)\nx += 1\n": ("leaf-inplace", 2),
        "x = tensor([1, 2], requires_grad=True)\n": ("integer-requires-grad", 1),
        "a = tensor([1., 2.], requires_grad=True)\nb = a.sigmoid()\nb.add_(1)\nb.sum().backward()\n": (
            "saved-tensor-modified",
            4,
        ),
        "a = tensor([1., 2.])\nb = (a * 2).sum()\nb.backward()\n": ("no-grad-to-compute", 3),
        "x = tensor([1., 2.], requires_grad=True)\ny = (x * 2).sum()\ny.backward()\ny.backward()\n": (
            "backward-twice",
            4,
        ),
    }
    for code, (kind, line) in cases.items():
        result = run_program(RunRequest(Program(code=code)))
        assert result.error is not None, code
        assert (result.error.kind, result.error.line) == (kind, line), code


def test_warnings_from_the_code_are_recorded_with_their_line() -> None:
    code = (
        "x = tensor([1., 2.], requires_grad=True)\ny = x * 2\ny.sum().backward()\nprint(y.grad)\n"
    )
    result = run_program(RunRequest(Program(code=code)))
    (warning,) = result.warnings
    assert warning.kind == "non-leaf-grad" and warning.line == 4
    assert "y.retain_grad()" in warning.fix
    assert result.printed[0].text == "None"


def test_print_output_is_captured_and_capped() -> None:
    result = run_program(RunRequest(Program(code="for i in range(5000):\n    print(i)\n")))
    assert result.output_truncated and result.error is None
    texts = [p.text for p in result.printed]
    assert texts[0] == "0" and texts[-1] == "4999"
    assert "… 4,000 printed lines left out …" in texts


def test_tutorial_seed_and_print_options_work_and_do_not_leak() -> None:
    code = "torch.manual_seed(42)\ntorch.set_printoptions(precision=2)\nx = torch.randn(2, requires_grad=True)\nprint(x)\n"
    result = run_program(RunRequest(Program(code=code, seed=3, steps=())))
    torch.manual_seed(42)
    assert result.tensors["x"].value.values == torch.randn(2).tolist()
    assert result.error is None and "." in result.printed[0].text
    plain = run_program(RunRequest(Program(code="print(tensor([1.23456]))\n")))
    assert plain.printed[0].text == "tensor([1.2346])"


def test_a_shape_change_is_a_structure_change() -> None:
    code = "x = torch.randn({n}, requires_grad=True)\ny = (x * 2).sum()\n"
    a, b = (run_program(RunRequest(Program(code=code.format(n=n)))) for n in (3, 4))
    assert a.graph is not None and b.graph is not None
    assert [n.key for n in a.graph.nodes] == [n.key for n in b.graph.nodes]
    assert a.graph.structure_key != b.graph.structure_key


def test_a_program_without_tensors_says_so() -> None:
    result = run_program(RunRequest(Program(code="a = 1 + 2\nprint(a)\n")))
    assert result.error is None and result.output is None and result.graph is None
    assert [w.kind for w in result.warnings] == ["no-output"]
    assert result.printed[0].text == "3"


def test_a_long_training_loop_records_every_step_and_details_the_first() -> None:
    code = (
        "w = torch.tensor([1., -2.], requires_grad=True)\n"
        "for i in range(150):\n"
        "    loss = ((w - 3) ** 2).sum()\n"
        "    loss.backward()\n"
        "    with torch.no_grad():\n"
        "        w -= 0.1 * w.grad\n"
        "    w.grad.zero_()\n"
    )
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is None
    assert len(result.steps) == 150
    assert [s.details_dropped for s in result.steps].index(True) == 100
    assert all(s.zero_grad for s in result.steps[1:])
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    for _ in range(150):
        ((w - 3) ** 2).sum().backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
        w.grad.zero_()
    assert result.tensors["w"].value.values == w.tolist()


def test_an_empty_output_meets_torchs_own_error_not_an_app_bug() -> None:
    # Found by the fuzz script: the Jacobian of an empty output used to crash the engine.
    code = "h = tensor([], requires_grad=True)\ny = h * 2\n"
    result = run_program(RunRequest(Program(code=code, steps=(BackwardStep(gradient=1.5),))))
    assert result.error is not None and result.error.kind != "engine-error"
    h = torch.tensor([], requires_grad=True)
    y = h * 2
    with pytest.raises(RuntimeError) as plain:
        y.backward(torch.tensor(1.5))
    assert result.error.message == str(plain.value)
    empty_sum = run_program(RunRequest(Program(code=code + "y = (h * 2).sum()\n")))
    assert empty_sum.error is None and empty_sum.tensors["h"].grad.values == []  # type: ignore[union-attr]


# -- the session's backward calls: automatic retain_graph, and where a failed one points -----

LESSON_3 = "x = torch.randn(1, 1, requires_grad=True)\ny = 2 * x\nz = y ** 3\n"


def test_automatic_calls_accumulate_like_retain_graph_true() -> None:
    # Three Backward presses on learners.md scenario 3: x.grad adds up, no error.
    steps = (BackwardStep(), BackwardStep(), BackwardStep())
    result = run_program(RunRequest(Program(LESSON_3, values={"x": [[-1.2095]]}, steps=steps)))
    x = torch.tensor([[-1.2095]], requires_grad=True)
    z = (2 * x) ** 3
    z.backward(retain_graph=True)
    z.backward(retain_graph=True)
    z.backward()
    assert result.error is None
    assert grad_of(result) == x.grad.tolist()  # type: ignore[union-attr]
    assert grad_of(result) == approx([[3 * 35.11]], abs=0.01)
    assert [s.retain_graph for s in result.steps] == [True, True, False], "kept, kept, freed"


def test_scenario_five_accumulates_without_asking_for_retain_graph() -> None:
    steps = (BackwardStep(gradient=V1), BackwardStep(gradient=V2))
    result = run_program(RunRequest(Program(CHAIN, values={"x": X}, steps=steps)))
    assert result.error is None
    assert grad_of(result) == cube_grad(X, V1, V2).tolist()
    assert shown(cube_grad(X, V1, V2)) == "[[43.40, 2.052], [5.406, 18.76]]"


def test_explicit_false_before_another_call_is_torchs_error_named_at_the_right_place() -> None:
    steps = (BackwardStep(), BackwardStep(retain_graph=False), BackwardStep())
    result = run_program(RunRequest(Program(LESSON_3, values={"x": [[-1.2095]]}, steps=steps)))
    x = torch.tensor([[-1.2095]], requires_grad=True)
    z = (2 * x) ** 3
    z.backward(retain_graph=True)
    z.backward(retain_graph=False)
    with pytest.raises(RuntimeError) as raised:
        z.backward()
    error = result.error
    assert error is not None and error.kind == "backward-twice"
    assert error.message == str(raised.value)
    assert error.line == 3, "a session call has no line: the line that made z"
    assert error.explanation.startswith(
        "This is the Backward tab's call 3 (`z.backward()`), not a line of your code; "
        "line 3 is where `z` is made. Before it, the Backward tab's call 2 ran with "
        "retain_graph=False (unticked) and freed the graph."
    )
    assert "Keep the graph" in error.fix
    assert result.steps[-1].error == error
    assert grad_of(result) == x.grad.tolist(), "the two calls before it still added up"  # type: ignore[union-attr]


def test_a_session_call_after_the_codes_own_backward_names_that_line() -> None:
    code = "x = torch.tensor([1., 2.], requires_grad=True)\n\ny = (x ** 2).sum()\ny.backward()\n"
    result = run_program(RunRequest(Program(code, steps=(BackwardStep(),))))
    error = result.error
    assert error is not None and error.kind == "backward-twice"
    assert error.line == 3, "where y is made"
    assert "your code's own backward at line 4 freed the graph" in error.explanation
    assert "retain_graph=True to the backward at line 4" in error.fix


def test_an_unnamed_output_points_at_the_codes_backward_line() -> None:
    code = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x ** 2\ny.sum().backward()\n"
    result = run_program(RunRequest(Program(code, steps=(BackwardStep(),))))
    error = result.error
    assert error is not None and error.kind == "backward-twice"
    assert result.output is None and error.line == 3
    assert "the Backward tab's call 1 (`backward()`)" in error.explanation


def test_the_codes_own_failing_backward_is_placed_at_its_own_line() -> None:
    code = "x = torch.tensor([1., 2.], requires_grad=True)\ny = x ** 2\nprint(y)\ny.backward()\n"
    result = run_program(RunRequest(Program(code)))
    assert result.error is not None and result.error.kind == "non-scalar-backward"
    failed = result.steps[-1]
    assert failed.source == "code" and failed.line == 4
    assert failed.error is not None and failed.error.line == 4, "the call's line, not y's"
    assert result.error.line == 4
    assert "Backward tab" not in result.error.explanation
