# after: PyTorch docs "Autograd mechanics: In-place operations with autograd" (in-place on a non-leaf and its view is tracked)
# expect: match
import torch

x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
y[:2] *= 2
y.add_(1)
print(y.grad_fn)
y.sum().backward()
print(x.grad)

a = torch.tensor([0.5, 1.5], requires_grad=True)
b = a + 1
b.mul_(a)
b.sum().backward()
print(a.grad)
