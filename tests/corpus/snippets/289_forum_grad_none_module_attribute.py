# after: PyTorch forum "parameters' .grad is None after backward" (the forward uses a detached copy of the weight: self.weight.data in the computation)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * self.weight.data


m = Scale()
x = torch.randn(2, 3, requires_grad=True)
loss = m(x).sum()
loss.backward()
print(m.weight.grad)
print(x.grad)
print(loss.requires_grad, loss.grad_fn.__class__.__name__)
