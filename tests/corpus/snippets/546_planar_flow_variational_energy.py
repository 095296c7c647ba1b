# after: "Variational Inference with Normalizing Flows" (Rezende & Mohamed) reimplementations (planar flows f(z) = z + u_hat * tanh(w . z + b) with u_hat enforcing w . u > -1 via softplus, log |1 + u_hat . psi|, a target density given by an energy function, the reverse-KL loss with the base Normal's log_prob)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal

torch.manual_seed(15)


class PlanarFlow(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.u = nn.Parameter(torch.randn(1, dim) * 0.01)
        self.w = nn.Parameter(torch.randn(1, dim) * 0.01)
        self.b = nn.Parameter(torch.randn(1) * 0.01)

    def forward(self, z):
        wu = (self.w * self.u).sum()
        u_hat = self.u + (-1 + F.softplus(wu) - wu) * self.w / (self.w**2).sum()
        lin = z @ self.w.t() + self.b
        f_z = z + u_hat * torch.tanh(lin)
        psi = (1 - torch.tanh(lin) ** 2) * self.w
        log_det = torch.log(torch.abs(1 + psi @ u_hat.t()) + 1e-8).squeeze(-1)
        return f_z, log_det


def energy(z):
    z1, z2 = z[:, 0], z[:, 1]
    return 0.5 * ((torch.norm(z, dim=1) - 2) / 0.4) ** 2 - torch.log(
        torch.exp(-0.5 * ((z1 - 2) / 0.6) ** 2) + torch.exp(-0.5 * ((z1 + 2) / 0.6) ** 2)
    )


flows = nn.ModuleList([PlanarFlow(2) for _ in range(4)])
base = Normal(torch.zeros(2), torch.ones(2))
opt = torch.optim.RMSprop(flows.parameters(), lr=1e-3, momentum=0.9)
for it in range(5):
    z0 = base.sample((16,))
    log_q = base.log_prob(z0).sum(-1)
    z = z0
    for flow in flows:
        z, ld = flow(z)
        log_q = log_q - ld
    loss = (log_q + energy(z)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(it, loss.item())
print(flows[0].u.grad, flows[-1].b)
