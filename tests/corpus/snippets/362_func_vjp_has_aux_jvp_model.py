# after: torch.func docs (vjp with has_aux, jvp through functional_call of a model's params, vmap with in_dims as a dict and chunk_size)
# expect: match
import torch
import torch.nn as nn
from torch.func import vjp, jvp, vmap, functional_call
torch.manual_seed(0)
def f(x):
    return x.sin(), x.cos().sum()
x = torch.randn(3)
out, vjp_fn, aux = vjp(f, x, has_aux=True)
(g,) = vjp_fn(torch.ones(3))
print(out, aux, g)
model = nn.Linear(3, 2)
params = {k: v.detach() for k, v in model.named_parameters()}
tangents = {k: torch.ones_like(v) for k, v in params.items()}
def run(p):
    return functional_call(model, p, (x,))
primal, tangent = jvp(run, (params,), (tangents,))
print(primal, tangent)
def scale(d):
    return d["a"] * d["b"]
batch = {"a": torch.randn(6, 2), "b": torch.randn(2)}
print(vmap(scale, in_dims=({"a": 0, "b": None},), chunk_size=2)(batch))
