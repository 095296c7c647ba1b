# after: d2l.ai 2.5 "Automatic Differentiation" text and exercises (x.grad.zero_(), y = x * x with y.backward(gradient=torch.ones(len(y))), u = y.detach() then z = u * x, grad of the while-loop f(a) with a.grad == d / a, a random vector a, and f(x) = sin(x) with its derivative compared to cos)
# expect: match
import torch

x = torch.arange(4.0)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)

x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)

x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
print(x.grad)

x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)

x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)

def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c

torch.manual_seed(0)
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a, d, a.grad == d / a)

a2 = torch.randn(size=(3,), requires_grad=True)
d2 = f(a2)
d2.sum().backward()
print(a2.grad, d2 / a2)

xs = torch.linspace(-3.14, 3.14, 9, requires_grad=True)
ys = torch.sin(xs)
ys.backward(torch.ones_like(ys))
print(torch.allclose(xs.grad, torch.cos(xs.detach())))
print(xs.grad)
