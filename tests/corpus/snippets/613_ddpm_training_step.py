# after: DDPM from-scratch posts and "The Annotated Diffusion Model" (betas = torch.linspace(1e-4, 0.02, T), alphas_cumprod = torch.cumprod(1. - betas, dim=0), extract(a, t, x_shape) with a.gather(-1, t).reshape(b, 1, ...), q_sample = sqrt_alphas_cumprod_t * x_start + sqrt_one_minus_alphas_cumprod_t * noise, SinusoidalPositionEmbeddings of the timestep, a small MLP denoiser, F.mse_loss(noise, predicted_noise), a few Adam steps)
# expect: match
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
timesteps = 50
betas = torch.linspace(1e-4, 0.02, timesteps)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - alphas_cumprod)


def extract(a, t, x_shape):
    batch_size = t.shape[0]
    out = a.gather(-1, t.cpu())
    return out.reshape(batch_size, *((1,) * (len(x_shape) - 1))).to(t.device)


def q_sample(x_start, t, noise=None):
    if noise is None:
        noise = torch.randn_like(x_start)
    sqrt_alphas_cumprod_t = extract(sqrt_alphas_cumprod, t, x_start.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus_alphas_cumprod, t, x_start.shape)
    return sqrt_alphas_cumprod_t * x_start + sqrt_one_minus_alphas_cumprod_t * noise


class SinusoidalPositionEmbeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, time):
        half_dim = self.dim // 2
        embeddings = math.log(10000) / (half_dim - 1)
        embeddings = torch.exp(torch.arange(half_dim, device=time.device) * -embeddings)
        embeddings = time[:, None] * embeddings[None, :]
        return torch.cat((embeddings.sin(), embeddings.cos()), dim=-1)


class Denoiser(nn.Module):
    def __init__(self, data_dim=2, time_dim=8, hidden=32):
        super().__init__()
        self.time_mlp = nn.Sequential(
            SinusoidalPositionEmbeddings(time_dim), nn.Linear(time_dim, hidden), nn.GELU()
        )
        self.inp = nn.Linear(data_dim, hidden)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, data_dim))

    def forward(self, x, t):
        return self.out(self.inp(x) + self.time_mlp(t))


def p_losses(denoise_model, x_start, t, loss_type="l2"):
    noise = torch.randn_like(x_start)
    x_noisy = q_sample(x_start=x_start, t=t, noise=noise)
    predicted_noise = denoise_model(x_noisy, t)
    if loss_type == "l1":
        return F.l1_loss(noise, predicted_noise)
    if loss_type == "huber":
        return F.smooth_l1_loss(noise, predicted_noise)
    return F.mse_loss(noise, predicted_noise)


model = Denoiser()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.randn(64, 2) * torch.tensor([1.0, 0.3]) + torch.tensor([0.5, -1.0])
losses = []
for step in range(6):
    batch = data[step * 8 : (step + 1) * 8]
    optimizer.zero_grad()
    t = torch.randint(0, timesteps, (batch.shape[0],), device=batch.device).long()
    loss = p_losses(model, batch, t, loss_type="huber" if step == 5 else "l2")
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    print(f"step {step}: loss {loss.item():.4f}")
print(alphas_cumprod[-1], sqrt_one_minus_alphas_cumprod[:3])
