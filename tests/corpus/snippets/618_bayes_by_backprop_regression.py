# after: "Bayes by Backprop" / variational-inference regression posts (a BayesianLinear with w_mu, w_rho as nn.Parameter, sigma = torch.log1p(torch.exp(rho)), w = mu + sigma * torch.randn_like(sigma), the closed-form KL of two normals log(sigma_p / sigma_q) + (sigma_q^2 + (mu_q - mu_p)^2) / (2 sigma_p^2) - 1/2 checked against torch.distributions.kl_divergence, ELBO = nll - kl / num_batches averaged over a few samples, predictive mean and std from 20 forward passes under torch.no_grad)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

torch.manual_seed(5)


class BayesianLinear(nn.Module):
    def __init__(self, in_features, out_features, prior_sigma=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.zeros(out_features, in_features).uniform_(-0.2, 0.2))
        self.w_rho = nn.Parameter(torch.full((out_features, in_features), -3.0))
        self.b_mu = nn.Parameter(torch.zeros(out_features))
        self.b_rho = nn.Parameter(torch.full((out_features,), -3.0))
        self.prior_sigma = prior_sigma

    def kl(self, mu, sigma):
        sp = self.prior_sigma
        return (torch.log(sp / sigma) + (sigma**2 + mu**2) / (2 * sp**2) - 0.5).sum()

    def forward(self, x):
        w_sigma = torch.log1p(torch.exp(self.w_rho))
        b_sigma = torch.log1p(torch.exp(self.b_rho))
        w = self.w_mu + w_sigma * torch.randn_like(w_sigma)
        b = self.b_mu + b_sigma * torch.randn_like(b_sigma)
        self.kl_loss = self.kl(self.w_mu, w_sigma) + self.kl(self.b_mu, b_sigma)
        return F.linear(x, w, b)


class BNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = BayesianLinear(1, 16)
        self.l2 = BayesianLinear(16, 1)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))

    def kl_loss(self):
        return self.l1.kl_loss + self.l2.kl_loss


x = torch.linspace(-1, 1, 20).unsqueeze(1)
y = x**3 + 0.05 * torch.randn_like(x)
net = BNN()
opt = torch.optim.Adam(net.parameters(), lr=0.01)
num_batches, samples = 1, 3
for epoch in range(5):
    opt.zero_grad()
    nll, kl = 0.0, 0.0
    for _ in range(samples):
        pred = net(x)
        nll = nll - Normal(pred, 0.1).log_prob(y).sum()
        kl = kl + net.kl_loss()
    elbo_loss = (nll + kl / num_batches) / samples
    elbo_loss.backward()
    opt.step()
    print(epoch, f"{elbo_loss.item():.3f}")

sigma = torch.log1p(torch.exp(net.l1.w_rho))
mine = net.l1.kl(net.l1.w_mu, sigma)
theirs = kl_divergence(Normal(net.l1.w_mu, sigma), Normal(0.0, 1.0)).sum()
print(torch.allclose(mine, theirs))
with torch.no_grad():
    preds = torch.stack([net(x) for _ in range(20)])
pred_mean, pred_std = preds.mean(0), preds.std(0)
print(pred_mean[:3].squeeze(), pred_std[:3].squeeze())
