# after: EMA-of-weights posts and timm's ModelEmaV2 idea written by hand (ema_model = copy.deepcopy(model) with requires_grad_(False), an update under torch.no_grad with ema_p.mul_(decay).add_(p, alpha=1 - decay) over zip(ema_model.parameters(), model.parameters()), buffers copied with copy_, a warmup decay min(decay, (1 + step) / (10 + step)), evaluation with the EMA model in eval mode)
# expect: match
import copy

import torch
import torch.nn as nn

torch.manual_seed(11)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
ema_model = copy.deepcopy(model)
ema_model.requires_grad_(False)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)


@torch.no_grad()
def ema_update(ema_model, model, decay, step):
    d = min(decay, (1 + step) / (10 + step))
    for ema_p, p in zip(ema_model.parameters(), model.parameters()):
        ema_p.mul_(d).add_(p, alpha=1 - d)
    for ema_b, b in zip(ema_model.buffers(), model.buffers()):
        ema_b.copy_(b)
    return d


x = torch.randn(16, 4)
y = x.sum(dim=1, keepdim=True)
for step in range(12):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    d = ema_update(ema_model, model, 0.99, step)
    if step % 4 == 0:
        print(step, round(d, 4), loss.item())

model.eval()
ema_model.eval()
with torch.no_grad():
    print(nn.functional.mse_loss(model(x), y), nn.functional.mse_loss(ema_model(x), y))
print(ema_model[0].weight.requires_grad, ema_model[1].num_batches_tracked)
print(ema_model[3].weight)
