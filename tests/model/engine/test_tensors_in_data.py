"""``torch.tensor([loss1, loss2])``: data holding tensors reads each as one number of its
dtype, as plain torch does, though the engine makes tensors sequences to C (its
``Tensor.__getitem__`` reads indexes from tuples). Plain torch runs in a fresh Python:
this test process has the engine's stand-ins installed too."""

from __future__ import annotations

import subprocess
import sys

from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest

CODE = """\
t0 = torch.tensor(1.5, dtype=torch.float64)
ta = torch.tensor([1., 2.])
losses = [torch.tensor(0.5, requires_grad=True) * 2, torch.tensor(0.25, requires_grad=True) * 3]
print(torch.tensor([t0, t0]).dtype, torch.tensor([[t0], [t0]]).shape)
print(torch.tensor([t0, 2.0]), torch.as_tensor([t0, t0]).dtype)
print(ta.new_tensor([t0, t0]), torch.Tensor([t0.float(), t0.float()]))
print(torch.tensor(losses), torch.tensor([torch.tensor([2.5])]))
print(torch.tensor([torch.tensor(1, dtype=torch.int32), torch.tensor(2, dtype=torch.int32)]))
print(torch.tensor([torch.tensor(True), False]), torch.tensor([t0, t0], dtype=torch.float16))
print(torch.tensor([torch.tensor(1 + 2j), 3.0]), torch.tensor([torch.tensor(2, dtype=torch.bfloat16)]))
try:
    torch.tensor([ta, ta])
except ValueError as err:
    print("ValueError:", err)
"""


def test_tensors_inside_data_read_as_plain_torch_reads_them() -> None:
    plain = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", "import torch\n" + CODE],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.splitlines()
    result = run_program(RunRequest(Program(code=CODE)))
    assert result.error is None, result.error
    assert [line.text for line in result.printed] == plain
    assert len(plain) == 8
