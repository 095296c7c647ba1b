# after: PyTorch "A Gentle Introduction to torch.autograd" (Q = 3*a**3 - b**2, Q.backward(gradient=external_grad), 9*a**2 == a.grad, -2*b == b.grad; the vector-Jacobian product with v = ones) checked against torch.autograd.functional.jacobian
# expect: match
import torch

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)

J = torch.autograd.functional.jacobian(lambda a, b: 3*a**3 - b**2, (a.detach(), b.detach()))
v = torch.tensor([0.5, -1.0])
print(v @ J[0], v @ J[1])
a.grad = None
b.grad = None
Q = 3*a**3 - b**2
Q.backward(gradient=v)
print(a.grad, b.grad)
print(torch.equal(a.grad, v @ J[0]))
