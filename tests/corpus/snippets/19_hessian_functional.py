# after: PyTorch docs torch.autograd.functional.jacobian / hessian examples
# expect: match
import torch
from torch.autograd.functional import jacobian, hessian


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(2, 2)
J = jacobian(exp_reducer, inputs)
print(J.shape)


def pow_reducer(x):
    return x.pow(3).sum()


H = hessian(pow_reducer, torch.rand(2, 2))
print(H.shape)
