# after: PyTorch forum "RuntimeError: leaf variable has been moved into the graph interior" (requires_grad switched off on a weight, then updated in place from a tensor that requires grad)
# expect: explained leaf-moved
# mentions: `w`
import torch

w = torch.ones(3, requires_grad=True)
step = torch.full((3,), 0.1, requires_grad=True)

loss = (w * 2).sum()
w.requires_grad_(False)
w.add_(step)
loss.backward()
print(w.grad)
