# after: "Higher-order derivatives in PyTorch" blog posts (torch.autograd.grad with create_graph=True, twice)
# expect: match
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
dy_dx, = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)  # 3 * x**2 = 12
d2y_dx2, = torch.autograd.grad(dy_dx, x, create_graph=True)
print(d2y_dx2)  # 6 * x = 12
d3y_dx3, = torch.autograd.grad(d2y_dx2, x)
print(d3y_dx3)  # 6


def nth_derivative(f, wrt, n):
    for i in range(n):
        grads = torch.autograd.grad(f, wrt, create_graph=True)[0]
        f = grads.sum()
    return grads


x = torch.arange(4.0, requires_grad=True)
loss = (x ** 4).sum()
print(nth_derivative(f=loss, wrt=x, n=3))
