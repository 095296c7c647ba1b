# after: PyTorch docs torch.autograd.grad(is_grads_batched=True) computing a Jacobian in one call, compared with torch.autograd.functional.jacobian
# expect: match
import torch
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = torch.sin(x) * x.sum()
I_N = torch.eye(3)
jac_rows = torch.autograd.grad(y, x, I_N, is_grads_batched=True)[0]
jac = torch.autograd.functional.jacobian(lambda t: torch.sin(t) * t.sum(), x.detach())
print(jac_rows)
print(torch.allclose(jac_rows, jac))
