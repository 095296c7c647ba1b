# after: Bishop-style mixture density network tutorials (the inverted sine data set, an MDN with z_pi = F.softmax over K components, z_sigma = torch.exp, z_mu, the loss -log sum_k pi_k N(y | mu_k, sigma_k) computed stably with torch.logsumexp(torch.log(pi) + Normal(mu, sigma).log_prob(y), dim=1), Adam, then sampling from the mixture with torch.multinomial and torch.normal)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal

torch.manual_seed(6)
n = 40
y_data = torch.rand(n, 1) * 2 - 1
x_data = y_data + 0.3 * torch.sin(3 * y_data) + 0.05 * torch.randn(n, 1)


class MDN(nn.Module):
    def __init__(self, n_hidden=16, n_gaussians=3):
        super().__init__()
        self.z_h = nn.Sequential(nn.Linear(1, n_hidden), nn.Tanh())
        self.z_pi = nn.Linear(n_hidden, n_gaussians)
        self.z_sigma = nn.Linear(n_hidden, n_gaussians)
        self.z_mu = nn.Linear(n_hidden, n_gaussians)

    def forward(self, x):
        z_h = self.z_h(x)
        pi = F.softmax(self.z_pi(z_h), -1)
        sigma = torch.exp(self.z_sigma(z_h))
        mu = self.z_mu(z_h)
        return pi, sigma, mu


def mdn_loss_fn(pi, sigma, mu, y):
    log_prob = Normal(loc=mu, scale=sigma).log_prob(y)
    return -torch.logsumexp(torch.log(pi) + log_prob, dim=1).mean()


def naive_loss_fn(pi, sigma, mu, y):
    result = Normal(loc=mu, scale=sigma).log_prob(y).exp() * pi
    return torch.mean(-torch.log(torch.sum(result, dim=1)))


network = MDN()
optimizer = torch.optim.Adam(network.parameters(), lr=0.01)
for epoch in range(8):
    pi_variable, sigma_variable, mu_variable = network(x_data)
    loss = mdn_loss_fn(pi_variable, sigma_variable, mu_variable, y_data)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"{loss.item():.5f}", torch.allclose(loss, naive_loss_fn(pi_variable, sigma_variable, mu_variable, y_data)))

x_test = torch.linspace(-1, 1, 6).unsqueeze(1)
with torch.no_grad():
    pi, sigma, mu = network(x_test)
k = torch.multinomial(pi, 1).squeeze(1)
samples = torch.normal(mu[torch.arange(6), k], sigma[torch.arange(6), k])
print(k, samples)
