# after: PyTorch docs "Locally disabling gradient computation" (with torch.no_grad(), torch.enable_grad(): on one line; x.grad += by hand; x.grad = None)
# expect: match
import torch
x = torch.ones(2, requires_grad=True)
with torch.no_grad(), torch.enable_grad():
    y = x * 2
print(y.requires_grad)
y.sum().backward()
print(x.grad)
with torch.no_grad():
    x.grad += torch.tensor([0.5, 0.5])
print(x.grad)
x.grad = None
(x ** 3).sum().backward()
print(x.grad)
with torch.set_grad_enabled(False):
    z = x * 5
print(z.requires_grad, torch.is_grad_enabled())
