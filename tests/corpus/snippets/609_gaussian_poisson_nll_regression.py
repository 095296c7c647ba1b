# after: uncertainty-regression and count-regression posts (a net predicting a mean and a variance through F.softplus, nn.GaussianNLLLoss(full=True) next to the written-out 0.5 * (log var + (y - mu)^2 / var); a Poisson regression with nn.PoissonNLLLoss(log_input=True) on log-rates and torch.lgamma for the full likelihood; nn.HuberLoss(delta=0.5) and nn.SmoothL1Loss(beta=0.5))
# expect: match
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(14)
net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
x = torch.randn(20, 2)
y = x[:, :1] * 2 + 0.3 * torch.randn(20, 1)
gnll = nn.GaussianNLLLoss(full=True)
for step in range(5):
    out = net(x)
    mu, var = out[:, :1], F.softplus(out[:, 1:]) + 1e-6
    loss = gnll(mu, y, var)
    by_hand = (0.5 * (torch.log(var) + (y - mu) ** 2 / var) + 0.5 * math.log(2 * math.pi)).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item(), by_hand.item())

counts = torch.poisson(torch.exp(x[:, 0] * 0.5 + 1.0))
log_rate = nn.Linear(2, 1)
pnll = nn.PoissonNLLLoss(log_input=True, full=False)
lr = log_rate(x).squeeze(1)
loss_p = pnll(lr, counts)
manual = (torch.exp(lr) - counts * lr).mean()
full_ll = (counts * lr - torch.exp(lr) - torch.lgamma(counts + 1)).sum()
print(loss_p, manual, full_ll)
loss_p.backward()
print(log_rate.weight.grad)
pred = torch.randn(6, requires_grad=True)
target = torch.randn(6)
huber = nn.HuberLoss(delta=0.5)(pred, target)
smooth = nn.SmoothL1Loss(beta=0.5)(pred, target)
print(huber, smooth, torch.allclose(huber, smooth * 0.5))
(huber + smooth).backward()
print(pred.grad)
