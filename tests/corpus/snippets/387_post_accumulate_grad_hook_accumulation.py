# after: PyTorch docs Tensor.register_post_accumulate_grad_hook (a hook that sees param.grad after it is accumulated: counting calls, logging norms, and an SGD step applied inside the hook, compared with optimizer.step())
# expect: match
import copy
import torch
import torch.nn as nn

torch.manual_seed(2)
model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
reference = copy.deepcopy(model)

calls = {}
norms = []
def log_hook(param):
    calls[id(param)] = calls.get(id(param), 0) + 1
    norms.append(round(param.grad.norm().item(), 6))

handles = [p.register_post_accumulate_grad_hook(log_hook) for p in model.parameters()]
x = torch.randn(5, 4)
y = torch.randn(5, 1)
for micro in range(2):
    loss = ((model(x[micro::2]) - y[micro::2]) ** 2).mean() / 2
    loss.backward()
print(sorted(calls.values()), norms)
for h in handles:
    h.remove()

lr = 0.1
def sgd_hook(param):
    with torch.no_grad():
        param.add_(param.grad, alpha=-lr)
    param.grad = None

fused = copy.deepcopy(reference)
for p in fused.parameters():
    p.register_post_accumulate_grad_hook(sgd_hook)
opt = torch.optim.SGD(reference.parameters(), lr=lr)
for step in range(3):
    ((fused(x) - y) ** 2).mean().backward()
    opt.zero_grad()
    ((reference(x) - y) ** 2).mean().backward()
    opt.step()
for a, b in zip(fused.parameters(), reference.parameters()):
    print(torch.equal(a, b), a.grad)
