# after: PyTorch docs torch.func "hvp = jvp(grad(f))" and the autograd.functional hvp it matches
# expect: match
import torch
from torch.func import jvp, grad, vjp
from torch.autograd.functional import hvp as functional_hvp


def f(x):
    return (x ** 3).sum() + (x[0] * x[1])


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def hvp_revrev(f, primals, tangents):
    _, vjp_fn = vjp(grad(f), *primals)
    return vjp_fn(*tangents)


x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.0, -1.0])
print(hvp(f, (x,), (v,)))
print(hvp_revrev(f, (x,), (v,)))
print(functional_hvp(f, x, v)[1])
