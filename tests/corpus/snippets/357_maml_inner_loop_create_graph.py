# after: MAML tutorials (inner-loop SGD step with create_graph=True via torch.func.functional_call, outer loss backpropagated through the update)
# expect: match
import torch
import torch.nn as nn
from torch.func import functional_call
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
inner_lr = 0.1
for it in range(2):
    meta_opt.zero_grad()
    outer = 0.0
    for task in range(2):
        xs, ys = torch.randn(5, 1), torch.randn(5, 1)
        xq, yq = torch.randn(5, 1), torch.randn(5, 1)
        params = dict(model.named_parameters())
        inner = nn.functional.mse_loss(functional_call(model, params, (xs,)), ys)
        grads = torch.autograd.grad(inner, list(params.values()), create_graph=True)
        fast = {k: v - inner_lr * g for (k, v), g in zip(params.items(), grads)}
        outer = outer + nn.functional.mse_loss(functional_call(model, fast, (xq,)), yq)
    outer.backward()
    meta_opt.step()
    print(it, outer.item(), model[0].weight.grad.norm().item())
