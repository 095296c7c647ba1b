"""Modules' parameters as leaves, every way of calling backward, long loops and the output
rule: each number compared with plain torch written the ordinary way."""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.export.script import plain_script
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import RunResult
from tests.fixtures import approx, printed_grads


def run(code: str, **program: object) -> RunResult:
    request = RunRequest(Program(code=textwrap.dedent(code), **program), time_limit=30)  # type: ignore[arg-type]
    result = run_program(request)
    assert result.error is None, result.error
    return result


def grad(result: RunResult, name: str) -> object:
    info = result.tensors[name].grad
    return None if info is None else info.values


# -- module parameters ----------------------------------------------------------------

SEQUENTIAL = """
torch.manual_seed(1)
net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
x = torch.tensor([[1.0, -2.0, 0.5]])
loss = net(x).sum()
loss.backward()
"""


def test_parameters_never_bound_to_a_variable_are_leaves_with_qualified_names() -> None:
    result = run(SEQUENTIAL)
    assert result.leaves == ("net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias")
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    net(torch.tensor([[1.0, -2.0, 0.5]])).sum().backward()
    for qualified, p in net.named_parameters():
        assert result.tensors[f"net.{qualified}"].value.values == approx(p.tolist())
        assert grad(result, f"net.{qualified}") == approx(p.grad.tolist())  # type: ignore[union-attr]
    labels = {n.label for n in result.graph.nodes if n.kind == "leaf"}  # type: ignore[union-attr]
    assert labels == set(result.leaves)


def test_a_parameter_also_bound_to_a_variable_is_one_leaf() -> None:
    code = """
    model = torch.nn.Linear(2, 1)
    w = model.weight
    y = model(torch.ones(1, 2)).sum()
    for p in model.parameters():
        pass
    """
    result = run(code)
    assert result.leaves == ("model.weight", "model.bias")


def test_session_values_set_a_parameter() -> None:
    values = {"model.weight": [[2.0, -1.0]], "model.bias": [0.5]}
    code = "model = torch.nn.Linear(2, 1)\nloss = model(torch.tensor([[3.0, 4.0]])).sum()\n"
    result = run(code, values=values)
    assert result.tensors["model.weight"].value.values == [[2.0, -1.0]]
    assert result.output_value is not None and result.output_value.values == 2.5
    assert grad(result, "model.weight") == [[3.0, 4.0]]
    assert grad(result, "model.bias") == [1.0]


@pytest.mark.slow
def test_the_script_reaches_parameters_by_their_names(tmp_path: Path) -> None:
    program = Program(code=SEQUENTIAL.replace("loss.backward()\n", ""))
    program = Program(code=program.code, values={"net.2.bias": [0.25]})
    result = run_program(RunRequest(program))
    grads = printed_grads(plain_script(program, result), tmp_path)
    assert grads == {name: grad(result, name) for name in result.leaves}
    assert "net.get_parameter('2.bias').copy_" in plain_script(program, result)


# -- backward in every form -----------------------------------------------------------

FORMS = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
a = (x * w).sum()
b = (x ** 2).sum()
torch.autograd.backward([a, b], grad_tensors=[torch.tensor(1.0), torch.tensor(2.0)])
c = (x * w * w).sum()
c.backward(inputs=[w], retain_graph=True)
g, = torch.autograd.grad(c * 2, [x], create_graph=True)
h, = torch.autograd.grad(g.sum(), w)
print(g, h)
"""


def test_every_form_of_backward_is_a_step_with_torchs_numbers() -> None:
    result = run(FORMS)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    a = (x * w).sum()
    b = (x**2).sum()
    torch.autograd.backward([a, b], grad_tensors=[torch.tensor(1.0), torch.tensor(2.0)])
    after_first = (x.grad.tolist(), w.grad.tolist())  # type: ignore[union-attr]
    c = (x * w * w).sum()
    c.backward(inputs=[w], retain_graph=True)
    (g,) = torch.autograd.grad(c * 2, [x], create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), w)

    first, second, third, fourth = result.steps
    assert [s.line for s in result.steps] == [6, 8, 9, 10]
    assert [s.call for s in result.steps] == ["backward", "backward", "grad", "grad"]
    assert all(s.source == "code" for s in result.steps)
    assert first.tensor == "a, b"
    assert (first.grads_after["x"].values, first.grads_after["w"].values) == after_first  # type: ignore[union-attr]
    assert second.inputs == ("w",)
    assert second.grads_after["x"] == first.grads_after["x"]  # inputs=[w]: x untouched
    assert second.grads_after["w"].values == w.grad.tolist()  # type: ignore[union-attr]
    assert [j.matches for j in second.jacobians] == [True]  # J^T v of w only
    # torch.autograd.grad adds nothing to .grad: the step keeps what it returned.
    assert third.inputs == ("x",) and third.returned["x"].values == g.tolist()  # type: ignore[union-attr]
    assert third.grads_after == second.grads_after
    assert [j.matches for j in third.jacobians] == [True]
    assert fourth.inputs == ("w",) and fourth.returned["w"].values == h.tolist()  # type: ignore[union-attr]
    assert grad(result, "x") == x.grad.tolist() and grad(result, "w") == w.grad.tolist()  # type: ignore[union-attr]
    assert result.printed[0].text == f"{g!s} {h!s}"
    # The code called backward itself: the app adds no call.
    assert result.step_count == 4 and result.output_source == "code"


def test_torchs_own_grad_calls_are_not_steps() -> None:
    code = """
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    J = torch.autograd.functional.jacobian(lambda t: t ** 2, x)
    y = (x ** 3).sum()
    """
    result = run(code)
    assert [s.source for s in result.steps] == ["session"]  # the one the app added
    assert result.tensors["J"].value.values == [[2.0, 0.0], [0.0, 4.0]]


def test_an_error_in_autograd_grad_is_torchs_own_at_its_line() -> None:
    code = "x = torch.tensor(2.0, requires_grad=True)\ny = x * 3\nz = torch.ones(2)\n"
    code += "torch.autograd.grad(y, [x, z])\n"
    result = run_program(RunRequest(Program(code=code)))
    x = torch.tensor(2.0, requires_grad=True)
    with pytest.raises(RuntimeError) as plain:
        torch.autograd.grad(x * 3, [x, torch.ones(2)])
    assert result.error is not None and result.error.message == str(plain.value)
    assert result.error.line == 4 and result.steps[-1].line == 4


# -- a long training loop -------------------------------------------------------------

LOOP = """
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
X = torch.randn(16, 2)
Y = X @ torch.tensor([[2.0], [-1.0]]) + 0.5
for i in range(3000):
    loss = ((model(X) - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.05 * p.grad
            p.grad.zero_()
"""


@pytest.mark.slow
def test_a_3000_step_loop_runs_to_the_end_and_stays_small() -> None:
    result = run(LOOP)
    assert result.step_count == 3000
    assert len(pickle.dumps(result)) < 3 * 1024**2
    assert result.steps[0].index == 0 and result.steps[-1].index == 2999
    assert result.steps_left_out == 3000 - len(result.steps)
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    X = torch.randn(16, 2)
    Y = X @ torch.tensor([[2.0], [-1.0]]) + 0.5
    losses = []
    for _ in range(3000):
        loss = ((model(X) - Y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.05 * p.grad
                p.grad.zero_()
    assert list(result.step_values) == losses  # every step's loss, kept or not
    assert result.tensors["model.weight"].value.values == model.weight.tolist()
    assert result.steps[0].grads_after["model.weight"] is not None
    assert any(w.kind == "steps-left-out" for w in result.warnings)


# -- which tensor is the output --------------------------------------------------------


def test_without_a_backward_call_the_app_adds_one_on_the_last_tensor_with_a_grad_fn() -> None:
    code = """
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = (x ** 2).sum()
    k = torch.ones(2)
    """
    result = run(code)
    assert (result.output, result.output_source) == ("z", "last-grad-fn")
    assert [(s.source, s.tensor) for s in result.steps] == [("session", "z")]
    assert grad(result, "x") == [2.0, 4.0]


def test_when_the_code_calls_backward_the_app_adds_nothing() -> None:
    code = "x = torch.tensor(2.0, requires_grad=True)\ny = x * 3\ny.backward()\nq = y * 5\n"
    result = run(code)
    assert (result.output, result.output_source) == ("y", "code")
    assert [s.source for s in result.steps] == ["code"]
    assert grad(result, "x") == 3.0


@pytest.mark.parametrize(
    "code",
    [
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n",
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\nk = torch.ones(2) * 2\n",
        "k = torch.ones(2)\n",
    ],
    ids=["a-leaf-only", "no-grad-fn", "no-grad-at-all"],
)
def test_without_a_tensor_with_a_grad_fn_there_is_no_output_and_no_call(code: str) -> None:
    result = run(code)
    assert result.output is None and result.output_source is None
    assert result.steps == () and result.graph is None
    assert [w.kind for w in result.warnings] == ["no-output"]
    assert "No tensor has a grad_fn" in result.warnings[0].message


def test_a_named_output_is_the_sessions_choice() -> None:
    code = "x = torch.tensor(2.0, requires_grad=True)\ny = x * 3\nz = y * y\n"
    result = run(code, output="y", steps=(BackwardStep(),))
    assert (result.output, result.output_source) == ("y", "session")
    assert grad(result, "x") == 3.0


@pytest.mark.slow
def test_the_script_makes_the_call_the_app_added(tmp_path: Path) -> None:
    program = Program(code="x = torch.tensor([1.0, 2.0], requires_grad=True)\nz = (x ** 3).sum()\n")
    result = run_program(RunRequest(program))
    script = plain_script(program, result)
    assert "Your code does not call backward, so the app calls z.backward()" in script
    assert script.count("z.backward()\n") == 1
    assert printed_grads(script, tmp_path) == {"x": [3.0, 12.0]}
    called = Program(code=program.code + "z.backward()\n")
    script = plain_script(called, run_program(RunRequest(called)))
    assert script.count("backward()") == 1  # the code's own: nothing added


NET = """
torch.manual_seed(3)
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(2, 3)
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 1)])

    def forward(self, x):
        x = torch.tanh(self.fc1(x))
        for layer in self.layers:
            x = layer(x)
        return x

model = Net()
out = model(torch.tensor([[1.0, -1.0], [0.5, 2.0]])).sum()
"""


@pytest.mark.slow
def test_a_module_class_has_its_parameters_as_leaves(tmp_path: Path) -> None:
    program = Program(code=NET)
    result = run_program(RunRequest(program))
    assert result.error is None, result.error
    namespace: dict[str, object] = {"torch": torch}
    exec(NET + "out.backward()\n", namespace)
    model = namespace["model"]
    assert isinstance(model, torch.nn.Module)
    expected = {f"model.{n}": p for n, p in model.named_parameters()}
    assert result.leaves == tuple(expected)
    assert result.leaves[2] == "model.layers.0.weight"
    for name, p in expected.items():
        assert grad(result, name) == approx(p.grad.tolist())  # type: ignore[union-attr]
    script = plain_script(program, result)
    assert "model.get_parameter('layers.0.weight').grad" in script
    printed = printed_grads(script, tmp_path)
    assert printed.keys() == set(result.leaves)
    for name in result.leaves:
        assert printed[name] == approx(grad(result, name))


@pytest.mark.slow
def test_the_script_of_every_form_prints_the_same_gradients(tmp_path: Path) -> None:
    program = Program(code=FORMS)
    result = run_program(RunRequest(program))
    script = plain_script(program, result)
    assert "app calls" not in script  # the code calls backward: nothing added
    assert printed_grads(script, tmp_path) == {n: grad(result, n) for n in result.leaves}
