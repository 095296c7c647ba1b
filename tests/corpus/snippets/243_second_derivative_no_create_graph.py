# after: PyTorch forum "second derivative: element 0 of tensors does not require grad" (the first torch.autograd.grad without create_graph=True)
# expect: explained no-grad-to-compute
# mentions: `dy` | create_graph=True | line 8
import torch

t = torch.tensor(1.5, requires_grad=True)
y = t ** 3
dy = torch.autograd.grad(y, t)[0]
d2y = torch.autograd.grad(dy, t)[0]
print(d2y)
