# after: VAE code using torch.distributions (q = Normal(mu, std), z = q.rsample(), kl_divergence(q, p).sum(-1), and the closed form it equals)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

torch.manual_seed(0)
enc = nn.Linear(6, 4)
dec = nn.Linear(2, 6)
x = torch.rand(5, 6)
h = enc(x)
mu, log_var = h.chunk(2, dim=-1)
std = torch.exp(0.5 * log_var)
q = Normal(mu, std)
p = Normal(torch.zeros_like(mu), torch.ones_like(std))
z = q.rsample()
x_hat = torch.sigmoid(dec(z))
recon = F.binary_cross_entropy(x_hat, x, reduction="sum")
kl = kl_divergence(q, p).sum()
closed_form = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
print(torch.allclose(kl, closed_form))
loss = recon + kl
loss.backward()
print(loss.item(), enc.weight.grad.norm().item())
