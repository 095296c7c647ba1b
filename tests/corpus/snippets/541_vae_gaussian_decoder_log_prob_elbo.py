# after: VAE tutorials written with torch.distributions (Independent(Normal(loc, scale), 1) for q(z|x) with scale from F.softplus, a Gaussian decoder with a learned log-sigma, elbo = log_px.mean() - kl.mean(), an importance-sampled log-likelihood with torch.logsumexp over K samples and math.log(K))
# expect: match
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, Normal, kl_divergence

torch.manual_seed(4)
enc = nn.Linear(5, 4)
dec = nn.Linear(2, 5)
log_sigma = nn.Parameter(torch.zeros(1))
prior = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()) + [log_sigma], lr=1e-2)
x = torch.randn(8, 5)
for step in range(4):
    h = enc(x)
    q = Independent(Normal(h[:, :2], F.softplus(h[:, 2:]) + 1e-4), 1)
    z = q.rsample()
    px = Independent(Normal(dec(z), log_sigma.exp()), 1)
    log_px = px.log_prob(x)
    kl = kl_divergence(q, prior)
    elbo = log_px.mean() - kl.mean()
    opt.zero_grad()
    (-elbo).backward()
    opt.step()
    print(step, elbo.item(), kl.mean().item(), log_sigma.item())

K = 5
with torch.no_grad():
    h = enc(x)
    q = Independent(Normal(h[:, :2], F.softplus(h[:, 2:]) + 1e-4), 1)
    zs = q.sample((K,))
    log_w = Independent(Normal(dec(zs), log_sigma.exp()), 1).log_prob(x) + prior.log_prob(zs) - q.log_prob(zs)
    iwae = torch.logsumexp(log_w, dim=0) - math.log(K)
print(zs.shape, log_w.shape, iwae)
