# after: PyTorch forum "grad can be implicitly created only for scalar outputs" (torch.autograd.backward called on a batch of outputs)
# expect: explained non-scalar-backward
# mentions: `out` | out.sum().backward()
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
out = layer(torch.randn(4, 3))
torch.autograd.backward(out)
print(layer.weight.grad)
