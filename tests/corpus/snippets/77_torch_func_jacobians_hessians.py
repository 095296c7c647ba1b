# after: PyTorch tutorial "Jacobians, Hessians, hvp, vhp, and more: composing function transforms" (torch.func)
# expect: match
import torch
import torch.nn.functional as F
from functools import partial
from torch.func import jacrev, jacfwd, vmap, hessian, jvp, grad

torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)  # feature vector


def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                     for vec in unit_vectors]
    return torch.stack(jacobian_rows)


xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)

jacobian = compute_jac(xp)

print(jacobian.shape)
print(jacobian[0])  # show first row

jacobian_rev = jacrev(predict, argnums=2)(weight, bias, x)

# Confirm by running the following:
assert torch.allclose(jacobian_rev, jacobian)

ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
ft_jacobian_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
print(torch.allclose(ft_jacobian, ft_jacobian_fwd))

# note the change in input via ``argnums`` parameters of 0,1 to map to weight and bias
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)

# vmap over batches
batch_size = 8
x = torch.randn(batch_size, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1)

Din = 4
Dout = 4
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)

hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
print(torch.allclose(hess_api, hess_fwdfwd), torch.allclose(hess_api, hess_revrev, atol=1e-6))


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


x = torch.randn(2048)
tangent = torch.randn(2048)

result = hvp(f, (x,), (tangent,))
print(torch.allclose(result, -x.sin() * tangent, atol=1e-6))

out_fn = partial(predict, weight, bias)
print(jacrev(out_fn)(x[:Din]).shape)
