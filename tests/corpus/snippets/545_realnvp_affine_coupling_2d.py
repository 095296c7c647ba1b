# after: RealNVP-on-two-moons notebooks (affine coupling layers with a binary mask, s = tanh-scaled and t nets, z = x_ * exp(s) + t on the unmasked half, log_det_J summed over layers, prior = MultivariateNormal(torch.zeros(2), torch.eye(2)), loss = -(prior.log_prob(z) + logp).mean(), the inverse pass used to sample)
# expect: match
import torch
import torch.nn as nn
from torch import distributions

torch.manual_seed(14)


class RealNVP(nn.Module):
    def __init__(self, nets, nett, mask, prior):
        super().__init__()
        self.prior = prior
        self.mask = nn.Parameter(mask, requires_grad=False)
        self.t = torch.nn.ModuleList([nett() for _ in range(len(mask))])
        self.s = torch.nn.ModuleList([nets() for _ in range(len(mask))])

    def g(self, z):
        x = z
        for i in range(len(self.t)):
            x_ = x * self.mask[i]
            s = self.s[i](x_) * (1 - self.mask[i])
            t = self.t[i](x_) * (1 - self.mask[i])
            x = x_ + (1 - self.mask[i]) * (x * torch.exp(s) + t)
        return x

    def f(self, x):
        log_det_J, z = x.new_zeros(x.shape[0]), x
        for i in reversed(range(len(self.t))):
            z_ = self.mask[i] * z
            s = self.s[i](z_) * (1 - self.mask[i])
            t = self.t[i](z_) * (1 - self.mask[i])
            z = (1 - self.mask[i]) * (z - t) * torch.exp(-s) + z_
            log_det_J -= s.sum(dim=1)
        return z, log_det_J

    def log_prob(self, x):
        z, logp = self.f(x)
        return self.prior.log_prob(z) + logp

    def sample(self, batchSize):
        z = self.prior.sample((batchSize,))
        return self.g(z)


nets = lambda: nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(), nn.Linear(16, 2), nn.Tanh())
nett = lambda: nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(), nn.Linear(16, 2))
masks = torch.tensor([[0, 1], [1, 0]] * 2, dtype=torch.float32)
prior = distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
flow = RealNVP(nets, nett, masks, prior)
optimizer = torch.optim.Adam([p for p in flow.parameters() if p.requires_grad], lr=1e-3)
for t in range(5):
    noisy_moons = torch.randn(10, 2) * torch.tensor([1.0, 0.3]) + torch.tensor([0.5, 0.25])
    loss = -flow.log_prob(noisy_moons).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
    print("iter %s:" % t, "loss = %.3f" % loss)
z, _ = flow.f(noisy_moons)
x_back = flow.g(z)
print((x_back - noisy_moons).abs().max().item() < 1e-5)
print(flow.sample(3).detach(), flow.mask.grad)
