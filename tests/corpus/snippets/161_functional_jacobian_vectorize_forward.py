# after: PyTorch docs torch.autograd.functional.jacobian (vectorize=True, strategy="forward-mode")
# expect: match
import torch
from torch.autograd.functional import jacobian


def f(x):
    return torch.stack([x[0] ** 2 * x[1], 5 * x[0] + torch.sin(x[1])])


x = torch.tensor([1.0, 2.0])
j_rev = jacobian(f, x)
j_vec = jacobian(f, x, vectorize=True)
j_fwd = jacobian(f, x, vectorize=True, strategy="forward-mode")
print(j_rev)
print(torch.allclose(j_rev, j_vec), torch.allclose(j_rev, j_fwd))
