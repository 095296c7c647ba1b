# after: VAE tutorials with torch.distributions (Normal(mu, std).rsample(), log_prob, kl_divergence against the prior)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 2 * 2)
decoder = nn.Linear(2, 4)
x = torch.randn(3, 4)
mu, log_var = encoder(x).chunk(2, dim=-1)
std = torch.exp(0.5 * log_var)
q = torch.distributions.Normal(mu, std)
z = q.rsample()
prior = torch.distributions.Normal(torch.zeros_like(mu), torch.ones_like(std))
kl = torch.distributions.kl_divergence(q, prior).sum(-1).mean()
recon = ((decoder(z) - x) ** 2).sum(-1).mean()
log_q = q.log_prob(z).sum()
print(q.mean.shape, q.stddev.shape, q.entropy().shape)
q_ind = torch.distributions.Independent(torch.distributions.Normal(mu, std), 1)
p_ind = torch.distributions.Independent(prior, 1)
kl_ind = torch.distributions.kl_divergence(q_ind, p_ind).mean()
loss = recon + kl + 0.0 * log_q + 0.0 * kl_ind
