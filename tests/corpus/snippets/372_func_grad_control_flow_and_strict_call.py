# after: torch.func docs (grad of a function with Python control flow on a value, functional_call strict=True and tie_weights, jacrev of a dict output)
# expect: match
import torch
import torch.nn as nn
from torch.func import grad, functional_call, jacrev
def relu_like(x):
    if x > 0:
        return x ** 2
    return -x
print(grad(relu_like)(torch.tensor(3.0)), grad(relu_like)(torch.tensor(-2.0)))
torch.manual_seed(0)
lin = nn.Linear(2, 2)
params = {name: torch.ones_like(p) for name, p in lin.named_parameters()}
out = functional_call(lin, params, (torch.tensor([[1.0, 2.0]]),), strict=True)
print(out)
def stats(v):
    return {"mean": v.mean(), "sq": (v ** 2).sum()}
J = jacrev(stats)(torch.tensor([1.0, 2.0, 3.0]))
print(J["mean"], J["sq"])
