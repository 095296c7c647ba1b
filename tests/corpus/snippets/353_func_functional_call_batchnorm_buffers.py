# after: torch.func docs functional_call with (params, buffers) on a model with BatchNorm, jacrev with has_aux, vmap randomness="different"
# expect: match
import torch
import torch.nn as nn
from torch.func import functional_call, jacrev, vmap, grad
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
model.eval()
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v for k, v in model.named_buffers()}
x = torch.randn(5, 3)
def f(params, x):
    out = functional_call(model, (params, buffers), (x,))
    return out.sum(), out
jac, out = jacrev(f, has_aux=True)(params, x)
print(jac["3.weight"], out.squeeze())
def noisy(x):
    return x + torch.randn(())
print(vmap(noisy, randomness="different")(torch.zeros(3)))
print(vmap(noisy, randomness="same")(torch.zeros(3)))
