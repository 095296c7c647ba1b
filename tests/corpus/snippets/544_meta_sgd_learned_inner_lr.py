# after: Meta-SGD implementations (a learnable per-parameter inner learning rate kept in an nn.ParameterList alongside the model, fast weights = p - lr * g with create_graph=True through torch.func.functional_call over dict(model.named_parameters()), both the model and the learning rates in one Adam)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(13)
model = nn.Sequential(nn.Linear(1, 10), nn.Tanh(), nn.Linear(10, 1))
inner_lrs = nn.ParameterList([nn.Parameter(torch.full_like(p, 0.05)) for p in model.parameters()])
optimizer = torch.optim.Adam(list(model.parameters()) + list(inner_lrs), lr=1e-2)
names = [n for n, _ in model.named_parameters()]
for step in range(3):
    optimizer.zero_grad()
    total = 0.0
    for task in range(2):
        a = torch.randn(1)
        x_s, x_q = torch.randn(5, 1), torch.randn(5, 1)
        y_s, y_q = a * x_s.pow(2), a * x_q.pow(2)
        params = dict(model.named_parameters())
        support_loss = F.mse_loss(functional_call(model, params, (x_s,)), y_s)
        grads = torch.autograd.grad(support_loss, list(params.values()), create_graph=True)
        fast = {n: params[n] - lr * g for n, lr, g in zip(names, inner_lrs, grads)}
        total = total + F.mse_loss(functional_call(model, fast, (x_q,)), y_q)
    total.backward()
    optimizer.step()
    print(step, total.item(), inner_lrs[0].grad.abs().mean().item())
print([lr.mean().item() for lr in inner_lrs])
