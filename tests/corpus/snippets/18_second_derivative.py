# after: Stack Overflow "How to compute the second derivative in PyTorch" (autograd.grad with create_graph)
# expect: match
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 3
dy_dx = torch.autograd.grad(y.sum(), x, create_graph=True)[0]
d2y_dx2 = torch.autograd.grad(dy_dx.sum(), x)[0]
print(dy_dx, d2y_dx2)
