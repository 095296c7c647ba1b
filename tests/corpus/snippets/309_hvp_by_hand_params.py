# after: "Hessian-vector products by hand" notes (grads with create_graph=True, dot with v, grad again; checked against the full Hessian)
# expect: match
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
X = torch.randn(10, 3)
y = torch.randn(10)

def loss_fn(w):
    return torch.log1p(torch.exp(-y * (X @ w))).mean()

loss = loss_fn(w)
g, = torch.autograd.grad(loss, w, create_graph=True)
v = torch.tensor([1.0, 0.0, -1.0])
gv = (g * v).sum()
Hv, = torch.autograd.grad(gv, w)
H = torch.autograd.functional.hessian(loss_fn, w.detach())
print(Hv)
print(H @ v)
print(torch.allclose(Hv, H @ v, atol=1e-6))
