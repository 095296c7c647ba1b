# after: PyTorch docs torch.autograd.functional.jacobian (create_graph=True, vectorize=True with strategy="forward-mode", a function of two inputs)
# expect: match
import torch
from torch.autograd.functional import jacobian

torch.manual_seed(0)


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(2, 2, requires_grad=True)
J = jacobian(exp_reducer, inputs, create_graph=True)
print(J.shape, J.requires_grad)
J.sum().backward()
print(inputs.grad)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(2), torch.rand(2))
print(jacobian(exp_adder, inputs))
print(jacobian(exp_adder, inputs, vectorize=True, strategy="forward-mode"))
