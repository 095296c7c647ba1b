"""The identity allowlist: tensor math passes, torch's native side doors do not, whatever
they are called or whichever module they claim to come from."""

from __future__ import annotations

import math
import os
import types
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from gui.model.engine.allowlist import allowlist
from gui.model.engine.guard import CodeRefusedAtRuntime, guarded_getattr, safe_import
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest

# Each of these is reachable under an innocent torch name and reaches files, processes,
# native code or compilers. torch re-exports several with __module__ == "torch".
SIDE_DOORS = [
    "PyTorchFileWriter", "PyTorchFileReader", "fork", "wait", "import_ir_module",
    "import_ir_module_from_buffer", "parse_ir", "parse_schema", "ScriptModule",
    "ScriptFunction", "CompilationUnit", "Graph", "Node", "Value", "FileCheck",
    "UntypedStorage", "TypedStorage", "FloatStorage", "from_file", "frombuffer", "load",
    "save", "compile", "cond", "while_loop", "get_file_path", "set_rng_state",
    "get_rng_state", "set_default_tensor_type", "set_num_threads", "set_flush_denormal",
    "use_deterministic_algorithms", "from_dlpack", "to_dlpack", "ThroughputBenchmark",
    "DisableTorchFunction", "Stream", "Event", "Future", "jit", "ops", "classes", "library",
    "hub", "distributed", "multiprocessing", "package", "onnx", "fx",
    "export", "serialization", "overrides", "random", "version", "platform",
]  # fmt: skip
# torch.vmap (torch.func's), torch.cuda, torch.utils and torch.backends are held now: what
# is reached through them is judged one by one (tests/model/engine/test_guard_widened.py).


@pytest.mark.parametrize("name", [n for n in SIDE_DOORS if hasattr(torch, n)])
def test_torchs_side_doors_are_refused_by_identity(name: str) -> None:
    value = getattr(torch, name)
    assert allowlist().problem(value) is not None, f"torch.{name} passed the allowlist"


def test_a_refused_class_is_refused_under_any_name() -> None:
    # The same object reached through an innocent-looking holder is still refused.
    holder = types.SimpleNamespace(innocent=torch.PyTorchFileWriter, tensor_math=torch.load)
    for name in ("innocent", "tensor_math"):
        with pytest.raises(CodeRefusedAtRuntime) as refused:
            guarded_getattr(holder, name)
        assert name in refused.value.message


def test_a_module_name_does_not_vouch_for_anything() -> None:
    assert torch.PyTorchFileWriter.__module__ == "torch"  # why names cannot be trusted
    assert allowlist().problem(torch.PyTorchFileWriter) is not None


@pytest.mark.parametrize(
    ("owner", "name"),
    [
        (torch.tensor([1.0]), "untyped_storage"),
        (torch.tensor([1.0]), "share_memory_"),
        (torch.tensor([1.0]), "data_ptr"),
        (torch.tensor([1.0]), "pin_memory"),
        (torch.nn.Linear(1, 1), "share_memory"),
        (torch.nn.Linear(1, 1), "compile"),
        (np.zeros(2), "tofile"),
        (np.zeros(2), "dump"),
    ],
)
def test_methods_outside_tensor_math_are_refused(owner: object, name: str) -> None:
    with pytest.raises(CodeRefusedAtRuntime):
        guarded_getattr(owner, name)


def test_tensor_math_and_autograd_pass() -> None:
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    for owner, name in [
        (torch, "mm"), (torch, "sin"), (torch, "sin_"), (torch, "tensor"), (torch, "zeros"),
        (torch, "no_grad"), (torch, "manual_seed"), (torch, "Tensor"), (torch, "FloatTensor"),
        (torch, "hann_window"), (torch.linalg, "inv"), (torch.special, "expit"),
        (torch.fft, "fft"), (F, "relu"), (F, "mse_loss"), (F, "leaky_relu_"),
        (torch.nn, "Linear"), (torch.nn, "Parameter"), (torch.autograd, "grad"),
        (torch.autograd, "Variable"), (x, "backward"), (x, "sum"), (x, "new_zeros"),
        (x, "grad"), (x, "shape"), (math, "exp"), (np, "array"), (np, "sin"),
        (np.random, "rand"), (np.zeros(2), "sum"), ("{} {}", "format"), ([1], "append"),
        (torch.nn.Linear(1, 1), "parameters"), (torch.nn.Linear(1, 1), "forward"),
        (torch.nn.Linear(1, 1), "weight"),
    ]:  # fmt: skip
        guarded_getattr(owner, name)


def test_a_tensors_grad_fn_shows_its_name_edges_and_own_hooks_only() -> None:
    x = torch.tensor([1.0], requires_grad=True)
    node = guarded_getattr(x * 2, "grad_fn")
    assert guarded_getattr(node, "name")() == "MulBackward0"
    assert guarded_getattr(node, "next_functions")[0][1] == 0
    for name in ("register_hook", "register_prehook"):  # the autograd notes' node hooks
        assert callable(guarded_getattr(node, name))
    for name in ("_register_hook_dict", "metadata", "register_backward_hook"):
        with pytest.raises(CodeRefusedAtRuntime):
            guarded_getattr(node, name)


def test_containers_pass_only_when_everything_in_them_does() -> None:
    holder = types.SimpleNamespace(ok=(1, [2.0, {"a": torch.float32}]), bad=[1, os.system])
    assert guarded_getattr(holder, "ok") == (1, [2.0, {"a": torch.float32}])
    with pytest.raises(CodeRefusedAtRuntime):
        guarded_getattr(holder, "bad")


def test_imports_check_the_values_they_bind() -> None:
    assert safe_import("torch", None, None, ("sin", "no_grad")).sin is torch.sin
    with pytest.raises(CodeRefusedAtRuntime):
        safe_import("torch", None, None, ("PyTorchFileWriter",))
    with pytest.raises(CodeRefusedAtRuntime):
        safe_import("torch", None, None, ("fork",))


@pytest.mark.parametrize(
    "program",
    [
        "w = torch.PyTorchFileWriter('{out}')\nw.write_record('a', b'x', 1)\n",
        "from torch import PyTorchFileWriter\nPyTorchFileWriter('{out}')\n",
        "r = torch.PyTorchFileReader('{secret}')\n",
        "T = torch\nT.import_ir_module\n",
        "f = torch.fork\n",
        "s = torch.jit\n",
        "x = torch.tensor([1.])\nx.untyped_storage()\n",
    ],
)
def test_a_program_reaching_a_side_door_is_stopped_and_writes_nothing(
    program: str, tmp_path: Path
) -> None:
    out, secret = tmp_path / "planted.pth", tmp_path / "secret.txt"
    secret.write_text("secret")
    code = program.format(out=out, secret=secret)
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is not None and result.error.kind == "unsafe-code", result.error
    assert "not available" in result.error.message
    assert not out.exists()
