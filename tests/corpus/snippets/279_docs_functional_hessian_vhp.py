# after: PyTorch docs torch.autograd.functional (hessian of pow_reducer, hessian of two inputs, vhp and hvp with v)
# expect: match
import torch
from torch.autograd.functional import hessian, hvp, jacobian, vhp

torch.manual_seed(0)


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.rand(2, 2)
print(hessian(pow_reducer, inputs))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.rand(2), torch.rand(2))
h = hessian(pow_adder_reducer, inputs)
print(h[0][0], h[1][1])

inputs = torch.rand(4, 4)
v = torch.ones(4, 4)
print(vhp(pow_reducer, inputs, v))
print(hvp(pow_reducer, inputs, v)[1])


def exp_reducer(x):
    return x.exp().sum(dim=1)


print(jacobian(exp_reducer, torch.rand(2, 2)).shape)
