# after: PyTorch docs torch.autograd.functional.vjp / jvp (create_graph=True so the result can be differentiated again)
# expect: match
import torch
from torch.autograd.functional import vjp, jvp

def exp_reducer(x):
    return x.exp().sum(dim=1)

torch.manual_seed(0)
inputs = torch.rand(4, 4, requires_grad=True)
v = torch.ones(4)
out, vjp_out = vjp(exp_reducer, inputs, v, create_graph=True)
print(out)
print(vjp_out.grad_fn is not None)
vjp_out.sum().backward()
print(inputs.grad)

def adder(x, y):
    return 2 * x + 3 * y

a = torch.rand(2)
b = torch.rand(2)
u = (torch.ones(2), torch.ones(2))
print(jvp(adder, (a, b), u))
