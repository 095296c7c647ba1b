# after: SNGAN-style discriminator (torch.nn.utils.parametrizations.spectral_norm on each Linear, loss = D(real) - D(fake) through two forward passes, weight_norm on the generator's layer, orthogonal with the cayley and householder maps)
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm

torch.manual_seed(11)
D = nn.Sequential(
    spectral_norm(nn.Linear(4, 16)),
    nn.LeakyReLU(0.2),
    spectral_norm(nn.Linear(16, 1)),
)
G = nn.Sequential(weight_norm(nn.Linear(2, 8), dim=None), nn.ReLU(), nn.Linear(8, 4))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
real = torch.randn(8, 4)
for step in range(3):
    fake = G(torch.randn(8, 2))
    loss_d = D(fake.detach()).mean() - D(real).mean()
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    loss_g = -D(fake).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    print(step, loss_d.item(), loss_g.item())
print(torch.linalg.matrix_norm(D[0].weight.detach(), ord=2))
print(G[0].parametrizations.weight.original0, G[0].parametrizations.weight.original1.grad.sum())

rot = orthogonal(nn.Linear(3, 3), orthogonal_map="cayley")
tall = orthogonal(nn.Linear(2, 5), orthogonal_map="householder")
w = tall.weight
print(torch.allclose(w.T @ w, torch.eye(2), atol=1e-6), w.shape)
out = rot(torch.randn(2, 3)).sum() + tall(torch.randn(3, 2)).pow(2).sum()
out.backward()
print(rot.parametrizations.weight.original.grad, tall.parametrizations.weight.original.grad)
