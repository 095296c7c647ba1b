# after: PyTorch docs torch.func.hessian / jacfwd / vmap examples (sin, batched jacobians)
# expect: match
import torch
from torch.func import hessian, jacfwd, jacrev, vmap

x = torch.randn(5)
hess = hessian(lambda x: x.sin().sum())(x)
assert torch.allclose(hess, torch.diag(-x.sin()), atol=1e-6)

jacobian = jacfwd(torch.sin)(x)
expected = torch.diag(torch.cos(x))
assert torch.allclose(jacobian, expected)

x = torch.randn(64, 5)
jacobian = vmap(jacrev(torch.sin))(x)
assert jacobian.shape == (64, 5, 5)


def f(x, y):
    return x + y ** 2


x, y = torch.randn(5), torch.randn(5)
jac_fn = jacfwd(f, argnums=1)
print(jac_fn(x, y).diagonal())
batched_dot = vmap(torch.dot)
print(batched_dot(torch.ones(2, 5), torch.arange(10.0).reshape(2, 5)))
print(vmap(torch.sum, in_dims=1)(torch.arange(6.0).reshape(2, 3)))
