# after: complex-valued layers whose output is summed and backpropagated directly (out = (w * x).sum() with complex w: "grad can be implicitly created only for real scalar outputs but got torch.complex64")
# expect: explained complex-backward
# mentions: out.abs().sum().backward()
import torch

torch.manual_seed(0)
w = torch.randn(4, dtype=torch.cfloat, requires_grad=True)
x = torch.randn(4, dtype=torch.cfloat)
out = (w * x).sum()
out.backward()
