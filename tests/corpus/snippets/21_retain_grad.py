# after: PyTorch docs Tensor.retain_grad / Q&A "why is .grad of an intermediate None"
# expect: match
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * a
b.retain_grad()
c = b.sum() * 3
c.backward()
print(a.grad, b.grad, b.is_leaf, b.retains_grad)
