# after: PyTorch docs torch.autograd.functional.hvp / vhp (a function of two inputs, create_graph=True, and the Hessian's symmetry)
# expect: match
import torch
from torch.autograd.functional import hvp, vhp, hessian

def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()

torch.manual_seed(0)
inputs = (torch.rand(2), torch.rand(2))
v = (torch.zeros(2), torch.ones(2))
print(vhp(pow_adder_reducer, inputs, v))
print(hvp(pow_adder_reducer, inputs, v))

def f(x):
    return (x[0] * x[1].sin() + x.pow(3)).sum()

x = torch.tensor([0.5, -1.0], requires_grad=True)
w = torch.tensor([1.0, 2.0])
value, hv = hvp(f, x, w, create_graph=True)
hv.sum().backward()
print(value, hv, x.grad)
print(hessian(f, x) @ w)
