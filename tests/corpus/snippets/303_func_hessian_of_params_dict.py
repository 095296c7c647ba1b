# after: torch.func docs "hessian" / "jacfwd(jacrev(f))" of a loss with respect to a model's parameters passed as a dict to functional_call
# expect: match
import torch
import torch.nn as nn
from torch.func import functional_call, hessian, jacfwd, jacrev

torch.manual_seed(0)
model = nn.Linear(2, 1)
inputs = torch.randn(5, 2)
targets = torch.randn(5, 1)
params = dict(model.named_parameters())

def loss_fn(params):
    out = functional_call(model, params, (inputs,))
    return ((out - targets) ** 2).mean()

H = hessian(loss_fn)(params)
print(H['weight']['weight'])
print(H['weight']['bias'])
H2 = jacfwd(jacrev(loss_fn))(params)
print(torch.allclose(H['bias']['bias'], H2['bias']['bias']))
