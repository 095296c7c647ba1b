# after: Stack Overflow "a leaf Variable that requires grad is being used in an in-place operation" (two names for one tensor, `w = b = torch.zeros(..., requires_grad=True)` by chained assignment, one of them updated with add_)
# expect: explained leaf-inplace
# mentions: `b` is a leaf | with torch.no_grad(): b.add_(-0.1 * b.grad)
import torch

w = b = torch.zeros(3, requires_grad=True)
x = torch.tensor([1.0, 2.0, 3.0])
loss = ((w * x).sum() + b.sum() - 4.0) ** 2
loss.backward()
b.add_(-0.1 * b.grad)
print(w, b)
