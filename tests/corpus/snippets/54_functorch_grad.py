# after: PyTorch docs torch.func.grad / vmap per-sample gradients
# expect: match
import torch
from torch.func import grad, vmap

x = torch.randn(4)


def f(x):
    return torch.sin(x).sum()


g = grad(f)(x)
print(torch.allclose(g, torch.cos(x)))
batched = vmap(grad(lambda t: (t ** 2).sum()))(torch.arange(6.0).reshape(3, 2))
print(batched)
