# after: PyTorch tutorial "Jacobians, Hessians, hvp, vhp" (batch jacobians with vmap(jacrev), the sum trick with argnums, jacfwd for a tall function)
# expect: match
import torch
import torch.nn.functional as F
from torch.func import jacrev, jacfwd, vmap

torch.manual_seed(0)
batch_size = 4
D = 3
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(batch_size, D)

def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()

compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)

def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)

batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1)
jac_fwd = jacfwd(predict, argnums=2)(weight, bias, x[0])
print(batch_jacobian0.shape, torch.allclose(jac_fwd, batch_jacobian0[0]))
print(batch_jacobian0[1])
