# after: fastai/timm-style warmup with LambdaLR and CosineAnnealingLR
# expect: match
import math
import torch
import torch.nn as nn

net = nn.Linear(4, 1)
opt = torch.optim.AdamW(net.parameters(), lr=1e-2, weight_decay=0.01)
warmup = 5
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / warmup))
X = torch.randn(16, 4)
Y = X.sum(dim=1, keepdim=True)
lrs = []
for epoch in range(20):
    opt.zero_grad()
    loss = nn.functional.mse_loss(net(X), Y)
    loss.backward()
    opt.step()
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 6))
print(lrs)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(torch.optim.SGD(net.parameters(), lr=0.1), T_max=10)
print(round(math.cos(0.5), 4), cos.get_last_lr())
weight = net.weight
