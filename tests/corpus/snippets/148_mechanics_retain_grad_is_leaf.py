# after: PyTorch docs torch.Tensor.is_leaf / retain_grad examples (which tensors get .grad)
# expect: match
import torch

a = torch.rand(10, requires_grad=True)
print(a.is_leaf)
b = torch.rand(10, requires_grad=True) + 2
print(b.is_leaf)
c = torch.rand(10)
print(c.is_leaf)
d = torch.rand(10).requires_grad_()
print(d.is_leaf)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
h.retain_grad()
out = (h ** 2).sum()
out.backward()
print(h.retains_grad, h.is_leaf)
print(h.grad)
print(x.grad)
