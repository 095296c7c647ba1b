# after: PyTorch docs torch.func.linearize (jvp_fn evaluated at several tangents)
# expect: match
import torch
from torch.func import linearize


def fn(x):
    return x.sin()


x = torch.randn(3, 3)
output, jvp_fn = linearize(fn, x)
print(torch.allclose(jvp_fn(torch.ones(3, 3)), x.cos()))
