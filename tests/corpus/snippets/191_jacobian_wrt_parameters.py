# after: PyTorch forums "Jacobian of the output with respect to the model parameters" (functional_call + autograd.functional.jacobian)
# expect: match
import torch
import torch.nn as nn
from torch.autograd.functional import jacobian
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Linear(3, 2)
x = torch.randn(4, 3)
names = [n for n, _ in model.named_parameters()]
values = tuple(p.detach() for _, p in model.named_parameters())


def out_given_params(*params):
    return functional_call(model, dict(zip(names, params)), (x,))


jac_weight, jac_bias = jacobian(out_given_params, values)
print(jac_weight.shape, jac_bias.shape)
print(jac_bias[0])
