# after: "Hessian-vector products with double backward" (Pearlmutter trick on a small model's parameters)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(8, 3)
y = torch.randn(8, 1)
loss = nn.functional.mse_loss(model(x), y)

params = [p for p in model.parameters() if p.requires_grad]
grads = torch.autograd.grad(loss, params, create_graph=True)
v = [torch.ones_like(p) for p in params]
grad_dot_v = sum((g * vi).sum() for g, vi in zip(grads, v))
hv = torch.autograd.grad(grad_dot_v, params)
for p, h in zip(params, hv):
    print(tuple(p.shape), h.norm().item())
