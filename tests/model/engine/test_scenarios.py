"""The seven learners.md scenarios: the app's numbers equal plain PyTorch's, and the book's.

Each lesson file runs through the engine in-process; the same computation is then written
the ordinary way with torch and compared exactly.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import load_session
from gui.resources import lesson
from tests.fixtures import approx


def run_lesson(name: str, **changes: object) -> RunResult:
    program = load_session(lesson(name)).program
    return run_program(RunRequest(dataclasses.replace(program, **changes)))


def grad(result: RunResult, name: str) -> object:
    g = result.tensors[name].grad
    return None if g is None else g.values


# -- 1. why sum ----------------------------------------------------------------------


def test_why_sum_numbers_match_plain_torch() -> None:
    result = run_lesson("01-why-sum")
    assert result.error is None
    assert result.output == "y"
    assert result.output_value is not None and result.output_value.values == 125.0
    assert result.output_grad_fn == "AddBackward0"

    x = torch.tensor([3.0, 4.0, 10.0]).requires_grad_()
    y = sum(x**2)
    y.backward()
    assert grad(result, "x") == x.grad.tolist() == [6.0, 8.0, 20.0]


def test_builtin_sum_graph_is_an_add_chain_over_unbind() -> None:
    graph = run_lesson("01-why-sum").graph
    assert graph is not None
    names = [n.name for n in graph.nodes if n.kind == "function"]
    assert names.count("AddBackward0") == 3
    assert names.count("UnbindBackward0") == 1
    assert names.count("PowBackward0") == 1  # q**2 is one op on the whole tensor, before the unbind
    assert graph.node(graph.root or "").name == "AddBackward0"
    leaves = [n for n in graph.nodes if n.kind == "leaf"]
    assert [(n.name, n.label) for n in leaves] == [("AccumulateGrad", "x")]
    constants = [n for n in graph.nodes if n.kind == "constant"]
    assert len(constants) == 1, "Python's sum starts from a constant 0"
    pow_node = next(n for n in graph.nodes if n.name == "PowBackward0")
    exponent = next(s for s in pow_node.saved if s.name == "exponent")
    assert exponent.value == 2


def test_tensor_sum_is_one_sum_node_with_the_same_numbers() -> None:
    result = run_program(
        RunRequest(Program(code="x = tensor([3., 4., 10.]).requires_grad_()\ny = (x**2).sum()\n"))
    )
    assert result.graph is not None
    functions = [n.name for n in result.graph.nodes if n.kind == "function"]
    assert functions == ["SumBackward0", "PowBackward0"]
    assert grad(result, "x") == [6.0, 8.0, 20.0]
    assert result.graph.node(result.graph.root or "").label == "y"


# -- 2. backward() on a scalar is backward(1) -----------------------------------------


def test_vector_backward_with_ones_equals_sum_backward() -> None:
    result = run_lesson("02-backward-of-a-vector")
    x = torch.tensor([3.0, 4.0, 10.0], requires_grad=True)
    (x**2).sum().backward()
    assert grad(result, "x") == x.grad.tolist()


def test_vector_backward_without_gradient_is_torchs_error() -> None:
    result = run_lesson("02-backward-of-a-vector", steps=(BackwardStep(),))
    assert result.error is not None
    assert result.error.kind == "non-scalar-backward"
    assert result.error.message == "grad can be implicitly created only for scalar outputs"
    assert "y.sum().backward()" in result.error.fix and "torch.ones_like(y)" in result.error.fix
    assert result.steps[0].error == result.error
    assert result.error.line == 2, "points at `y = x**2`, where the fix goes"


# -- 3. chain rule, leaves only -------------------------------------------------------


def test_chain_rule_values_and_leaf_gradient() -> None:
    result = run_lesson("03-chain-rule-leaves-only")
    assert result.error is None
    assert result.tensors["y"].value.values == approx([[-2.419]])
    assert result.tensors["z"].value.values == approx([[-14.155]])
    assert grad(result, "x") == approx([[35.11]])

    x = torch.tensor([[-1.2095]], requires_grad=True)
    z = (2 * x) ** 3
    z.backward()
    assert grad(result, "x") == x.grad.tolist()


def test_non_leaf_grads_are_none_with_torchs_warning() -> None:
    result = run_lesson("03-chain-rule-leaves-only")
    for name in ("y", "z"):
        info = result.tensors[name]
        assert info.grad is None
        assert info.grad_warning is not None
        assert info.grad_warning.kind == "non-leaf-grad"
        assert "is not a leaf Tensor is being accessed" in info.grad_warning.message
        assert f"{name}.retain_grad()" in info.grad_warning.fix
        assert info.grad_warning.line == info.line
    assert result.tensors["x"].grad_warning is None


def test_retain_grad_keeps_an_intermediate_gradient() -> None:
    result = run_lesson("03-chain-rule-leaves-only", retain_grad=("y",))
    y = torch.tensor([[-1.2095]], requires_grad=True) * 2
    y.retain_grad()
    (y**3).backward()
    assert grad(result, "y") == y.grad.tolist()
    assert result.tensors["y"].grad_warning is None


# -- 4. the gradient argument scales the result ---------------------------------------


@pytest.mark.parametrize("v", [1.0, 0.1, 0.2])
def test_gradient_argument_scales(v: float) -> None:
    result = run_lesson("04-gradient-argument-scales", steps=(BackwardStep(gradient=[[v]]),))
    x = torch.tensor([[-1.2095]], requires_grad=True)
    ((2 * x) ** 3).backward(torch.tensor([[v]]))
    assert grad(result, "x") == x.grad.tolist()
    assert grad(result, "x") == approx([[35.11 * v]])


# -- 5. gradients accumulate ----------------------------------------------------------


def test_gradients_accumulate_step_by_step() -> None:
    result = run_lesson("05-gradients-accumulate")
    assert result.error is None
    first, second = result.steps
    assert first.grads_after["x"] is not None and second.grads_after["x"] is not None
    assert first.grads_after["x"].values == approx([[43.40, 0.0], [5.405, 0.0]])
    assert second.grads_after["x"].values == approx([[43.40, 2.052], [5.405, 18.76]])
    assert second.grads_before["x"] == first.grads_after["x"]

    x = torch.tensor([[1.3448, -0.2924], [-0.4746, 0.8842]], requires_grad=True)
    z = (2 * x) ** 3
    z.backward(torch.tensor([[1.0, 0.0], [1.0, 0.0]]), retain_graph=True)
    z.backward(torch.tensor([[0.0, 1.0], [0.0, 1.0]]), retain_graph=True)
    assert grad(result, "x") == x.grad.tolist()


def test_zeroing_between_calls_shows_each_alone() -> None:
    steps = (
        BackwardStep(gradient=[[1.0, 0.0], [1.0, 0.0]], retain_graph=True),
        BackwardStep(gradient=[[0.0, 1.0], [0.0, 1.0]], retain_graph=True, zero_grad=True),
    )
    result = run_lesson("05-gradients-accumulate", steps=steps)
    assert result.steps[1].zero_grad
    assert grad(result, "x") == approx([[0.0, 2.052], [0.0, 18.76]])


def test_second_backward_without_retain_graph_fails() -> None:
    # The demonstration stays: retain_graph=False chosen explicitly frees the graph.
    steps = (
        BackwardStep(gradient=[[1.0, 0.0], [1.0, 0.0]], retain_graph=False),
        BackwardStep(gradient=[[0.0, 1.0], [0.0, 1.0]]),
    )
    result = run_lesson("05-gradients-accumulate", steps=steps)
    x = torch.tensor([[1.3448, -0.2924], [-0.4746, 0.8842]], requires_grad=True)
    z = (2 * x) ** 3
    z.backward(torch.tensor([[1.0, 0.0], [1.0, 0.0]]))
    with pytest.raises(RuntimeError) as raised:
        z.backward(torch.tensor([[0.0, 1.0], [0.0, 1.0]]))
    assert result.error is not None
    assert result.error.kind == "backward-twice"
    assert result.error.message == str(raised.value)
    assert "retain_graph=True" in result.error.fix
    assert result.steps[0].error is None and result.steps[1].error is not None
    assert grad(result, "x") == x.grad.tolist(), "the first call's gradient stays"


def test_the_lessons_calls_keep_the_graph_automatically() -> None:
    # Lesson 5 sets no retain_graph: the app keeps the graph for the call that follows.
    program = load_session(lesson("05-gradients-accumulate")).program
    assert program.steps is not None and [s.retain_graph for s in program.steps] == [None, None]
    result = run_lesson("05-gradients-accumulate")
    assert result.error is None
    assert [s.retain_graph for s in result.steps] == [True, False], "kept, then freed"


def test_old_style_gradient_for_a_matrix_output_is_a_shape_error() -> None:
    result = run_lesson("05-gradients-accumulate", steps=(BackwardStep(gradient=[1.0, 0.0]),))
    assert result.error is not None
    assert result.error.kind == "gradient-shape-mismatch"
    assert result.error.message.startswith(
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of torch.Size([2, 2])"
    )


# -- 6. reducing to a scalar ----------------------------------------------------------


def test_mean_divides_by_the_number_of_elements() -> None:
    result = run_lesson("06-mean-reduces-to-a-scalar")
    assert result.output == "out"
    assert grad(result, "x") == approx([2.147, 18.31])
    x = torch.tensor([-0.4230, -1.2352], requires_grad=True)
    ((2 * x) ** 3).mean().backward()
    assert grad(result, "x") == x.grad.tolist()


# -- 7. old tutorial code --------------------------------------------------------------


def test_old_tutorial_code_runs_as_written_and_shows_the_real_error() -> None:
    result = run_lesson("07-old-tutorial-code")
    error = result.error
    assert error is not None
    assert error.message.startswith(
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a shape of torch.Size([1, 1])"
    )
    assert error.kind == "gradient-shape-mismatch"
    assert error.line == 7
    assert "tensor([[1.]])" in error.fix
    assert result.steps[0].source == "code" and result.steps[0].line == 7
    assert result.printed == (), "the program stops at the error, as Python would"


OLD_MEAN = """import torch as T
from torch.autograd import Variable
x = Variable(T.randn(2), requires_grad=True)
out = ((2 * x) ** 3).mean()
out.backward(T.FloatTensor([1]))
"""


def test_old_tutorial_mean_with_a_one_element_gradient() -> None:
    result = run_program(RunRequest(Program(code=OLD_MEAN)))
    assert result.error is not None and result.error.line == 5
    assert "torch.Size([1]) and output[0] has a shape of torch.Size([])" in result.error.message
    assert result.error.kind == "gradient-shape-mismatch"


OLD_ZERO = """import torch as T
from torch.autograd import Variable
x = Variable(T.randn(2, 2), requires_grad=True)
y = 2 * x
z = y ** 3
z.backward(T.FloatTensor([[1, 0], [1, 0]]), retain_graph=True)
print(x.grad.data)
x.grad.data.zero_()
z.backward(T.FloatTensor([[0, 1], [0, 1]]), retain_graph=True)
print(x.grad.data)
"""


def test_tutorial_code_with_prints_and_zeroing_is_recorded_in_order() -> None:
    values = {"x": [[1.3448, -0.2924], [-0.4746, 0.8842]]}
    result = run_program(RunRequest(Program(code=OLD_ZERO, values=values)))
    assert result.error is None
    assert [s.line for s in result.steps] == [6, 9]
    assert [s.zero_grad for s in result.steps] == [False, True]
    assert [p.line for p in result.printed] == [7, 10]
    assert [p.after_step for p in result.printed] == [1, 2]
    assert [p.during_step for p in result.printed] == [None, None]
    assert "43.4" in result.printed[0].text
    assert grad(result, "x") == approx([[0.0, 2.052], [0.0, 18.76]])


def test_what_a_hook_prints_says_it_ran_inside_backward() -> None:
    # "Why is my print shown between the others?": the hook runs inside backward().
    code = (
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "x.register_hook(lambda g: print('grad arriving', g))\n"
        "y = (x * x).sum()\nprint('before')\ny.backward()\nprint('after')\n"
    )
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is None
    printed = [(p.text.split(" ")[0], p.after_step, p.during_step) for p in result.printed]
    assert printed == [("before", 0, None), ("grad", 0, 1), ("after", 1, None)]
