# after: diffusion-model learners sampling timesteps with torch.rand(...) * T (or torch.randint(...).float() for the time embedding) and indexing the schedule with them: alphas_cumprod[t] raises "tensors used as indices must be long, int, byte or bool tensors"
# expect: explained index-dtype
# mentions: t | long()
import torch
import torch.nn as nn

torch.manual_seed(5)
T = 100
betas = torch.linspace(1e-4, 0.02, T)
alphas_cumprod = torch.cumprod(1 - betas, dim=0)
model = nn.Linear(3, 2)
x0 = torch.randn(8, 2)
t = torch.randint(0, T, (8,)).float()
noise = torch.randn_like(x0)
a_bar = alphas_cumprod[t].unsqueeze(-1)
x_t = a_bar.sqrt() * x0 + (1 - a_bar).sqrt() * noise
pred = model(torch.cat([x_t, t.unsqueeze(-1) / T], dim=1))
loss = ((pred - noise) ** 2).mean()
loss.backward()
