# after: Lilian Weng's "What are Diffusion Models?" and Yang Song's score-matching tutorials (a score network s_theta(x, sigma) conditioned on the noise level, denoising score matching with x_tilde = x + sigma * z, target = -z / sigma, loss weighted by sigma^2 over geometric sigmas torch.exp(torch.linspace(log 1, log 0.01, L)); the exact score of a Gaussian as a check; and annealed Langevin dynamics sampling x = x + step / 2 * score + sqrt(step) * noise under torch.no_grad)
# expect: match
import math

import torch
import torch.nn as nn

torch.manual_seed(25)
L = 5
sigmas = torch.exp(torch.linspace(math.log(1.0), math.log(0.01), L))


class ScoreNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 32), nn.Softplus(), nn.Linear(32, 32), nn.Softplus(), nn.Linear(32, 2))

    def forward(self, x, sigma):
        return self.net(torch.cat([x, sigma.log()], dim=1)) / sigma


def dsm_loss(model, x):
    labels = torch.randint(0, L, (x.shape[0],))
    used_sigmas = sigmas[labels].view(x.shape[0], 1)
    z = torch.randn_like(x)
    perturbed = x + used_sigmas * z
    target = -z / used_sigmas
    scores = model(perturbed, used_sigmas)
    return (0.5 * ((scores - target) ** 2).sum(dim=-1) * used_sigmas.squeeze(-1) ** 2).mean()


data = torch.randn(128, 2) * 0.5 + torch.tensor([1.0, -1.0])
model = ScoreNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(4):
    batch = data[step * 32 : (step + 1) * 32]
    loss = dsm_loss(model, batch)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}")

x = torch.randn(6, 2, requires_grad=True)
log_p = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2) * 2.0).log_prob(x).sum()
(exact_score,) = torch.autograd.grad(log_p, x)
print(torch.allclose(exact_score, -x / 2.0))


@torch.no_grad()
def anneal_langevin_dynamics(x_mod, model, n_steps_each=3, step_lr=1e-4):
    for sigma in sigmas:
        s = torch.ones(x_mod.shape[0], 1) * sigma
        step_size = step_lr * (sigma / sigmas[-1]) ** 2
        for _ in range(n_steps_each):
            noise = torch.randn_like(x_mod) * torch.sqrt(step_size * 2)
            grad = model(x_mod, s)
            x_mod = x_mod + step_size * grad + noise
    return x_mod


samples = anneal_langevin_dynamics(torch.rand(4, 2), model)
print(samples)
