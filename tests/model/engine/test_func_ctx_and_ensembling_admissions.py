"""Two admissions for torch.func tutorial code, checked behind both walls (the real
EngineProcess): a custom Function's ``setup_context`` under ``grad``/``vmap`` (torch.func
hands it a wrapped ctx whose ``save_for_backward`` unwraps batched tensors) and
``torch.func.stack_module_state`` ("Model ensembling"). Numbers equal plain torch's."""

from __future__ import annotations

import torch
from torch.func import functional_call, grad, stack_module_state, vmap

from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult

CUBE = (
    "from torch.func import grad, vmap\n"
    "class MyCube(torch.autograd.Function):\n"
    "    generate_vmap_rule = True\n"
    "    @staticmethod\n"
    "    def forward(x):\n"
    "        return x ** 3, 3 * x ** 2\n"
    "    @staticmethod\n"
    "    def setup_context(ctx, inputs, output):\n"
    "        ctx.save_for_backward(inputs[0], output[1])\n"
    "    @staticmethod\n"
    "    def backward(ctx, grad_output, grad_dx):\n"
    "        x, dx = ctx.saved_tensors\n"
    "        return grad_output * dx + grad_dx * 6 * x\n"
    "def my_cube(x):\n"
    "    return MyCube.apply(x)[0]\n"
    "print(grad(grad(my_cube))(torch.tensor(2.0)).item())\n"
    "print(vmap(grad(my_cube))(torch.tensor([1.0, 2.0, 3.0])).tolist())\n"
)

ENSEMBLE = (
    "from torch.func import stack_module_state, functional_call, vmap\n"
    "models = [torch.nn.Linear(3, 2) for _ in range(4)]\n"
    "params, buffers = stack_module_state(models)\n"
    "def fmodel(params, buffers, x):\n"
    "    return functional_call(models[0], (params, buffers), (x,))\n"
    "x = torch.ones(5, 3)\n"
    "out = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)\n"
    "print(out.shape, params['weight'].requires_grad, params['weight'].is_leaf)\n"
    "print(out.sum().item())\n"
)


def printed(result: RunResult) -> list[str]:
    return [line.text for line in result.printed]


def plain_cube() -> list[str]:
    class MyCube(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
            return x**3, 3 * x**2

        @staticmethod
        def setup_context(ctx, inputs, output):  # type: ignore[no-untyped-def,override]
            ctx.save_for_backward(inputs[0], output[1])

        @staticmethod
        def backward(ctx, grad_output, grad_dx):  # type: ignore[no-untyped-def,override]
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x

    def my_cube(x: torch.Tensor) -> torch.Tensor:
        return MyCube.apply(x)[0]  # type: ignore[no-any-return]

    return [
        str(grad(grad(my_cube))(torch.tensor(2.0)).item()),
        str(vmap(grad(my_cube))(torch.tensor([1.0, 2.0, 3.0])).tolist()),
    ]


def plain_ensemble() -> list[str]:
    torch.manual_seed(Program(code="").seed)
    models = [torch.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)  # type: ignore[arg-type]

    def fmodel(params, buffers, x):  # type: ignore[no-untyped-def]
        return functional_call(models[0], (params, buffers), (x,))

    out = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, torch.ones(5, 3))
    weight = params["weight"]
    return [f"{out.shape} {weight.requires_grad} {weight.is_leaf}", str(out.sum().item())]


def test_in_process() -> None:
    cube = run_program(RunRequest(Program(code=CUBE, steps=()), time_limit=30))
    assert cube.error is None, cube.error
    assert printed(cube) == plain_cube()
    ensemble = run_program(RunRequest(Program(code=ENSEMBLE, steps=()), time_limit=30))
    assert ensemble.error is None, ensemble.error
    assert printed(ensemble) == plain_ensemble()


def test_behind_the_walls() -> None:
    engine = EngineProcess()
    engine.start()
    try:
        for code, expected in ((CUBE, plain_cube()), (ENSEMBLE, plain_ensemble())):
            result = engine.run(RunRequest(Program(code=code, steps=()), time_limit=30))
            assert result.error is None, result.error
            assert printed(result) == expected
    finally:
        engine.close()


def test_the_wrapped_ctx_admits_only_its_save_methods() -> None:
    # Its inner ctx and its other internals stay out of reach (private names).
    code = CUBE.replace(
        "        ctx.save_for_backward(inputs[0], output[1])\n",
        "        print(ctx._pt_inner_ctx)\n",
    )
    result = run_program(RunRequest(Program(code=code, steps=()), time_limit=30))
    assert result.error is not None and result.error.kind == "unsafe-code"


def test_a_name_is_readable_never_writable() -> None:
    """``type(layer).__name__`` and ``fn.__name__`` read a string; setting one, and every
    other dunder read (``x.__dict__``; ``x.__class__`` is ``type(x)`` since round 11), stay
    refused, statically and at run time."""
    code = (
        "layer = torch.nn.ReLU()\n"
        "def f(x):\n    return x\n"
        "print(type(layer).__name__, f.__name__, torch.tanh.__name__)\n"
        "print(getattr(layer, '__name__', 'none'))\n"
    )
    result = run_program(RunRequest(Program(code=code, steps=()), time_limit=30))
    assert result.error is None, result.error
    assert printed(result) == ["ReLU f tanh", "none"]
    for refused in (
        "def f():\n    pass\nf.__name__ = 'g'\n",
        "class A:\n    pass\nsetattr(A, '__name__', 'B')\n",
        "x = torch.ones(1)\nc = x.__dict__\n",
        "c = getattr(torch.ones(1), '__dict__')\n",
        "c = type(torch.ones(1)).__name__.__dict__\n",
        "x = torch.ones(1)\nx.__class__ = int\n",
    ):
        result = run_program(RunRequest(Program(code=refused, steps=()), time_limit=30))
        assert result.error is not None and result.error.kind == "unsafe-code", refused
